// Step times of one log file, stored as metric series instead of one
// dist_events row per step: the step_time rows the extractor reads
// (step_time.cc) become metric_chunks rows of name "step_time" (kStepTime),
// one series per (host, rank, form), where form is the row's detail ("took",
// "tqdm total=1000"...). A run whose every rank logs every step writes
// millions of them; as rows they were most of the index and most of what
// analyze and diff read back (docs/PERFORMANCE.md, issue #10). The
// `step_times` view lists them one per row again (docs/SCHEMA.md).
//
// Memory is bounded like the numeric extractor's: at most kMaxStepSeries
// open series per file, each holding one chunk; points of series beyond the
// cap are counted and reported at Finish(), never dropped silently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "index/index_types.h"
#include "parse/numeric/metric_chunk.h"

namespace casefile::dist {

inline constexpr size_t kMaxStepSeries = 256;

class StepSeriesWriter {
 public:
  // `issue` receives (kind, message) for what the cap dropped.
  StepSeriesWriter(int64_t file_id, std::function<void(const MetricChunkRow&)> chunk,
                   std::function<void(const std::string&, const std::string&)> issue);
  StepSeriesWriter(const StepSeriesWriter&) = delete;
  StepSeriesWriter& operator=(const StepSeriesWriter&) = delete;

  // A row of kind step_time, in line order.
  void Add(const DistEventRow& row);
  // Writes the chunks still open and reports what the cap dropped.
  void Finish();

 private:
  struct Series {
    std::optional<std::string> host;
    std::optional<int64_t> rank;
    std::string form;
    numeric::MetricChunkBuilder chunk;
  };
  Series* SeriesFor(const DistEventRow& row);
  void Flush(Series& s);

  int64_t file_id_;
  std::function<void(const MetricChunkRow&)> chunk_;
  std::function<void(const std::string&, const std::string&)> issue_;
  std::vector<std::unique_ptr<Series>> series_;
  Series* recent_ = nullptr;  // consecutive step lines mostly share a series
  uint64_t dropped_points_ = 0;
};

}  // namespace casefile::dist
