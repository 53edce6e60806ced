// What the metrics section of the diff reads from one side's index: metric
// points of one name at a time (the metric_chunks rows of that name only, so
// a long run's other series are never touched) and step times
// (metric_chunks series of name step_time: analyze/step_times.h). Host falls back to the file's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diff/diff_types.h"

namespace casefile::diff {

// One logged value and the line it came from.
struct LoggedValue {
  int64_t file_id = 0;
  int64_t line_no = 0;
  double value = 0;  // NaN / +-inf for non-finite values
  bool finite = true;
};

// The values of one metric at one step, over every series (file, host, rank,
// log form) that logged it.
struct StepValues {
  std::vector<LoggedValue> values;
  bool AnyNonFinite() const;
  // Median of the finite values; nullopt when none.
  std::optional<double> FiniteMedian() const;
  // The finite value nearest the median (evidence); nullptr when none.
  const LoggedValue* NearestMedian() const;
  const LoggedValue* FirstNonFinite() const;
};

// step -> values. A series whose points name no step at all (HF dict lines
// without "step") is numbered by its points' order, 1, 2, 3...: a run that
// logs at a fixed interval then matches the other side point by point.
using MetricByStep = std::map<int64_t, StepValues>;

// Points of metric `name` on this side; empty when the table is missing.
MetricByStep LoadMetric(const DiffSide& side, const std::string& name);

// One step time line.
struct StepTimeRow {
  int64_t step = 0;
  double seconds = 0;
  int64_t file_id = 0;
  int64_t line_no = 0;
  uint32_t who = 0;  // index into StepTimes::who
};

struct StepTimes {
  std::vector<StepTimeRow> rows;  // series by series, each in line order
  std::vector<std::string> who;   // host, else "rank N", else "file N"; distinct
};

// Step times of this side, those of evaluation progress bars left out (tqdm
// bars whose total is not the one most lines show: the training bar).
StepTimes LoadStepTimes(const DiffSide& side);

}  // namespace casefile::diff
