// What CommTraceAggregator keeps while a trace streams (comm_trace.cc adds,
// comm_trace_finish.cc turns it into rows). Every container is capped
// (comm_trace_limits.h): memory does not grow with the trace.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "parse/trace/comm_histogram.h"
#include "parse/trace/comm_interval_union.h"
#include "parse/trace/comm_marks.h"
#include "parse/trace/comm_time_bins.h"
#include "parse/trace/comm_trace.h"
#include "parse/trace/comm_trace_limits.h"

namespace casefile::trace_comm {

// Per-time sums that are reported for the steady state only (its start is
// known at Finish).
struct SteadyCell {
  LogHistogram recv_done;  // recv-done durations, by recv-done start
  LogHistogram slack;      // paired collectives' slack, by start
  uint64_t collectives = 0;
  uint64_t low_slack = 0;
  uint64_t nccl_kernels = 0;
  double nccl_us = 0;
  uint64_t map_dma = 0;  // every MapDmaBuffer call (used past kMaxMapDmaKept)
  void Merge(const SteadyCell& o) {
    recv_done.Merge(o.recv_done);
    slack.Merge(o.slack);
    collectives += o.collectives;
    low_slack += o.low_slack;
    nccl_kernels += o.nccl_kernels;
    nccl_us += o.nccl_us;
    map_dma += o.map_dma;
  }
};

// Per-time network activity over the whole span (net_timeline).
struct TimelineCell {
  double bytes = 0;
  int64_t transfers = 0;
  int64_t coll_starts = 0;  // paired collectives opening in the cell
  int64_t coll_ends = 0;    // ... and closing (done's end)
  double rpc_max_us = 0;
  void Merge(const TimelineCell& o) {
    bytes += o.bytes;
    transfers += o.transfers;
    coll_starts += o.coll_starts;
    coll_ends += o.coll_ends;
    rpc_max_us = std::max(rpc_max_us, o.rpc_max_us);
  }
};

struct StepEvent {
  double ts = 0;
  double end = 0;
  TraceMarkRow mark;
};

struct PidSteps {
  int64_t count = 0;
  std::vector<StepEvent> earliest;  // the kMinStepsForStepRule earliest, sorted
};

struct PendingStart {
  double ts = 0;
  double end = 0;
  int64_t line_no = 0;
};
struct PendingDone {
  double ts = 0;
  double dur = 0;
  TraceMarkRow mark;
};
// FIFO queues of one (pid, op name) key; vectors with a moving head (a
// deque per key would cost kilobytes each).
struct PairQueue {
  std::vector<PendingStart> starts;
  size_t starts_head = 0;
  std::vector<PendingDone> dones;
  size_t dones_head = 0;
};

struct LinkStats {
  int64_t transfers = 0;
  double bytes = 0;
  LogHistogram latency;
  double slowest_us = -1;
  TraceMarkRow slowest;
};

struct TimedPid {
  double ts = 0;
  double end = 0;
  uint32_t pid = 0;  // index into pids
};

struct CommState {
  // What the trace is.
  int64_t events = 0;
  double first_ts = 0;
  double last_end = 0;
  bool have_time = false;
  bool xprof_hint = false;
  bool kineto_hint = false;
  std::optional<int64_t> rank;
  std::optional<std::string> nccl_version;

  std::map<std::string, uint32_t> pid_index;
  std::vector<std::string> pids;
  uint32_t PidOf(const std::string& pid);

  // Steps.
  std::map<std::string, PidSteps> steps;
  int64_t steps_dropped = 0;
  LogHistogram step_us;

  TimeBins<SteadyCell> steady{kSteadyCells};
  TimeBins<TimelineCell> timeline{kTimelineCells};

  // MapDmaBuffer.
  int64_t map_dma_total = 0;
  std::vector<TimedPid> map_dma;  // first kMaxMapDmaKept
  MarkPool map_dma_marks{kMarkCandidates};

  // Memory copies and receives.
  int64_t memory_copy_total = 0;
  std::vector<TimedPid> copies;                // first kMaxCopiesKept
  std::map<uint32_t, IntervalUnion> receives;  // by pid index
  int64_t receive_pids_dropped = 0;
  MarkPool copy_marks{kMarkCandidates};

  // recv-done.
  int64_t recv_done_total = 0;
  // The longest waits are in the first steps, before the steady state, so
  // one pool of the longest overall can hold none after it: per segment.
  SegmentedMarkPool recv_done_marks;

  // Async pairs.
  std::map<std::string, PairQueue> pairs;
  int64_t pending_dones = 0;
  int64_t async_events = 0;
  int64_t paired = 0;
  int64_t unpaired_dropped = 0;
  MarkPool low_slack_marks{kMarkCandidates};

  // RPCs.
  LogHistogram rpc_us;
  std::vector<std::pair<double, double>> slow_rpcs;  // (ts, dur) >= floor
  bool slow_rpcs_overflow = false;
  MarkPool rpc_marks{kMarkCandidates};

  // Transfers.
  int64_t transfers = 0;
  double transfer_bytes = 0;
  LogHistogram transfer_size;
  SizeBuckets sizes;
  std::map<std::pair<std::string, std::string>, LinkStats> links;
  int64_t links_dropped = 0;  // transfers on links past kMaxLinks

  // NCCL kernels.
  int64_t nccl_total = 0;

  // Busy time.
  IntervalUnion comm_busy{kBusyUnionCap};
  IntervalUnion net_busy{kBusyUnionCap};  // transfers and recv-done
  IntervalUnion recv_done_busy{kBusyUnionCap};
  IntervalUnion nccl_busy{kBusyUnionCap};
};

// The aggregator's private state is the namespace-level struct (so the
// helpers of comm_trace.cc and comm_trace_finish.cc can name it).
struct CommTraceAggregator::State : CommState {};

}  // namespace casefile::trace_comm
