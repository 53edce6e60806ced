// The numeric rules on what was read from the index, one table or one
// series group at a time, so they can be tested without an index and the
// analyzer never holds a whole run's metrics. docs/FINDINGS.md (section
// numeric) states each rule; the constants below are quoted there.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analyze/analyzers/numeric/numeric_inputs.h"

namespace casefile::numeric {

// numeric.loss_spike: a finite loss above kSpikeFactor times the median of
// the previous kBaselineWindow finite values, once at least kMinBaseline
// values are known.
inline constexpr double kSpikeFactor = 3.0;
inline constexpr size_t kBaselineWindow = 20;
inline constexpr size_t kMinBaseline = 5;
// HF's logging_nan_inf_filter: a logged loss of exactly 0 right after a value
// above kZeroAfter, with kMinNormalBeforeZero positive values before it, that
// stays 0 to the end of the series (or for kMinZeroRun values).
inline constexpr double kZeroAfter = 0.05;
inline constexpr size_t kMinNormalBeforeZero = 3;
inline constexpr size_t kMinZeroRun = 3;
// numeric.loss_scale_collapse: this many overflows at or below the minimum
// scale, or any scale of 0 or below kFarBelowOne.
inline constexpr size_t kMinOverflowsAtMinimum = 3;
inline constexpr double kFarBelowOne = 1.0 / 1024;
// The largest finite fp16 value, and the fraction of it called "near".
inline constexpr double kFp16Max = 65504;
inline constexpr double kNearFp16 = 0.5;

// ---- DebugUnderflowOverflow tables ------------------------------------------

struct OverflowFacts {
  const FrameTable* table = nullptr;
  bool found = false;      // a frame with a non-finite value was found
  bool in_output = false;  // ... and the value is in its output (else input or weight)
  std::optional<int64_t> module_line;
  std::string module_path;
  std::string module_class;
  std::string role;        // the role holding the first non-finite value
  std::string value_text;  // "inf" or "nan"
  std::optional<int64_t> frame_index;
  size_t frames = 0;
  // The largest finite abs max before the culprit's output: in earlier
  // frames and the culprit's own inputs and weights.
  std::optional<double> largest_finite;
  std::string largest_where;  // "encoder.block.2.layer.1.dropout input[0]"
};

OverflowFacts AnalyzeTable(const FrameTable& t);

// The module whose output abs max grows the most between two traced
// batches of the same file and rank.
struct Growth {
  std::string module_path;
  std::string module_class;
  int64_t batch_from = 0, batch_to = 0;
  double from = 0, to = 0;
};
std::optional<Growth> FastestGrowth(const std::vector<const FrameTable*>& traces);

// ---- Training curves --------------------------------------------------------

struct Spike {
  int64_t line_no = 0;
  std::optional<int64_t> step;
  double value = 0;
  double baseline = 0;  // the median it is compared with
};

// One series of loss, eval_loss, grad_norm or rerun_check.
struct CurveFacts {
  int64_t file_id = 0;
  std::string form;
  std::string name;
  Who who;
  size_t points = 0;
  std::optional<SeriesPoint> first_bad;    // first nan/inf
  std::optional<SeriesPoint> last_finite;  // the finite value just before it
  // Spikes (loss only), before first_bad: the first, the latest and the
  // largest (by ratio to its baseline).
  std::optional<Spike> first_spike, last_spike, max_spike;
  size_t spike_count = 0;
  std::optional<SeriesPoint> first_zero;  // inferred nan (loss only)
  double value_before_zero = 0;
};

// Names the curve rules read.
bool IsCurveName(const std::string& name);

CurveFacts AnalyzeCurve(const MetricGroup& g, const std::string& name,
                        const std::vector<SeriesPoint>& points);

// ---- Loss scaler ------------------------------------------------------------

struct ScaleFacts {
  int64_t file_id = 0;
  std::string form;
  Who who;
  bool rank_named = false;  // the overflow lines name their rank ("OVERFLOW! Rank 3")
  size_t overflows = 0;     // overflow (skipped step) lines, or iteration lines that skipped
  size_t at_minimum = 0;    // ... at or below the minimum scale
  std::optional<int64_t> first_at_minimum;  // line of the first of those
  std::optional<int64_t> first_at_minimum_step;
  std::optional<int64_t> first_zero;          // line of a scale of 0 or far below 1
  std::optional<int64_t> at_minimum_message;  // "Current loss scale already at minimum"
  std::optional<double> highest, lowest;      // scales seen
  // Iteration lines: how many, and how many after the scale reached the minimum.
  size_t iterations = 0, iterations_after_minimum = 0;
  bool collapsed = false;
};

ScaleFacts AnalyzeScale(const MetricGroup& g, double min_scale);

}  // namespace casefile::numeric
