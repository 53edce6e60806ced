#include "parse/dist/launcher_torchrun.h"

#include <algorithm>

#include "parse/dist/dist_kinds.h"
#include "parse/dist/launcher_text.h"
#include "parse/line/scan.h"
#include "parse/line/timestamp.h"

namespace casefile::dist::launcher {
namespace {

// More open blocks than this in one file is not a set of agents' summaries;
// the oldest is emitted and dropped.
constexpr size_t kMaxBlocks = 16;
// A traceback longer than this is cut: its entry is emitted and the block
// closed, so a summary missing its closing border cannot swallow the file.
constexpr int kMaxTracebackLines = 400;
// Blank lines tolerated inside a block (the template has none).
constexpr int kMaxBlankLines = 3;
// Longest exception line kept in a detail.
constexpr size_t kMaxException = 300;

constexpr std::string_view kRootCause = "Root Cause (first observed failure)";

// 1 for a section line of '-', 2 for a border of '=', 0 otherwise.
int BorderKind(std::string_view t) {
  if (t.size() < 8 || (t[0] != '-' && t[0] != '=')) return 0;
  for (char c : t) {
    if (c != t[0]) return 0;
  }
  return t[0] == '=' ? 2 : 1;
}

// "[3]:", the enumeration index of an entry (not a rank).
bool IsEntryHeader(std::string_view t) {
  if (t.size() < 4 || t[0] != '[' || t.back() != ':' || t[t.size() - 2] != ']') return false;
  for (size_t i = 1; i + 2 < t.size(); ++i) {
    if (!scan::IsDigit(t[i])) return false;
  }
  return true;
}

// "exitcode  : -9 (pid: 1322)" -> key "exitcode", value "-9 (pid: 1322)".
bool SplitField(std::string_view t, std::string_view* key, std::string_view* value) {
  size_t i = 0;
  while (i < t.size() && (scan::IsLower(t[i]) || t[i] == '_')) ++i;
  if (i == 0) return false;
  size_t j = i;
  while (j < t.size() && t[j] == ' ') ++j;
  if (!scan::At(t, j, ':')) return false;
  *key = t.substr(0, i);
  *value = TrimBlanks(t.substr(j + 1));
  return true;
}

// An exception line of a Python traceback: "RuntimeError: ...",
// "torch.distributed.DistBackendError: ...", "KeyboardInterrupt".
bool LooksLikeException(std::string_view t) {
  size_t i = 0;
  while (i < t.size() && (scan::IsAlnum(t[i]) || t[i] == '_' || t[i] == '.')) ++i;
  if (i < 3 || !scan::IsAlpha(t[0])) return false;
  if (i < t.size() && !(t[i] == ':' && (i + 1 == t.size() || t[i + 1] == ' '))) return false;
  const std::string_view name = t.substr(0, i);
  for (std::string_view w : {"Error", "Exception", "Interrupt", "Exit", "Fault"}) {
    if (name.find(w) != kNpos) return true;
  }
  return false;
}

}  // namespace

bool TorchrunSummary::AddLine(const LineRecord& line, std::string_view msg,
                              const DistEmitter& out) {
  const std::string_view t = TrimBlanks(msg);
  size_t index = blocks_.size();
  for (size_t i = 0; i < blocks_.size(); ++i) {
    if (blocks_[i].rank == line.rank && blocks_[i].host == line.host) {
      index = i;
      break;
    }
  }
  if (index == blocks_.size()) {
    if (t != "Failures:" && t.find(kRootCause) == kNpos) return false;
    if (blocks_.size() >= kMaxBlocks) Close(0, out);
    Block b;
    b.host = std::string(line.host);
    b.rank = line.rank;
    blocks_.push_back(std::move(b));
    index = blocks_.size() - 1;
  }
  switch (Feed(blocks_[index], line, t, out)) {
    case Fed::kTaken:
      return true;
    case Fed::kTakenAndClose:
      Close(index, out);
      return true;
    case Fed::kForeign:
      break;
  }
  Close(index, out);
  return false;
}

void TorchrunSummary::Finish(const DistEmitter& out) {
  while (!blocks_.empty()) Close(0, out);
}

void TorchrunSummary::Close(size_t index, const DistEmitter& out) {
  Flush(blocks_[index], out);
  blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(index));
}

TorchrunSummary::Fed TorchrunSummary::Feed(Block& b, const LineRecord& line, std::string_view t,
                                           const DistEmitter& out) {
  Entry& e = b.entry;
  if (t == "Failures:" || t.find(kRootCause) != kNpos) {
    Flush(b, out);
    b.root_section = t != "Failures:";
    b.blank_lines = 0;
    return Fed::kTaken;
  }
  if (const int border = BorderKind(t)) {
    Flush(b, out);
    // The root cause comes last and the summary closes with '='; '-' only
    // separates the Failures section from it.
    return border == 2 ? Fed::kTakenAndClose : Fed::kTaken;
  }
  if (IsEntryHeader(t)) {
    Flush(b, out);
    e = Entry();
    e.open = true;
    e.root_cause = b.root_section;
    e.row = out.Start(line, kLauncherFailure);
    return Fed::kTaken;
  }
  if (t == "<NO_OTHER_FAILURES>") return Fed::kTaken;
  if (t.empty()) {
    return ++b.blank_lines > kMaxBlankLines ? Fed::kTakenAndClose : Fed::kTaken;
  }
  if (e.open && e.in_traceback) {
    // Everything up to the next entry or border is the traceback.
    ScanTraceback(e, t);
    return ++e.traceback_lines > kMaxTracebackLines ? Fed::kTakenAndClose : Fed::kTaken;
  }
  std::string_view key, value;
  if (e.open && SplitField(t, &key, &value)) {
    Field(e, line, key, value);
    return Fed::kTaken;
  }
  return Fed::kForeign;
}

void TorchrunSummary::Field(Entry& e, const LineRecord& line, std::string_view key,
                            std::string_view value) {
  int64_t v = 0;
  if (key == "exitcode") {
    if (ReadInt(value, 0, &v) == 0) return;
    e.has_code = true;
    e.code = v;
    IntAfter(value, "pid:", &e.pid);
    e.row.line_no = line.line_no;
    if (line.ts_us != kNoTimestamp) e.row.ts_us = line.ts_us;
  } else if (key == "rank") {
    if (ReadInt(value, 0, &v) == 0 || v < 0) return;
    e.row.rank = v;
    e.named = true;
    IntAfter(value, "local_rank:", &e.local_rank);
  } else if (key == "host") {
    const std::string_view host = HostAt(value, 0);
    if (host.empty()) return;
    SetHost(e.row, host);
    e.named = true;
  } else if (key == "time") {
    // "2023-05-19_16:39:58": isoformat(sep="_") of the agent's local time.
    char buf[40];
    const size_t n = std::min(value.size(), sizeof(buf));
    value.copy(buf, n);
    if (n > 10 && buf[10] == '_') buf[10] = ' ';
    const ParsedTime pt = ParseIsoTime(std::string_view(buf, n));
    if (pt.consumed > 0) {
      e.time_us = pt.us;
      e.has_time = true;
    }
  } else if (key == "traceback") {
    e.in_traceback = true;
    ScanTraceback(e, value);
  }
}

void TorchrunSummary::ScanTraceback(Entry& e, std::string_view t) {
  // "Signal 9 (SIGKILL) received by PID 1322": torch names the signal itself.
  const size_t sig = t.find("Signal ");
  if (sig != kNpos && t.find("received by PID", sig) != kNpos) {
    const size_t open = t.find(" (", sig);
    const size_t close = open == kNpos ? kNpos : t.find(')', open);
    if (close != kNpos && close - open - 2 <= 16) {
      e.signal = std::string(t.substr(open + 2, close - open - 2));
    }
    return;
  }
  if (LooksLikeException(t)) {
    e.exception.clear();
    AppendCapped(e.exception, t, kMaxException);
  }
}

void TorchrunSummary::Flush(Block& b, const DistEmitter& out) {
  Entry& e = b.entry;
  if (!e.open) return;
  e.open = false;
  b.blank_lines = 0;
  // An entry cut before it said anything about the worker tells nothing.
  if (!e.has_code && !e.named) return;
  DistEventRow row = std::move(e.row);
  row.op = "torchrun";
  std::string detail = e.root_cause ? "root cause: " : "failure: ";
  if (e.has_code) {
    row.value = static_cast<double>(e.code);
    if (!e.signal.empty() && e.code < 0) {
      detail += "exitcode " + std::to_string(e.code) + " (" + e.signal + ")";
    } else {
      detail += CodeText("exitcode", e.code);
    }
  } else {
    detail += "exitcode unknown";
  }
  if (e.local_rank >= 0) detail += ", local_rank " + std::to_string(e.local_rank);
  if (e.pid >= 0) detail += ", pid " + std::to_string(e.pid);
  if (!e.exception.empty()) {
    detail += "; ";
    AppendCapped(detail, e.exception);
  }
  // The summary's lines carry no time of their own unless a wrapper added
  // one; the entry's "time" is the agent's local clock, read as UTC like
  // every other zone-less stamp.
  if (row.ts_us == kNoTimestamp && e.has_time) row.ts_us = e.time_us;
  row.detail = std::move(detail);
  out.Emit(row);
}

bool ParseTorchrunAgentLine(const LineRecord& line, std::string_view msg, const DistEmitter& out) {
  constexpr std::string_view kFailed = "failed (exitcode: ";
  const size_t at = msg.find(kFailed);
  if (at == kNpos) return false;
  int64_t code = 0;
  if (ReadInt(msg, at + kFailed.size(), &code) == 0) return false;
  int64_t local_rank = -1;
  int64_t pid = -1;
  IntAfter(msg, "local_rank:", &local_rank, at);
  IntAfter(msg, "(pid:", &pid, at);
  DistEventRow row = out.Start(line, kLauncherFailure);
  row.op = "torchrun";
  row.value = static_cast<double>(code);
  std::string detail;
  if (local_rank >= 0) detail = "local_rank " + std::to_string(local_rank) + ", ";
  detail += CodeText("exitcode", code);
  if (pid >= 0) detail += ", pid " + std::to_string(pid);
  row.detail = std::move(detail);
  out.Emit(row);
  return true;
}

}  // namespace casefile::dist::launcher
