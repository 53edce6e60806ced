// The SVG charts: valid numbers whatever the data (NaN, inf, zeros on a log
// axis), escaped labels, UTC clock labels from integers, determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/html/html_text.h"
#include "report/html/svg_chart.h"
#include "report/html/svg_common.h"

namespace casefile::html {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The markup without the text of <title> and <text> elements: what is left
// is tags and attribute values, where "nan" or "inf" would be a broken
// coordinate.
std::string MarkupOnly(const std::string& svg) {
  std::string out;
  bool in_tag = false;
  for (char c : svg) {
    if (c == '<') in_tag = true;
    if (in_tag) out += c;
    if (c == '>') in_tag = false;
  }
  return out;
}

size_t Count(const std::string& s, std::string_view what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

bool HasBadNumber(const std::string& svg) {
  const std::string m = MarkupOnly(svg);
  for (std::string_view bad : {"nan", "NaN", "inf", "Inf"}) {
    if (m.find(bad) != std::string::npos) return true;
  }
  return false;
}

TEST(SvgLineChart, NanPointsBreakTheLineAndAreMarked) {
  LineChartSpec spec;
  spec.css_class = "loss";
  spec.title = "Loss";
  spec.x_label = "step";
  spec.y_label = "loss";
  LineSeries s;
  s.label = "host-3 rank 12";
  s.xy = {{1, 2.5}, {2, 2.4}, {3, kNan}, {4, 2.2}, {5, 2.1}, {6, kInf}};
  s.mark_x = 3;
  s.mark_label = "nan";
  spec.series.push_back(s);
  const std::string svg = LineChart(spec);
  EXPECT_TRUE(svg.starts_with("<svg class=\"chart loss\" viewBox=\"0 0 "));
  EXPECT_FALSE(HasBadNumber(svg)) << svg;
  // Two finite runs (steps 1-2 and 4-5) give two polylines; NaN and inf are
  // two crosses; the mark is one dashed line group.
  EXPECT_EQ(Count(svg, "<polyline"), 2u);
  EXPECT_EQ(Count(svg, "<g class=\"nonfinite\">"), 2u);
  EXPECT_EQ(Count(svg, "<g class=\"mark\">"), 1u);
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
}

TEST(SvgLineChart, LogAxisWithZerosAndNegatives) {
  LineChartSpec spec;
  spec.css_class = "loss-scale";
  spec.title = "Loss scale";
  spec.log_y = true;
  LineSeries s;
  s.label = "rank 0";
  s.xy = {{0, 65536}, {10, 32768}, {20, 0}, {30, -1}, {40, 1}};
  spec.series.push_back(s);
  const std::string svg = LineChart(spec);
  EXPECT_FALSE(HasBadNumber(svg)) << svg;
  EXPECT_NE(svg.find("class=\"chart loss-scale\""), std::string::npos);
  // 0 and -1 cannot sit on a log axis: crosses, not coordinates.
  EXPECT_EQ(Count(svg, "<g class=\"nonfinite\">"), 2u);
  // Ticks are powers of two, every 4th from 2^0 to 2^16 (65536, labelled
  // 65.54k).
  EXPECT_NE(svg.find(">65.54k<"), std::string::npos);
  EXPECT_NE(svg.find(">1<"), std::string::npos);
  EXPECT_NE(svg.find(">16<"), std::string::npos);
  EXPECT_NE(svg.find(">4096<"), std::string::npos);
}

TEST(SvgLineChart, OnlyNonFiniteOrNoPoints) {
  LineChartSpec spec;
  spec.title = "Loss";
  spec.log_y = true;
  LineSeries s;
  s.label = "a";
  s.xy = {{1, kNan}, {2, 0}};
  spec.series.push_back(s);
  const std::string svg = LineChart(spec);
  EXPECT_FALSE(HasBadNumber(svg)) << svg;
  EXPECT_EQ(Count(svg, "<polyline"), 0u);

  LineChartSpec empty;
  empty.title = "Nothing";
  const std::string e = LineChart(empty);
  EXPECT_TRUE(e.starts_with("<svg class=\"chart\""));
  EXPECT_TRUE(e.ends_with("</svg>\n"));
}

TEST(SvgLineChart, LabelsAreEscaped) {
  LineChartSpec spec;
  spec.title = "<script>x</script>";
  LineSeries s;
  s.label = "host\"><img onerror=1>";
  s.xy = {{1, 1}, {2, 2}};
  s.mark_x = 2;
  s.mark_label = "<b>";
  spec.series.push_back(s);
  const std::string svg = LineChart(spec);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("<img"), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;"), std::string::npos);
}

TEST(SvgBoxPlot, HighlightedRowsAndEmpty) {
  std::vector<BoxRow> rows = {{"host-0", 1.0, 1.1, 1.2, 1.3, 1.5, false, ""},
                              {"host-7", 1.0, 1.8, 2.0, 2.3, 3.1, true, "straggler"},
                              {"host-<9>", kNan, 1, 1, 1, kInf, false, ""}};
  const std::string svg = BoxPlot("step-times", "Step time", "seconds", rows);
  EXPECT_TRUE(svg.starts_with("<svg class=\"chart step-times\""));
  EXPECT_EQ(Count(svg, "<g class=\"box hl\""), 1u);
  EXPECT_EQ(Count(svg, "<g class=\"box\""), 2u);
  EXPECT_NE(svg.find(">straggler<"), std::string::npos);
  EXPECT_NE(svg.find("host-&lt;9&gt;"), std::string::npos);
  EXPECT_FALSE(HasBadNumber(svg)) << svg;
  const std::string empty = BoxPlot("step-times", "Step time", "s", {});
  EXPECT_TRUE(empty.ends_with("</svg>\n"));
}

TEST(SvgHeatmap, NanCellsAreLeftEmpty) {
  const std::vector<std::string> labels = {"tpu-0", "tpu-1", "tpu-2"};
  const std::vector<double> values = {kNan, 10, 20, 30, kNan, 40, 50, 60, kNan};
  const std::string svg = Heatmap("heatmap", "Latency", "us", labels, values);
  EXPECT_TRUE(svg.starts_with("<svg class=\"chart heatmap\""));
  // Six finite cells, each with a tooltip naming source and destination.
  EXPECT_EQ(Count(svg, "</title></rect>"), 6u);
  EXPECT_NE(svg.find("tpu-1 \xE2\x86\x92 tpu-2: 40 us"), std::string::npos);
  EXPECT_FALSE(HasBadNumber(svg)) << svg;
  // A matrix shorter than labels^2 is refused, not read past its end.
  const std::string bad = Heatmap("heatmap", "Latency", "us", labels, {1, 2});
  EXPECT_EQ(Count(bad, "<rect"), 0u);
}

TEST(SvgGroupedBars, OneBarPerSide) {
  const std::vector<std::string> sides = {"good", "bad"};
  const std::vector<BarRow> rows = {
      {"NCCL WARN <*> timeout", {0, 120}}, {"step <*> loss <*>", {300, 280}}, {"short row", {5}}};
  const std::string svg = GroupedBars("templates", "Template counts", sides, rows);
  EXPECT_TRUE(svg.starts_with("<svg class=\"chart templates\""));
  EXPECT_EQ(Count(svg, "<g class=\"bars\">"), 3u);
  // Legend swatches (2) + one bar per side per row (6).
  EXPECT_EQ(Count(svg, "<rect"), 8u);
  EXPECT_NE(svg.find("NCCL WARN &lt;*&gt; timeout"), std::string::npos);
  EXPECT_FALSE(HasBadNumber(svg)) << svg;
}

// The widths the label estimate gives, by glyph class, at the 11px chart
// font: narrow 0.4 em = 4.4px, lowercase and digits 0.64 em = 7.04px,
// capitals 0.8 em = 8.8px, wide 1 em = 11px, not ASCII 1.2 em = 13.2px.
TEST(SvgLabelWidth, EstimateByGlyphClass) {
  using svg::EstimatedTextWidth;
  EXPECT_DOUBLE_EQ(EstimatedTextWidth(""), 0);
  EXPECT_NEAR(EstimatedTextWidth("il"), 8.8, 1e-9);
  EXPECT_NEAR(EstimatedTextWidth("ab"), 14.08, 1e-9);
  EXPECT_NEAR(EstimatedTextWidth("09"), 14.08, 1e-9);
  EXPECT_NEAR(EstimatedTextWidth("AB"), 17.6, 1e-9);
  EXPECT_NEAR(EstimatedTextWidth("mW@<"), 44, 1e-9);
  EXPECT_NEAR(EstimatedTextWidth("I, "), 13.2, 1e-9);
  // One character outside ASCII, whatever its byte length.
  EXPECT_NEAR(EstimatedTextWidth("\xC3\xA9"), 13.2, 1e-9);          // é
  EXPECT_NEAR(EstimatedTextWidth("\xE6\x97\xA5"), 13.2, 1e-9);      // 日
  EXPECT_NEAR(EstimatedTextWidth("\xF0\x9F\x98\x80"), 13.2, 1e-9);  // an emoji
  EXPECT_NEAR(EstimatedTextWidth("\xE2\x80\xA6"), 13.2, 1e-9);      // …
  // Escape writes one U+FFFD per control byte and per byte of invalid
  // UTF-8 (a stray byte, an overlong form, a cut sequence).
  EXPECT_NEAR(EstimatedTextWidth("\x1b"), 13.2, 1e-9);
  EXPECT_NEAR(EstimatedTextWidth("\xff\xfe"), 26.4, 1e-9);
  EXPECT_NEAR(EstimatedTextWidth("\xC0\x80"), 26.4, 1e-9);
  EXPECT_NEAR(EstimatedTextWidth("\xE6\x97"), 26.4, 1e-9);
  // Markup characters are measured as the glyphs the page shows.
  EXPECT_NEAR(EstimatedTextWidth("<NUM>"), 11 + 8.8 + 8.8 + 11 + 11, 1e-9);
}

TEST(SvgLabelWidth, EscapeFitCutsWholeCharactersAndEscapesAfter) {
  using svg::EscapeFit;
  const std::string ellipsis = "\xE2\x80\xA6";
  EXPECT_EQ(EscapeFit("a<b", 100), "a&lt;b");
  // "abcde" is 35.2px: it fits 35.2 whole; at 35 "…" (13.2px) leaves
  // 21.8px, room for "abc" (21.12px).
  EXPECT_EQ(EscapeFit("abcde", 35.2), "abcde");
  EXPECT_EQ(EscapeFit("abcde", 35), "abc" + ellipsis);
  // Never inside a UTF-8 sequence: 40px leaves 26.8px, two ideographs.
  EXPECT_EQ(EscapeFit("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE6\x97\xA5", 40),
            "\xE6\x97\xA5\xE6\x9C\xAC" + ellipsis);
  // Cut first, then escaped: 50px leaves 36.8px, three 11px "<".
  EXPECT_EQ(EscapeFit("<<<<<<", 50), "&lt;&lt;&lt;" + ellipsis);
  // No room but for the ellipsis.
  EXPECT_EQ(EscapeFit("abcdef", 5), ellipsis);
  EXPECT_EQ(EscapeFit("", 0), "");
}

// What the browser shows of an SVG text: entities back to characters.
std::string Unescape(std::string_view text) {
  static const std::pair<std::string_view, std::string_view> kEntities[] = {
      {"&lt;", "<"},  {"&gt;", ">"},  {"&amp;", "&"}, {"&quot;", "\""},
      {"&#39;", "'"}, {"&#61;", "="}, {"&#47;", "/"}};
  std::string out;
  for (size_t i = 0; i < text.size();) {
    bool replaced = false;
    for (const auto& [entity, ch] : kEntities) {
      if (text.substr(i, entity.size()) == entity) {
        out += ch;
        i += entity.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

struct EndLabel {
  double x = 0;
  std::string shown;  // unescaped
};

// The right-aligned <text> elements of a chart: the row labels.
std::vector<EndLabel> EndAnchoredLabels(const std::string& svg) {
  std::vector<EndLabel> out;
  constexpr std::string_view kOpen = "<text x=\"";
  for (size_t at = svg.find(kOpen); at != std::string::npos; at = svg.find(kOpen, at + 1)) {
    const size_t tag_end = svg.find('>', at);
    const std::string_view tag(svg.data() + at, tag_end - at);
    if (tag.find("text-anchor=\"end\"") == std::string_view::npos) continue;
    const size_t close = svg.find("</text>", tag_end);
    EndLabel label;
    label.x = std::stod(std::string(tag.substr(kOpen.size())));
    label.shown = Unescape(std::string_view(svg).substr(tag_end + 1, close - tag_end - 1));
    out.push_back(label);
  }
  return out;
}

std::string Repeat(std::string_view piece, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += piece;
  return out;
}

TEST(SvgGroupedBars, LabelsFitTheLeftMargin) {
  const std::string ellipsis = "\xE2\x80\xA6";
  const std::vector<std::string> labels = {
      "short row", "new: NCCL WARN NET/IB : Got async event : GID table change on port 1 of mlx5_3",
      "new: [rank3]:[E1201 10:15:02.123456 4242 ProcessGroupNCCL.cpp:616] Watchdog caught "
      "collective operation timeout",
      "new: host-a:1234:5678 [0] NCCL INFO Channel <NUM>/<NUM> : <NUM>[<NUM>] -> <NUM>[<NUM>]",
      std::string(120, 'W'), std::string(200, 'i'), std::string(80, '<'),
      // Japanese text and emoji (20 characters each): wider than any Latin
      // letter.
      Repeat("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x81\xAE\xE3\x83\x86", 4),
      Repeat("\xF0\x9F\x98\x80", 20),
      // ANSI colour and broken UTF-8, each byte a U+FFFD on the page.
      "\x1b[31mERROR\x1b[0m \xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8 truncated line \xE6\x97",
      "gpu-node-017.cluster.internal"};
  std::vector<BarRow> rows;
  for (size_t i = 0; i < labels.size(); ++i) {
    rows.push_back({labels[i], {static_cast<double>(i), static_cast<double>(2 * i)}});
  }
  const std::string svg = GroupedBars("templates", "Lines per template", {"good", "bad"}, rows);
  const std::vector<EndLabel> shown = EndAnchoredLabels(svg);
  ASSERT_EQ(shown.size(), labels.size()) << svg;
  for (size_t i = 0; i < shown.size(); ++i) {
    // Right-aligned at x: the label reaches x - width, which must stay on
    // the chart.
    EXPECT_GE(shown[i].x - svg::EstimatedTextWidth(shown[i].shown), 0.0)
        << "label " << i << ": " << shown[i].shown;
    // The whole label is in the row's <title>, shown on hover.
    EXPECT_NE(svg.find("<title>" + Escape(labels[i]) + "\n"), std::string::npos) << i;
  }
  EXPECT_EQ(shown[0].shown, "short row");
  for (size_t i = 1; i + 1 < shown.size(); ++i) {
    EXPECT_TRUE(shown[i].shown.ends_with(ellipsis)) << shown[i].shown;
    // Cut, it still fills most of the margin: 210px of room less the widest
    // character and the ellipsis.
    EXPECT_GT(svg::EstimatedTextWidth(shown[i].shown), 210.0 - 13.2 - 13.2) << shown[i].shown;
  }
  EXPECT_TRUE(shown[1].shown.starts_with("new: NCCL WARN NET/IB : Got"));
  EXPECT_TRUE(shown[4].shown.starts_with("WWWWWWWWWWWWWWWW"));
  // A 29-character host name fits whole: 175.12px of the 210px.
  EXPECT_EQ(shown.back().shown, labels.back());
}

TEST(SvgTimeline, ClockLabelsAndRows) {
  // 2026-12-01 12:00:00 UTC = 1796126400 s since the epoch.
  const int64_t t0 = 1796126400LL * 1000000;
  EXPECT_EQ(TimelineClock(t0), "12:00:00");
  EXPECT_EQ(TimelineDate(t0), "2026-12-01");
  EXPECT_EQ(TimelineClock(t0 + 3723LL * 1000000 + 999999), "13:02:03");
  EXPECT_EQ(TimelineClock(0), "00:00:00");
  EXPECT_EQ(TimelineDate(0), "1970-01-01");
  EXPECT_EQ(TimelineClock(-1), "23:59:59");  // one microsecond before the epoch
  EXPECT_EQ(TimelineDate(-1), "1969-12-31");
  EXPECT_EQ(TimelineDate(951782400LL * 1000000), "2000-02-29");

  std::vector<TimelineRow> rows(2);
  rows[0].host = "host-2";
  rows[0].first_us = t0;
  rows[0].last_us = t0 + 60LL * 1000000;
  rows[0].highlight = true;
  rows[0].marks = {{t0 + 59LL * 1000000, "hang", "last collective"}};
  rows[1].host = "host-<1>";
  rows[1].first_us = t0;
  rows[1].last_us = t0 + 600LL * 1000000;
  rows[1].marks = {{t0 + 300LL * 1000000, "crash", "SIGABRT"},
                   {t0 + 590LL * 1000000, "finding", "comm.nccl_timeout"}};
  const std::string svg = Timeline("Timeline", t0, t0 + 600LL * 1000000, rows);
  EXPECT_EQ(Count(svg, "<g class=\"host hl\" data-host=\"host-2\">"), 1u);
  EXPECT_EQ(Count(svg, "data-host=\"host-&lt;1&gt;\""), 1u);
  EXPECT_EQ(Count(svg, "class=\"mark-"), 3u);
  // Ten minutes with ticks every 2 minutes: 12:02:00 ... 12:10:00.
  EXPECT_NE(svg.find(">12:02:00<"), std::string::npos);
  EXPECT_NE(svg.find(">12:10:00<"), std::string::npos);
  EXPECT_NE(svg.find("UTC, from 2026-12-01 12:00:00"), std::string::npos);
  EXPECT_FALSE(HasBadNumber(svg)) << svg;
}

TEST(SvgCharts, Deterministic) {
  LineChartSpec spec;
  spec.title = "Loss";
  for (int k = 0; k < 3; ++k) {
    LineSeries s;
    s.label = "rank " + std::to_string(k);
    for (int i = 0; i < 50; ++i) s.xy.emplace_back(i, 3.0 / (1 + i + k) + 0.001 * i);
    spec.series.push_back(s);
  }
  EXPECT_EQ(LineChart(spec), LineChart(spec));
}

}  // namespace
}  // namespace casefile::html
