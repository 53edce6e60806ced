// The chart writers. Every coordinate goes through Num (fixed, locale-free,
// "0" for non-finite), every label through Escape, so a chart is valid and
// byte-for-byte deterministic whatever the data: NaN points, empty series, a
// log axis fed zeros, a single point.
#include "report/html/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/html/html_text.h"
#include "report/html/svg_common.h"

namespace casefile::html {
namespace {

using svg::Open;
using svg::TickLabel;

constexpr double kWidth = 900;
// Rotated column labels of the heatmap are cut to this width (px).
constexpr double kColumnLabelPx = 200;
// The room kept between the left edge and a right-aligned label cut to fit
// its margin (svg::EscapeFit), for the error of the width estimate.
constexpr double kLabelInset = 4;

std::string Text(double x, double y, std::string_view text, std::string_view extra = "") {
  std::string out = "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\"";
  if (!extra.empty()) {
    out += ' ';
    out += extra;
  }
  out += '>';
  out += text;  // already escaped by the caller
  out += "</text>";
  return out;
}

std::string Line(double x1, double y1, double x2, double y2, std::string_view extra = "") {
  std::string out = "<line x1=\"" + Num(x1) + "\" y1=\"" + Num(y1) + "\" x2=\"" + Num(x2) +
                    "\" y2=\"" + Num(y2) + "\"";
  if (!extra.empty()) {
    out += ' ';
    out += extra;
  }
  out += "/>";
  return out;
}

std::string Rect(double x, double y, double w, double h, std::string_view extra = "") {
  std::string out = "<rect x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" width=\"" +
                    Num(std::max(0.0, w)) + "\" height=\"" + Num(std::max(0.0, h)) + "\"";
  if (!extra.empty()) {
    out += ' ';
    out += extra;
  }
  out += "/>";
  return out;
}

std::string EmptyChart(std::string_view css_class, std::string_view title, std::string_view why) {
  std::string out = Open(css_class, title, kWidth, 60);
  out += Text(12, 34, Escape(why), "class=\"empty\"");
  out += "\n";
  out += svg::kClose;
  return out;
}

// Maps [lo, hi] onto [a, b]; a degenerate range maps to the middle.
struct Scale {
  double lo, hi, a, b;
  double operator()(double v) const {
    if (hi <= lo) return (a + b) / 2;
    return a + (v - lo) / (hi - lo) * (b - a);
  }
};

// ---------------------------------------------------------------- LineChart

struct PlotBox {
  double left = 64, right = kWidth - 16, top = 44, bottom = 0;
};

}  // namespace

std::string LineChart(const LineChartSpec& spec) {
  // Data range over the drawable points: finite x and y (y > 0 on a log axis).
  auto drawable = [&](double y) { return std::isfinite(y) && (!spec.log_y || y > 0); };
  auto ty = [&](double y) { return spec.log_y ? std::log2(y) : y; };
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin;
  double ymin = xmin, ymax = -xmin;
  bool any_x = false;
  for (const auto& s : spec.series) {
    for (const auto& [x, y] : s.xy) {
      if (!std::isfinite(x)) continue;
      any_x = true;
      xmin = std::min(xmin, x), xmax = std::max(xmax, x);
      if (drawable(y)) ymin = std::min(ymin, ty(y)), ymax = std::max(ymax, ty(y));
    }
    if (s.mark_x && std::isfinite(*s.mark_x)) {
      any_x = true;
      xmin = std::min(xmin, *s.mark_x), xmax = std::max(xmax, *s.mark_x);
    }
  }
  if (!any_x) return EmptyChart(spec.css_class, spec.title, "No data points.");
  const bool any_y = std::isfinite(ymin);
  if (!any_y) ymin = 0, ymax = 1;
  if (ymax == ymin) ymin -= 1, ymax += 1;

  const size_t legend_rows = (spec.series.size() + 3) / 4;
  PlotBox box;
  box.top = 52 + 16 * static_cast<double>(legend_rows);
  const double height = box.top + 240 + 40;
  box.bottom = box.top + 240;
  const Scale sx{xmin, xmax, box.left, box.right};
  const Scale sy{ymin, ymax, box.bottom, box.top};

  std::string out = Open(spec.css_class, spec.title, kWidth, height);
  out += Text(box.left, 16, Escape(spec.title), "font-weight=\"600\"") + "\n";
  // Legend: four series per row.
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const double lx = box.left + static_cast<double>(i % 4) * 205;
    const double ly = 36 + static_cast<double>(i / 4) * 16;
    out += Rect(lx, ly - 8, 12, 3, "fill=\"" + std::string(svg::SeriesColour(i)) + "\"");
    out += Text(lx + 16, ly - 3, EscapeCut(spec.series[i].label, 30)) + "\n";
  }
  // Grid and axes.
  out += "<g class=\"grid\">";
  std::vector<double> yticks;
  if (spec.log_y) {
    // Powers of two, at most ~7 of them.
    const double lo = std::floor(ymin), hi = std::ceil(ymax);
    // A power-of-two step in the exponent, so the ticks are 2^0, 2^4, 2^8...
    // and land on the scales loss scalers use.
    double step = 1;
    while ((hi - lo) / step > 7) step *= 2;
    for (double e = std::floor(lo / step) * step; e <= hi + 1e-9 && yticks.size() < 64; e += step) {
      if (e >= ymin - 1e-9 && e <= ymax + 1e-9) yticks.push_back(e);
    }
  } else {
    yticks = svg::NiceTicks(ymin, ymax, 5);
  }
  for (double t : yticks) out += Line(box.left, sy(t), box.right, sy(t));
  out += "</g>\n<g class=\"axis\">";
  out += Line(box.left, box.top, box.left, box.bottom);
  out += Line(box.left, box.bottom, box.right, box.bottom);
  for (double t : yticks) {
    const std::string label =
        spec.log_y ? TickLabel(std::exp2(t)) : svg::StepTickLabel(t, svg::TickStep(yticks));
    out += Text(box.left - 6, sy(t) + 4, label, "text-anchor=\"end\"");
  }
  const auto xticks = svg::NiceTicks(xmin, xmax, 8);
  for (double t : xticks) {
    out += Line(sx(t), box.bottom, sx(t), box.bottom + 4);
    out += Text(sx(t), box.bottom + 16, svg::StepTickLabel(t, svg::TickStep(xticks)),
                "text-anchor=\"middle\"");
  }
  out +=
      Text((box.left + box.right) / 2, height - 6, Escape(spec.x_label), "text-anchor=\"middle\"");
  out +=
      Text(box.left - 52, box.top - 12, Escape(spec.y_label + (spec.log_y ? " (log scale)" : "")));
  out += "</g>\n";

  // Series: polylines broken at non-drawable points; those are crosses at
  // the top of the plot so a NaN step is visible, not silently skipped.
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const auto& s = spec.series[i];
    const std::string colour(svg::SeriesColour(i));
    out += "<g class=\"series-group\" data-series=\"" + Escape(s.label) + "\">";
    std::string points;
    size_t npoints = 0;
    auto flush = [&] {
      if (npoints == 1) {
        // A lone point between two gaps: a dot, since a polyline of one
        // point draws nothing.
        const size_t comma = points.find(',');
        out += "<circle cx=\"" + points.substr(0, comma) + "\" cy=\"" +
               points.substr(comma + 1, points.size() - comma - 2) + "\" r=\"2\" fill=\"" + colour +
               "\"/>";
      } else if (npoints > 1) {
        out += "<polyline class=\"series\" stroke=\"" + colour + "\" points=\"" + points + "\"/>";
      }
      points.clear();
      npoints = 0;
    };
    for (const auto& [x, y] : s.xy) {
      if (!std::isfinite(x)) continue;
      if (!drawable(y)) {
        flush();
        const double cx = sx(x), cy = box.top + 6;
        out += "<g class=\"nonfinite\"><title>";
        out += Escape(s.label) + " x=" + TickLabel(x) + ": " +
               (std::isnan(y) ? "nan" : (std::isinf(y) ? (y > 0 ? "inf" : "-inf") : "<= 0"));
        out += "</title>" + Line(cx - 4, cy - 4, cx + 4, cy + 4) +
               Line(cx - 4, cy + 4, cx + 4, cy - 4) + "</g>";
        continue;
      }
      points += Num(sx(x));
      points += ',';
      points += Num(sy(ty(y)));
      points += ' ';
      ++npoints;
    }
    flush();
    if (s.mark_x && std::isfinite(*s.mark_x)) {
      const double mx = sx(*s.mark_x);
      out +=
          "<g class=\"mark\"><title>" + Escape(s.mark_label) + " at " + TickLabel(*s.mark_x) +
          "</title>" +
          Line(mx, box.top, mx, box.bottom, "stroke=\"" + std::string(svg::kErrorColour) + "\"") +
          // Near the right edge the label goes left of the line.
          Text(mx > box.right - 80 ? mx - 3 : mx + 3, box.top + 22, EscapeCut(s.mark_label, 24),
               std::string(mx > box.right - 80 ? "text-anchor=\"end\" " : "") + "fill=\"" +
                   std::string(svg::kErrorColour) + "\"") +
          "</g>";
    }
    out += "</g>\n";
  }
  if (!any_y) out += Text(box.left + 8, box.top + 40, "No finite values.");
  out += svg::kClose;
  return out;
}

// ---------------------------------------------------------------- BoxPlot

std::string BoxPlot(std::string_view css_class, std::string_view title, std::string_view unit,
                    const std::vector<BoxRow>& rows) {
  if (rows.empty()) return EmptyChart(css_class, title, "No data.");
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& r : rows) {
    for (double v : {r.min, r.p10, r.p50, r.p90, r.max}) {
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (lo > 0 && lo < hi * 0.5) lo = 0;  // start at zero unless that squashes the boxes
  if (hi == lo) hi = lo + 1;
  const double left = 180, right = kWidth - 130, top = 28, row_h = 20;
  const double bottom = top + row_h * static_cast<double>(rows.size());
  const double height = bottom + 36;
  const Scale sx{lo, hi, left, right};
  std::string out = Open(css_class, title, kWidth, height);
  out += Text(left, 16, Escape(title), "font-weight=\"600\"") + "\n<g class=\"grid\">";
  const auto ticks = svg::NiceTicks(lo, hi, 8);
  for (double t : ticks) out += Line(sx(t), top, sx(t), bottom);
  out += "</g>\n<g class=\"axis\">" + Line(left, bottom, right, bottom);
  for (double t : ticks) {
    out += Text(sx(t), bottom + 14, svg::StepTickLabel(t, svg::TickStep(ticks)),
                "text-anchor=\"middle\"");
  }
  out += Text((left + right) / 2, bottom + 30, Escape(unit), "text-anchor=\"middle\"") + "</g>\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const double y = top + row_h * static_cast<double>(i);
    const double cy = y + row_h / 2;
    const std::string colour(r.highlight ? svg::kWarningColour : svg::kInfoColour);
    out += "<g class=\"box";
    out += r.highlight ? " hl\"" : "\"";
    out += " data-label=\"" + Escape(r.label) + "\"><title>" + Escape(r.label) + ": min " +
           TickLabel(r.min) + ", p10 " + TickLabel(r.p10) + ", median " + TickLabel(r.p50) +
           ", p90 " + TickLabel(r.p90) + ", max " + TickLabel(r.max) + " " + Escape(unit) +
           "</title>";
    if (r.highlight) out += Rect(0, y, kWidth, row_h, "class=\"row-bg\" fill=\"#fff4e0\"");
    out += Text(left - 8, cy + 4, svg::EscapeFit(r.label, left - 8 - kLabelInset),
                "text-anchor=\"end\"");
    out += Line(sx(r.min), cy, sx(r.max), cy, "stroke=\"" + colour + "\"");
    out += Line(sx(r.min), cy - 4, sx(r.min), cy + 4, "stroke=\"" + colour + "\"");
    out += Line(sx(r.max), cy - 4, sx(r.max), cy + 4, "stroke=\"" + colour + "\"");
    out += Rect(sx(r.p10), cy - 6, sx(r.p90) - sx(r.p10), 12,
                "fill=\"" + colour + "\" fill-opacity=\"0.25\" stroke=\"" + colour + "\"");
    out += Line(sx(r.p50), cy - 7, sx(r.p50), cy + 7,
                "stroke=\"" + colour + "\" stroke-width=\"2.5\"");
    if (!r.note.empty()) {
      out += Text(right + 8, cy + 4, EscapeCut(r.note, 24), "fill=\"" + colour + "\"");
    }
    out += "</g>\n";
  }
  out += svg::kClose;
  return out;
}

// ---------------------------------------------------------------- Heatmap

namespace {

// Light amber to dark red: the darker, the slower.
std::string HeatColour(double t) {
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
  const int r0 = 0xff, g0 = 0xf4, b0 = 0xe0, r1 = 0xb7, g1 = 0x1c, b1 = 0x1c;
  auto mix = [&](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * t)); };
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "#";
  for (int c : {mix(r0, r1), mix(g0, g1), mix(b0, b1)}) {
    out += kHex[(c >> 4) & 15];
    out += kHex[c & 15];
  }
  return out;
}

}  // namespace

std::string Heatmap(std::string_view css_class, std::string_view title, std::string_view unit,
                    const std::vector<std::string>& labels, const std::vector<double>& values) {
  const size_t n = labels.size();
  if (n == 0 || values.size() < n * n) return EmptyChart(css_class, title, "No data.");
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (size_t i = 0; i < n * n; ++i) {
    if (std::isfinite(values[i])) lo = std::min(lo, values[i]), hi = std::max(hi, values[i]);
  }
  const double cell = std::clamp(560.0 / static_cast<double>(n), 10.0, 36.0);
  // Room above for the rotated column labels, by the longest one shown.
  double longest = 0;
  for (const auto& l : labels) {
    longest = std::max(longest, std::min(svg::EstimatedTextWidth(l), kColumnLabelPx));
  }
  // A label rotated by 50 degrees rises by sin(50) of its length.
  const double left = 170, top = 36 + 0.77 * longest;
  const double side = cell * static_cast<double>(n);
  const double width = std::max(kWidth, left + side + 20);
  const double height = top + side + 40;
  std::string out = Open(css_class, title, width, height);
  out += Text(8, 16, Escape(title), "font-weight=\"600\"") + "\n";
  for (size_t i = 0; i < n; ++i) {
    const double c = static_cast<double>(i) * cell + cell / 2;
    out += Text(left - 6, top + c + 4, svg::EscapeFit(labels[i], left - 6 - kLabelInset),
                "text-anchor=\"end\"");
    const double x = left + c, y = top - 6;
    out += Text(x, y, svg::EscapeFit(labels[i], kColumnLabelPx),
                "transform=\"rotate(-50 " + Num(x) + " " + Num(y) + ")\"");
  }
  out += "\n";
  for (size_t r = 0; r < n; ++r) {
    for (size_t c = 0; c < n; ++c) {
      const double v = values[r * n + c];
      if (!std::isfinite(v)) continue;
      const double t = hi > lo ? (v - lo) / (hi - lo) : 1.0;
      out += "<rect x=\"" + Num(left + static_cast<double>(c) * cell) + "\" y=\"" +
             Num(top + static_cast<double>(r) * cell) + "\" width=\"" + Num(cell - 1) +
             "\" height=\"" + Num(cell - 1) + "\" fill=\"" + HeatColour(t) + "\"><title>" +
             Escape(labels[r]) + " \xE2\x86\x92 " + Escape(labels[c]) + ": " + TickLabel(v) + " " +
             Escape(unit) + "</title></rect>";
    }
    out += "\n";
  }
  if (std::isfinite(lo)) {
    const double ly = top + side + 24;
    out += Rect(left, ly - 10, 12, 12, "fill=\"" + HeatColour(0) + "\"");
    out += Text(left + 16, ly, TickLabel(lo) + " " + Escape(unit));
    out += Rect(left + 140, ly - 10, 12, 12, "fill=\"" + HeatColour(1) + "\"");
    out += Text(left + 156, ly, TickLabel(hi) + " " + Escape(unit));
    out += Text(left + 300, ly, "rows: source, columns: destination");
  }
  out += svg::kClose;
  return out;
}

// ---------------------------------------------------------------- GroupedBars

namespace {

// Sides named good and bad keep the page's colours for them (green, red),
// as every value of the diff page shows them; other sides cycle.
std::string SideColour(const std::vector<std::string>& side_names, size_t s) {
  if (side_names[s] == "good") return "#2e7d32";
  if (side_names[s] == "bad") return std::string(svg::kErrorColour);
  return std::string(svg::SeriesColour(s));
}

}  // namespace

std::string GroupedBars(std::string_view css_class, std::string_view title,
                        const std::vector<std::string>& side_names,
                        const std::vector<BarRow>& rows) {
  if (rows.empty() || side_names.empty()) return EmptyChart(css_class, title, "No data.");
  double hi = 0;
  for (const auto& r : rows) {
    for (double v : r.values) {
      if (std::isfinite(v)) hi = std::max(hi, v);
    }
  }
  if (hi <= 0) hi = 1;
  const size_t sides = side_names.size();
  const double bar_h = 9, left = 220, right = kWidth - 70, top = 40;
  const double row_h = bar_h * static_cast<double>(sides) + 8;
  const double bottom = top + row_h * static_cast<double>(rows.size());
  const double height = bottom + 24;
  const Scale sx{0, hi, left, right};
  std::string out = Open(css_class, title, kWidth, height);
  out += Text(8, 16, Escape(title), "font-weight=\"600\"") + "\n";
  for (size_t s = 0; s < sides; ++s) {
    const double lx = left + static_cast<double>(s) * 140;
    out += Rect(lx, 24, 12, 10, "fill=\"" + SideColour(side_names, s) + "\"");
    out += Text(lx + 16, 33, EscapeCut(side_names[s], 30)) + "\n";
  }
  out += "<g class=\"grid\">";
  const auto ticks = svg::NiceTicks(0, hi, 6);
  for (double t : ticks) out += Line(sx(t), top, sx(t), bottom);
  out += "</g>\n<g class=\"axis\">" + Line(left, top, left, bottom);
  for (double t : ticks) {
    out += Text(sx(t), bottom + 14, svg::StepTickLabel(t, svg::TickStep(ticks)),
                "text-anchor=\"middle\"");
  }
  out += "</g>\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const double y = top + row_h * static_cast<double>(i) + 4;
    out += "<g class=\"bars\"><title>" + Escape(r.label);
    for (size_t s = 0; s < sides; ++s) {
      const double v = s < r.values.size() ? r.values[s] : 0;
      out += "\n" + Escape(side_names[s]) + ": " + TickLabel(v);
    }
    out += "</title>";
    // The label ends at left - 6 and grows leftwards: cut to what fits
    // between there and kLabelInset (the group's <title> has it whole).
    out += Text(left - 6, y + row_h / 2, svg::EscapeFit(r.label, left - 6 - kLabelInset),
                "text-anchor=\"end\"");
    for (size_t s = 0; s < sides; ++s) {
      const double v = s < r.values.size() && std::isfinite(r.values[s]) ? r.values[s] : 0;
      const double by = y + bar_h * static_cast<double>(s);
      out += Rect(left, by, sx(std::max(0.0, v)) - left, bar_h - 1,
                  "fill=\"" + SideColour(side_names, s) + "\"");
      out += Text(sx(std::max(0.0, v)) + 4, by + bar_h - 1, TickLabel(v), "font-size=\"9\"");
    }
    out += "</g>\n";
  }
  out += svg::kClose;
  return out;
}

// ---------------------------------------------------------------- Timeline

namespace {

// hh:mm:ss of a UTC time in whole seconds, from integers (no gmtime, no
// strftime: those depend on the C library's time zone and locale state).
std::string ClockTime(int64_t seconds) {
  int64_t s = seconds % 86400;
  if (s < 0) s += 86400;
  const int64_t h = s / 3600, m = (s / 60) % 60, sec = s % 60;
  auto two = [](int64_t v) {
    std::string out;
    out += static_cast<char>('0' + v / 10);
    out += static_cast<char>('0' + v % 10);
    return out;
  };
  return two(h) + ":" + two(m) + ":" + two(sec);
}

// YYYY-MM-DD of a UTC day (days since 1970-01-01), by the civil-from-days
// algorithm (proleptic Gregorian calendar).
std::string CivilDate(int64_t seconds) {
  int64_t days = seconds / 86400;
  if (seconds % 86400 < 0) --days;
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  auto pad = [](int64_t v, size_t width) {
    std::string s = std::to_string(v < 0 ? -v : v);
    while (s.size() < width) s.insert(s.begin(), '0');
    return (v < 0 ? "-" : "") + s;
  };
  return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2);
}

std::string_view MarkColour(std::string_view kind) {
  if (kind == "crash") return svg::kErrorColour;
  if (kind == "error") return svg::kWarningColour;
  if (kind == "hang") return "#6a1b9a";
  return svg::kInfoColour;  // finding and anything else
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

std::string TimelineClock(int64_t ts_us) { return ClockTime(FloorDiv(ts_us, 1000000)); }
std::string TimelineDate(int64_t ts_us) { return CivilDate(FloorDiv(ts_us, 1000000)); }

std::string Timeline(std::string_view title, int64_t start_us, int64_t end_us,
                     const std::vector<TimelineRow>& rows) {
  if (rows.empty()) return EmptyChart("timeline", title, "No timestamped lines.");
  if (end_us < start_us) std::swap(start_us, end_us);
  if (end_us == start_us) end_us = start_us + 1000000;
  const double left = 180, right = kWidth - 36, top = 56, row_h = 18;
  const double bottom = top + row_h * static_cast<double>(rows.size());
  const double height = bottom + 30;
  const Scale sx{0, static_cast<double>(end_us - start_us), left, right};
  auto x_of = [&](int64_t ts) {
    return sx(static_cast<double>(std::clamp(ts, start_us, end_us) - start_us));
  };
  std::string out = Open("timeline", title, kWidth, height);
  out += Text(8, 16, Escape(title), "font-weight=\"600\"") + "\n";
  // Legend of mark kinds.
  double lx = left;
  for (std::string_view kind : {"crash", "error", "hang", "finding"}) {
    out += Rect(lx, 26, 4, 12, "fill=\"" + std::string(MarkColour(kind)) + "\"");
    out += Text(lx + 8, 36, std::string(kind));
    lx += 80;
  }
  out += Text(lx + 20, 36, "UTC, from " + TimelineDate(start_us) + " " + TimelineClock(start_us));
  out += "\n";
  // Ticks: a round number of seconds giving at most ~8 ticks.
  const int64_t span_s = (end_us - start_us) / 1000000 + 1;
  int64_t step = 1;
  for (int64_t s : {1,   2,    5,    10,   15,    30,    60,    120,   300,    600,
                    900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800}) {
    step = s;
    if (span_s / s <= 8) break;
  }
  if (span_s / step > 8) step = span_s / 8 + 1;
  out += "<g class=\"grid\">";
  std::string labels;
  const int64_t first_tick = (FloorDiv(FloorDiv(start_us, 1000000), step) + 1) * step;
  for (int64_t t = first_tick, k = 0; t * 1000000 <= end_us && k < 16; t += step, ++k) {
    const double x = x_of(t * 1000000);
    out += Line(x, top - 4, x, bottom);
    labels += Text(x, bottom + 14, ClockTime(t), "text-anchor=\"middle\"");
  }
  out += "</g>\n<g class=\"axis\">" + labels + "</g>\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const double y = top + row_h * static_cast<double>(i);
    const double cy = y + row_h / 2;
    out += "<g class=\"host";
    out += r.highlight ? " hl\"" : "\"";
    out += " data-host=\"" + Escape(r.host) + "\">";
    if (r.highlight) out += Rect(0, y, kWidth, row_h, "class=\"row-bg\" fill=\"#fff4e0\"");
    // A highlighted row is bold: about 10% wider than the estimate.
    out += Text(left - 8, cy + 4,
                svg::EscapeFit(r.host, (left - 8 - kLabelInset) / (r.highlight ? 1.1 : 1.0)),
                r.highlight ? "text-anchor=\"end\" font-weight=\"600\"" : "text-anchor=\"end\"");
    out += "<line x1=\"" + Num(x_of(r.first_us)) + "\" y1=\"" + Num(cy) + "\" x2=\"" +
           Num(x_of(r.last_us)) + "\" y2=\"" + Num(cy) + "\" stroke=\"" +
           (r.highlight ? std::string(svg::kWarningColour) : std::string("#8c959f")) +
           "\" stroke-width=\"4\" stroke-linecap=\"round\"><title>" + Escape(r.host) + ": " +
           TimelineClock(r.first_us) + " to " + TimelineClock(r.last_us) + " UTC</title></line>";
    if (!r.marks.empty()) out += "<g stroke-width=\"2\">";
    for (const auto& m : r.marks) {
      // A short vertical path per mark: 64 hosts x 24 marks is the common
      // worst case, so each mark is kept to about a hundred bytes.
      out += "<path class=\"mark-";
      AppendEscaped(out, m.kind);
      out += "\" d=\"M" + Num(x_of(m.ts_us)) + " " + Num(y + 2) + "v" + Num(row_h - 4) +
             "\" stroke=\"" + std::string(MarkColour(m.kind)) + "\"><title>" +
             TimelineClock(m.ts_us) + " ";
      out += EscapeCut(m.kind, 16) + ": " + EscapeCut(m.label, 48) + "</title></path>";
    }
    if (!r.marks.empty()) out += "</g>";
    out += "</g>\n";
  }
  out += svg::kClose;
  return out;
}

}  // namespace casefile::html
