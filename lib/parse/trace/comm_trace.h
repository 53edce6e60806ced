// Communication analysis of one profiler trace while it streams (the MXLA
// performance checks and the network-analysis notebook of the seed, and NCCL
// kernel time of torch.profiler traces). TraceSink feeds it every event
// the TraceReader emits; at Finish it hands over the rows of
// trace_comm_stats, net_links, net_sizes, net_timeline and trace_marks
// (comm_trace_keys.h). Memory is bounded whatever the trace size: counters,
// fixed histograms, capped maps and capped mark lists, never the events.
//
// Event families (names match as documented in docs/FINDINGS.md "comm"):
//  - MapDmaBuffer calls; "Megascale: Memory Copy" (any name holding "Memory
//    Copy"); network receives (recv, recv-done, HostToDevice, names holding
//    "Recv"/"Receive") that a memory copy overlaps;
//  - XLA async pairs on one pid: "<op>-start[.N]" -> "<op>-done[.N]",
//    "send[.N]" -> "send-done[.N]", "recv[.N]" -> "recv-done[.N]": slack =
//    done start - start end;
//  - transfers: events whose args name a source and a destination (src,
//    source, src_host, from / dst, destination, dst_host, to, peer) and
//    optionally a size (bytes, size, size_bytes, num_bytes, bytes_transferred);
//  - RPCs: names holding "Rpc"/"RPC"/"grpc" with a duration;
//  - steps: events of a thread named "Steps" (XProf), or ProfilerStep#N
//    (torch.profiler);
//  - NCCL kernels: names starting ncclDevKernel_ / ncclKernel_.
// Steady state: after the end of the second step when the trace has three
// steps or more (the latest such end over the processes that have steps);
// else after the first 10% of the span. Events arrive unsorted across
// threads, so the steady start is known only at Finish: steady-state sums
// are kept in time cells (comm_time_bins.h) and MapDmaBuffer times exactly.
// Files: comm_event_family (classification), comm_histogram (percentiles,
// size buckets), comm_interval_union (busy time), comm_time_bins,
// comm_marks (evidence), comm_trace_state (what is kept), comm_trace.cc
// (Add), comm_trace_finish.cc (Finish), comm_trace_limits.h (thresholds).
#pragma once

#include <functional>
#include <memory>

#include "index/index_types.h"

namespace casefile::trace_comm {

struct CommTraceSinks {
  std::function<void(const TraceStatRow&)> stat;
  std::function<void(const NetLinkRow&)> link;
  std::function<void(const NetSizeRow&)> size;
  std::function<void(const NetTimelineRow&)> timeline;
  std::function<void(const TraceMarkRow&)> mark;
};

class CommTraceAggregator {
 public:
  explicit CommTraceAggregator(int64_t file_id);
  ~CommTraceAggregator();
  CommTraceAggregator(const CommTraceAggregator&) = delete;
  CommTraceAggregator& operator=(const CommTraceAggregator&) = delete;

  // Every emitted event, in reader order (row.raw valid during the call).
  void Add(const TraceEventRow& row);
  // Kineto's top-level distributedInfo when the file has one (rank, NCCL
  // version); optional.
  void SetDistributedInfo(std::optional<int64_t> rank, std::optional<std::string> nccl_version);
  // Emits the rows (nothing when the trace holds no communication at all:
  // then only source and events). Call once.
  void Finish(const CommTraceSinks& sinks);

 private:
  struct State;
  int64_t file_id_;
  std::unique_ptr<State> state_;
};

}  // namespace casefile::trace_comm
