#include "analyze/analyzers/hang/step_stragglers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace casefile::hang {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lo + hi) / 2;
}

// The median of `sorted` without one element equal to `value` (which it
// holds); needs at least two elements.
double MedianWithout(const std::vector<double>& sorted, double value) {
  const size_t j =
      static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), value) - sorted.begin());
  auto rest = [&](size_t k) { return k < j ? sorted[k] : sorted[k + 1]; };
  const size_t n = sorted.size() - 1;
  return n % 2 ? rest(n / 2) : (rest(n / 2 - 1) + rest(n / 2)) / 2;
}

// A series with one time per step (the last a step was logged with) in
// step order; steps are the logged numbers, or positions when the series
// logs none.
struct Series {
  const StepSeries* source = nullptr;
  std::vector<std::pair<int64_t, const StepPoint*>> steps;
  double median = 0;
  const StepPoint* At(int64_t step) const {
    auto it = std::lower_bound(steps.begin(), steps.end(), step,
                               [](const auto& p, int64_t s) { return p.first < s; });
    return it != steps.end() && it->first == step ? it->second : nullptr;
  }
};

Series Prepare(const StepSeries& s) {
  Series out;
  out.source = &s;
  bool numbered = false;
  for (const StepPoint& p : s.points) numbered = numbered || p.step.has_value();
  std::vector<std::pair<int64_t, const StepPoint*>> all;
  int64_t position = 0;
  for (const StepPoint& p : s.points) {
    if (numbered && !p.step) continue;
    all.push_back({numbered ? *p.step : position++, &p});
  }
  // Keep the last line of each step (a restarted run logs a step again).
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < all.size(); ++i) {
    if (i + 1 < all.size() && all[i + 1].first == all[i].first) continue;
    out.steps.push_back(all[i]);
  }
  std::vector<double> v;
  v.reserve(out.steps.size());
  for (const auto& [step, p] : out.steps) v.push_back(p->seconds);
  out.median = Median(std::move(v));
  return out;
}

std::string SeriesName(const StepSeries& s, const DistInputs& in) {
  if (!s.host.empty() && s.rank)
    return "host " + s.host + " (rank " + std::to_string(*s.rank) + ")";
  if (!s.host.empty()) return "host " + s.host;
  if (s.rank) return "rank " + std::to_string(*s.rank);
  const FileInfo* f = in.File(s.file_id);
  return "the log " + (f ? f->path : std::to_string(s.file_id));
}

std::string Factor(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

StepStragglers FindStepStragglers(const DistContext& ctx) {
  StepStragglers out;
  std::vector<Series> series;
  for (const StepSeries& s : ctx.in.steps) {
    if (s.points.size() < kMinSteps) continue;
    Series p = Prepare(s);
    if (p.steps.size() >= kMinSteps && p.median > 0) series.push_back(std::move(p));
  }
  if (series.size() < kMinSeries) return out;
  std::vector<double> medians;
  for (const Series& s : series) medians.push_back(s.median);
  const double m_all = Median(medians);
  std::vector<double> sorted_medians = medians;
  std::sort(sorted_medians.begin(), sorted_medians.end());
  std::vector<double> dev;
  for (double m : medians) dev.push_back(std::fabs(m - m_all));
  const double mad = std::max(Median(dev), kMadFloor * m_all);

  std::vector<size_t> candidates;
  for (size_t i = 0; i < series.size(); ++i) {
    const double m = series[i].median;
    if (m >= kMinSlowdown * m_all && (m - m_all) / (1.4826 * mad) >= kMinRobustZ)
      candidates.push_back(i);
  }
  if (candidates.empty()) return out;

  // Each step's times across all series, sorted: the peers' median of a
  // series at a step is the median of this list without its own value.
  std::unordered_map<int64_t, std::vector<double>> at_step;
  for (const Series& s : series) {
    for (const auto& [step, p] : s.steps) at_step[step].push_back(p->seconds);
  }
  for (auto& [step, v] : at_step) std::sort(v.begin(), v.end());

  // Series by closeness of their median to the overall median: the first
  // that is not the straggler and logged the step is the "median peer" cited.
  std::vector<size_t> typical(series.size());
  for (size_t k = 0; k < typical.size(); ++k) typical[k] = k;
  std::stable_sort(typical.begin(), typical.end(), [&](size_t a, size_t b) {
    return std::fabs(series[a].median - m_all) < std::fabs(series[b].median - m_all);
  });

  LineCitations ev(ctx.evidence);
  for (size_t i : candidates) {
    const Series& s = series[i];
    size_t shared = 0, slower = 0;
    for (const auto& [step, p] : s.steps) {
      const std::vector<double>& v = at_step[step];
      if (v.size() < 2) continue;
      ++shared;
      if (p->seconds > MedianWithout(v, p->seconds)) ++slower;
    }
    if (shared < kMinSteps ||
        static_cast<double>(slower) < kMinSlowerShare * static_cast<double>(shared))
      continue;

    StepStraggler st;
    st.median_s = s.median;
    st.peers_median_s = MedianWithout(sorted_medians, s.median);
    st.peers = series.size() - 1;
    if (!s.source->host.empty()) st.culprit.host = s.source->host;
    st.culprit.rank = s.source->rank;
    st.summary = SeriesName(*s.source, ctx.in) + " median step " + Fixed2(st.median_s) + " s vs " +
                 Fixed2(st.peers_median_s) + " s for its " + Count(st.peers, "peer", "peers") +
                 " (" + Factor(st.median_s / st.peers_median_s) + "x slower)";

    // Its last step, and the same step of the peer whose median is the
    // peers' median (the closest one).
    const auto& [last_step, last] = s.steps.back();
    ev.Add(last->file_id, last->line_no);
    // Candidates are few and `typical` is in order of closeness, so the scan stops early.
    const StepPoint* peer_line = nullptr;
    for (size_t k : typical) {
      if (k == i) continue;
      if ((peer_line = series[k].At(last_step))) break;
    }
    if (peer_line) ev.Add(peer_line->file_id, peer_line->line_no);
    out.stragglers.push_back(std::move(st));
  }
  out.evidence = ev.Take();
  return out;
}

}  // namespace casefile::hang
