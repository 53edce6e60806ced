// kCrash: where a rank's process died. Python tracebacks (crash_traceback.h)
// and the fatal lines of native code:
//   "Fatal Python error: Segmentation fault" (faulthandler),
//   "*** SIGSEGV (@0x0) received by PID 1234 (TID 0x7f..) from PID 0; stack
//   trace: ***" (glog's failure handler),
//   "Caught signal 11 (Segmentation fault: address not mapped ...)" (UCX),
//   "terminate called after throwing an instance of 'c10::Error'" then
//   "  what():  CUDA error: ..." (the C++ runtime; the event is on the what()
//   line, detail "c10::Error: CUDA error: ..."),
//   "Segmentation fault (core dumped)", "Aborted (core dumped)" (the shell).
// An abort usually follows an error the process already printed (what(),
// a traceback): its detail names that error ("Aborted (core dumped) after:
// c10::DistBackendError: ... Watchdog caught ..."), so a reader can tell a
// first failure from the abort that a timeout caused.
//
// Reject path: the family reads only lines that hold one of its anchors
// (dist_prefilter.h, kAnchorCrash: one per message above), and every line
// while a traceback or a "terminate called" is pending. Behind the anchor,
// MayBeFatal() checks the literals themselves before any parsing.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "parse/dist/crash_stream.h"
#include "parse/dist/crash_traceback.h"
#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/dist/torch_watchdog_fields.h"  // ContainsAt

namespace casefile::dist {
namespace {

using crash::kMaxDetailBytes;
constexpr size_t npos = std::string_view::npos;

bool MayBeFatal(std::string_view msg) {
  return msg.find("Traceback") != npos || msg.find("Fatal Python error") != npos ||
         msg.find("Exception ignored in") != npos || msg.find("Exception in thread") != npos ||
         msg.find("Segmentation fault") != npos || msg.find("*** SIG") != npos ||
         msg.find("Caught signal") != npos || torch::ContainsAt(msg, "terminate called", 3) ||
         msg.find("what():") != npos || msg.find("Aborted") != npos;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string_view ClipBytes(std::string_view s, size_t max) {
  if (s.size() <= max) return s;
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

// "Aborted (core dumped)" as bash prints it, with the job's pid and command
// around it ("line 1: 12345 Aborted                 (core dumped) python
// train.py"), or a bare "Aborted".
std::string_view AbortAt(std::string_view msg) {
  const size_t at = msg.find("Aborted");
  if (at == npos) return {};
  size_t i = at + 7;
  while (i < msg.size() && msg[i] == ' ') ++i;
  if (msg.substr(i, 13) == "(core dumped)") return "Aborted (core dumped)";
  if (Trim(msg) == "Aborted") return "Aborted";
  return {};
}

class CrashFamily : public DistFamily {
 public:
  CrashFamily() : DistFamily(kAnchorCrash) {}

  bool ReadLine(const LineRecord& line, uint32_t /*anchors*/, const DistEmitter& out) override {
    Read(line, out);
    // A pending traceback or terminate reads the lines that follow it.
    return !tracebacks_.empty() || !terminates_.empty();
  }

  void Finish(const DistEmitter& out) override {
    tracebacks_.Finish([this, &out](DistEventRow row) { Emit(std::move(row), out); });
    for (Terminate& t : terminates_) Emit(std::move(t.row), out);
    terminates_.clear();
  }

 private:
  void Read(const LineRecord& line, const DistEmitter& out) {
    const std::string_view msg = line.message();
    if (tracebacks_.empty() && terminates_.empty() && !MayBeFatal(msg)) return;
    const crash::StreamView stream = crash::StreamOf(line);
    const auto start = [&out](const LineRecord& l) { return out.Start(l, kCrash); };
    const auto emit = [this, &out](DistEventRow row) { Emit(std::move(row), out); };
    if (tracebacks_.AddLine(line, stream, msg, start, emit)) return;
    if (!terminates_.empty() && ResolveTerminate(line, stream, msg, out)) return;
    ReadFatalLine(line, stream, msg, out);
  }

  // Crash events per (host, rank) per file: a crash loop or a log of
  // restarts must not flood the index; the first ones are what matter.
  static constexpr int kMaxPerRank = 64;
  // (host, rank) pairs counted per file.
  static constexpr size_t kMaxRanks = 4096;
  // "terminate called ..." lines waiting for their what() line.
  static constexpr size_t kMaxTerminates = 64;
  // How far back an abort looks for the error it follows when its own
  // stream printed none (bash prints "Aborted" without the rank's prefix).
  static constexpr int64_t kAbortContextLines = 64;

  struct RankCrashes {
    int count = 0;
    std::string last_detail;
  };
  struct Terminate {
    crash::StreamKey key;
    DistEventRow row;  // the terminate line, detail = the exception type
  };

  void Emit(DistEventRow row, const DistEmitter& out) {
    std::string key = row.host.value_or("");
    key.push_back('\x1f');
    key.append(row.rank ? std::to_string(*row.rank) : "-");
    auto it = ranks_.find(key);
    if (it == ranks_.end()) {
      if (ranks_.size() >= kMaxRanks) return;
      it = ranks_.emplace(std::move(key), RankCrashes{}).first;
    }
    if (it->second.count >= kMaxPerRank) return;
    ++it->second.count;
    if (row.detail) {
      it->second.last_detail = *row.detail;
      last_detail_ = *row.detail;
      last_detail_line_ = row.line_no;
    }
    out.Emit(row);
  }

  // The error an abort on `line` follows, or "".
  std::string AbortContext(const DistEventRow& row) const {
    std::string key = row.host.value_or("");
    key.push_back('\x1f');
    key.append(row.rank ? std::to_string(*row.rank) : "-");
    if (auto it = ranks_.find(key); it != ranks_.end() && !it->second.last_detail.empty()) {
      return it->second.last_detail;
    }
    if (!last_detail_.empty() && row.line_no - last_detail_line_ <= kAbortContextLines) {
      return last_detail_;
    }
    return {};
  }

  void EmitAbort(DistEventRow row, std::string_view text, const DistEmitter& out) {
    std::string detail(ClipBytes(text, kMaxDetailBytes));
    const std::string context = AbortContext(row);
    if (!context.empty() && context.rfind(detail, 0) != 0) {
      detail.append(" after: ");
      detail.append(ClipBytes(context, kMaxDetailBytes - std::min(detail.size(), kMaxDetailBytes)));
    }
    row.detail = std::string(ClipBytes(detail, kMaxDetailBytes));
    Emit(std::move(row), out);
  }

  // A line of a stream with a pending "terminate called": its what() line
  // completes it; any other line means none came. Returns true when the
  // line was the what() line.
  bool ResolveTerminate(const LineRecord& line, const crash::StreamView& stream,
                        std::string_view msg, const DistEmitter& out) {
    auto it = std::find_if(terminates_.begin(), terminates_.end(),
                           [&](const Terminate& t) { return t.key.Is(stream); });
    if (it == terminates_.end()) return false;
    const size_t what = msg.find("what():");
    if (what == npos) {
      Emit(std::move(it->row), out);
      terminates_.erase(it);
      return false;
    }
    DistEventRow row = out.Start(line, kCrash);
    std::string detail = it->row.detail.value_or("");
    const std::string_view text = Trim(msg.substr(what + 7));
    if (!text.empty()) {
      if (!detail.empty()) detail.append(": ");
      detail.append(ClipBytes(text, kMaxDetailBytes - std::min(detail.size(), kMaxDetailBytes)));
    }
    row.detail = std::string(ClipBytes(detail, kMaxDetailBytes));
    terminates_.erase(it);
    Emit(std::move(row), out);
    return true;
  }

  void ReadFatalLine(const LineRecord& line, const crash::StreamView& stream, std::string_view msg,
                     const DistEmitter& out) {
    if (const size_t at = msg.find("terminate called"); at != npos) {
      DistEventRow row = out.Start(line, kCrash);
      const std::string_view rest = msg.substr(at);
      const size_t quote = rest.find("instance of '");
      if (quote == npos) {
        // "terminate called without an active exception", "... recursively"
        row.detail = std::string(ClipBytes(Trim(rest), kMaxDetailBytes));
        Emit(std::move(row), out);
        return;
      }
      std::string_view type = rest.substr(quote + 13);
      type = type.substr(0, type.find('\''));
      row.detail = std::string(ClipBytes(type, kMaxDetailBytes / 2));
      if (terminates_.size() >= kMaxTerminates) {
        Emit(std::move(terminates_.front().row), out);
        terminates_.erase(terminates_.begin());
      }
      terminates_.push_back({crash::StreamKey(stream), std::move(row)});
      return;
    }
    if (const size_t at = msg.find("what():"); at != npos) {
      // A what() whose terminate line is lost (cut, or another stream's).
      DistEventRow row = out.Start(line, kCrash);
      row.detail = std::string(ClipBytes(Trim(msg.substr(at + 7)), kMaxDetailBytes));
      Emit(std::move(row), out);
      return;
    }
    if (const size_t at = msg.find("Fatal Python error"); at != npos) {
      const std::string_view text = Trim(msg.substr(at));
      if (text.find("Aborted") != npos) {
        EmitAbort(out.Start(line, kCrash), text, out);
      } else {
        DistEventRow row = out.Start(line, kCrash);
        row.detail = std::string(ClipBytes(text, kMaxDetailBytes));
        Emit(std::move(row), out);
      }
      return;
    }
    if (const size_t at = msg.find("Caught signal "); at != npos) {
      std::string_view text = msg.substr(at);
      if (const size_t close = text.find(')'); close != npos) text = text.substr(0, close + 1);
      DistEventRow row = out.Start(line, kCrash);
      row.detail = std::string(ClipBytes(Trim(text), kMaxDetailBytes));
      Emit(std::move(row), out);
      return;
    }
    if (const size_t at = msg.find("*** SIG"); at != npos) {
      // "*** SIGSEGV (@0x0) received by PID 1234 (TID 0x7f) from PID 0; stack
      // trace: ***" -> "SIGSEGV (@0x0) received by PID 1234"
      std::string_view text = msg.substr(at + 4);
      for (std::string_view stop : {" (TID", ";", " ***"}) {
        if (const size_t s = text.find(stop); s != npos) text = text.substr(0, s);
      }
      text = Trim(text);
      if (text.substr(0, 7) == "SIGABRT") {
        EmitAbort(out.Start(line, kCrash), text, out);
      } else {
        DistEventRow row = out.Start(line, kCrash);
        row.detail = std::string(ClipBytes(text, kMaxDetailBytes));
        Emit(std::move(row), out);
      }
      return;
    }
    if (const size_t at = msg.find("Segmentation fault"); at != npos) {
      DistEventRow row = out.Start(line, kCrash);
      size_t i = at + 18;
      while (i < msg.size() && msg[i] == ' ') ++i;
      row.detail = msg.substr(i, 13) == "(core dumped)" ? "Segmentation fault (core dumped)"
                                                        : "Segmentation fault";
      Emit(std::move(row), out);
      return;
    }
    if (const std::string_view abort = AbortAt(msg); !abort.empty()) {
      EmitAbort(out.Start(line, kCrash), abort, out);
    }
  }

  crash::TracebackTracker tracebacks_;
  std::vector<Terminate> terminates_;  // oldest first
  std::map<std::string, RankCrashes> ranks_;
  std::string last_detail_;  // the file's last crash detail, and its line
  int64_t last_detail_line_ = 0;
};

}  // namespace

std::unique_ptr<DistFamily> MakeCrashFamily() { return std::make_unique<CrashFamily>(); }

}  // namespace casefile::dist
