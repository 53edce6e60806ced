#include "diff/metric_series.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include "analyze/query_values.h"
#include "analyze/step_times.h"
#include "common/error.h"
#include "diff/metric_stats.h"
#include "parse/numeric/metric_chunk.h"

namespace casefile::diff {
namespace {

// Step times read at most per side (analyze/step_times.h): bounds the memory
// of a pathological index, as the hang analyzer's cap does.
constexpr size_t kMaxStepTimes = 4'000'000;

}  // namespace

void MetricByStep::Add(int64_t step, const LoggedValue& value) {
  size_t at = last_ + 1;
  if (at >= steps_.size() || steps_[at].first != step) {
    if (last_ < steps_.size() && steps_[last_].first == step) {
      at = last_;
    } else {
      auto [it, fresh] = slot_.try_emplace(step, steps_.size());
      if (fresh) steps_.push_back({step, {}});
      at = it->second;
    }
  }
  steps_[at].second.values.push_back(value);
  last_ = at;
  // The values of each step lie apart, and a series visits the steps in
  // order: the end of a step a few ahead is fetched now, so that writing
  // there does not wait for memory (it was a miss per point).
  constexpr size_t kAhead = 4;
  if (at + kAhead < steps_.size()) {
    const std::vector<LoggedValue>& ahead = steps_[at + kAhead].second.values;
    __builtin_prefetch(ahead.data() + ahead.size(), 1);
  }
}

void MetricByStep::Finish() {
  slot_ = {};
  // Steps were added in the order of the first series to reach each, which
  // is ascending for all but runs that restart or interleave their steps.
  auto by_step = [](const Entry& a, const Entry& b) { return a.first < b.first; };
  if (!std::is_sorted(steps_.begin(), steps_.end(), by_step)) {
    std::sort(steps_.begin(), steps_.end(), by_step);
  }
  last_ = 0;
}

MetricByStep::const_iterator MetricByStep::find(int64_t step) const {
  auto it = std::lower_bound(steps_.begin(), steps_.end(), step,
                             [](const Entry& e, int64_t s) { return e.first < s; });
  return it != steps_.end() && it->first == step ? it : steps_.end();
}

const StepValues& MetricByStep::at(int64_t step) const {
  auto it = find(step);
  if (it == steps_.end()) throw std::out_of_range("MetricByStep::at: no such step");
  return it->second;
}

bool StepValues::AnyNonFinite() const {
  return std::any_of(values.begin(), values.end(), [](const LoggedValue& v) { return !v.finite; });
}

std::optional<double> StepValues::FiniteMedian() const {
  std::vector<double> finite;
  for (const LoggedValue& v : values) {
    if (v.finite) finite.push_back(v.value);
  }
  return Median(std::move(finite));
}

const LoggedValue* StepValues::NearestMedian() const {
  const std::optional<double> m = FiniteMedian();
  if (!m) return nullptr;
  const LoggedValue* best = nullptr;
  for (const LoggedValue& v : values) {
    if (!v.finite) continue;
    // Ties go to the first in (file, line) order, which the load order gives.
    if (best == nullptr || std::fabs(v.value - *m) < std::fabs(best->value - *m)) best = &v;
  }
  return best;
}

const LoggedValue* StepValues::FirstNonFinite() const {
  for (const LoggedValue& v : values) {
    if (!v.finite) return &v;
  }
  return nullptr;
}

namespace {

std::string WhoOf(const QueryValue& host, const QueryValue& rank, int64_t file_id) {
  if (host && !host->empty()) return *host;
  if (rank) return "rank " + *rank;
  return "file " + std::to_string(file_id);
}

}  // namespace

MetricByStep LoadMetric(const DiffSide& side, const std::string& name) {
  MetricByStep out;
  if (side.index == nullptr || !HasTable(*side.index, "metric_chunks")) return out;
  std::string quoted;
  for (char c : name) {
    quoted += c;
    if (c == '\'') quoted += c;
  }
  // Chunks of one series (file, host, rank, form) in line order, so a series
  // without any step can be numbered by order.
  struct Pending {
    std::optional<int64_t> step;
    LoggedValue value;
  };
  std::vector<Pending> series;
  std::tuple<int64_t, QueryValue, QueryValue, std::string> key;
  bool open = false;
  auto flush = [&] {
    const bool any_step = std::any_of(series.begin(), series.end(),
                                      [](const Pending& p) { return p.step.has_value(); });
    int64_t ordinal = 0;
    for (Pending& p : series) {
      ++ordinal;
      if (any_step && !p.step) continue;  // a stray line without step in a stepped series
      out.Add(any_step ? *p.step : ordinal, p.value);
    }
    series.clear();
  };
  side.index->Query(
      "SELECT file_id, host, rank, form, first_line, casefile_points(points) FROM metric_chunks "
      "WHERE name = '" +
          quoted + "' ORDER BY file_id, host, rank, form, first_line",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        const int64_t file_id = IntOf(v[0]).value_or(0);
        auto row_key = std::make_tuple(file_id, v[1], v[2], TextOf(v[3]));
        if (open && row_key != key) flush();
        key = std::move(row_key);
        open = true;
        const bool ok = numeric::DecodeMetricPoints(TextOf(v[5]), IntOf(v[4]).value_or(0),
                                                    [&](const numeric::MetricPoint& p) {
                                                      Pending pending;
                                                      pending.step = p.step;
                                                      pending.value.value = p.value.value;
                                                      pending.value.finite = p.value.finite();
                                                      pending.value.file_id = file_id;
                                                      pending.value.line_no = p.line_no;
                                                      series.push_back(pending);
                                                    });
        if (!ok) {
          throw Error(ErrorCode::kCorrupt, "metric_chunks: malformed points for file " +
                                               std::to_string(file_id) + " at line " +
                                               TextOf(v[4]));
        }
        return true;
      });
  if (open) flush();
  out.Finish();
  return out;
}

StepTimes LoadStepTimes(const DiffSide& side) {
  StepTimes out;
  std::vector<uint32_t> forms;  // per row, into form_of
  if (side.index == nullptr || !HasTable(*side.index, "metric_chunks")) return out;
  // Names and forms are resolved once per stored series and shared by its
  // rows.
  std::vector<std::string> form_of;
  std::map<std::string, uint32_t> who_index;
  uint32_t who = 0;
  size_t count = 0;
  const size_t stored = std::min(CountStoredStepTimes(*side.index, nullptr), kMaxStepTimes);
  out.rows.reserve(stored);
  forms.reserve(stored);
  ForEachStoredStepTime(*side.index, nullptr,
                        [&](uint32_t s, const StoredStepSeries& series, int64_t line_no,
                            std::optional<int64_t> step, double seconds) {
                          if (!step || !(seconds > 0)) return true;
                          if (count++ >= kMaxStepTimes) return false;
                          if (s >= form_of.size()) {
                            form_of.resize(s + 1);
                            form_of[s] = series.form;
                            QueryValue host = series.host;
                            QueryValue rank;
                            if (series.rank) rank = std::to_string(*series.rank);
                            if (const FileRow* f = side.File(series.file_id)) {
                              if (!host) host = f->host;
                              if (!rank && f->rank) rank = std::to_string(*f->rank);
                            }
                            const std::string name = WhoOf(host, rank, series.file_id);
                            auto [it, fresh] =
                                who_index.try_emplace(name, static_cast<uint32_t>(out.who.size()));
                            if (fresh) out.who.push_back(name);
                            who = it->second;
                          }
                          out.rows.push_back({*step, seconds, series.file_id, line_no, who});
                          forms.push_back(s);
                          return true;
                        });
  // An evaluation bar ("tqdm total=50") runs beside the training bar
  // ("tqdm total=1000") and restarts its steps: keep only the bar with the
  // most lines, and every non-tqdm form.
  std::map<std::string, size_t> tqdm_lines;
  for (uint32_t f : forms) {
    if (form_of[f].rfind("tqdm", 0) == 0) ++tqdm_lines[form_of[f]];
  }
  if (tqdm_lines.size() > 1) {
    std::string keep;
    size_t most = 0;
    for (const auto& [d, n] : tqdm_lines) {
      if (n > most) {
        most = n;
        keep = d;
      }
    }
    size_t kept = 0;
    for (size_t i = 0; i < out.rows.size(); ++i) {
      const std::string& form = form_of[forms[i]];
      if (form.rfind("tqdm", 0) != 0 || form == keep) out.rows[kept++] = out.rows[i];
    }
    out.rows.resize(kept);
  }
  return out;
}

}  // namespace casefile::diff
