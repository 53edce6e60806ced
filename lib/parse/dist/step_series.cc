#include "parse/dist/step_series.h"

#include <charconv>
#include <cmath>

#include "parse/dist/dist_kinds.h"
#include "parse/numeric/metric_value.h"

namespace casefile::dist {

StepSeriesWriter::StepSeriesWriter(
    int64_t file_id, std::function<void(const MetricChunkRow&)> chunk,
    std::function<void(const std::string&, const std::string&)> issue)
    : file_id_(file_id), chunk_(std::move(chunk)), issue_(std::move(issue)) {}

StepSeriesWriter::Series* StepSeriesWriter::SeriesFor(const DistEventRow& row) {
  const std::string& form = row.detail ? *row.detail : std::string();
  auto same = [&](const Series& s) {
    return s.rank == row.rank && s.host == row.host && s.form == form;
  };
  if (recent_ && same(*recent_)) return recent_;
  for (const auto& s : series_) {
    if (same(*s)) return recent_ = s.get();
  }
  if (series_.size() >= kMaxStepSeries) return nullptr;
  auto s = std::make_unique<Series>();
  s->host = row.host;
  s->rank = row.rank;
  s->form = form;
  series_.push_back(std::move(s));
  return recent_ = series_.back().get();
}

void StepSeriesWriter::Add(const DistEventRow& row) {
  if (!row.value) return;
  Series* s = SeriesFor(row);
  if (!s) {
    ++dropped_points_;
    return;
  }
  // Six significant digits: step times are read from text with at most
  // that many (0.412s, 1.21 s/it, 2.05it/s inverted), and the shortest
  // exact spelling of an inverted rate would cost three times the bytes.
  char buf[numeric::kMaxValueText];
  numeric::MetricValue v;
  v.value = *row.value;
  if (std::isnan(v.value)) {
    v.kind = numeric::ValueKind::kNan;
    v.text = "nan";
  } else if (std::isinf(v.value)) {
    v.kind = v.value > 0 ? numeric::ValueKind::kPosInf : numeric::ValueKind::kNegInf;
    v.text = v.value > 0 ? "inf" : "-inf";
  } else {
    const auto res = std::to_chars(buf, buf + sizeof buf, v.value, std::chars_format::general, 6);
    v.text = std::string_view(buf, static_cast<size_t>(res.ptr - buf));
  }
  s->chunk.Add(row.line_no, row.seq, v);
  if (s->chunk.full()) Flush(*s);
}

void StepSeriesWriter::Flush(Series& s) {
  if (s.chunk.empty()) return;
  MetricChunkRow row;
  row.file_id = file_id_;
  row.name = kStepTime;
  row.form = s.form;
  row.host = s.host;
  row.rank = s.rank;
  s.chunk.TakeInto(&row);
  chunk_(row);
}

void StepSeriesWriter::Finish() {
  for (const auto& s : series_) Flush(*s);
  if (dropped_points_ > 0 && issue_) {
    issue_("step_times_dropped",
           std::to_string(dropped_points_) + " step time(s) not stored: more than " +
               std::to_string(kMaxStepSeries) + " step-time series in one file");
  }
}

}  // namespace casefile::dist
