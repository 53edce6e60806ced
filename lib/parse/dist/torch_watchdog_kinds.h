// The ProcessGroupNCCL / c10d messages, one reader per dist_events kind
// (dist_kinds.h). Each reader gets a line's message and a row that
// DistEmitter::Start prefilled; it returns true and fills the kind's columns
// when the message is its own. The callers (torch_watchdog.cc) have already
// passed the family's cheap prefilter; readers still search, since wrappers
// may remain in front of the message.
#pragma once

#include <string_view>

#include "index/index_types.h"

namespace casefile::dist::torch {

// Marks a row whose message repeats a timeout inside another message (an
// exception's what(), "watchdog thread terminated with exception", an
// abort's "Original reason"), so that a reader counts the rank once.
inline constexpr const char* kWrappedDetail = "terminated";
// Marks a periodic progress line ("NCCL Work update periodically").
inline constexpr const char* kPeriodicDetail = "periodic";

// kWatchdogTimeout (torch_watchdog_group.cc): "Watchdog caught collective
// operation timeout: WorkNCCL(...) ran for D milliseconds before timing out."
// in every era, from its first words on (a cut line keeps what was read).
bool ReadWatchdogTimeout(std::string_view msg, DistEventRow& row);

// kWorkProgress: "... detected by watchdog at work: W, last enqueued NCCL
// work: E, last completed NCCL work: C.", "Timeout at NCCL work: W, ...",
// "failure detected by watchdog at work sequence id: W PG status: last
// enqueued work: E, last completed work: C", "Received a dump signal ... Last
// enqueued NCCL work: E, last completed NCCL work: C." (detail "dump signal
// from ..."), and the periodic "NCCL Work update periodically: ..." (detail
// kPeriodicDetail).
bool ReadWorkProgress(std::string_view msg, DistEventRow& row);

// kNcclFailed: "Some NCCL operations have failed or timed out."
bool ReadNcclFailed(std::string_view msg, DistEventRow& row);

// kWatchdogStuck: "... watchdog got stuck for N seconds ..." (elapsed_ms,
// detail "stuck"), "Heartbeat monitor timed out!" (detail "heartbeat"),
// "... detected no heartbeat of its watchdog." (detail "no_heartbeat").
bool ReadWatchdogStuck(std::string_view msg, DistEventRow& row);

// kStoreTimeout (torch_watchdog_store.cc): c10d store and rendezvous waits
// that timed out.
bool ReadStoreTimeout(std::string_view msg, DistEventRow& row);

// kCollectiveError (torch_watchdog_errors.cc): "NCCL error in: <file>:<line>,
// <class> ...", "NCCL error: <class>", the async "Collective WorkNCCL(...)
// raised the following async exception: NCCL error: ..." (also seq, op...),
// and NCCL's result names ("ncclSystemError: ..."). detail = the error class
// as ncclGetErrorString words it ("unhandled system error").
bool ReadCollectiveError(std::string_view msg, DistEventRow& row);

// TORCH_DISTRIBUTED_DEBUG=DETAIL's check (torch_watchdog_mismatch.cc): "Detected
// mismatch between collectives on ranks. Rank R is running collective:
// CollectiveFingerPrint(SequenceNumber=S, OpType=OP, ...), but Rank Q is
// running collective: CollectiveFingerPrint(...)". Ingest emits no row of
// it: the hang analyzer reads it from the crash rows' exception text (the
// message is raised on every rank). rank = R, seq = S, op = R's fingerprint
// "OP [shape] dtypes", value = Q, detail = Q's fingerprint (both unset when
// the text was cut before Q's op); R and Q are the ranks of the group the
// check wraps (the global ranks for the default one).
bool ReadCollectiveMismatch(std::string_view msg, DistEventRow& row);

// kCudaError: what a line says of a CUDA error.
enum class CudaLine {
  kNone,
  kError,        // "CUDA error: <text>", "cuda runtime error (N) : <text>", NCCL's
                 // "Cuda failure '<text>'", a bare cudaErrorXxx; detail = the text
  kAsyncNotice,  // "CUDA kernel errors might be asynchronously reported ...":
                 // names no error, only that one happened
};
CudaLine ReadCudaError(std::string_view msg, DistEventRow& row);

}  // namespace casefile::dist::torch
