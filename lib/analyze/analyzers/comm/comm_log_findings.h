// The rules of the comm analyzer's log half (docs/FINDINGS.md, section
// "comm"), each a function of the facts so that tests can build the facts
// by hand. The thresholds each rule uses are named in its section below.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analyze/analyzers/comm/comm_log_inputs.h"
#include "analyze/finding.h"

namespace casefile::comm {

// comm.nccl_error: NCCL's own error reports and torch's "NCCL error"
// exceptions; the first rank to report, its class, system error and peer.
std::optional<Finding> BuildNcclError(const CommLogFacts& facts);
// Two failures on different hosts this close in time may be in either
// order: host clocks differ by that much.
inline constexpr int64_t kClockSlackUs = 2'000'000;
// A report without a time takes the time of the nearest stamped line at
// most this many lines before it in its file.
inline constexpr int64_t kTimeSearchLines = 2'000;
// The system error of a report may be on a line after it (torch's "Last
// error:" block, NCCL's INFO unwind lines): lines searched after it.
inline constexpr int64_t kErrnoSearchLines = 40;
// A process's "Bootstrap : Using <if>:<ip><0>" / "OOB <if>:<ip><0>" line
// comes among its first NCCL lines; lines searched after its first one (a
// tee'd log interleaves the other local ranks' lines).
inline constexpr int64_t kBootstrapSearchLines = 3'000;
// Hosts whose bootstrap line is looked up to name a peer address.
inline constexpr size_t kMaxPeerHosts = 256;

// comm.transport_fallback: a multi-node communicator on NET/Socket while
// InfiniBand/RoCE is present or expected.
std::optional<Finding> BuildTransportFallback(const CommLogFacts& facts);
// Lines after a process's first NCCL line searched for the line that shows
// its transport ("NET/Socket : Using", "via NET/Socket").
inline constexpr int64_t kTransportSearchLines = 20'000;

// comm.version_mismatch: ranks of one job that loaded different NCCL, CUDA
// runtime or driver versions (or printed different GPU-test versions).
std::optional<Finding> BuildVersionMismatch(const CommLogFacts& facts);

// comm.init_incomplete: ranks of a communicator that started init and never
// completed it while another rank of it did.
std::optional<Finding> BuildInitIncomplete(const CommLogFacts& facts);

// comm.rendezvous_failed: c10d TCPStore / elastic rendezvous failures.
std::optional<Finding> BuildRendezvousFailed(const CommLogFacts& facts);

// comm.gpu_test_failed: the distributed GPU test with broken or missing
// ranks.
std::optional<Finding> BuildGpuTestFailed(const CommLogFacts& facts);

// All of the above, in that order.
std::vector<Finding> BuildCommLogFindings(const CommLogFacts& facts);

}  // namespace casefile::comm
