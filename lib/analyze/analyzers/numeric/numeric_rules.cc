#include "analyze/analyzers/numeric/numeric_rules.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analyze/analyzers/numeric/rolling_median.h"
#include "parse/numeric/metric_forms.h"

namespace casefile::numeric {
namespace {

bool NonFinite(const std::string& text, std::string* which) {
  MetricValue v;
  if (!ParseMetricValue(text, &v) || v.finite()) return false;
  *which = v.kind == ValueKind::kNan ? "nan" : "inf";
  return true;
}

std::optional<double> Finite(const std::string& text) {
  MetricValue v;
  if (!ParseMetricValue(text, &v) || !v.finite()) return std::nullopt;
  return v.value;
}

bool IsOutput(const std::string& role) { return role.starts_with("output"); }

bool AtOrBelow(double scale, double min_scale) { return scale <= min_scale * (1 + 1e-9); }

}  // namespace

// ---- DebugUnderflowOverflow tables ------------------------------------------

OverflowFacts AnalyzeTable(const FrameTable& t) {
  OverflowFacts f;
  f.table = &t;
  std::optional<size_t> culprit_row, fallback_row;
  std::string culprit_what, fallback_what;
  std::optional<int64_t> last_frame;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const FrameRowData& r = t.rows[i];
    if (r.frame_index != last_frame) {
      ++f.frames;
      last_frame = r.frame_index;
    }
    std::string what;
    if (!NonFinite(r.max_text, &what) && !NonFinite(r.min_text, &what)) continue;
    if (!fallback_row) {
      fallback_row = i;
      fallback_what = what;
    }
    if (IsOutput(r.role) && !culprit_row) {
      culprit_row = i;
      culprit_what = what;
    }
  }
  const std::optional<size_t> row = culprit_row ? culprit_row : fallback_row;
  if (!row) return f;
  const FrameRowData& c = t.rows[*row];
  f.found = true;
  f.in_output = culprit_row.has_value();
  f.module_line = c.module_line_no;
  f.module_path = c.module_path;
  f.module_class = c.module_class;
  f.role = c.role;
  f.value_text = culprit_row ? culprit_what : fallback_what;
  f.frame_index = c.frame_index;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const FrameRowData& r = t.rows[i];
    const bool earlier_frame = r.frame_index != c.frame_index && i < *row;
    const bool own_input = r.frame_index == c.frame_index && !IsOutput(r.role);
    if (!earlier_frame && !own_input) continue;
    const std::optional<double> v = Finite(r.max_text);
    if (v && (!f.largest_finite || *v > *f.largest_finite)) {
      f.largest_finite = *v;
      f.largest_where = (r.module_path.empty() ? r.module_class : r.module_path) + " " + r.role;
    }
  }
  return f;
}

std::optional<Growth> FastestGrowth(const std::vector<const FrameTable*>& traces) {
  // module path -> batch -> largest finite output abs max.
  std::map<std::string, std::map<int64_t, double>> series;
  std::map<std::string, std::string> classes;
  for (const FrameTable* t : traces) {
    if (!t->batch) continue;
    for (const FrameRowData& r : t->rows) {
      if (!IsOutput(r.role) || r.module_path.empty()) continue;
      const std::optional<double> v = Finite(r.max_text);
      if (!v) continue;
      double& slot = series[r.module_path][*t->batch];
      slot = std::max(slot, *v);
      classes[r.module_path] = r.module_class;
    }
  }
  std::optional<Growth> best;
  for (const auto& [path, by_batch] : series) {
    for (auto it = by_batch.begin(); it != by_batch.end(); ++it) {
      auto next = std::next(it);
      if (next == by_batch.end() || it->second <= 0) continue;
      const double ratio = next->second / it->second;
      if (ratio <= 1) continue;
      if (!best || ratio > best->to / best->from) {
        best = Growth{path, classes[path], it->first, next->first, it->second, next->second};
      }
    }
  }
  return best;
}

// ---- Training curves --------------------------------------------------------

bool IsCurveName(const std::string& name) {
  return name == kLoss || name == kEvalLoss || name == kGradNorm || name == kRerunCheck;
}

CurveFacts AnalyzeCurve(const MetricGroup& g, const std::string& name,
                        const std::vector<SeriesPoint>& points) {
  CurveFacts f;
  f.file_id = g.file_id;
  f.form = g.form;
  f.name = name;
  f.who = g.who;
  f.points = points.size();
  const bool is_loss = name == kLoss;
  // A grad norm that is inf or nan and then finite again is a step the fp16
  // loss scaler skipped (HF logs the unscaled norm of the overflowing step,
  // "'grad_norm': inf", through the scaler's warm-up): only a non-finite
  // norm that stays so to the end of the series is a divergence (a log
  // every N steps, trainer_state.json's log_history, may hold one point of
  // it). A run whose weights went nan shows it in the loss as well.
  // The same for an eval loss: scripts print "val_loss nan" as a
  // placeholder until the first evaluation, and one bad eval batch is not a
  // diverged model; one that diverged stays non-finite.
  // Non-finite points before this index are skipped steps.
  size_t skipped_before = 0;
  if (name == kGradNorm || name == kEvalLoss) {
    for (size_t j = points.size(); j-- > 0;) {
      if (points[j].finite()) {
        skipped_before = j;
        break;
      }
    }
  }
  RollingMedian<kBaselineWindow> window;
  std::optional<double> prev;
  size_t positives = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const SeriesPoint& p = points[i];
    if (!p.finite() && i < skipped_before) continue;
    if (!p.finite()) {
      f.first_bad = p;
      if (prev) {
        // The finite value just before, with its line and step.
        for (size_t j = i; j-- > 0;) {
          if (points[j].finite()) {
            f.last_finite = points[j];
            break;
          }
        }
      }
      break;
    }
    const double v = p.value;
    if (is_loss && window.size() >= kMinBaseline) {
      const double median = window.Median();
      if (median > 0 && v > kSpikeFactor * median) {
        const Spike s{p.line_no, p.step, v, median};
        ++f.spike_count;
        if (!f.first_spike) f.first_spike = s;
        f.last_spike = s;
        if (!f.max_spike || v / median > f.max_spike->value / f.max_spike->baseline) {
          f.max_spike = s;
        }
      }
    }
    if (is_loss && v == 0 && !f.first_zero && prev && *prev > kZeroAfter &&
        positives >= kMinNormalBeforeZero) {
      // Stuck at 0: every later finite value is 0, or a run of them.
      size_t run = 0;
      bool to_end = true;
      for (size_t j = i; j < points.size(); ++j) {
        if (!points[j].finite()) continue;
        if (points[j].value != 0) {
          to_end = false;
          break;
        }
        ++run;
      }
      if (to_end || run >= kMinZeroRun) {
        f.first_zero = p;
        f.value_before_zero = *prev;
      }
    }
    if (v > 0) ++positives;
    prev = v;
    window.Push(v);
  }
  return f;
}

// ---- Loss scaler ------------------------------------------------------------

ScaleFacts AnalyzeScale(const MetricGroup& g, double min_scale) {
  ScaleFacts f;
  f.file_id = g.file_id;
  f.form = g.form;
  f.who = g.who;
  f.rank_named = g.form == "deepspeed_overflow";
  auto note_scale = [&](double s) {
    if (!f.highest || s > *f.highest) f.highest = s;
    if (!f.lowest || s < *f.lowest) f.lowest = s;
  };
  if (g.form == "scale_at_minimum") {
    if (const auto* pts = g.Find(kScaleAtMinimum); pts && !pts->empty()) {
      f.at_minimum_message = pts->front().line_no;
      f.collapsed = true;
    }
    return f;
  }
  // A logged scale, one value per metrics line: Megatron's iteration lines,
  // or a loss_scale/scale key in key=value lines and HF dicts. Only
  // Megatron's lines count skipped iterations, so elsewhere only a scale of
  // 0 or far below 1 (a scaler without a floor) is a collapse.
  if (const auto* scales = g.Find(kLossScale)) {
    std::map<int64_t, double> skipped;
    if (const auto* pts = g.Find(kSkippedIterations)) {
      for (const SeriesPoint& p : *pts) skipped[p.line_no] = p.finite() ? p.value : 0;
    }
    bool above = false;
    for (const SeriesPoint& p : *scales) {
      if (!p.finite()) continue;
      ++f.iterations;
      note_scale(p.value);
      auto it = skipped.find(p.line_no);
      const bool skipping = it != skipped.end() && it->second > 0;
      if (skipping) ++f.overflows;
      if (p.value <= 0 || p.value < kFarBelowOne) {
        if (!f.first_zero) f.first_zero = p.line_no;
      }
      // A scale that starts at the minimum and never moves is a run that
      // does not scale (bf16 prints "loss scale: 1.0"); only a fall to it
      // counts.
      if (!AtOrBelow(p.value, min_scale)) {
        above = true;
        continue;
      }
      if (!above) continue;
      ++f.iterations_after_minimum;
      if (!skipping) continue;
      ++f.at_minimum;
      if (!f.first_at_minimum) {
        f.first_at_minimum = p.line_no;
        f.first_at_minimum_step = p.step;
      }
    }
    f.collapsed = f.first_zero.has_value() || f.at_minimum >= kMinOverflowsAtMinimum;
    return f;
  }
  // Overflow messages: one event per line, the scale it was at (attempted)
  // or, for scalers that only print the new scale, that one.
  struct Event {
    std::optional<int64_t> step;
    std::optional<double> attempted, reduced;
  };
  std::map<int64_t, Event> events;
  if (const auto* pts = g.Find(kOverflowSkip)) {
    for (const SeriesPoint& p : *pts) events[p.line_no].step = p.step;
  }
  if (const auto* pts = g.Find(kScaleAttempted)) {
    for (const SeriesPoint& p : *pts) events[p.line_no].attempted = p.value;
  }
  if (const auto* pts = g.Find(kScaleReducedTo)) {
    for (const SeriesPoint& p : *pts) events[p.line_no].reduced = p.value;
  }
  for (const auto& [line, e] : events) {
    ++f.overflows;
    const std::optional<double> scale = e.attempted ? e.attempted : e.reduced;
    if (!scale || std::isnan(*scale)) continue;
    note_scale(*scale);
    const bool zero = *scale <= 0 || *scale < kFarBelowOne || (e.reduced && *e.reduced <= 0);
    if (zero && !f.first_zero) f.first_zero = line;
    if (!AtOrBelow(*scale, min_scale)) continue;
    ++f.at_minimum;
    if (!f.first_at_minimum) {
      f.first_at_minimum = line;
      f.first_at_minimum_step = e.step;
    }
  }
  f.collapsed = f.first_zero.has_value() || f.at_minimum >= kMinOverflowsAtMinimum;
  return f;
}

}  // namespace casefile::numeric
