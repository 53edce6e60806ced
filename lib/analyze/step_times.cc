#include "analyze/step_times.h"

#include <algorithm>
#include <tuple>

#include "analyze/query_values.h"
#include "common/error.h"
#include "parse/dist/dist_kinds.h"
#include "parse/numeric/metric_chunk.h"

namespace casefile {

namespace {

// The WHERE clause of the step-time chunks of `only_files` (all when null).
std::string ChunksWhere(const std::vector<int64_t>* only_files) {
  std::string where = std::string("name = '") + dist::kStepTime + "'";
  if (only_files) {
    where += " AND file_id IN (";
    for (size_t i = 0; i < only_files->size(); ++i) {
      if (i > 0) where += ',';
      where += std::to_string((*only_files)[i]);
    }
    where += ')';
  }
  return where;
}

}  // namespace

size_t CountStoredStepTimes(const IndexReader& index, const std::vector<int64_t>* only_files) {
  if (only_files && only_files->empty()) return 0;
  size_t n = 0;
  index.Query("SELECT sum(point_count) FROM metric_chunks WHERE " + ChunksWhere(only_files),
              [&](const QueryRow& r) {
                n = static_cast<size_t>(std::max<int64_t>(0, IntOf(r.values[0]).value_or(0)));
                return false;
              });
  return n;
}

void ForEachStoredStepTime(const IndexReader& index, const std::vector<int64_t>* only_files,
                           const StepTimeFn& fn) {
  if (only_files && only_files->empty()) return;
  const std::string where = ChunksWhere(only_files);
  std::tuple<int64_t, QueryValue, QueryValue, std::string> key;
  StoredStepSeries series;
  uint32_t series_index = 0;
  bool open = false;
  index.Query(
      "SELECT file_id, host, rank, form, first_line, casefile_points(points) FROM metric_chunks "
      "WHERE " +
          where + " ORDER BY file_id, host, rank, form, first_line",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        const int64_t file_id = IntOf(v[0]).value_or(0);
        auto row_key = std::make_tuple(file_id, v[1], v[2], TextOf(v[3]));
        if (!open || row_key != key) {
          if (open) ++series_index;
          series.file_id = file_id;
          series.host = v[1];
          series.rank = IntOf(v[2]);
          series.form = TextOf(v[3]);
          key = std::move(row_key);
          open = true;
        }
        const int64_t first_line = IntOf(v[4]).value_or(0);
        bool go_on = true;
        const bool ok = numeric::DecodeMetricPoints(
            TextOf(v[5]), first_line, [&](const numeric::MetricPoint& p) {
              if (go_on) go_on = fn(series_index, series, p.line_no, p.step, p.value.value);
            });
        if (!ok) {
          throw Error(ErrorCode::kCorrupt, "metric_chunks: malformed step_time points for file " +
                                               std::to_string(file_id) + " at line " +
                                               std::to_string(first_line));
        }
        return go_on;
      });
}

StoredStepTimes LoadStoredStepTimes(const IndexReader& index, size_t max_rows,
                                    const std::vector<int64_t>* only_files) {
  StoredStepTimes out;
  out.rows.reserve(std::min(CountStoredStepTimes(index, only_files), 2 * max_rows + 1));
  int64_t current_file = -1;
  ForEachStoredStepTime(index, only_files,
                        [&](uint32_t s, const StoredStepSeries& series, int64_t line_no,
                            std::optional<int64_t> step, double seconds) {
                          // Rows of a later file all come after those held:
                          // once past the cap, the rest cannot make the first
                          // max_rows. Within one file, twice the cap is held.
                          if (series.file_id != current_file) {
                            if (out.rows.size() >= max_rows) {
                              out.truncated = true;
                              return false;
                            }
                            current_file = series.file_id;
                          }
                          if (s == out.series.size()) out.series.push_back(series);
                          out.rows.push_back({series.file_id, line_no, step, seconds, s});
                          return out.rows.size() <= 2 * max_rows;
                        });
  // A file's series interleave by line.
  std::sort(out.rows.begin(), out.rows.end(), [](const StoredStepTime& a, const StoredStepTime& b) {
    return std::tie(a.file_id, a.line_no) < std::tie(b.file_id, b.line_no);
  });
  if (out.rows.size() > max_rows) {
    out.truncated = true;
    out.rows.resize(max_rows);
  }
  return out;
}

}  // namespace casefile
