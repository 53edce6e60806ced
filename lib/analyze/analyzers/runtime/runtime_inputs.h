// What the runtime rules read, as plain structs: the failure rows of
// dist_events (crash, cuda_error, collective_error, launcher_failure), the
// step_time rows (to tell a handled exception from a fatal one), and what a
// scan of the lines adds (kernel OOM kills, Xid lines, which PID a rank had,
// the time of the nearest stamped line before an unstamped crash).
// LoadFailureRows fills the first two from an index with one query; tests
// build everything by hand.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analyze/finding.h"
#include "analyze/rank_map.h"
#include "analyze/succeeded_hosts.h"
#include "common/line_fields.h"
#include "index/index_reader.h"

namespace casefile::runtime {

enum class RowKind { kCrash, kCudaError, kCollectiveError, kLauncherFailure };

// One failure row; host and rank are the row's, else its file's.
struct FailureRow {
  int64_t file_id = 0;
  int64_t line_no = 0;
  int64_t ts_us = kNoTimestamp;
  // The time of the last stamped line at or before this one in its file
  // (line scan), for rows whose own line has no time; kNoTimestamp when
  // none is near.
  int64_t est_ts_us = kNoTimestamp;
  std::string host;  // "" when unknown
  std::optional<int64_t> rank;
  // The local rank the line's wrappers named ("[default2]:"), kept so the
  // analyzer can map it to a global rank when `rank` is unknown.
  std::optional<int64_t> local_rank;
  RowKind kind = RowKind::kCrash;
  std::optional<std::string> op;  // launcher name
  std::optional<double> value;    // launcher exit code (negative = signal)
  std::string detail;             // "" when none

  int64_t Time() const { return ts_us != kNoTimestamp ? ts_us : est_ts_us; }
};

// A step time: where training went on.
struct StepRow {
  int64_t file_id = 0;
  int64_t line_no = 0;
  std::optional<int64_t> step;
};

// A process the kernel's OOM killer killed (or slurmstepd's cgroup OOM
// report), from the lines of one file; the lines that tell of one kill
// (trigger, summary, victim) are one entry.
struct KernelKill {
  int64_t file_id = 0;
  std::string host;  // the line's, else the file's; "" when unknown
  int64_t ts_us = kNoTimestamp;
  int64_t pid = -1;
  std::string comm;  // the killed process's name
  bool memcg = false;
  bool slurm = false;        // slurmstepd's "Detected N oom-kill event(s)"
  int64_t anon_rss_kb = -1;  // resident anonymous memory of the victim
  int64_t victim_line = 0;   // "Killed process ..."
  int64_t summary_line = 0;  // "oom-kill:constraint=..."
  int64_t trigger_line = 0;  // "... invoked oom-killer: ..."
  int64_t slurm_line = 0;
  int64_t FirstCitable() const;
};

// An NVIDIA Xid line of a kernel log.
struct XidLine {
  int64_t file_id = 0;
  int64_t line_no = 0;
  std::string host;
  int64_t ts_us = kNoTimestamp;
  int xid = 0;
  std::string pci;  // "0000:3b:00"
  int64_t pid = -1;
  std::string comm;
  std::string text;  // the driver's words after the code
};

// A PID a line of a rank carried (NCCL's host:pid:tid header, a glog
// header's thread id, which is the PID for the main thread).
struct PidOwner {
  int64_t pid = 0;
  std::string host;
  int64_t rank = 0;
  int64_t file_id = 0;
  int64_t line_no = 0;
};

// A device-side assertion line ("...: block: [0,0,0], thread: [32,0,0]
// Assertion `...` failed.") of a log.
struct AssertLine {
  int64_t file_id = 0;
  int64_t line_no = 0;
  std::string host;
  std::optional<int64_t> rank;
};

// Turns a line of a file into Evidence (text included); the analyzer reads
// the line from the index, tests make it up.
using LineFn = std::function<Evidence(int64_t file_id, int64_t line_no)>;

struct RuntimeFacts {
  std::vector<FailureRow> rows;  // file and line order
  std::vector<StepRow> steps;    // file and line order
  std::vector<KernelKill> kills;
  std::vector<XidLine> xids;
  std::vector<PidOwner> pids;
  std::vector<AssertLine> asserts;
  // Files that hold kernel lines (dmesg, syslog), by host: a rank's host
  // with such a file and no kill in it says the bundle could have shown
  // the OOM killer and did not.
  std::vector<std::string> kernel_log_hosts;
  // Hosts whose launcher reported that its workers finished (torchrun's
  // "worker group successfully finished", launcher_success rows): no
  // process of the run there was killed or died of a GPU fault.
  LauncherSuccesses succeeded;
  // The first and last timestamps of the log files' lines.
  int64_t run_first_us = kNoTimestamp;
  int64_t run_last_us = kNoTimestamp;
  const RankHostMap* ranks = nullptr;
  LineFn line;
};

// Caps on rows kept, so a pathological index costs bounded memory.
inline constexpr size_t kMaxFailureRows = 500'000;
inline constexpr size_t kMaxStepRows = 2'000'000;

// One query over dist_events (kinds crash, cuda_error, collective_error,
// launcher_failure) into facts.rows, one for launcher_success hosts, and the step times of the
// files that have one (analyze/step_times.h) into facts.steps.
void LoadFailureRows(const IndexReader& index, const std::vector<FileRow>& files,
                     RuntimeFacts& facts);

}  // namespace casefile::runtime
