// What the log half of the comm analyzer reads, as plain structs: the
// nccl_ranks rows (one per process and communicator), the dist_events rows
// of the kinds it judges (nccl_warn, collective_error, rendezvous_error,
// gpu_test) and of the failures that decide what came first (crash,
// cuda_error, launcher_failure), the NCCL_* settings of environment dumps
// (configs), and the "port active" lines of collected ibstat / ibv_devinfo
// outputs. LoadCommLogFacts fills them from an index; tests build them by
// hand, lines included (CommLogFacts::lines_in).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analyzer.h"
#include "analyze/finding.h"
#include "analyze/rank_map.h"
#include "analyze/succeeded_hosts.h"
#include "common/line_fields.h"

namespace casefile::comm {

// One nccl_ranks row (index_types.h NcclRankRow); host is the row's, else
// its file's ("" when unknown).
struct NcclProc {
  int64_t file_id = 0;
  int64_t line_no = 0;
  std::string host;
  int64_t pid = -1;
  std::optional<int64_t> rank;
  std::optional<int64_t> nranks;
  std::optional<int64_t> nnodes;
  std::string comm;     // "" when the process printed no communicator line
  std::string comm_id;  // "" when none
  std::string parent;   // "" unless a split
  std::string nccl_version;
  std::optional<int64_t> version_line;
  std::string cuda_runtime;
  std::string cuda_driver;
  std::string net;          // IB, Socket, IBext, a plugin; "" when not printed
  std::string net_devices;  // "IB:mlx5_0,mlx5_1" / "Socket:eth0"
  std::string transports;   // "NET/IB,P2P/IPC"
  std::string env;          // "NCCL_IB_DISABLE=1,NCCL_SOCKET_IFNAME=eth0"
  std::optional<int64_t> init_line;
  std::optional<int64_t> complete_line;
  std::optional<int64_t> first_warn_line;
  int64_t last_line = 0;
};

enum class EventKind {
  kNcclWarn,
  kCollectiveError,
  kRendezvous,
  kGpuTest,
  kCrash,
  kCudaError,
  kLauncher
};

// One dist_events row; host and rank are the row's, else its file's.
struct CommEvent {
  int64_t file_id = 0;
  int64_t line_no = 0;
  int64_t ts_us = kNoTimestamp;
  std::string host;
  std::optional<int64_t> rank;
  std::optional<int64_t> local_rank;
  EventKind kind = EventKind::kNcclWarn;
  std::string op;
  std::string detail;
  std::optional<double> value;
  std::optional<int64_t> timeout_ms;
};

// An NCCL_* variable of an environment dump (configs of a file whose keys
// are environment names).
struct EnvSetting {
  int64_t file_id = 0;
  int64_t line_no = 0;
  std::string host;  // the file's; "" when unknown
  std::string key;
  std::string value;
};

// A collected ibstat / ibv_devinfo line that shows an active port.
struct IbPortLine {
  int64_t file_id = 0;
  int64_t line_no = 0;
  std::string host;
};

// A stored log line as the rules need it.
struct LogLine {
  int64_t line_no = 0;
  int64_t ts_us = kNoTimestamp;
  std::string host;  // the line's own wrappers' host; "" when none
  int64_t pid = -1;  // the NCCL header's pid; -1 when none
  std::string message;
};

struct CommLogFacts {
  std::vector<NcclProc> procs;    // file, line order
  std::vector<CommEvent> events;  // file, line order
  std::vector<EnvSetting> env;
  std::vector<IbPortLine> ib_ports;
  // Hosts of the job's log files (files.host), sorted.
  std::vector<std::string> log_hosts;
  // Per log file, the last line that shows training progress (a step_time
  // row): a rendezvous error before it was a retry that later succeeded.
  std::map<int64_t, int64_t> last_step_line;
  // Per file with a rendezvous row, its latest timestamp (from the blocks'
  // summaries): a log that goes on long after its last rendezvous error
  // belongs to a process that joined.
  std::map<int64_t, int64_t> last_ts;
  // Hosts whose launcher reported its workers finished (succeeded_hosts.h).
  LauncherSuccesses succeeded;
  const RankHostMap* ranks = nullptr;  // may be null in tests
  // Evidence for a line.
  std::function<Evidence(int64_t file_id, int64_t line_no)> line;
  // Calls `cb` with the lines [from, to] of a file in order until it
  // returns false.
  std::function<void(int64_t file_id, int64_t from, int64_t to,
                     const std::function<bool(const LogLine&)>& cb)>
      lines_in;
};

// Caps, so that a hostile index cannot make the analysis unbounded.
inline constexpr size_t kMaxProcRows = 500'000;
inline constexpr size_t kMaxEventRows = 500'000;
inline constexpr size_t kMaxEnvRows = 100'000;
inline constexpr size_t kMaxIbPortLines = 10'000;

void LoadCommLogFacts(const AnalysisContext& ctx, CommLogFacts& facts);

}  // namespace casefile::comm
