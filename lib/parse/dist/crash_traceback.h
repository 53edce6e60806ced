// Python tracebacks in a log where ranks interleave: "Traceback (most recent
// call last):" opens one for the line's stream (crash_stream.h); its "  File
// ..." lines, source lines and "^^^^" markers follow; the exception line
// ("RuntimeError: ...", "torch.OutOfMemoryError: ...", "KeyboardInterrupt")
// ends it. Lines of other streams pass through without touching it. A chain
// ("During handling of the above exception, another exception occurred:",
// "The above exception was the direct cause of the following exception:")
// is one crash: its event is on the last exception line, with the first
// exception of the chain added to the detail.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "index/index_types.h"
#include "parse/dist/crash_stream.h"

namespace casefile::dist::crash {

// Bytes of exception text kept in a crash's detail.
inline constexpr size_t kMaxDetailBytes = 512;

// True for "Name: text" or a bare "Name" (with a capital letter), Name a
// dotted Python identifier that is not a logging level word ("INFO:root:");
// also a module's lower-case error class ("socket.gaierror: ...",
// "socket.timeout: timed out").
bool IsExceptionLine(std::string_view msg);

class TracebackTracker {
 public:
  using Sink = std::function<void(DistEventRow)>;

  // `start` makes a crash row for a line (DistEmitter::Start). Returns true
  // when the line was part of a traceback (its opening, body, separator or
  // exception line); the caller then looks for nothing else in it.
  bool AddLine(const LineRecord& line, const StreamView& stream, std::string_view msg,
               const std::function<DistEventRow(const LineRecord&)>& start, const Sink& emit);
  // Emits what is still open: a traceback never ended gets its event on
  // the Traceback line with no detail; one whose exception was read gets it
  // on the exception line.
  void Finish(const Sink& emit);
  bool empty() const { return open_.empty(); }

 private:
  enum class Phase {
    kBody,       // after "Traceback ...", before the exception line
    kEnded,      // the exception line was read; a chain separator may follow
    kSeparator,  // a chain separator was read; the next traceback continues the chain
  };
  struct Open {
    StreamKey key;
    Phase phase = Phase::kBody;
    DistEventRow opening;   // row of the (last) Traceback line: the event when none ended
    DistEventRow ended;     // row of the last exception line read
    std::string exception;  // its text
    std::string first;      // text of the chain's first exception
    int exceptions = 0;     // exception lines read in the chain
    int64_t last_line = 0;  // the stream's last line seen in this traceback
    int stray = 0;          // unindented lines that fit no traceback part
    // Blanks before "Traceback" on its line: pip and ninja indent a child's
    // whole output, so its exception line is indented as much, and only a
    // deeper line is a frame.
    size_t indent = 0;
    // Python printed "Exception ignored in: ..." or "Exception in thread
    // X:" just before: the process went on; no event is emitted.
    bool survived = false;
  };

  void Close(Open& t, const Sink& emit);
  void ExpireOld(int64_t line_no, const Sink& emit);

  // Tracebacks open at once per file; the oldest is closed beyond this.
  static constexpr size_t kMaxOpen = 256;
  // Unindented lines that are not a traceback's after which it is taken as
  // cut short (its exception line was lost) and closed.
  static constexpr int kMaxStray = 8;
  // File lines after which a traceback whose stream fell silent is closed,
  // so that a cut traceback does not keep every later line under watch.
  static constexpr int64_t kMaxSilentLines = 10000;

  // "Exception ignored in:" / "Exception in thread X:" lines, per stream,
  // waiting for the Traceback line that follows them.
  static constexpr size_t kMaxSurvivors = 64;
  static constexpr int64_t kSurvivorReach = 3;  // lines to the Traceback
  std::vector<std::pair<StreamKey, int64_t>> survivors_;

  std::vector<Open> open_;  // oldest first
  int64_t next_expiry_check_ = 0;
};

}  // namespace casefile::dist::crash
