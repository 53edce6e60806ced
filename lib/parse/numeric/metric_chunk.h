// The encoding of metric_chunks.points: the points of one metric series as a
// JSON array of [line delta, step delta or null, "value text"] (deltas to
// the previous point, to the previous point with a step for steps; the
// first line delta is 0 from first_line, the first step absolute), so that
// SQLite's json_each and a running sum can list them (the `metrics` view)
// while the index holds one row per chunk instead of one per value: a row
// per value costs more than the rest of ingest on logs that print a loss on
// every step. The index stores the text compressed; SQL reads it back as
// casefile_points(points) (index/metric_points_codec.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "index/index_types.h"
#include "parse/numeric/metric_value.h"

namespace casefile::numeric {

// A chunk closes at this many points or bytes of points text, whichever
// comes first (docs/SCHEMA.md quotes the point limit).
inline constexpr size_t kMaxChunkPoints = 1024;
inline constexpr size_t kMaxChunkText = 32 * 1024;

class MetricChunkBuilder {
 public:
  // Lines must not decrease within a chunk. `v.text` must hold only the
  // characters ReadMetricValue produces (no quote or backslash).
  void Add(int64_t line_no, std::optional<int64_t> step, const MetricValue& v);
  bool empty() const { return count_ == 0; }
  bool full() const {
    return static_cast<size_t>(count_) >= kMaxChunkPoints || points_.size() >= kMaxChunkText;
  }
  // Writes first_line, last_line, the counts, min/max and points into `row`
  // (other fields untouched) and starts a new, empty chunk.
  void TakeInto(MetricChunkRow* row);

 private:
  std::string points_;
  int64_t first_line_ = 0;
  int64_t last_line_ = 0;
  int64_t count_ = 0;
  int64_t nonfinite_ = 0;
  std::optional<double> min_, max_;
  std::optional<int64_t> last_step_;
};

struct MetricPoint {
  int64_t line_no = 0;
  std::optional<int64_t> step;
  MetricValue value;  // text points into the decoded string
};

// Calls `cb` for each point of `points` (the text of a metric_chunks.points
// value, as casefile_points() gives it) in
// order. Returns false, after the points before it, at the first thing that
// is not a point as MetricChunkBuilder writes it.
bool DecodeMetricPoints(std::string_view points, int64_t first_line,
                        const std::function<void(const MetricPoint&)>& cb);

}  // namespace casefile::numeric
