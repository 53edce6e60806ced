#include "parse/numeric/metric_chunk.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "parse/line/scan.h"

namespace casefile::numeric {
namespace {

class PointReader {
 public:
  explicit PointReader(std::string_view s) : s_(s) {}

  bool Eat(char c) {
    Skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }

  bool Int(int64_t* v) {
    Skip();
    const auto res = std::from_chars(s_.data() + i_, s_.data() + s_.size(), *v);
    if (res.ec != std::errc()) return false;
    i_ = static_cast<size_t>(res.ptr - s_.data());
    return true;
  }

  bool Null() {
    Skip();
    if (s_.substr(i_, 4) != "null") return false;
    i_ += 4;
    return true;
  }

  bool String(std::string_view* v) {
    if (!Eat('"')) return false;
    const size_t end = s_.find('"', i_);
    if (end == std::string_view::npos) return false;
    *v = s_.substr(i_, end - i_);
    i_ = end + 1;
    return true;
  }

 private:
  void Skip() {
    while (i_ < s_.size() && (scan::IsBlank(s_[i_]) || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

void MetricChunkBuilder::Add(int64_t line_no, std::optional<int64_t> step, const MetricValue& v) {
  if (count_ == 0) first_line_ = line_no;
  // One append per point: this runs for every metric value of every log.
  char buf[128];
  char* p = buf;
  *p++ = count_ == 0 ? '[' : ',';
  *p++ = '[';
  // Lines and steps as differences to the previous point (a step to the
  // previous point that had one; the first is absolute): a point costs a
  // few bytes whatever the size of the numbers.
  p = std::to_chars(p, p + 24, line_no - (count_ == 0 ? first_line_ : last_line_)).ptr;
  *p++ = ',';
  if (step) {
    p = std::to_chars(p, p + 24, last_step_ ? *step - *last_step_ : *step).ptr;
    last_step_ = step;
  } else {
    std::memcpy(p, "null", 4);
    p += 4;
  }
  *p++ = ',';
  *p++ = '"';
  const size_t n = std::min(v.text.size(), kMaxValueText);
  std::memcpy(p, v.text.data(), n);
  p += n;
  *p++ = '"';
  *p++ = ']';
  points_.append(buf, static_cast<size_t>(p - buf));
  last_line_ = line_no;
  ++count_;
  if (!v.finite()) {
    ++nonfinite_;
  } else {
    if (!min_ || v.value < *min_) min_ = v.value;
    if (!max_ || v.value > *max_) max_ = v.value;
  }
}

void MetricChunkBuilder::TakeInto(MetricChunkRow* row) {
  points_ += ']';
  row->first_line = first_line_;
  row->last_line = last_line_;
  row->point_count = count_;
  row->nonfinite_count = nonfinite_;
  row->min_value = min_;
  row->max_value = max_;
  row->points.swap(points_);
  points_.clear();
  count_ = nonfinite_ = 0;
  min_.reset();
  max_.reset();
  last_step_.reset();
}

bool DecodeMetricPoints(std::string_view points, int64_t first_line,
                        const std::function<void(const MetricPoint&)>& cb) {
  PointReader r(points);
  if (!r.Eat('[')) return false;
  if (r.Eat(']')) return true;
  int64_t line = first_line;
  std::optional<int64_t> last_step;
  do {
    MetricPoint p;
    int64_t delta = 0;
    std::string_view text;
    if (!r.Eat('[') || !r.Int(&delta) || !r.Eat(',')) return false;
    line += delta;
    int64_t step = 0;
    if (r.Int(&step)) {
      p.step = last_step ? *last_step + step : step;
      last_step = p.step;
    } else if (!r.Null()) {
      return false;
    }
    if (!r.Eat(',') || !r.String(&text) || !r.Eat(']')) return false;
    if (!ParseMetricValue(text, &p.value)) return false;
    p.line_no = line;
    cb(p);
  } while (r.Eat(','));
  return r.Eat(']');
}

}  // namespace casefile::numeric
