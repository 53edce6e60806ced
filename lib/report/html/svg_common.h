// Small pieces shared by the chart writers of svg_chart.cc: the opening tag
// with its viewBox, the palette, "nice" axis ticks, label widths.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace casefile::html::svg {

// <svg class="chart CLASS" viewBox="0 0 W H" role="img" ...><title>TITLE</title>
std::string Open(std::string_view css_class, std::string_view title, double width, double height);
inline constexpr std::string_view kClose = "</svg>\n";

// A colour for series i (a calm, colour-blind-friendly cycle).
std::string_view SeriesColour(size_t i);
inline constexpr std::string_view kErrorColour = "#c62828";
inline constexpr std::string_view kWarningColour = "#b26a00";
inline constexpr std::string_view kInfoColour = "#1565c0";

// About `target` round tick values covering [lo, hi] (1, 2, 5 x 10^k steps).
std::vector<double> NiceTicks(double lo, double hi, int target);
// A tick label: integers as such, else up to 3 significant decimals, large
// and tiny magnitudes with k/M/G or e-notation written by hand.
std::string TickLabel(double v);
// A tick label with as many decimals as the tick step needs, so that
// adjacent ticks of a narrow range (1.340, 1.342, 1.344 s) never print alike;
// TickLabel when the step is 0.01 or more or the value needs k/M/G.
std::string StepTickLabel(double v, double step);
// The step between the first two ticks; 0 with fewer than two.
double TickStep(const std::vector<double>& ticks);

// The size of chart text: svg.chart text{font-size:11px} in html_page.cc.
inline constexpr double kFontPx = 11;

// An upper estimate of the width in px at kFontPx of `text` as the page
// shows it (raw text, before escaping: "<" is one glyph). SVG text does not
// wrap and a chart cannot measure it, so labels that must fit a margin are
// cut by this estimate. Per character, by glyph class, about the advance of
// DejaVu Sans (the widest common sans fallback; Arial, Helvetica, Segoe UI
// and Roboto are narrower) or more: 0.4 em for narrow glyphs (i j l f t r I,
// space, . , : ; ' | / \ - ( ) [ ]), 1 em for wide ones (m w M W @ % # &
// < > = + ~ ^), 0.8 em for the other capitals, 0.64 em for the rest of ASCII
// (lowercase letters, digits), and 1.2 em for anything else (CJK ideographs
// and "…" are 1 em, emoji at most a little more), control bytes and invalid
// UTF-8 included (each becomes one U+FFFD, as Escape writes it).
double EstimatedTextWidth(std::string_view text);

// Escape(text), cut when its estimated width is over `max_width` px: the
// longest prefix (whole characters) that fits together with "…", then "…".
// Whoever cuts keeps the full text in a <title> so that it shows on hover.
std::string EscapeFit(std::string_view text, double max_width);

}  // namespace casefile::html::svg
