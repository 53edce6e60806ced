// CommTraceAggregator::Finish: decides the steady state and turns the
// bounded state (comm_trace_state.h) into the rows of trace_comm_stats,
// net_links, net_sizes, net_timeline and trace_marks.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "parse/trace/comm_trace.h"
#include "parse/trace/comm_trace_keys.h"
#include "parse/trace/comm_trace_state.h"

namespace casefile::trace_comm {
namespace {

using State = CommState;

std::string Us(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

struct Steady {
  double start = 0;
  std::string rule;  // "steps" or "span"
  const StepEvent* first_step = nullptr;
};

// After the end of the second step of every process with three steps or
// more (the latest such end, so every plane is past warm-up); else after
// the first tenth of the span.
Steady DecideSteady(const State& s) {
  Steady out;
  bool by_steps = false;
  for (const auto& [pid, p] : s.steps) {
    if (p.count < kMinStepsForStepRule) continue;
    const StepEvent& second = p.earliest[kWarmupSteps - 1];
    if (!by_steps || second.end > out.start) {
      out.start = second.end;
      out.first_step = &p.earliest[kWarmupSteps];
    }
    by_steps = true;
  }
  if (by_steps) {
    out.rule = "steps";
  } else {
    out.start = s.first_ts + kSpanWarmupFraction * (s.last_end - s.first_ts);
    out.rule = "span";
  }
  return out;
}

SteadyCell SteadySums(const State& s, double steady_start) {
  SteadyCell sum;
  if (!s.steady.started()) return sum;
  for (size_t i = 0; i < s.steady.size(); ++i) {
    const double middle = s.steady.StartOf(i) + s.steady.width() / 2;
    if (middle >= steady_start) sum.Merge(s.steady.cell(i));
  }
  return sum;
}

// Spike clusters: spikes starting before the previous one ended are one
// event (several threads stalled by the same cause).
std::vector<double> SpikeStarts(std::vector<std::pair<double, double>> spikes) {
  std::sort(spikes.begin(), spikes.end());
  std::vector<double> starts;
  double cluster_end = -1;
  for (const auto& [ts, dur] : spikes) {
    if (starts.empty() || ts >= cluster_end) {
      starts.push_back(ts);
      cluster_end = ts + dur;
    } else {
      cluster_end = std::max(cluster_end, ts + dur);
    }
  }
  return starts;
}

std::optional<double> RegularPeriod(const std::vector<double>& starts) {
  if (starts.size() < kMinSpikesForPeriod) return std::nullopt;
  std::vector<double> gaps;
  for (size_t i = 1; i < starts.size(); ++i) gaps.push_back(starts[i] - starts[i - 1]);
  double mean = 0;
  for (double g : gaps) mean += g;
  mean /= static_cast<double>(gaps.size());
  if (!(mean > 0)) return std::nullopt;
  double var = 0;
  for (double g : gaps) var += (g - mean) * (g - mean);
  var /= static_cast<double>(gaps.size());
  if (std::sqrt(var) / mean >= kSpikePeriodMaxCv) return std::nullopt;
  return mean;
}

void EmitMarks(MarkPool& pool, const std::function<bool(const MarkCandidate&)>& keep,
               const CommTraceSinks& sinks,
               const std::function<void(TraceMarkRow&)>& fill = nullptr) {
  size_t n = 0;
  for (MarkCandidate& c : pool.Take()) {
    if (n >= kMarksPerKind) break;
    if (!keep(c)) continue;
    if (fill) fill(c.row);
    if (sinks.mark) sinks.mark(c.row);
    ++n;
  }
}

}  // namespace

void CommTraceAggregator::Finish(const CommTraceSinks& sinks) {
  State& s = *state_;
  auto stat = [&](const char* key, double value, std::string detail = {}) {
    // A statistic that is not a number is left out rather than stored as
    // NULL into a NOT NULL column (which would fail the whole index).
    if (!std::isfinite(value)) return;
    if (sinks.stat) sinks.stat({file_id_, key, value, std::move(detail)});
  };
  const char* source = s.xprof_hint ? "xprof" : s.kineto_hint ? "kineto" : "generic";
  stat(kSource, 0, source);
  stat(kEvents, static_cast<double>(s.events));
  const bool has_comm = s.map_dma_total || s.memory_copy_total || s.recv_done_total ||
                        s.async_events || s.rpc_us.count() || s.transfers || s.nccl_total ||
                        s.rank || s.nccl_version;
  if (!has_comm || !s.have_time) return;

  // --- what the trace spans, and its steady state ---
  const Steady steady = DecideSteady(s);
  const double steady_span = std::max(0.0, s.last_end - steady.start);
  auto share = [&](double us) { return steady_span > 0 ? std::min(1.0, us / steady_span) : 0.0; };
  int64_t steps = 0;
  for (const auto& [pid, p] : s.steps) steps = std::max(steps, p.count);
  stat(kSpanUs, s.last_end - s.first_ts);
  stat(
      kSteps, static_cast<double>(steps),
      std::to_string(s.steps.size()) + " process(es) with steps" +
          (s.steps_dropped ? ", " + std::to_string(s.steps_dropped) + " step events dropped" : ""));
  stat(kSteadyStartUs, steady.start, steady.rule);
  stat(kSteadySpanUs, steady_span);
  if (s.step_us.count()) stat(kStepMedianUs, s.step_us.Quantile(0.5));
  if (steady.first_step && sinks.mark) {
    TraceMarkRow m = steady.first_step->mark;
    m.file_id = file_id_;
    m.detail = "steady state starts at " + Us(steady.start) + " us (end of step " +
               std::to_string(kWarmupSteps) + ")";
    sinks.mark(m);
  }
  const SteadyCell sums = SteadySums(s, steady.start);
  auto in_steady = [&](const MarkCandidate& c) { return c.when >= steady.start; };

  // --- busy time ---
  if (!s.comm_busy.empty()) {
    const double busy = s.comm_busy.CoveredIn(steady.start, s.last_end);
    stat(kCommBusyUs, busy,
         s.comm_busy.gap_joined_us() > 0
             ? "pieces joined over gaps under " + Us(s.comm_busy.gap_joined_us()) + " us"
             : "");
    stat(kCommShare, share(busy));
  }

  // --- MapDmaBuffer ---
  if (s.map_dma_total || s.xprof_hint) {
    stat(kMapDmaTotal, static_cast<double>(s.map_dma_total));
    int64_t in_steady_count = 0;
    const TimedPid* first = nullptr;
    for (const TimedPid& c : s.map_dma) {
      if (c.ts < steady.start) continue;
      ++in_steady_count;
      if (first == nullptr || c.ts < first->ts) first = &c;
    }
    if (static_cast<size_t>(s.map_dma_total) > s.map_dma.size()) {
      in_steady_count = static_cast<int64_t>(sums.map_dma);  // past the cap: by time cells
    }
    stat(kMapDmaSteady, static_cast<double>(in_steady_count),
         first ? s.pids[first->pid] : std::string());
    EmitMarks(s.map_dma_marks, in_steady, sinks, [&](TraceMarkRow& m) {
      m.file_id = file_id_;
      m.detail = "MapDmaBuffer " + Us(m.ts_us - steady.start) + " us into the steady state";
    });
  }

  // --- memory copies inside receives ---
  if (s.memory_copy_total || s.xprof_hint) {
    int64_t in_recv = 0;
    for (const TimedPid& c : s.copies) {
      auto it = s.receives.find(c.pid);
      if (it != s.receives.end() && it->second.Overlaps(c.ts, c.end)) ++in_recv;
    }
    stat(kMemoryCopyTotal, static_cast<double>(s.memory_copy_total));
    stat(kMemoryCopyInRecv, static_cast<double>(in_recv),
         static_cast<size_t>(s.memory_copy_total) > s.copies.size()
             ? "of the first " + std::to_string(s.copies.size()) + " copies"
             : "");
    EmitMarks(
        s.copy_marks,
        [&](const MarkCandidate& c) {
          auto pid = s.pid_index.find(c.row.pid);
          if (pid == s.pid_index.end()) return false;
          auto it = s.receives.find(pid->second);
          return it != s.receives.end() &&
                 it->second.Overlaps(c.row.ts_us, c.row.ts_us + c.row.dur_us.value_or(0));
        },
        sinks,
        [&](TraceMarkRow& m) {
          m.file_id = file_id_;
          m.detail = "memory copy during a network receive on pid " + m.pid;
        });
  }

  // --- recv-done waits ---
  if (s.recv_done_total) {
    const LogHistogram& h = sums.recv_done;
    stat(kRecvDoneCount, static_cast<double>(h.count()));
    stat(kRecvDoneUs, h.sum());
    if (h.count()) {
      stat(kRecvDoneP50Us, h.Quantile(0.5));
      stat(kRecvDoneP90Us, h.Quantile(0.9));
      stat(kRecvDoneMaxUs, h.max());
    }
    stat(kRecvDoneShare, share(s.recv_done_busy.CoveredIn(steady.start, s.last_end)));
    const double p50 = h.Quantile(0.5);
    // The longest waits of the steady state, not the first stored ones.
    for (MarkCandidate& c : s.recv_done_marks.Take(steady.start, kMarksPerKind)) {
      TraceMarkRow& m = c.row;
      m.file_id = file_id_;
      m.detail =
          "recv-done wait " + Us(m.dur_us.value_or(0)) + " us (steady p50 " + Us(p50) + " us)";
      if (sinks.mark) sinks.mark(m);
    }
  }

  // --- async collectives ---
  if (s.async_events) {
    std::string detail = std::to_string(s.paired) + " paired in all";
    if (s.unpaired_dropped)
      detail += ", " + std::to_string(s.unpaired_dropped) + " unpaired dropped";
    stat(kCollectives, static_cast<double>(sums.collectives), detail);
    stat(kLowSlack, static_cast<double>(sums.low_slack), "slack under " + Us(kLowSlackUs) + " us");
    if (sums.slack.count()) stat(kSlackP50Us, sums.slack.Quantile(0.5));
    EmitMarks(s.low_slack_marks, in_steady, sinks, [&](TraceMarkRow& m) { m.file_id = file_id_; });
  }

  // --- RPCs ---
  double spike_threshold = 0;
  if (s.rpc_us.count()) {
    const double p50 = s.rpc_us.Quantile(0.5);
    spike_threshold = std::max(kRpcSpikeMedianFactor * p50, kRpcSpikeFloorUs);
    stat(kRpcCount, static_cast<double>(s.rpc_us.count()));
    stat(kRpcP50Us, p50);
    stat(kRpcP99Us, s.rpc_us.Quantile(0.99));
    std::vector<std::pair<double, double>> spikes;
    for (const auto& r : s.slow_rpcs) {
      if (r.second >= spike_threshold) spikes.push_back(r);
    }
    const double count = s.slow_rpcs_overflow
                             ? static_cast<double>(s.rpc_us.CountAtLeast(spike_threshold))
                             : static_cast<double>(spikes.size());
    stat(kRpcSpikes, count, "over " + Us(spike_threshold) + " us");
    if (!s.slow_rpcs_overflow) {
      if (auto period = RegularPeriod(SpikeStarts(spikes))) stat(kRpcSpikePeriodUs, *period);
    }
    EmitMarks(
        s.rpc_marks, [&](const MarkCandidate& c) { return c.score >= spike_threshold; }, sinks,
        [&](TraceMarkRow& m) {
          m.file_id = file_id_;
          m.detail = "RPC " + Us(m.dur_us.value_or(0)) + " us (median " + Us(p50) + " us)";
        });
  }

  // --- transfers and links ---
  if (s.transfers) {
    stat(kTransfers, static_cast<double>(s.transfers),
         s.links_dropped ? std::to_string(s.links_dropped) + " on links past the cap" : "");
    stat(kTransferBytes, s.transfer_bytes);
    if (s.transfer_size.count()) stat(kTransferP50Bytes, s.transfer_size.Quantile(0.5));
    for (auto& [key, link] : s.links) {
      NetLinkRow r;
      r.file_id = file_id_;
      r.src = key.first;
      r.dst = key.second;
      r.transfers = link.transfers;
      r.bytes = link.bytes;
      r.lat_p50_us = link.latency.Quantile(0.5);
      r.lat_p90_us = link.latency.Quantile(0.9);
      r.lat_max_us = link.latency.max();
      r.lat_mean_us = link.latency.mean();
      if (sinks.link) sinks.link(r);
      if (link.slowest_us >= 0 && sinks.mark) {
        link.slowest.file_id = file_id_;
        sinks.mark(link.slowest);
      }
    }
    for (int i = 0; i < SizeBuckets::kBuckets; ++i) {
      if (s.sizes.transfers[i] == 0 || !sinks.size) continue;
      sinks.size({file_id_, SizeBuckets::LowOf(i), SizeBuckets::HighOf(i), s.sizes.transfers[i],
                  s.sizes.bytes[i]});
    }
  }

  // --- NCCL kernels ---
  if (s.nccl_total || s.kineto_hint) {
    stat(kNcclKernels, static_cast<double>(sums.nccl_kernels));
    stat(kNcclKernelUs, sums.nccl_us);
    stat(kNcclKernelShare, share(s.nccl_busy.CoveredIn(steady.start, s.last_end)));
  }
  if (s.rank) stat(kRank, static_cast<double>(*s.rank));
  if (s.nccl_version) stat(kNcclVersion, 0, *s.nccl_version);

  // --- timeline: at most kTimelineRows rows over the cells in use ---
  if (sinks.timeline && s.timeline.started() &&
      (s.transfers || s.paired || s.rpc_us.count() || s.recv_done_total)) {
    const double lo = s.first_ts;
    const double hi = std::max(s.last_end, lo + 1e-3);
    const double row_width = (hi - lo) / static_cast<double>(kTimelineRows);
    // Collectives open at each cell start: the running sum over every cell.
    int64_t open = 0;
    size_t cell = 0;
    const size_t cells = s.timeline.size();
    for (size_t r = 0; r < kTimelineRows; ++r) {
      NetTimelineRow row;
      row.file_id = file_id_;
      row.t0_us = lo + row_width * static_cast<double>(r);
      row.t1_us = r + 1 == kTimelineRows ? hi : row.t0_us + row_width;
      // The cells whose start falls in this row (a cell belongs to one row).
      for (; cell < cells && (s.timeline.StartOf(cell) < row.t1_us || r + 1 == kTimelineRows);
           ++cell) {
        const TimelineCell& c = s.timeline.cell(cell);
        row.bytes += c.bytes;
        row.transfers += c.transfers;
        row.rpc_max_us = std::max(row.rpc_max_us, c.rpc_max_us);
        row.collectives_in_flight = std::max(row.collectives_in_flight, open + c.coll_starts);
        open += c.coll_starts - c.coll_ends;
      }
      row.collectives_in_flight = std::max(row.collectives_in_flight, open);
      row.busy_us = s.net_busy.CoveredIn(row.t0_us, row.t1_us);
      sinks.timeline(row);
    }
  }
}

}  // namespace casefile::trace_comm
