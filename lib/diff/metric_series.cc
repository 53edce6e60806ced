#include "diff/metric_series.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <string_view>
#include <tuple>

#include "analyze/query_values.h"
#include "common/error.h"
#include "diff/metric_stats.h"

namespace casefile::diff {

bool StepValues::AnyNonFinite() const {
  return std::any_of(values.begin(), values.end(), [](const LoggedValue& v) { return !v.finite; });
}

std::optional<double> StepValues::FiniteMedian() const {
  std::vector<double> finite;
  for (const LoggedValue& v : values) {
    if (v.finite) finite.push_back(v.value);
  }
  return Median(std::move(finite));
}

const LoggedValue* StepValues::NearestMedian() const {
  const std::optional<double> m = FiniteMedian();
  if (!m) return nullptr;
  const LoggedValue* best = nullptr;
  for (const LoggedValue& v : values) {
    if (!v.finite) continue;
    // Ties go to the first in (file, line) order, which the load order gives.
    if (best == nullptr || std::fabs(v.value - *m) < std::fabs(best->value - *m)) best = &v;
  }
  return best;
}

const LoggedValue* StepValues::FirstNonFinite() const {
  for (const LoggedValue& v : values) {
    if (!v.finite) return &v;
  }
  return nullptr;
}

namespace {

std::string WhoOf(const QueryValue& host, const QueryValue& rank, int64_t file_id) {
  if (host && !host->empty()) return *host;
  if (rank) return "rank " + *rank;
  return "file " + std::to_string(file_id);
}

// The value as metric_chunks stores it: finite text, or nan / inf / -inf.
LoggedValue ValueOf(std::string_view text) {
  LoggedValue v;
  if (text == "nan") {
    v.value = std::numeric_limits<double>::quiet_NaN();
    v.finite = false;
  } else if (text == "inf") {
    v.value = std::numeric_limits<double>::infinity();
    v.finite = false;
  } else if (text == "-inf") {
    v.value = -std::numeric_limits<double>::infinity();
    v.finite = false;
  } else {
    // Finite text holds only digits, '.', 'e', 'E', '+', '-' (metric_value.h).
    const std::string copy(text);
    v.value = std::strtod(copy.c_str(), nullptr);
    v.finite = std::isfinite(v.value);
  }
  return v;
}

// Decodes a metric_chunks.points value (docs/SCHEMA.md): a JSON array of
// [line delta, step delta or null, "value"] in line order; the line is
// first_line plus the deltas so far, the step the sum of the step deltas so
// far (null: the line names none). Decoded here rather than with SQLite's
// json_each and a window sum, which costs ~10 s per million points; this
// reads them at memory speed. False at the first thing that is not a point.
struct RawPoint {
  int64_t line_no = 0;
  std::optional<int64_t> step;
  std::string_view text;
};

bool ReadInt(std::string_view s, size_t& i, int64_t* out) {
  const char* begin = s.data() + i;
  const auto res = std::from_chars(begin, s.data() + s.size(), *out);
  if (res.ec != std::errc()) return false;
  i += static_cast<size_t>(res.ptr - begin);
  return true;
}

template <typename Fn>
bool DecodePoints(std::string_view s, int64_t first_line, Fn&& cb) {
  size_t i = 0;
  auto skip = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n')) ++i;
  };
  auto expect = [&](char c) {
    skip();
    if (i >= s.size() || s[i] != c) return false;
    ++i;
    return true;
  };
  if (!expect('[')) return false;
  skip();
  if (i < s.size() && s[i] == ']') return true;
  int64_t line = first_line, step_sum = 0;
  while (true) {
    RawPoint p;
    int64_t line_delta = 0;
    if (!expect('[')) return false;
    skip();
    if (!ReadInt(s, i, &line_delta) || !expect(',')) return false;
    skip();
    if (s.substr(i, 4) == "null") {
      i += 4;
    } else {
      int64_t step_delta = 0;
      if (!ReadInt(s, i, &step_delta)) return false;
      step_sum += step_delta;
      p.step = step_sum;
    }
    if (!expect(',') || !expect('"')) return false;
    const size_t close = s.find('"', i);
    if (close == std::string_view::npos) return false;
    p.text = s.substr(i, close - i);
    i = close + 1;
    if (!expect(']')) return false;
    line += line_delta;
    p.line_no = line;
    cb(p);
    skip();
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    return expect(']');
  }
}

}  // namespace

MetricByStep LoadMetric(const DiffSide& side, const std::string& name) {
  MetricByStep out;
  if (side.index == nullptr || !HasTable(*side.index, "metric_chunks")) return out;
  std::string quoted;
  for (char c : name) {
    quoted += c;
    if (c == '\'') quoted += c;
  }
  // Chunks of one series (file, host, rank, form) in line order, so a series
  // without any step can be numbered by order.
  struct Pending {
    std::optional<int64_t> step;
    LoggedValue value;
  };
  std::vector<Pending> series;
  std::tuple<int64_t, QueryValue, QueryValue, std::string> key;
  bool open = false;
  auto flush = [&] {
    const bool any_step = std::any_of(series.begin(), series.end(),
                                      [](const Pending& p) { return p.step.has_value(); });
    int64_t ordinal = 0;
    // A series' steps ascend, and every series steps through the same
    // range: the next step is almost always the node after the last one, so
    // that is tried before a lookup (a lookup per point on 10^6 points is a
    // cache miss per tree level).
    auto at = out.end();
    for (Pending& p : series) {
      ++ordinal;
      if (any_step && !p.step) continue;  // a stray line without step in a stepped series
      const int64_t step = any_step ? *p.step : ordinal;
      if (at != out.end() && at->first != step) {
        auto next = std::next(at);
        at = next != out.end() && next->first == step ? next : out.end();
      }
      if (at == out.end()) at = out.try_emplace(step).first;
      at->second.values.push_back(std::move(p.value));
    }
    series.clear();
  };
  side.index->Query(
      "SELECT file_id, host, rank, form, first_line, points FROM metric_chunks WHERE name = '" +
          quoted + "' ORDER BY file_id, host, rank, form, first_line",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        const int64_t file_id = IntOf(v[0]).value_or(0);
        auto row_key = std::make_tuple(file_id, v[1], v[2], TextOf(v[3]));
        if (open && row_key != key) flush();
        key = std::move(row_key);
        open = true;
        const bool ok = DecodePoints(TextOf(v[5]), IntOf(v[4]).value_or(0), [&](const RawPoint& p) {
          Pending pending;
          pending.step = p.step;
          pending.value = ValueOf(p.text);
          pending.value.file_id = file_id;
          pending.value.line_no = p.line_no;
          series.push_back(pending);
        });
        if (!ok) {
          throw Error(ErrorCode::kCorrupt, "metric_chunks: malformed points for file " +
                                               std::to_string(file_id) + " at line " +
                                               TextOf(v[4]));
        }
        return true;
      });
  if (open) flush();
  return out;
}

std::vector<StepTimeRow> LoadStepTimes(const DiffSide& side) {
  std::vector<StepTimeRow> rows;
  std::vector<std::string> details;
  if (side.index == nullptr || !HasTable(*side.index, "dist_events")) return rows;
  // The file's host and rank come from side.files, not a join (a run
  // logging every step of 16 hosts has a million rows); names are shared
  // between the rows of one series.
  std::map<std::tuple<int64_t, QueryValue, QueryValue>, std::string> names;
  side.index->Query(
      "SELECT file_id, line_no, host, rank, seq, value, detail FROM dist_events "
      "WHERE kind = 'step_time' AND seq IS NOT NULL AND value IS NOT NULL "
      "ORDER BY file_id, line_no",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        const std::optional<int64_t> step = IntOf(v[4]);
        const std::optional<double> seconds = RealOf(v[5]);
        if (!step || !seconds || *seconds <= 0) return true;
        StepTimeRow row;
        row.file_id = IntOf(v[0]).value_or(0);
        row.line_no = IntOf(v[1]).value_or(0);
        auto [it, fresh] = names.try_emplace({row.file_id, v[2], v[3]});
        if (fresh) {
          QueryValue host = v[2], rank = v[3];
          if (const FileRow* f = side.File(row.file_id)) {
            if (!host) host = f->host;
            if (!rank && f->rank) rank = std::to_string(*f->rank);
          }
          it->second = WhoOf(host, rank, row.file_id);
        }
        row.who = it->second;
        row.step = *step;
        row.seconds = *seconds;
        rows.push_back(std::move(row));
        details.push_back(TextOf(v[6]));
        return true;
      });
  // An evaluation bar ("tqdm total=50") runs beside the training bar
  // ("tqdm total=1000") and restarts its steps: keep only the bar with the
  // most lines, and every non-tqdm form.
  std::map<std::string, size_t> tqdm_lines;
  for (const std::string& d : details) {
    if (d.rfind("tqdm", 0) == 0) ++tqdm_lines[d];
  }
  if (tqdm_lines.size() > 1) {
    std::string keep;
    size_t most = 0;
    for (const auto& [d, n] : tqdm_lines) {
      if (n > most) {
        most = n;
        keep = d;
      }
    }
    std::vector<StepTimeRow> kept;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (details[i].rfind("tqdm", 0) != 0 || details[i] == keep) kept.push_back(rows[i]);
    }
    rows = std::move(kept);
  }
  return rows;
}

}  // namespace casefile::diff
