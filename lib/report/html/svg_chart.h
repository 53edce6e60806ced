// Charts drawn as inline SVG by our own small code (docs/DEPENDENCIES.md says
// why no chart library): each function takes plain data and returns one
// <svg> element with a viewBox, so it scales to the page width and prints.
// Labels are escaped here. Output is deterministic (fixed number formatting)
// and bounded: callers pass capped data (report_context.h caps).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace casefile::html {

// Line chart: one polyline per series over a shared x axis; NaN/inf points
// break the line and are drawn as a red cross at the top of the plot; a
// series' `mark_x` draws a vertical dashed line labelled `mark_label`.
struct LineSeries {
  std::string label;                          // legend text, e.g. "host-3 rank 12"
  std::vector<std::pair<double, double>> xy;  // x ascending
  std::optional<double> mark_x;
  std::string mark_label;
};
struct LineChartSpec {
  std::string css_class;  // added to <svg class="chart ...">, e.g. "loss"
  std::string title;      // <title> and the caption above the plot
  std::string x_label, y_label;
  bool log_y = false;  // loss scale: powers of two, log axis
  std::vector<LineSeries> series;
};
std::string LineChart(const LineChartSpec& spec);

// Horizontal box plot, one row per label: whiskers min..max, box p10..p90,
// a bar at the median; `highlight` rows drawn in the warning colour.
struct BoxRow {
  std::string label;
  double min = 0, p10 = 0, p50 = 0, p90 = 0, max = 0;
  bool highlight = false;
  std::string note;  // shown after the row, e.g. "straggler"
};
std::string BoxPlot(std::string_view css_class, std::string_view title, std::string_view unit,
                    const std::vector<BoxRow>& rows);

// Heatmap of a square matrix (row = source, column = destination); NaN cells
// are left empty; colour scale from the smallest to the largest value, with
// each cell's value in its <title> tooltip.
std::string Heatmap(std::string_view css_class, std::string_view title, std::string_view unit,
                    const std::vector<std::string>& labels, const std::vector<double>& values);

// Grouped horizontal bars: per row, one bar per side (e.g. good vs bad
// template counts), on a shared linear scale. Sides named "good" and "bad"
// are drawn green and red, as the diff page shows their values.
struct BarRow {
  std::string label;
  std::vector<double> values;  // one per side
};
std::string GroupedBars(std::string_view css_class, std::string_view title,
                        const std::vector<std::string>& side_names,
                        const std::vector<BarRow>& rows);

// Per-host timeline: one row per host from its first to its last line, with
// marks (error, crash, hang, finding) as coloured ticks with a <title>; the
// row of `first_silent` is highlighted. Times are microseconds since the
// epoch; the axis shows UTC clock times. Each row is
// <g class="host" data-host="NAME">.
struct TimelineRowMark {
  int64_t ts_us = 0;
  std::string kind;   // error, crash, hang, finding
  std::string label;  // tooltip text
};
struct TimelineRow {
  std::string host;
  int64_t first_us = 0, last_us = 0;
  std::vector<TimelineRowMark> marks;
  bool highlight = false;  // the host that went silent first
};
std::string Timeline(std::string_view title, int64_t start_us, int64_t end_us,
                     const std::vector<TimelineRow>& rows);

// "hh:mm:ss" and "YYYY-MM-DD" (UTC) of microseconds since the epoch, computed
// from integers (no gmtime/strftime: no time zone or locale state).
std::string TimelineClock(int64_t ts_us);
std::string TimelineDate(int64_t ts_us);

}  // namespace casefile::html
