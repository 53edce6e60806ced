// The numeric extractors of one log file, run during ingest on every line:
// DebugUnderflowOverflow tables (frame_tables.h) and training metrics
// (metric_forms.h), behind the literal prefilter (numeric_prefilter.h).
// Rows leave through callbacks, so this stage needs no index writer.
//
// Memory is bounded: at most kMaxSeries open metric series per file, each
// holding one chunk of at most kMaxChunkText bytes. Points of series beyond
// the cap and frame rows beyond kMaxFrameRowsPerFile are counted and
// reported through `issue` at Finish(), never dropped silently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "index/index_types.h"
#include "parse/numeric/frame_tables.h"
#include "parse/numeric/metric_chunk.h"
#include "parse/numeric/metric_forms.h"

namespace casefile::numeric {

inline constexpr size_t kMaxSeries = 256;

struct NumericSinks {
  std::function<void(const NumericFrameRow&)> frame;
  std::function<void(const MetricChunkRow&)> chunk;
  // kind ("numeric_rows_dropped") and a message for people.
  std::function<void(const std::string& kind, const std::string& message)> issue;
};

class NumericExtractor {
 public:
  NumericExtractor(int64_t file_id, NumericSinks sinks);
  NumericExtractor(const NumericExtractor&) = delete;
  NumericExtractor& operator=(const NumericExtractor&) = delete;

  // Lines of the file, in order. Uses line_no, rank, host and message().
  void AddLine(const LineRecord& line);
  // Writes the chunks still open and reports what the caps dropped.
  void Finish();

 private:
  struct Series {
    std::string host;
    int32_t rank = -1;
    const char* name = nullptr;
    const MetricForm* form = nullptr;
    MetricChunkBuilder chunk;
  };

  Series* SeriesFor(std::string_view host, int32_t rank, const char* name, const MetricForm* form);
  void Flush(Series& s);

  int64_t file_id_;
  NumericSinks sinks_;
  FrameTableParser frames_;
  std::vector<std::unique_ptr<Series>> series_;
  // The two series used last: a metric line usually feeds two or three
  // series in turn (loss, grad norm), so one slot would always miss.
  Series* recent_[2] = {nullptr, nullptr};
  LineMetrics scratch_;
  uint64_t dropped_points_ = 0;
};

}  // namespace casefile::numeric
