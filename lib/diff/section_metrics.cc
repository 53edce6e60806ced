// The metrics section of the diff (docs/DIFF.md): loss at matching steps,
// non-finite values only in bad, step time (median, p90, the slowest host of
// bad) and throughput, from metric_chunks and step-time series.
// Only steps both runs reached are compared, so a run of another length is
// not a difference.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <future>
#include <iterator>
#include <map>
#include <string_view>

#include "diff/metric_series.h"
#include "diff/metric_stats.h"
#include "diff/sections.h"

namespace casefile::diff {
namespace {

// Loss tolerance: run-to-run noise of the same config (data order, seeds,
// non-deterministic kernels) stays well within 10% of the loss once
// training is under way; the absolute term keeps losses near zero from
// turning a 0.002 wobble into a divergence.
constexpr double kLossRelTolerance = 0.10;
constexpr double kLossAbsTolerance = 0.01;
// A divergence must hold for this many consecutive matched steps (a single
// spike that recovers is not one), or up to the last matched step when at
// least two remain (a run that blew up and stopped).
constexpr size_t kSustainSteps = 3;
// Step times: the first 10% of logged steps, at least 3, are warm-up
// (compilation, autotuning, data-loader start); at least 5 steady steps are
// needed on each side to say anything.
constexpr double kWarmupFraction = 0.10;
constexpr size_t kWarmupMinSteps = 3;
constexpr size_t kMinSteadySteps = 5;
constexpr double kSlowerRatio = 1.20;
// The slowest host of bad is named when its median is this far above the
// median of the other hosts' medians (the hang analyzer's straggler bar),
// among at least this many hosts.
constexpr double kStragglerRatio = 1.25;
constexpr size_t kMinHostsForStraggler = 3;
constexpr double kThroughputDrop = 0.10;

// Metrics whose non-finite values only in bad are reported, and those
// compared for divergence.
const char* const kNonFiniteMetrics[] = {"loss", "eval_loss", "grad_norm"};
const char* const kDivergenceMetrics[] = {"loss", "eval_loss"};
// Throughput names a log form may give (none of today's forms does: see
// docs/DIFF.md, metrics); compared when both sides have them.
const char* const kThroughputMetrics[] = {
    "throughput",        "samples_per_second", "train_samples_per_second",
    "tokens_per_second", "tokens_per_sec",     "tflops"};

Evidence EvidenceOf(const DiffSide& side, const LoggedValue& v) {
  return side.LineEvidence(v.file_id, v.line_no);
}

std::string StepText(int64_t step) { return "step " + std::to_string(step); }

// What the section reads of one side: the metrics it compares, by name, and
// the step times.
struct SideMetrics {
  std::map<std::string, MetricByStep> metrics;
  StepTimes steps;
  const MetricByStep& Metric(const std::string& name) const {
    static const MetricByStep kNone;
    const auto it = metrics.find(name);
    return it == metrics.end() ? kNone : it->second;
  }
};

SideMetrics LoadSideMetrics(const DiffSide& side, const std::vector<std::string>& names) {
  SideMetrics m;
  for (const std::string& name : names) m.metrics[name] = LoadMetric(side, name);
  m.steps = LoadStepTimes(side);
  return m;
}

// --- non-finite values -------------------------------------------------------

void NonFinite(const DiffSide& good, const DiffSide& bad, const std::string& name,
               const MetricByStep& g, const MetricByStep& b, std::vector<DiffItem>& out) {
  // Good must have logged the metric, all finite: a good bundle without
  // that log says nothing about it (the findings section reports the nan).
  if (g.empty()) return;
  for (const auto& [step, values] : g) {
    if (values.AnyNonFinite()) return;  // both sides have them: not a difference
  }
  const LoggedValue* first = nullptr;
  int64_t first_step = 0;
  int64_t points = 0;
  for (const auto& [step, values] : b) {
    for (const LoggedValue& v : values.values) {
      if (v.finite) continue;
      ++points;
      if (first == nullptr) {
        first = &v;
        first_step = step;
      }
    }
  }
  if (first == nullptr) return;
  DiffItem item;
  item.section = "metrics";
  item.kind = "nonfinite";
  item.key = name;
  item.score = 90;
  const std::string what = std::isnan(first->value) ? "nan" : (first->value > 0 ? "inf" : "-inf");
  item.bad = what + " at " + StepText(first_step);
  item.bad_evidence.push_back(EvidenceOf(bad, *first));
  auto at = g.find(first_step);
  if (at != g.end()) {
    if (const LoggedValue* gv = at->second.NearestMedian()) {
      item.good = FormatNumber(gv->value) + " at " + StepText(first_step);
      item.good_evidence.push_back(EvidenceOf(good, *gv));
    }
  } else {
    // Evidence of the good run's last value: it stayed finite to the end.
    if (const LoggedValue* gv = g.rbegin()->second.NearestMedian()) {
      item.good = FormatNumber(gv->value) + " at " + StepText(g.rbegin()->first);
      item.good_evidence.push_back(EvidenceOf(good, *gv));
    }
  }
  item.summary = name + " becomes " + what + " at " + StepText(first_step) + " in bad (" +
                 std::to_string(points) + " non-finite value" + (points == 1 ? "" : "s") +
                 "); good has none" + (g.empty() ? "" : " up to " + StepText(g.rbegin()->first));
  item.fields.push_back({"first_nonfinite_step", first_step});
  item.fields.push_back({"bad_nonfinite_points", points});
  item.fields.push_back({"good_last_step", g.rbegin()->first});
  out.push_back(std::move(item));
}

// --- divergence --------------------------------------------------------------

struct Compared {
  int64_t step = 0;
  std::optional<double> good, bad;  // medians; nullopt: only non-finite there
  bool bad_nonfinite = false;
  bool beyond = false;
};

void Divergence(const DiffSide& good, const DiffSide& bad, const std::string& name,
                const MetricByStep& g, const MetricByStep& b, std::vector<DiffItem>& out) {
  std::vector<Compared> steps;
  for (const auto& [step, gv] : g) {
    auto it = b.find(step);
    if (it == b.end()) continue;
    Compared c;
    c.step = step;
    c.good = gv.FiniteMedian();
    c.bad = it->second.FiniteMedian();
    c.bad_nonfinite = it->second.AnyNonFinite() && !gv.AnyNonFinite();
    if (c.good && c.bad) {
      c.beyond =
          std::fabs(*c.bad - *c.good) > kLossRelTolerance * std::fabs(*c.good) + kLossAbsTolerance;
    }
    c.beyond = c.beyond || c.bad_nonfinite;
    steps.push_back(c);
  }
  size_t start = steps.size();
  size_t run = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!steps[i].beyond) continue;
    size_t j = i;
    while (j < steps.size() && steps[j].beyond) ++j;
    const size_t len = j - i;
    if (len >= kSustainSteps || (j == steps.size() && len >= 2)) {
      start = i;
      run = len;
      break;
    }
    i = j;
  }
  if (start == steps.size()) return;
  const Compared& first = steps[start];
  // A divergence that is only the non-finite values is the nonfinite item's.
  if (first.bad_nonfinite) return;
  // Direction over the run: higher loss in bad is the suspicious one.
  std::vector<double> rel;
  for (size_t i = start; i < start + run; ++i) {
    if (steps[i].good && steps[i].bad) {
      rel.push_back((*steps[i].bad - *steps[i].good) / std::max(std::fabs(*steps[i].good), 1e-12));
    }
  }
  const double median_rel = Median(rel).value_or(0);
  DiffItem item;
  item.section = "metrics";
  item.key = name;
  item.kind = median_rel >= 0 ? "diverged" : "improved";
  item.score = median_rel >= 0 ? 75 : 20;
  item.good = FormatNumber(*first.good) + " at " + StepText(first.step);
  item.bad = FormatNumber(*first.bad) + " at " + StepText(first.step);
  if (const LoggedValue* v = g.at(first.step).NearestMedian()) {
    item.good_evidence.push_back(EvidenceOf(good, *v));
  }
  if (const LoggedValue* v = b.at(first.step).NearestMedian()) {
    item.bad_evidence.push_back(EvidenceOf(bad, *v));
  }
  char pct[32];
  std::snprintf(pct, sizeof pct, "%+.0f%%", median_rel * 100);
  item.summary = name + (median_rel >= 0 ? " diverges" : " is lower") + " from " +
                 StepText(first.step) + ": " + FormatNumber(*first.good) + " in good vs " +
                 FormatNumber(*first.bad) + " in bad (median " + pct + " over " +
                 std::to_string(run) + " matched step" + (run == 1 ? "" : "s") + ")";
  item.fields.push_back({"first_divergence_step", first.step});
  item.fields.push_back({"sustained_steps", static_cast<int64_t>(run)});
  item.fields.push_back({"matched_steps", static_cast<int64_t>(steps.size())});
  item.fields.push_back({"median_relative_change", median_rel});
  item.fields.push_back({"last_matched_step", steps.back().step});
  out.push_back(std::move(item));
}

// --- step time ---------------------------------------------------------------

// One side's step times after warm-up, limited to steps up to `last_step`.
struct SteadySteps {
  // (step, the slowest line of that step) by step: a synchronous step lasts
  // as long as its slowest rank.
  std::vector<std::pair<int64_t, const StepTimeRow*>> slowest;
  std::map<std::string, std::vector<double>> by_host;
  std::vector<double> Values() const {
    std::vector<double> v;
    v.reserve(slowest.size());
    for (const auto& [step, row] : slowest) v.push_back(row->seconds);
    return v;
  }
};

// The distinct steps logged, ascending.
std::vector<int64_t> LoggedSteps(const StepTimes& t) {
  std::vector<int64_t> steps;
  if (t.rows.empty()) return steps;
  int64_t lo = t.rows.front().step, hi = lo;
  for (const StepTimeRow& r : t.rows) {
    lo = std::min(lo, r.step);
    hi = std::max(hi, r.step);
  }
  // Every rank logs the same few thousand steps: when they are that dense,
  // marks over their range find the distinct ones without sorting a million
  // rows.
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span < 4 * static_cast<uint64_t>(t.rows.size()) + 1024) {
    std::vector<char> seen(span + 1, 0);
    for (const StepTimeRow& r : t.rows) seen[static_cast<uint64_t>(r.step - lo)] = 1;
    for (uint64_t i = 0; i <= span; ++i) {
      if (seen[i]) steps.push_back(lo + static_cast<int64_t>(i));
    }
    return steps;
  }
  steps.reserve(t.rows.size());
  for (const StepTimeRow& r : t.rows) steps.push_back(r.step);
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  return steps;
}

SteadySteps Steady(const StepTimes& t, const std::vector<int64_t>& steps, int64_t last_step) {
  SteadySteps out;
  const size_t warmup =
      std::max(kWarmupMinSteps,
               static_cast<size_t>(std::ceil(kWarmupFraction * static_cast<double>(steps.size()))));
  if (steps.size() <= warmup) return out;
  const int64_t first_steady = steps[warmup];
  std::vector<const StepTimeRow*> slowest(steps.size(), nullptr);
  std::vector<std::vector<double>> by_who(t.who.size());
  size_t at = 0;  // a series' steps ascend: the next step is tried first
  for (const StepTimeRow& r : t.rows) {
    if (r.step < first_steady || r.step > last_step) continue;
    if (at >= steps.size() || steps[at] != r.step) {
      if (at + 1 < steps.size() && steps[at + 1] == r.step) {
        ++at;
      } else {
        at = static_cast<size_t>(std::lower_bound(steps.begin(), steps.end(), r.step) -
                                 steps.begin());
      }
    }
    const StepTimeRow*& s = slowest[at];
    if (s == nullptr || r.seconds > s->seconds) s = &r;
    by_who[r.who].push_back(r.seconds);
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    if (slowest[i] != nullptr) out.slowest.emplace_back(steps[i], slowest[i]);
  }
  for (size_t w = 0; w < by_who.size(); ++w) {
    if (!by_who[w].empty()) out.by_host.emplace(t.who[w], std::move(by_who[w]));
  }
  return out;
}

// The line of the step whose time is the side's median (evidence).
const StepTimeRow* MedianLine(const SteadySteps& s) {
  std::vector<const StepTimeRow*> rows;
  for (const auto& [step, row] : s.slowest) rows.push_back(row);
  if (rows.empty()) return nullptr;
  std::stable_sort(rows.begin(), rows.end(), [](const StepTimeRow* a, const StepTimeRow* b) {
    return a->seconds < b->seconds;
  });
  return rows[(rows.size() - 1) / 2];
}

void StepTime(const DiffSide& good, const DiffSide& bad, const StepTimes& g_rows,
              const StepTimes& b_rows, std::vector<DiffItem>& out) {
  if (g_rows.rows.empty() || b_rows.rows.empty()) return;
  // Steps both runs reached: the shorter run's last step bounds both.
  const std::vector<int64_t> g_steps = LoggedSteps(g_rows), b_steps = LoggedSteps(b_rows);
  int64_t last = std::min(g_steps.back(), b_steps.back());
  if (last < std::max(g_steps.front(), b_steps.front())) {
    last = std::max(g_steps.back(), b_steps.back());  // no overlap (a resumed run): all
  }
  const SteadySteps gs = Steady(g_rows, g_steps, last), bs = Steady(b_rows, b_steps, last);
  if (gs.slowest.size() < kMinSteadySteps || bs.slowest.size() < kMinSteadySteps) return;
  const double g_med = *Median(gs.Values()), b_med = *Median(bs.Values());
  const double g_p90 = *Quantile(gs.Values(), 0.9), b_p90 = *Quantile(bs.Values(), 0.9);
  const double ratio = b_med / g_med;
  const double p90_ratio = b_p90 / g_p90;

  DiffItem item;
  item.section = "metrics";
  item.key = "step_time";
  item.good = FormatSeconds(g_med);
  item.bad = FormatSeconds(b_med);
  std::string what;
  if (ratio >= kSlowerRatio) {
    item.kind = "slower";
    // 65 at +20%, rising with the slowdown to 85 at about 2x.
    item.score = std::min(85.0, 65 + 25 * (ratio - kSlowerRatio));
    what = "median step time " + FormatSeconds(g_med) + " -> " + FormatSeconds(b_med) + " (" +
           FormatRatio(ratio) + " slower)";
  } else if (p90_ratio >= kSlowerRatio) {
    item.kind = "slower_p90";
    item.score = 55;
    what = "p90 step time " + FormatSeconds(g_p90) + " -> " + FormatSeconds(b_p90) + " (" +
           FormatRatio(p90_ratio) + "), median " + FormatSeconds(g_med) + " -> " +
           FormatSeconds(b_med);
  } else if (ratio <= 1 / kSlowerRatio) {
    item.kind = "faster";
    item.score = 20;
    what = "median step time " + FormatSeconds(g_med) + " -> " + FormatSeconds(b_med) + " (" +
           FormatRatio(ratio) + ", faster)";
  } else {
    item.kind = "unchanged";
    item.score = 5;
    what = "median step time " + FormatSeconds(g_med) + " vs " + FormatSeconds(b_med);
  }
  // The slowest host of bad, when far from the others.
  if (bs.by_host.size() >= kMinHostsForStraggler) {
    std::string slow_host;
    double slow = 0;
    for (const auto& [host, v] : bs.by_host) {
      const double m = *Median(v);
      if (m > slow) {
        slow = m;
        slow_host = host;
      }
    }
    std::vector<double> others;
    for (const auto& [host, v] : bs.by_host) {
      if (host != slow_host) others.push_back(*Median(v));
    }
    const double others_med = *Median(others);
    if (slow >= kStragglerRatio * others_med) {
      what += "; slowest host " + slow_host + " at " + FormatSeconds(slow) + " vs " +
              FormatSeconds(others_med) + " for the other " + std::to_string(others.size()) +
              " hosts";
      item.fields.push_back({"slowest_host", slow_host});
      item.fields.push_back({"slowest_host_median_s", slow});
      item.fields.push_back({"other_hosts_median_s", others_med});
      auto in_good = gs.by_host.find(slow_host);
      if (in_good != gs.by_host.end()) {
        item.fields.push_back({"slowest_host_good_median_s", *Median(in_good->second)});
      }
    }
  }
  item.summary = what;
  if (const StepTimeRow* r = MedianLine(gs)) {
    item.good_evidence.push_back(good.LineEvidence(r->file_id, r->line_no));
  }
  if (const StepTimeRow* r = MedianLine(bs)) {
    item.bad_evidence.push_back(bad.LineEvidence(r->file_id, r->line_no));
  }
  item.fields.push_back({"good_median_s", g_med});
  item.fields.push_back({"bad_median_s", b_med});
  item.fields.push_back({"good_p90_s", g_p90});
  item.fields.push_back({"bad_p90_s", b_p90});
  item.fields.push_back({"median_ratio", ratio});
  item.fields.push_back({"p90_ratio", p90_ratio});
  item.fields.push_back({"good_steps", static_cast<int64_t>(gs.slowest.size())});
  item.fields.push_back({"bad_steps", static_cast<int64_t>(bs.slowest.size())});
  item.fields.push_back({"last_compared_step", last});
  out.push_back(std::move(item));
}

// --- throughput --------------------------------------------------------------

// The median after warm-up of one side's points up to `last_step`, and the
// value nearest it (evidence).
std::optional<double> SteadyMedian(const MetricByStep& m, int64_t last_step,
                                   std::optional<LoggedValue>* at) {
  const size_t warmup =
      std::max(kWarmupMinSteps,
               static_cast<size_t>(std::ceil(kWarmupFraction * static_cast<double>(m.size()))));
  StepValues pooled;
  size_t i = 0;
  for (const auto& [step, values] : m) {
    if (i++ < warmup || step > last_step) continue;
    for (const LoggedValue& v : values.values) pooled.values.push_back(v);
  }
  if (pooled.values.size() < kMinSteadySteps) return std::nullopt;
  if (const LoggedValue* v = pooled.NearestMedian()) *at = *v;
  return pooled.FiniteMedian();
}

void Throughput(const DiffSide& good, const DiffSide& bad, const SideMetrics& gm,
                const SideMetrics& bm, std::vector<DiffItem>& out) {
  for (const char* name : kThroughputMetrics) {
    const MetricByStep& g = gm.Metric(name);
    const MetricByStep& b = bm.Metric(name);
    if (g.empty() || b.empty()) continue;
    const int64_t last = std::min(g.rbegin()->first, b.rbegin()->first);
    std::optional<LoggedValue> g_at, b_at;
    const std::optional<double> gm = SteadyMedian(g, last, &g_at);
    const std::optional<double> bm = SteadyMedian(b, last, &b_at);
    if (!gm || !bm || *gm <= 0) continue;
    const double ratio = *bm / *gm;
    DiffItem item;
    item.section = "metrics";
    item.key = name;
    item.good = FormatNumber(*gm);
    item.bad = FormatNumber(*bm);
    if (ratio <= 1 - kThroughputDrop) {
      item.kind = "throughput_lower";
      item.score = 60;
    } else if (ratio >= 1 + kThroughputDrop) {
      item.kind = "throughput_higher";
      item.score = 20;
    } else {
      item.kind = "unchanged";
      item.score = 5;
    }
    item.summary = std::string("median ") + name + " " + FormatNumber(*gm) + " -> " +
                   FormatNumber(*bm) + " (" + FormatRatio(ratio) + ")";
    if (g_at) item.good_evidence.push_back(EvidenceOf(good, *g_at));
    if (b_at) item.bad_evidence.push_back(EvidenceOf(bad, *b_at));
    item.fields.push_back({"good_median", *gm});
    item.fields.push_back({"bad_median", *bm});
    item.fields.push_back({"ratio", ratio});
    out.push_back(std::move(item));
  }
}

// Whether any chunk of the metric on this side holds a non-finite value
// (metric_chunks.nonfinite_count, filled at ingest).
bool AnyNonFinite(const DiffSide& side, const char* name) {
  if (side.index == nullptr || !HasTable(*side.index, "metric_chunks")) return false;
  bool any = false;
  side.index->Query(std::string("SELECT 1 FROM metric_chunks WHERE name = '") + name +
                        "' AND nonfinite_count > 0 LIMIT 1",
                    [&](const QueryRow&) {
                      any = true;
                      return false;
                    });
  return any;
}

}  // namespace

std::vector<DiffItem> DiffMetrics(const DiffSide& good, const DiffSide& bad) {
  // A metric compared only for non-finite values (not for divergence) is
  // decoded only when bad has some: ingest counted them per chunk, and
  // grad_norm holds as many points as the loss.
  std::vector<std::string> names;
  for (const char* name : kNonFiniteMetrics) {
    const bool curve = std::find(std::begin(kDivergenceMetrics), std::end(kDivergenceMetrics),
                                 std::string_view(name)) != std::end(kDivergenceMetrics);
    if (curve || AnyNonFinite(bad, name)) names.push_back(name);
  }
  for (const char* name : kThroughputMetrics) names.push_back(name);
  // The sides are independent indexes: good is read on a second thread
  // while bad is read here (a million points a side is most of the diff).
  auto good_future = std::async(std::launch::async, [&] { return LoadSideMetrics(good, names); });
  SideMetrics bm = LoadSideMetrics(bad, names);
  const SideMetrics gm = good_future.get();

  std::vector<DiffItem> out;
  for (const std::string& name : names) {
    if (std::find(std::begin(kNonFiniteMetrics), std::end(kNonFiniteMetrics), name) ==
        std::end(kNonFiniteMetrics))
      continue;
    NonFinite(good, bad, name, gm.Metric(name), bm.Metric(name), out);
  }
  for (const char* name : kDivergenceMetrics) {
    Divergence(good, bad, name, gm.Metric(name), bm.Metric(name), out);
  }
  StepTime(good, bad, gm.steps, bm.steps, out);
  Throughput(good, bad, gm, bm, out);
  RankItems(out);
  return out;
}

}  // namespace casefile::diff
