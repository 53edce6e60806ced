// The vocabulary of the communication tables a trace fills at ingest
// (comm_trace.h): the keys of trace_comm_stats and the kinds of trace_marks.
// Stored as text, so a key is never renamed; the comm analyzer compares
// against these constants. Times are trace microseconds, shares 0..1.
#pragma once

namespace casefile::trace_comm {

// --- trace_comm_stats keys -------------------------------------------------
// What the trace is: detail "xprof" (TSL/jax.profiler: XLA Ops / Steps lines,
// device planes), "kineto" (torch.profiler: cat kernel/cpu_op...), "generic".
inline constexpr const char* kSource = "source";
inline constexpr const char* kEvents = "events";   // events read
inline constexpr const char* kSpanUs = "span_us";  // first start to last end
// Steps: the most step events of one process (device planes each carry the
// same steps); detail "P process(es) with steps".
inline constexpr const char* kSteps = "steps";
// Start of the steady state (see comm_trace.h), and how it was decided
// (detail: "steps" or "span").
inline constexpr const char* kSteadyStartUs = "steady_start_us";
inline constexpr const char* kSteadySpanUs = "steady_span_us";
inline constexpr const char* kStepMedianUs = "step_median_us";
// Union of communication intervals (transfers, recv-done, the async
// collective ops' own start/done events — not the span between them, which
// overlaps computation by design —, memory copies, NCCL kernels) inside the
// steady state, and its share of the steady span. Detail of comm_busy_us:
// "pieces joined over gaps under X us" when the bounded union had to
// coarsen (comm_interval_union.h: totals stay exact, overlaps estimated).
inline constexpr const char* kCommBusyUs = "comm_busy_us";
inline constexpr const char* kCommShare = "comm_share";
// MapDmaBuffer calls: all, and in the steady state (detail: first one's pid).
inline constexpr const char* kMapDmaTotal = "map_dma_total";
inline constexpr const char* kMapDmaSteady = "map_dma_steady";
// "Megascale: Memory Copy" events: all, and those inside a network receive.
inline constexpr const char* kMemoryCopyTotal = "memory_copy_total";
inline constexpr const char* kMemoryCopyInRecv = "memory_copy_in_recv";
// recv-done ops in the steady state: count, total time, percentiles.
inline constexpr const char* kRecvDoneCount = "recv_done_count";
inline constexpr const char* kRecvDoneUs = "recv_done_us";
inline constexpr const char* kRecvDoneP50Us = "recv_done_p50_us";
inline constexpr const char* kRecvDoneP90Us = "recv_done_p90_us";
inline constexpr const char* kRecvDoneMaxUs = "recv_done_max_us";
// Share of the steady span spent waiting in recv-done (union of intervals).
inline constexpr const char* kRecvDoneShare = "recv_done_share";
// Async collectives paired start -> done whose start is in the steady
// state, those whose slack is below the low-slack threshold
// (comm_trace_limits.h kLowSlackUs), and the median slack. Detail of
// collectives: "N paired in all[, M unpaired dropped]".
inline constexpr const char* kCollectives = "collectives";
inline constexpr const char* kLowSlack = "low_slack";
inline constexpr const char* kSlackP50Us = "slack_p50_us";
// RPC events: count, median and 99th percentile latency, spikes (events over
// the spike threshold), and the period of the spikes when they are regular
// (absent otherwise). Spike threshold: max(10x median, 50 ms), named in the
// detail of rpc_spikes ("over X us").
inline constexpr const char* kRpcCount = "rpc_count";
inline constexpr const char* kRpcP50Us = "rpc_p50_us";
inline constexpr const char* kRpcP99Us = "rpc_p99_us";
inline constexpr const char* kRpcSpikes = "rpc_spikes";
inline constexpr const char* kRpcSpikePeriodUs = "rpc_spike_period_us";
// Transfers with a source and destination, and their bytes.
inline constexpr const char* kTransfers = "transfers";
inline constexpr const char* kTransferBytes = "transfer_bytes";
inline constexpr const char* kTransferP50Bytes = "transfer_p50_bytes";
// torch.profiler: NCCL kernels (ncclDevKernel_*, ncclKernel_*) in the steady
// state: count, total time, and the share of the steady span (union).
inline constexpr const char* kNcclKernels = "nccl_kernels";
inline constexpr const char* kNcclKernelUs = "nccl_kernel_us";
inline constexpr const char* kNcclKernelShare = "nccl_kernel_share";
// Kineto's distributedInfo, when the trace has it: rank (value) and NCCL
// version (detail).
inline constexpr const char* kRank = "rank";
inline constexpr const char* kNcclVersion = "nccl_version";

// --- trace_marks kinds -----------------------------------------------------
inline constexpr const char* kMarkMapDmaSteady = "map_dma_steady";
inline constexpr const char* kMarkMemoryCopy = "memory_copy";
inline constexpr const char* kMarkRecvDoneLong = "recv_done_long";
inline constexpr const char* kMarkLowSlack = "low_slack";
inline constexpr const char* kMarkRpcSpike = "rpc_spike";
// The slowest transfer of each link (detail "src -> dst").
inline constexpr const char* kMarkLinkSlowest = "link_slowest";
// The first step event of the steady state (evidence of where it starts).
inline constexpr const char* kMarkSteadyStart = "steady_start";

}  // namespace casefile::trace_comm
