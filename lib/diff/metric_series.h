// What the metrics section of the diff reads from one side's index: metric
// points of one name at a time (the metric_chunks rows of that name only, so
// a long run's other series are never touched) and step times
// (metric_chunks series of name step_time: analyze/step_times.h). Host falls back to the file's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
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
  std::vector<LoggedValue> values;  // in load order (file, series, line)
  bool AnyNonFinite() const;
  // Median of the finite values; nullopt when none.
  std::optional<double> FiniteMedian() const;
  // The finite value nearest the median (evidence); nullptr when none.
  const LoggedValue* NearestMedian() const;
  const LoggedValue* FirstNonFinite() const;
};

// step -> values, ascending by step. A series whose points name no step at
// all (HF dict lines without "step") is numbered by its points' order, 1, 2,
// 3...: a run that logs at a fixed interval then matches the other side
// point by point.
//
// A sorted vector, not a std::map: a side holds a million points over tens
// of thousands of steps, and filling a tree series by series walked every
// node once per series, a cache miss each (most of the diff's time).
class MetricByStep {
 public:
  using Entry = std::pair<int64_t, StepValues>;
  using const_iterator = std::vector<Entry>::const_iterator;

  // Appends a value of `step`; values of one step keep the order they are
  // added in. Series are added one after the other, each with ascending
  // steps over mostly the same range, so the step after the last one added
  // is tried before a hash lookup.
  void Add(int64_t step, const LoggedValue& value);
  // Orders the steps; call once after the last Add, before reading.
  void Finish();

  const_iterator begin() const { return steps_.begin(); }
  const_iterator end() const { return steps_.end(); }
  std::vector<Entry>::const_reverse_iterator rbegin() const { return steps_.rbegin(); }
  bool empty() const { return steps_.empty(); }
  size_t size() const { return steps_.size(); }
  // end() when the step has no value.
  const_iterator find(int64_t step) const;
  // Throws std::out_of_range when the step has no value, as std::map::at.
  const StepValues& at(int64_t step) const;

 private:
  std::vector<Entry> steps_;
  std::unordered_map<int64_t, size_t> slot_;  // step -> index in steps_, until Finish
  size_t last_ = 0;                           // index of the last step added to
};

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
