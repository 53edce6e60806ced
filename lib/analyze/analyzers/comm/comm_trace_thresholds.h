// The thresholds of the trace half of the comm analyzer (docs/FINDINGS.md,
// section "comm"), each with the reason for its value. The trace tables are
// filled at ingest (lib/parse/trace/comm_trace.h), which also decides the
// steady state (after the second step when the trace has three or more,
// else after the first 10% of the span) and what a low-slack collective, a
// long recv-done wait and an RPC spike are; these constants decide when
// those facts are a finding.
#pragma once

#include <cstddef>
#include <cstdint>

namespace casefile::comm {

// comm.dma_premap_exhausted: MapDmaBuffer calls in the steady state of one
// trace. Host memory is registered for DMA once, right after start-up; a
// stray registration later (a new program compiled for eval, a late buffer)
// is normal, a repeated one means the premapped region ran out and every
// transfer that misses it pays a registration.
inline constexpr double kMinSteadyMapDma = 3;

// comm.memory_copy: "Megascale: Memory Copy" events inside a network receive.
// The DCN transport is zero-copy, so a single copy during a receive means a
// buffer fell outside the premapped region; the rule fires on the first.
inline constexpr double kMinMemoryCopiesInRecv = 1;

// comm.low_collective_slack: the share of the steady state's async
// collectives whose slack is near zero (below the aggregator's low-slack
// threshold), over this share. A few tight collectives are normal at the end
// of a step (the last gradient reduction); a quarter of them means the
// program leaves the network no room to overlap with compute.
inline constexpr double kLowSlackShare = 0.25;
// Fewer collectives than this say too little to judge a share (a short
// capture, a trace of one step).
inline constexpr double kMinCollectives = 20;

// comm.bandwidth_bound (XProf): the share of the steady state spent waiting
// in recv-done. Waiting means the data had not arrived when compute needed
// it: a fifth of the step blocked on the network is a bandwidth problem, not
// noise.
inline constexpr double kRecvDoneShareBound = 0.20;
// ... together with the network being busy (a transfer, a recv-done or a
// collective open) for at least this share of the steady state: long waits
// on an idle network are a latency or a straggler problem, not bandwidth.
inline constexpr double kNetworkBusyShareBound = 0.50;
// A timeline bucket this busy counts as saturated; the summary says how many
// of the steady state's buckets were (constantly high use vs. bursts).
inline constexpr double kSaturatedBucketShare = 0.80;
// comm.bandwidth_bound (torch.profiler): NCCL kernels running for this share
// of the steady state. NCCL kernels that overlap compute cost little, but
// when half of the step is communication the step is bound by it whatever
// the overlap.
inline constexpr double kNcclKernelShareBound = 0.50;
// Fewer recv-done ops / NCCL kernels than this are too few to judge.
inline constexpr double kMinRecvDones = 20;
inline constexpr double kMinNcclKernels = 20;

// comm.rpc_latency: RPCs whose median latency is over this are constantly
// slow. A DCN RPC inside one zone completes in well under a millisecond to
// a few milliseconds; a median of 10 ms is an order of magnitude over that.
inline constexpr double kRpcP50HighUs = 10'000;
// RPC spikes (events over the aggregator's spike threshold): this many in a
// trace, regular or sporadic, are a finding (the seed's sporadic 200 ms
// spikes). One or two can be a GC pause of the process.
inline constexpr double kMinRpcSpikes = 4;
// Fewer RPCs than this say too little about a median.
inline constexpr double kMinRpcs = 20;

// comm.slow_link: a (source, destination) pair needs this many transfers for
// its median latency to count...
inline constexpr int64_t kMinLinkTransfers = 20;
// ... and the job this many such pairs for a median across pairs to mean
// anything.
inline constexpr size_t kMinLinks = 4;
// A pair is slow when its median latency is over kSlowLinkRatio times the
// median of all pairs AND over that median plus kSlowLinkMads median
// absolute deviations (robust statistics: a few slow pairs move neither the
// median nor the MAD, so they cannot hide themselves; the ratio keeps a
// tight, uniform fabric from flagging a pair that is 10% slower).
inline constexpr double kSlowLinkRatio = 3.0;
inline constexpr double kSlowLinkMads = 6.0;
// Slow pairs may be at most this share of all pairs: the median is the
// healthy rate only while fewer than half the pairs are slow, and when most
// are the problem is not a link. A host with a bad NIC among N hosts is one
// end of 2/N of the directed pairs (a third with 6 hosts).
inline constexpr double kMaxSlowLinkShare = 0.4;
// A host that is one end of more than this share of the slow pairs (and of
// two or more) is named as the likely culprit rather than every endpoint.
inline constexpr double kCulpritHostShare = 0.5;

// Evidence and summaries stay readable: at most this many marks per trace,
// hosts named, pairs quoted.
inline constexpr size_t kMaxMarksPerTrace = 3;
inline constexpr size_t kMaxCitedTraces = 8;
inline constexpr size_t kMaxQuotedLinks = 5;
// comm.slow_link cites the slowest transfer of every slow pair in every
// trace that holds it, up to this many events.
inline constexpr size_t kMaxLinkMarks = 24;

// Caps on what is loaded, so that a hostile index cannot make the analysis
// unbounded.
inline constexpr size_t kMaxTraceRows = 200'000;
inline constexpr size_t kMaxSysctlLinesPerFile = 20'000;

}  // namespace casefile::comm
