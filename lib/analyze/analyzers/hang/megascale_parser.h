// Reads the Megascale (MXLA) hang messages out of the lines of one log file:
// the workers' "Megascale hang detected: Timed out waiting for ..." reports
// and the coordinator's digests ("Megascale detects a hang ..." with its
// "Full error digest:" body, and "Some workers have halted with an
// unrecoverable error:"). Lines are fed in file order; views in a fed line
// need only live for the call (everything kept is copied).
//
// A digest is one multi-line message. It reaches a log either as one header
// line plus raw continuation lines, or as one log record per line (a glog
// header on each), with lines of other threads interleaved. So after a
// header the parser opens a window of kDigestWindowLines lines; inside it,
// only lines shaped like a digest line are taken (others are ignored, never
// fatal), and a line from another pid/thread than the header's (both known)
// is skipped. The window closes at the next header, after kDigestGapLines
// lines with no digest line, or at the end of the file: a digest cut short
// by the end of a file still yields what was read.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analyzers/hang/digest_line.h"
#include "analyze/analyzers/hang/megascale_text.h"
#include "common/line_fields.h"
#include "index/index_types.h"

namespace casefile::hang {

inline constexpr int64_t kDigestWindowLines = 400;
inline constexpr int64_t kDigestGapLines = 100;
// Caps per file, so a log that repeats a message endlessly costs bounded memory.
inline constexpr size_t kMaxReportsPerFile = 4096;
inline constexpr size_t kMaxDigestsPerFile = 64;
inline constexpr size_t kMaxKeyLinesPerDigest = 64;
inline constexpr size_t kMaxModuleGroups = 256;
inline constexpr size_t kMaxRowsPerGroup = 1024;
inline constexpr size_t kMaxErrorBytes = 2048;

// One line of the file being read.
struct ParserLine {
  int64_t line_no = 0;
  std::string_view text;     // the whole line as stored (cited as evidence)
  std::string_view message;  // the line after its log wrappers
  std::string_view host;     // from a line prefix; empty when unknown
  int64_t pid = -1;          // process or thread id from a prefix; -1 unknown
  int64_t ts_us = kNoTimestamp;
  bool no_newline = false;  // the file's last line, without a final newline
};

// The parser's view of a line as the index stores it (IndexReader::ScanLines
// hands these out); the views point into `rec`.
inline ParserLine ParserLineOf(const LineRecord& rec) {
  ParserLine line;
  line.line_no = rec.line_no;
  line.text = rec.text;
  line.message = rec.message();
  line.host = rec.host;
  line.pid = rec.pid;
  line.ts_us = rec.ts_us;
  line.no_newline = (rec.flags & kLineNoNewline) != 0;
  return line;
}

// A line kept for evidence.
struct SourceLine {
  int64_t line_no = 0;
  std::string text;
};

// "Megascale hang detected: Timed out waiting for N graphs to complete at
// launch_id L. Already completed: C. StepGloballyInProgress: true. Timeout: 1m"
struct HangReport {
  SourceLine line;
  std::string host;  // of the line prefix; "" when the line names none
  int64_t ts_us = kNoTimestamp;
  std::optional<int64_t> graphs;
  std::optional<int64_t> launch_id;
  std::optional<int64_t> completed;
  std::optional<bool> step_in_progress;
  std::string timeout;  // as printed: "1m"
};

// One "Module: / Fingerprint: / Launch ID:" group of a TPU states (or stats)
// section, with the workers of its "<tag>:<pc>(<hlo>): <host>" rows.
struct ModuleGroup {
  std::string module;
  std::string fingerprint;
  std::optional<int64_t> launch_id;
  std::vector<WorkerRef> workers;
  std::vector<SourceLine> rows;
};

// "<host>: <value>" rows: the PC of each host under "TPU stats:", or its
// program fingerprint under "TPU program fingerprints:".
struct HostValue {
  WorkerRef worker;
  std::string value;
  SourceLine line;
};

// "  <worker> : {error}" of an unrecoverable-error digest.
struct HaltedWorker {
  WorkerRef worker;
  std::string error;
  SourceLine line;
};

struct HangDigest {
  DigestCause cause = DigestCause::kUnknown;
  SourceLine header;
  std::string cause_text;       // header prose after "caused by" ("bad TPU chips on ...")
  std::string potential_cause;  // value of "Potential cause:"
  // Hosts of "The host that have bad TPUs are:", "The hosts are:", "Example
  // hosts that have different HLO modules:" and the like.
  std::vector<WorkerRef> named_hosts;
  // Each "Potential culprit workers:" line; for a networking issue each is a link.
  std::vector<std::vector<WorkerRef>> culprit_lists;
  std::vector<HostValue> tpu_stats;
  std::vector<HostValue> program_fingerprints;
  std::vector<ModuleGroup> modules;
  std::vector<HaltedWorker> halted;
  std::vector<WorkerRef> inspect_workers;  // under "Please inspect the error log of these workers:"
  // Header, host-list, cause, culprit, halted and inspect lines, in file order.
  std::vector<SourceLine> key_lines;
  int64_t last_line = 0;    // last line taken into the digest
  bool cut_by_eof = false;  // the file ends right after the digest's last line read
};

class MegascaleParser {
 public:
  MegascaleParser();
  ~MegascaleParser();
  MegascaleParser(const MegascaleParser&) = delete;
  MegascaleParser& operator=(const MegascaleParser&) = delete;

  void Feed(const ParserLine& line);
  // Closes an open digest; call once after the last line.
  void Finish();
  // Whether a digest is open: every line until it closes may belong to it.
  bool in_digest() const { return open_ != nullptr; }

  // Whether `line` opens a digest or is a worker's report: the only lines
  // that change a parser with no digest open (ingest marks them, so that an
  // analysis reads only the blocks that hold them; analyze/line_marks.h:
  // a change to which lines open a digest bumps kLineMarksVersion there).
  static bool Opens(const ParserLine& line);

  const std::vector<HangReport>& reports() const { return reports_; }
  // Reports seen, including those beyond kMaxReportsPerFile.
  int64_t report_count() const { return report_count_; }
  const std::vector<HangDigest>& digests() const { return digests_; }

 private:
  struct Open;
  void StartDigest(const ParserLine& line, std::string_view message, bool unrecoverable);
  // `whole_line`: the segment is the line's whole message (not one part of
  // a message split at escaped newlines), so the raw line may be retried.
  void FeedBody(const ParserLine& line, std::string_view segment, bool whole_line);
  void CloseDigest(bool by_eof);

  std::vector<HangReport> reports_;
  int64_t report_count_ = 0;
  int64_t last_line_no_ = 0;  // of the last line fed
  bool last_no_newline_ = false;
  std::vector<HangDigest> digests_;
  std::unique_ptr<Open> open_;  // the digest being read, if any
};

// Recognises a worker report in a message; nullopt for anything else
// (including look-alikes such as "Megascale hang detection enabled").
std::optional<HangReport> ParseHangReport(std::string_view message);

}  // namespace casefile::hang
