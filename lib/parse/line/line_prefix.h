// The wrappers in front of a log message, stripped in a loop: launcher and
// cloud-export prefixes, torch rank tags, NCCL host:pid:tid, glog and Python
// logging headers, syslog (RFC 3164 and RFC 3339 forms) and dmesg stamps,
// syslog priority tags ("<3>"). What each wrapper said (time, level, rank,
// local rank, host, pid) is kept. Nothing here uses std::regex or allocates:
// it runs on every line of every log.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/line_fields.h"

namespace casefile {

// Bits of LinePrefix::wrappers, one per wrapper kind recognised.
enum WrapperKind : uint32_t {
  kWrapCloudExport =
      1u << 0,  // "  | 2024-05-01T12:00:00.000Z | ", "ERROR 2024-05-01T12:00:00Z [k=v] "
  kWrapViewerLineNo = 1u << 1,  // "[80746] "
  kWrapSrunLabel = 1u << 2,     // "1: ", "  12: "
  kWrapMpirun = 1u << 3,        // "[1,0]<stdout>:"
  kWrapPdshHost = 1u << 4,      // "node-12: "
  kWrapRay = 1u << 5,           // "(RayWorkerWrapper pid=3490362) ", "(WorkerDict pid=N, ip=A) "
  kWrapTorchRank = 1u << 6,     // "[rank3]:" (rank) / "[default3]:" (local_rank)
  kWrapNcclHost = 1u << 7,      // "host:pid:tid [dev] "
  kWrapGlog =
      1u << 8,  // "I1129 09:21:26.123456  1234 file.cc:12] " and "[E1218 20:27:21.4 F.cpp:629] "
  kWrapIsoTime = 1u << 9,     // ISO-8601 or Python logging time, bare or in brackets
  kWrapLevelWord = 1u << 10,  // "ERROR", "[INFO]", "INFO:root:", " - WARNING - ", vLLM "INFO 10-18
                              // 09:59:56 f.py:1] "
  kWrapSyslog = 1u << 11,     // "May 15 23:09:30 host prog[pid]: "
  kWrapDmesg = 1u << 12,      // "[  518.050606] ", "[Sun Mar 30 08:24:00 2025] ",
                              // "2024-04-29T14:55:41,679700+02:00 "
  kWrapDeepSpeed = 1u << 13,  // "[2025-12-18 20:27:22,783] [INFO] [launch.py:319:fn] "
  kWrapProgressBar = 1u << 14,  // a tqdm bar a message was glued to: "…155.57 examples/s][E …] "
  kWrapPriority = 1u << 15,     // a syslog priority "<3>" (dmesg -r, sd-daemon stderr)
};

// Year and zone assumptions for formats that carry no year (glog, syslog,
// vLLM) or no zone. Times without a zone are taken as UTC.
struct TimeContext {
  int default_year = 1970;
};

struct LinePrefix {
  int64_t ts_us = kNoTimestamp;  // UTC microseconds since the epoch
  // Seconds since boot of a raw dmesg stamp ("[  518.050606]"), or -1. It is
  // not a wall-clock time, so ts_us stays kNoTimestamp for it.
  double monotonic_s = -1;
  Level level = Level::kUnknown;
  // Global rank: torch's "[rankN]:", srun -l's task id, mpirun's
  // "[job,rank]". Not set by torchrun's "[defaultN]:", whose N is the local
  // rank (local_rank below).
  int32_t rank = -1;
  // Rank within the host: the N of torchrun's "[<role>N]:" tee prefix
  // ("[default3]:" unless --role is set).
  int32_t local_rank = -1;
  std::string_view host;   // from NCCL, syslog, pdsh prefixes or a Ray "ip="; points into the line
  int64_t pid = -1;        // NCCL, syslog, Ray pid; the thread id of a glog header
  int32_t device = -1;     // NCCL "[dev]": the local CUDA device, not the rank
  uint32_t msg_start = 0;  // offset in the line where the message begins
  uint32_t wrappers = 0;   // WrapperKind bits
};

// Strips the wrappers at the start of `line`, up to 10 of them, stacked in any
// order, and returns what they said. When several wrappers say the same thing
// (two times, two levels), the innermost one, closest to the message, wins:
// an export or collector stamp is less precise than the program's own. A
// line with no wrapper gives msg_start 0 and every field unknown. Meant for
// text after StripAnsi; ESC-less colour codes around wrappers ("[36m(Ray…)
// [0m ") are skipped as well. Thread-safe; `host` points into `line`.
LinePrefix ParseLinePrefix(std::string_view line, const TimeContext& ctx);

}  // namespace casefile
