// Fuzz target: the numeric extractors (lib/parse/numeric: metric forms and
// DebugUnderflowOverflow frame tables) on the lines of one log file, fed as
// ingest's LineSink feeds them (ingest_lines.h), then Finish(). Checked:
//  - frame rows name lines of the file, their report and module lines come
//    before them, and kept texts respect kMaxModuleText;
//  - every metric chunk decodes (DecodeMetricPoints) into exactly its
//    point_count points, lines from first_line to last_line never
//    decreasing, its non-finite count and min/max agree with the values,
//    and it respects the chunk caps; at most kMaxSeries series exist.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "fuzz_abort.h"
#include "ingest_lines.h"
#include "parse/numeric/metric_chunk.h"
#include "parse/numeric/numeric_extractor.h"

namespace {

namespace n = casefile::numeric;

void CheckFrame(const casefile::NumericFrameRow& r, int64_t lines) {
  if (r.file_id != 3) FUZZ_ABORT();
  if (r.line_no < 1 || r.line_no > lines) FUZZ_ABORT();
  if (r.report_kind != "overflow" && r.report_kind != "trace" && r.report_kind != "detect")
    FUZZ_ABORT();
  if (r.report_line_no < 1 || r.report_line_no > r.line_no) FUZZ_ABORT();
  if (r.module_line_no && (*r.module_line_no < r.report_line_no || *r.module_line_no > r.line_no))
    FUZZ_ABORT();
  if (r.frame_index && *r.frame_index < 0) FUZZ_ABORT();
  if (r.module_path.size() > n::kMaxModuleText || r.module_class.size() > n::kMaxModuleText ||
      r.role.size() > n::kMaxModuleText)
    FUZZ_ABORT();
  if (r.min_text.size() > 64 * 1024 || r.max_text.size() > 64 * 1024) FUZZ_ABORT();
}

void CheckChunk(const casefile::MetricChunkRow& r, int64_t lines) {
  if (r.file_id != 3 || r.name.empty() || r.form.empty()) FUZZ_ABORT();
  if (r.first_line < 1 || r.first_line > r.last_line || r.last_line > lines) FUZZ_ABORT();
  if (r.point_count < 1 || r.point_count > static_cast<int64_t>(n::kMaxChunkPoints)) FUZZ_ABORT();
  // The text closes a chunk once it reaches the cap: one point may pass it.
  if (r.points.size() > n::kMaxChunkText + 256) FUZZ_ABORT();
  if (r.nonfinite_count < 0 || r.nonfinite_count > r.point_count) FUZZ_ABORT();
  if (r.min_value && r.max_value && *r.min_value > *r.max_value) FUZZ_ABORT();
  int64_t count = 0, nonfinite = 0, last = r.first_line;
  std::optional<double> lo, hi;
  const bool ok = n::DecodeMetricPoints(r.points, r.first_line, [&](const n::MetricPoint& p) {
    if (p.line_no < last || p.line_no > r.last_line) FUZZ_ABORT();
    if (count == 0 && p.line_no != r.first_line) FUZZ_ABORT();
    last = p.line_no;
    ++count;
    if (!p.value.finite()) {
      ++nonfinite;
    } else {
      lo = lo ? std::min(*lo, p.value.value) : p.value.value;
      hi = hi ? std::max(*hi, p.value.value) : p.value.value;
    }
  });
  if (!ok || count != r.point_count || nonfinite != r.nonfinite_count) FUZZ_ABORT();
  if (last != r.last_line) FUZZ_ABORT();
  if (lo.has_value() != r.min_value.has_value() || hi.has_value() != r.max_value.has_value())
    FUZZ_ABORT();
  if (lo && (*lo != *r.min_value || *hi != *r.max_value)) FUZZ_ABORT();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<casefile::NumericFrameRow> frames;
  std::vector<casefile::MetricChunkRow> chunks;
  int64_t lines = 0;
  {
    n::NumericExtractor extractor(
        3, n::NumericSinks{[&](const casefile::NumericFrameRow& r) { frames.push_back(r); },
                           [&](const casefile::MetricChunkRow& r) { chunks.push_back(r); },
                           [&](const std::string& kind, const std::string& message) {
                             if (kind.empty() || message.empty()) FUZZ_ABORT();
                           }});
    lines = casefile::fuzz::FeedLikeIngest(
        input, 3, [&](const casefile::LineRecord& rec, const casefile::LinePrefix&) {
          extractor.AddLine(rec);
        });
    extractor.Finish();
  }
  for (const auto& r : frames) CheckFrame(r, lines);
  std::set<std::pair<std::string, std::string>> series;
  for (const auto& r : chunks) {
    CheckChunk(r, lines);
    series.insert(
        {r.name + "\n" + r.form, r.host.value_or("") + "\n" + std::to_string(r.rank.value_or(-1))});
  }
  if (series.size() > n::kMaxSeries) FUZZ_ABORT();
  return 0;
}
