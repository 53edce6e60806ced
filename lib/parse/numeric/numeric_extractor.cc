#include "parse/numeric/numeric_extractor.h"

#include "parse/numeric/numeric_prefilter.h"

namespace casefile::numeric {

NumericExtractor::NumericExtractor(int64_t file_id, NumericSinks sinks)
    : file_id_(file_id), sinks_(std::move(sinks)), frames_(file_id, sinks_.frame) {}

void NumericExtractor::AddLine(const LineRecord& line) {
  const std::string_view msg = line.message();
  const uint32_t hits = ScanLiterals(msg);
  if (frames_.Feed(FrameLine{line.line_no, line.rank, line.host, msg}, hits)) return;
  if (hits == 0) return;
  const MetricForm* form = ReadMetricLine(msg, hits, &scratch_);
  if (!form) return;
  const int32_t rank = scratch_.named_rank >= 0 ? scratch_.named_rank
                       : line.rank >= 0         ? line.rank
                                                : form->implied_rank;
  for (size_t k = 0; k < scratch_.count; ++k) {
    Series* s = SeriesFor(line.host, rank, scratch_.items[k].name, form);
    if (!s) {
      ++dropped_points_;
      continue;
    }
    s->chunk.Add(line.line_no, scratch_.step, scratch_.items[k].value);
    if (s->chunk.full()) Flush(*s);
  }
}

NumericExtractor::Series* NumericExtractor::SeriesFor(std::string_view host, int32_t rank,
                                                      const char* name, const MetricForm* form) {
  auto same = [&](const Series& s) {
    return s.name == name && s.form == form && s.rank == rank && s.host == host;
  };
  for (Series* r : recent_) {
    if (r && same(*r)) return r;
  }
  auto remember = [this](Series* s) {
    recent_[1] = recent_[0];
    recent_[0] = s;
    return s;
  };
  for (const auto& s : series_) {
    if (same(*s)) return remember(s.get());
  }
  if (series_.size() >= kMaxSeries) return nullptr;
  auto s = std::make_unique<Series>();
  s->host = std::string(host);
  s->rank = rank;
  s->name = name;
  s->form = form;
  series_.push_back(std::move(s));
  return remember(series_.back().get());
}

void NumericExtractor::Flush(Series& s) {
  if (s.chunk.empty()) return;
  MetricChunkRow row;
  row.file_id = file_id_;
  row.name = s.name;
  row.form = s.form->name;
  if (!s.host.empty()) row.host = s.host;
  if (s.rank >= 0) row.rank = s.rank;
  s.chunk.TakeInto(&row);
  sinks_.chunk(row);
}

void NumericExtractor::Finish() {
  for (const auto& s : series_) Flush(*s);
  frames_.Finish();
  if (dropped_points_ > 0) {
    sinks_.issue("numeric_rows_dropped",
                 std::to_string(dropped_points_) + " metric value(s) not stored: more than " +
                     std::to_string(kMaxSeries) + " metric series in one file");
  }
  if (frames_.dropped_rows() > 0) {
    sinks_.issue("numeric_rows_dropped",
                 std::to_string(frames_.dropped_rows()) +
                     " DebugUnderflowOverflow row(s) not stored: more than " +
                     std::to_string(kMaxFrameRowsPerFile) + " in one file");
  }
}

}  // namespace casefile::numeric
