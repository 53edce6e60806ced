// Loss and loss-scale curves per host/rank, downsampled while they are read
// (memory stays flat however many steps a run logged), with the first
// non-finite loss and the loss-scale collapse marked.
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "parse/numeric/metric_chunk.h"
#include "report/context/context_parts.h"

namespace casefile::context {
namespace {

// The metrics drawn. DeepSpeed's overflow lines give the loss scale as
// "reducing to N" (loss_scale.reduced_to), the only scale series a
// DeepSpeed fp16 run logs: it is drawn as the loss scale.
constexpr const char* kCurveName =
    "CASE c.name WHEN 'loss_scale.reduced_to' THEN 'loss_scale' ELSE c.name END";
constexpr const char* kCurveNames = "c.name IN ('loss', 'loss_scale', 'loss_scale.reduced_to')";

// One series: name, host, rank, log form (two forms of one rank are two
// series here; the one with more points is kept).
using SeriesKey = std::tuple<std::string, std::string, int64_t, std::string>;

struct SeriesInfo {
  SeriesKey key;
  std::optional<std::string> host;
  std::optional<int64_t> rank;
  int64_t points = 0;
  int64_t nonfinite = 0;
};

// Downsampling with a known count: the points fall in kBuckets buckets by
// position, and each bucket keeps its smallest and largest finite value and
// its first non-finite one; the first and last points and the first
// non-finite one are always kept. A series of at most kBuckets points keeps
// every point.
constexpr int64_t kBuckets = (kContextPointsPerSeries - 3) / 3;

struct Sampler {
  int64_t total = 0;
  int64_t seen = 0;
  bool by_step = true;
  struct Kept {
    int64_t index;
    CurvePoint p;
  };
  std::vector<std::optional<Kept>> lo, hi, bad;
  std::optional<Kept> first, last, first_nonfinite;

  explicit Sampler(int64_t n) : total(n), lo(kBuckets), hi(kBuckets), bad(kBuckets) {}

  void Add(const numeric::MetricPoint& mp) {
    CurvePoint p;
    if (mp.step) {
      p.step = static_cast<double>(*mp.step);
    } else {
      by_step = false;
      p.step = static_cast<double>(seen);
    }
    p.value = mp.value.value;
    p.nonfinite = !mp.value.finite();
    const Kept k{seen, p};
    if (!first) first = k;
    last = k;
    const int64_t b =
        std::min<int64_t>(kBuckets - 1, seen * kBuckets / std::max<int64_t>(total, 1));
    if (p.nonfinite) {
      if (!first_nonfinite) first_nonfinite = k;
      if (!bad[b]) bad[b] = k;
    } else {
      if (!lo[b] || p.value < lo[b]->p.value) lo[b] = k;
      if (!hi[b] || p.value > hi[b]->p.value) hi[b] = k;
    }
    ++seen;
  }

  std::vector<CurvePoint> Points() const {
    std::map<int64_t, CurvePoint> kept;
    for (const auto* k : {&first, &last, &first_nonfinite}) {
      if (*k) kept[(*k)->index] = (*k)->p;
    }
    for (const auto& k : lo) {
      if (k) kept[k->index] = k->p;
    }
    for (const auto& k : hi) {
      if (k) kept[k->index] = k->p;
    }
    for (const auto& k : bad) {
      if (k) kept[k->index] = k->p;
    }
    std::vector<CurvePoint> out;
    for (auto& [i, p] : kept) {
      out.push_back(p);
      // A series with a point that names no step is drawn by position.
      if (!by_step) out.back().step = static_cast<double>(i);
    }
    // Without steps the position is the x; with steps, the log's order is
    // kept (a restarted run may log a step twice).
    return out;
  }
};

// Series chosen per name: those with non-finite values first, then culprit
// ranks, then by host and rank.
std::vector<SeriesInfo> Choose(std::vector<SeriesInfo> all, const std::set<int64_t>& culprit_ranks,
                               int64_t* count) {
  // Keep one form per (name, host, rank): the one with the most points.
  std::map<std::tuple<std::string, std::string, int64_t>, SeriesInfo> best;
  for (SeriesInfo& s : all) {
    auto k = std::make_tuple(std::get<0>(s.key), std::get<1>(s.key), std::get<2>(s.key));
    auto it = best.find(k);
    if (it == best.end() || s.points > it->second.points) best[k] = std::move(s);
  }
  std::vector<SeriesInfo> out;
  for (auto& [k, s] : best) out.push_back(std::move(s));
  *count = static_cast<int64_t>(out.size());
  std::stable_sort(out.begin(), out.end(), [&](const SeriesInfo& a, const SeriesInfo& b) {
    if ((a.nonfinite > 0) != (b.nonfinite > 0)) return a.nonfinite > 0;
    const bool ca = a.rank && culprit_ranks.count(*a.rank);
    const bool cb = b.rank && culprit_ranks.count(*b.rank);
    return ca > cb;
  });
  if (out.size() > kContextSeries) out.resize(kContextSeries);
  return out;
}

void MarkSeries(MetricSeries& s) {
  if (s.name == "loss") {
    for (const CurvePoint& p : s.points) {
      if (p.nonfinite) {
        s.mark_step = p.step;
        s.mark_label = std::isnan(p.value) ? "nan" : "inf";
        return;
      }
    }
    return;
  }
  // Loss scale: a collapse is a fall to at least 256 times below its peak.
  double lo = INFINITY, hi = -INFINITY;
  for (const CurvePoint& p : s.points) {
    if (p.nonfinite || p.value <= 0) continue;
    lo = std::min(lo, p.value);
    hi = std::max(hi, p.value);
  }
  if (!(hi / lo >= 256)) return;
  for (const CurvePoint& p : s.points) {
    if (!p.nonfinite && p.value == lo) {
      s.mark_step = p.step;
      s.mark_label = "collapse";
      return;
    }
  }
}

}  // namespace

void LoadCurves(const IndexFacts& facts, const std::vector<Finding>& findings, ReportContext& out) {
  std::set<int64_t> culprit_ranks;
  for (const Finding& f : findings) {
    for (const Culprit& c : f.culprits) {
      if (c.rank) culprit_ranks.insert(*c.rank);
    }
  }
  const std::string series_sql =
      "SELECT " + std::string(kCurveName) +
      ", coalesce(c.host, f.host), coalesce(c.rank, f.rank), c.form, "
      "sum(c.point_count), sum(c.nonfinite_count) FROM metric_chunks AS c JOIN files AS f ON "
      "f.id = c.file_id WHERE " +
      kCurveNames + " GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4";
  std::vector<SeriesInfo> loss, scale;
  facts.index->Query(series_sql, [&](const QueryRow& row) {
    SeriesInfo s;
    s.host = CellOpt(row, 1);
    if (CellOpt(row, 2)) s.rank = CellInt(row, 2);
    s.key = {CellText(row, 0), s.host.value_or(""), s.rank.value_or(-1), CellText(row, 3)};
    s.points = CellInt(row, 4);
    s.nonfinite = CellInt(row, 5);
    (std::get<0>(s.key) == "loss" ? loss : scale).push_back(std::move(s));
    return true;
  });
  std::vector<SeriesInfo> chosen = Choose(std::move(loss), culprit_ranks, &out.loss_series_count);
  std::vector<SeriesInfo> chosen_scale =
      Choose(std::move(scale), culprit_ranks, &out.loss_scale_series_count);
  chosen.insert(chosen.end(), chosen_scale.begin(), chosen_scale.end());
  if (chosen.empty()) return;

  std::map<SeriesKey, Sampler> samplers;
  for (const SeriesInfo& s : chosen) samplers.emplace(s.key, Sampler(s.points));
  facts.index->Query(
      "SELECT " + std::string(kCurveName) +
          ", coalesce(c.host, f.host), coalesce(c.rank, f.rank), c.form, c.first_line, "
          "casefile_points(c.points) FROM metric_chunks AS c JOIN files AS f ON f.id = c.file_id "
          "WHERE " +
          kCurveNames + " ORDER BY c.file_id, c.first_line",
      [&](const QueryRow& row) {
        const SeriesKey key{CellText(row, 0), CellOpt(row, 1).value_or(""),
                            CellOpt(row, 2) ? CellInt(row, 2) : -1, CellText(row, 3)};
        auto it = samplers.find(key);
        if (it == samplers.end()) return true;
        // A malformed chunk gives the points before the damage; the
        // report is a picture, not a proof.
        numeric::DecodeMetricPoints(CellText(row, 5), CellInt(row, 4),
                                    [&](const numeric::MetricPoint& p) { it->second.Add(p); });
        return true;
      });
  for (const SeriesInfo& s : chosen) {
    const Sampler& sampler = samplers.at(s.key);
    MetricSeries m;
    m.name = std::get<0>(s.key);
    m.host = s.host;
    m.rank = s.rank;
    m.by_step = sampler.by_step;
    m.points = sampler.Points();
    if (m.points.empty()) continue;
    MarkSeries(m);
    (m.name == "loss" ? out.loss : out.loss_scale).push_back(std::move(m));
  }
}

}  // namespace casefile::context
