#include "parse/dist/launcher_mpi.h"

#include "parse/dist/dist_kinds.h"
#include "parse/dist/launcher_text.h"
#include "parse/line/scan.h"

namespace casefile::dist::launcher {
namespace {

// Longest first line kept while waiting for the rest of a wrapped report.
constexpr size_t kMaxPendingText = 512;
// Lines between "detected that one or more processes exited" and the "Exit
// code:" line of its block (a blank line and "Process name:" in practice).
constexpr int kFirstProcessLines = 6;

// What a rank-exit report says. `complete` once it names how the rank
// ended.
struct ExitReport {
  int64_t rank = -1;
  std::string_view host;
  bool complete = false;
  bool has_value = false;
  int64_t value = 0;
  std::string detail;
};

ExitReport ReadExitReport(std::string_view s) {
  ExitReport r;
  int64_t v = 0;
  if (IntAfter(s, "process rank ", &v) || IntAfter(s, "job rank ", &v)) r.rank = v;
  const size_t node = s.find("on node ");
  if (node != kNpos) {
    size_t i = node + 8;
    if (scan::At(s, i, '"')) ++i;
    r.host = HostAt(s, i);
  }
  const size_t sig = s.find("exited on signal ");
  if (sig != kNpos && IntAfter(s, "exited on signal ", &v, sig) && v > 0) {
    r.complete = r.has_value = true;
    r.value = -v;
    r.detail = "exited on signal " + std::to_string(v);
    // "(Killed)": the signal's strsignal() text.
    const size_t open = s.find(" (", sig);
    const size_t close = open == kNpos ? kNpos : s.find(')', open);
    if (close != kNpos && close - open < 40) {
      r.detail += ' ';
      r.detail.append(s.substr(open + 1, close - open));
    }
    return r;
  }
  if (IntAfter(s, "exited with status ", &v)) {
    r.complete = r.has_value = true;
    r.value = v;
    r.detail = "exited with status " + std::to_string(v);
    return r;
  }
  if (s.find("exiting improperly") != kNpos) {
    r.complete = true;
    r.detail = "exited improperly";
  } else if (s.find("calling \"abort\"") != kNpos || s.find("calling abort") != kNpos) {
    r.complete = true;
    r.detail = "called abort";
  }
  return r;
}

void EmitExit(DistEventRow row, const ExitReport& r, const DistEmitter& out) {
  row.op = "mpi";
  if (r.rank >= 0) row.rank = r.rank;
  SetHost(row, r.host);
  if (r.has_value) row.value = static_cast<double>(r.value);
  row.detail = r.detail.empty() ? "exited" : r.detail;
  out.Emit(row);
}

// "[[17468,1],3]" -> 3.
bool ProcessNameRank(std::string_view t, int64_t* rank) {
  const size_t close = t.find("],");
  if (close == kNpos || t.find("[[") == kNpos) return false;
  return ReadInt(t, close + 2, rank) > 0 && *rank >= 0;
}

}  // namespace

bool MpiReports::AddLine(const LineRecord& line, std::string_view msg, const DistEmitter& out) {
  constexpr std::string_view kAbort = "MPI_ABORT was invoked on rank ";
  const size_t abort = msg.find(kAbort);
  if (abort != kNpos) {
    int64_t rank = -1;
    if (ReadInt(msg, abort + kAbort.size(), &rank) == 0) return false;
    row_ = out.Start(line, kLauncherFailure);
    row_.op = "mpi";
    // The rank is global only in MPI_COMM_WORLD; another communicator's rank
    // stays in the detail.
    const bool world = msg.find("MPI_COMM_WORLD", abort) != kNpos;
    if (world) row_.rank = rank;
    row_.detail = world ? "MPI_ABORT"
                        : "MPI_ABORT on rank " + std::to_string(rank) + " of another communicator";
    has_row_ = true;
    int64_t code = 0;
    if (IntAfter(msg, "with errorcode", &code, abort)) {
      row_.value = static_cast<double>(code);
      *row_.detail += " errorcode " + std::to_string(code);
      EmitPending(out);
    } else {
      wait_ = Wait::kAbortCode;
    }
    return true;
  }
  if (msg.find("exited with non-zero status") != kNpos && msg.find("detected that") != kNpos) {
    wait_ = Wait::kFirstProcess;
    lines_left_ = kFirstProcessLines;
    has_row_ = false;
    return true;
  }
  const bool noticed = msg.find("noticed that ") != kNpos;
  const bool due = msg.find("has exited due to ") != kNpos;
  if (!noticed && !due && msg.find("process rank ") == kNpos) return false;
  const ExitReport r = ReadExitReport(msg);
  if (r.complete) {
    EmitExit(out.Start(line, kLauncherFailure), r, out);
    return true;
  }
  // Only a report that names the rank is worth waiting for.
  if ((!noticed && !due) || r.rank < 0) return false;
  // mpirun's help text is often hard-wrapped: the rest comes on the next line.
  row_ = out.Start(line, kLauncherFailure);
  has_row_ = true;
  text_.clear();
  AppendCapped(text_, TrimBlanks(msg), kMaxPendingText);
  wait_ = Wait::kExit;
  return true;
}

bool MpiReports::Continue(const LineRecord& line, std::string_view msg, const DistEmitter& out) {
  const std::string_view t = TrimBlanks(msg);
  switch (wait_) {
    case Wait::kNone:
      return false;
    case Wait::kAbortCode: {
      int64_t code = 0;
      const bool taken = IntAfter(t, "with errorcode", &code);
      if (taken) {
        row_.value = static_cast<double>(code);
        *row_.detail += " errorcode " + std::to_string(code);
      }
      EmitPending(out);
      return taken;
    }
    case Wait::kExit: {
      std::string joined = text_;
      joined += ' ';
      AppendCapped(joined, t, 2 * kMaxPendingText);
      const ExitReport r = ReadExitReport(joined);
      EmitExit(std::move(row_), r, out);
      has_row_ = false;
      wait_ = Wait::kNone;
      return r.complete;
    }
    case Wait::kFirstProcess: {
      int64_t v = 0;
      if (scan::LiteralAt(t, 0, "Process name:") && ProcessNameRank(t, &v)) {
        row_ = out.Start(line, kLauncherFailure);
        row_.op = "mpi";
        row_.rank = v;
        row_.detail = "first process to exit with non-zero status";
        has_row_ = true;
        return true;
      }
      if (has_row_ && scan::LiteralAt(t, 0, "Exit code:") && IntAfter(t, "Exit code:", &v)) {
        row_.line_no = line.line_no;
        if (line.ts_us != kNoTimestamp) row_.ts_us = line.ts_us;
        row_.value = static_cast<double>(v);
        *row_.detail += ", " + CodeText("exit code", v);
        EmitPending(out);
        return true;
      }
      if (--lines_left_ <= 0) EmitPending(out);
      return false;
    }
  }
  return false;
}

void MpiReports::Finish(const DistEmitter& out) {
  if (wait_ == Wait::kExit && has_row_) {
    EmitExit(std::move(row_), ReadExitReport(text_), out);
    has_row_ = false;
    wait_ = Wait::kNone;
    return;
  }
  EmitPending(out);
}

void MpiReports::EmitPending(const DistEmitter& out) {
  if (has_row_) out.Emit(row_);
  has_row_ = false;
  wait_ = Wait::kNone;
}

}  // namespace casefile::dist::launcher
