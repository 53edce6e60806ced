// CommTraceAggregator, streaming half: classifies each event
// (comm_event_family.h) and adds it to the bounded state
// (comm_trace_state.h). Finish is in comm_trace_finish.cc.
#include "parse/trace/comm_trace.h"

#include <algorithm>
#include <cstdio>

#include "parse/trace/comm_event_family.h"
#include "parse/trace/comm_trace_keys.h"
#include "parse/trace/comm_trace_state.h"

namespace casefile::trace_comm {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string Us(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

bool IsKinetoCategory(std::string_view c) {
  return c == "kernel" || c == "cpu_op" || c == "user_annotation" || c == "gpu_user_annotation" ||
         c == "cuda_runtime" || c == "cuda_driver" || c == "python_function" || c == "gpu_memcpy" ||
         c == "gpu_memset";
}

using State = CommState;

void OnStep(State& s, const TraceEventRow& row, double end) {
  s.step_us.Add(end - row.ts_us);
  auto it = s.steps.find(row.pid);
  if (it == s.steps.end()) {
    if (s.steps.size() >= kMaxStepPids) {
      ++s.steps_dropped;
      return;
    }
    it = s.steps.emplace(row.pid, PidSteps{}).first;
  }
  PidSteps& p = it->second;
  ++p.count;
  auto& e = p.earliest;
  const size_t keep = static_cast<size_t>(kMinStepsForStepRule);
  if (e.size() >= keep && row.ts_us >= e.back().ts) return;
  StepEvent step{row.ts_us, end, MarkOf(row, kMarkSteadyStart)};
  auto pos = std::upper_bound(e.begin(), e.end(), row.ts_us,
                              [](double ts, const StepEvent& x) { return ts < x.ts; });
  e.insert(pos, std::move(step));
  if (e.size() > keep) e.pop_back();
}

template <typename T>
void PopFront(std::vector<T>& v, size_t& head) {
  ++head;
  if (head == v.size()) {
    v.clear();
    head = 0;
  } else if (head > 32 && head * 2 > v.size()) {
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(head));
    head = 0;
  }
}

// A paired async collective: slack, timeline, steady sums and marks.
// `done_mark` is the done's mark row (its text) when available.
void OnPair(State& s, const PendingStart& start, double done_ts, double done_dur,
            const std::function<TraceMarkRow(std::string)>& done_mark) {
  ++s.paired;
  const double slack = done_ts - start.end;
  SteadyCell& cell = s.steady.At(start.ts);
  ++cell.collectives;
  cell.slack.Add(slack);
  s.timeline.At(start.ts).coll_starts += 1;
  s.timeline.At(done_ts + done_dur).coll_ends += 1;
  if (slack < kLowSlackUs) {
    ++cell.low_slack;
    // Latest first: the steady state is the end of the trace.
    if (s.low_slack_marks.WouldKeep(start.ts, 0)) {
      MarkCandidate c;
      c.score = start.ts;
      c.when = start.ts;
      c.row = done_mark("slack " + Us(slack) + " us (start at line " +
                        std::to_string(start.line_no) + ")");
      s.low_slack_marks.Add(std::move(c));
    }
  }
}

void OnAsync(State& s, const TraceEventRow& row, const AsyncOpName& op, double dur) {
  ++s.async_events;
  std::string key;
  key.reserve(row.pid.size() + op.op.size() + op.suffix.size() + 1);
  key.append(row.pid).push_back('\x1f');
  key.append(op.op).append(op.suffix);
  auto it = s.pairs.find(key);
  if (it == s.pairs.end()) {
    if (s.pairs.size() >= kMaxPairKeys) {
      ++s.unpaired_dropped;
      return;
    }
    it = s.pairs.emplace(std::move(key), PairQueue{}).first;
  }
  PairQueue& q = it->second;
  if (op.start) {
    PendingStart start{row.ts_us, row.ts_us + dur, row.line_no};
    // A done that arrived first (threads written out of order) pairs with
    // the first start at or before it.
    if (q.dones_head < q.dones.size() && q.dones[q.dones_head].ts >= row.ts_us) {
      PendingDone done = std::move(q.dones[q.dones_head]);
      PopFront(q.dones, q.dones_head);
      --s.pending_dones;
      OnPair(s, start, done.ts, done.dur, [&](std::string detail) {
        TraceMarkRow m = done.mark;
        m.detail = std::move(detail);
        return m;
      });
      return;
    }
    if (q.starts.size() - q.starts_head >= kMaxPendingPerKey) {
      PopFront(q.starts, q.starts_head);
      ++s.unpaired_dropped;
    }
    q.starts.push_back(start);
    return;
  }
  if (q.starts_head < q.starts.size() && q.starts[q.starts_head].ts <= row.ts_us) {
    PendingStart start = q.starts[q.starts_head];
    PopFront(q.starts, q.starts_head);
    OnPair(s, start, row.ts_us, dur,
           [&](std::string detail) { return MarkOf(row, kMarkLowSlack, std::move(detail)); });
    return;
  }
  if (static_cast<size_t>(s.pending_dones) >= kMaxPendingDones ||
      q.dones.size() - q.dones_head >= kMaxPendingPerKey) {
    ++s.unpaired_dropped;
    return;
  }
  q.dones.push_back({row.ts_us, dur, MarkOf(row, kMarkLowSlack)});
  ++s.pending_dones;
}

void OnTransfer(State& s, const TraceEventRow& row, const TransferArgs& t, double dur) {
  ++s.transfers;
  const double bytes = t.bytes.value_or(0);
  s.transfer_bytes += bytes;
  if (t.bytes) {
    s.transfer_size.Add(bytes);
    s.sizes.Add(bytes);
  }
  TimelineCell& cell = s.timeline.At(row.ts_us);
  cell.bytes += bytes;
  ++cell.transfers;
  if (row.dur_us) {
    s.net_busy.Add(row.ts_us, row.ts_us + dur);
    s.comm_busy.Add(row.ts_us, row.ts_us + dur);
  }
  std::pair<std::string, std::string> key{std::string(t.src), std::string(t.dst)};
  auto it = s.links.find(key);
  if (it == s.links.end()) {
    if (s.links.size() >= kMaxLinks) {
      ++s.links_dropped;
      return;
    }
    it = s.links.emplace(std::move(key), LinkStats{}).first;
  }
  LinkStats& link = it->second;
  ++link.transfers;
  link.bytes += bytes;
  if (!row.dur_us) return;
  link.latency.Add(dur);
  if (dur > link.slowest_us) {
    link.slowest_us = dur;
    link.slowest = MarkOf(row, kMarkLinkSlowest, it->first.first + " -> " + it->first.second);
  }
}

}  // namespace

uint32_t CommState::PidOf(const std::string& pid) {
  auto it = pid_index.find(pid);
  if (it != pid_index.end()) return it->second;
  if (pids.size() >= kMaxPids) return 0;  // shared by the overflow (first pid)
  const uint32_t i = static_cast<uint32_t>(pids.size());
  pids.push_back(pid);
  pid_index.emplace(pid, i);
  return i;
}

CommTraceAggregator::CommTraceAggregator(int64_t file_id)
    : file_id_(file_id), state_(std::make_unique<State>()) {}
CommTraceAggregator::~CommTraceAggregator() = default;

void CommTraceAggregator::SetDistributedInfo(std::optional<int64_t> rank,
                                             std::optional<std::string> nccl_version) {
  state_->rank = rank;
  state_->nccl_version = std::move(nccl_version);
}

void CommTraceAggregator::Add(const TraceEventRow& row) {
  State& s = *state_;
  ++s.events;
  const double dur = row.dur_us.value_or(0);
  const double end = row.ts_us + dur;
  if (!s.have_time) {
    s.have_time = true;
    s.first_ts = row.ts_us;
    s.last_end = end;
  } else {
    s.first_ts = std::min(s.first_ts, row.ts_us);
    s.last_end = std::max(s.last_end, end);
  }
  const std::string_view thread = row.thread_name ? std::string_view(*row.thread_name) : "";
  if (!s.xprof_hint) {
    s.xprof_hint = thread == "XLA Ops" || thread == "Steps" || thread == "XLA Modules" ||
                   (row.process_name && (StartsWith(*row.process_name, "/device:") ||
                                         StartsWith(*row.process_name, "/host:")));
  }
  if (!s.kineto_hint) s.kineto_hint = IsKinetoCategory(row.category);

  const EventFamilies f = ClassifyEvent(row.name, thread);
  const bool timed = row.dur_us.has_value();
  if (f.step && timed) OnStep(s, row, end);
  if (f.map_dma) {
    ++s.map_dma_total;
    ++s.steady.At(row.ts_us).map_dma;
    if (s.map_dma.size() < kMaxMapDmaKept) s.map_dma.push_back({row.ts_us, end, s.PidOf(row.pid)});
    if (s.map_dma_marks.WouldKeep(row.ts_us, static_cast<int64_t>(row.offset))) {
      s.map_dma_marks.Add({row.ts_us, row.ts_us, MarkOf(row, kMarkMapDmaSteady)});
    }
  }
  if (f.memory_copy) {
    ++s.memory_copy_total;
    if (s.copies.size() < kMaxCopiesKept) s.copies.push_back({row.ts_us, end, s.PidOf(row.pid)});
    if (s.copy_marks.WouldKeep(row.ts_us, static_cast<int64_t>(row.offset))) {
      s.copy_marks.Add({row.ts_us, row.ts_us, MarkOf(row, kMarkMemoryCopy)});
    }
    s.comm_busy.Add(row.ts_us, end);
  }
  if (f.receive && timed && !f.memory_copy) {
    const uint32_t pid = s.PidOf(row.pid);
    auto it = s.receives.find(pid);
    if (it == s.receives.end() && s.receives.size() < kMaxReceivePids) {
      it = s.receives.emplace(pid, IntervalUnion(kReceiveUnionCap)).first;
    }
    if (it != s.receives.end()) {
      it->second.Add(row.ts_us, end);
    } else {
      ++s.receive_pids_dropped;
    }
  }
  if (f.recv_done && timed) {
    ++s.recv_done_total;
    SteadyCell& cell = s.steady.At(row.ts_us);
    cell.recv_done.Add(dur);
    s.recv_done_busy.Add(row.ts_us, end);
    s.net_busy.Add(row.ts_us, end);
    MarkPool& marks = s.recv_done_marks.At(row.ts_us);
    if (marks.WouldKeep(dur, static_cast<int64_t>(row.offset))) {
      marks.Add({dur, row.ts_us, MarkOf(row, kMarkRecvDoneLong)});
    }
  }
  if (f.async && timed) {
    s.comm_busy.Add(row.ts_us, end);
    OnAsync(s, row, *f.async, dur);
  }
  if (f.rpc && timed) {
    s.rpc_us.Add(dur);
    TimelineCell& cell = s.timeline.At(row.ts_us);
    cell.rpc_max_us = std::max(cell.rpc_max_us, dur);
    if (dur >= kRpcSpikeFloorUs) {
      if (s.slow_rpcs.size() < kMaxSlowRpcsKept) {
        s.slow_rpcs.emplace_back(row.ts_us, dur);
      } else {
        s.slow_rpcs_overflow = true;
      }
      if (s.rpc_marks.WouldKeep(dur, static_cast<int64_t>(row.offset))) {
        s.rpc_marks.Add({dur, row.ts_us, MarkOf(row, kMarkRpcSpike)});
      }
    }
  }
  if (f.nccl_kernel && timed) {
    ++s.nccl_total;
    SteadyCell& cell = s.steady.At(row.ts_us);
    ++cell.nccl_kernels;
    cell.nccl_us += dur;
    s.nccl_busy.Add(row.ts_us, end);
    s.comm_busy.Add(row.ts_us, end);
  }
  if (row.args_json.size() > 8) {
    const TransferArgs t = ScanTransferArgs(row.args_json);
    if (t.has_endpoints()) OnTransfer(s, row, t, dur);
  }
}

}  // namespace casefile::trace_comm
