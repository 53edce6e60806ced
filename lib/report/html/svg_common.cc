#include "report/html/svg_common.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

#include "report/html/html_text.h"

namespace casefile::html::svg {

std::string Open(std::string_view css_class, std::string_view title, double width, double height) {
  std::string out = "<svg class=\"chart";
  if (!css_class.empty()) {
    out += ' ';
    AppendEscaped(out, css_class);
  }
  // No xmlns: inline SVG in HTML does not need it, and it would put a URL
  // into a page that promises none.
  out += "\" viewBox=\"0 0 " + Num(width) + " " + Num(height) +
         "\" preserveAspectRatio=\"xMinYMin meet\" role=\"img\"><title>";
  AppendEscaped(out, title);
  out += "</title>\n";
  return out;
}

std::string_view SeriesColour(size_t i) {
  static constexpr std::string_view kColours[] = {"#1565c0", "#2e7d32", "#6a1b9a", "#00838f",
                                                  "#ef6c00", "#5d4037", "#ad1457", "#455a64"};
  return kColours[i % (sizeof(kColours) / sizeof(kColours[0]))];
}

std::vector<double> NiceTicks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi) || target < 1) return ticks;
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    ticks.push_back(lo);
    return ticks;
  }
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (int k = 0; k < 64; ++k) {
    const double v = first + k * step;
    if (v > hi + step * 1e-9) break;
    ticks.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  }
  return ticks;
}

std::string TickLabel(double v) {
  if (!std::isfinite(v)) return "?";
  const double a = std::fabs(v);
  if (a >= 1e9) return Num(v / 1e9) + "G";
  if (a >= 1e6) return Num(v / 1e6) + "M";
  if (a >= 1e4) return Num(v / 1e3) + "k";
  if (a == 0 || a >= 0.01) return Num(v);
  // Tiny values: m x 10^e written by hand (no locale, no printf).
  const int e = static_cast<int>(std::floor(std::log10(a)));
  return Num(v / std::pow(10.0, e)) + "e" + std::to_string(e);
}

std::string StepTickLabel(double v, double step) {
  if (!std::isfinite(v) || !std::isfinite(step) || step >= 0.01 || std::fabs(v) >= 1e4) {
    return TickLabel(v);
  }
  if (step <= 0 || std::fabs(v) < step / 2) return step <= 0 ? TickLabel(v) : "0";
  // std::to_chars: locale-independent and exact, unlike printf.
  const int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 9);
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  return r.ec == std::errc() ? std::string(buf, r.ptr) : TickLabel(v);
}

double TickStep(const std::vector<double>& ticks) {
  return ticks.size() >= 2 ? ticks[1] - ticks[0] : 0;
}

namespace {

// Widths in em, by glyph class (svg_common.h says why these).
constexpr double kNarrowEm = 0.4, kNormalEm = 0.64, kCapitalEm = 0.8, kWideEm = 1.0, kOtherEm = 1.2;

// Glyphs at most 0.4 em wide, and glyphs up to 1 em wide, in DejaVu Sans.
constexpr std::string_view kNarrowGlyphs = " ijlftrI.,:;'|/\\-()[]";
constexpr std::string_view kWideGlyphs = "mwMW@%#&<>=+~^";

double AsciiEm(unsigned char c) {
  if (c < 0x20 || c == 0x7F) return kOtherEm;  // shown as U+FFFD (tab, newline: as much)
  const char ch = static_cast<char>(c);
  if (kNarrowGlyphs.find(ch) != std::string_view::npos) return kNarrowEm;
  if (kWideGlyphs.find(ch) != std::string_view::npos) return kWideEm;
  return c >= 'A' && c <= 'Z' ? kCapitalEm : kNormalEm;
}

// The estimated width in em of the character at text[i]; `i` is moved past it.
double NextCharEm(std::string_view text, size_t& i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) {
    ++i;
    return AsciiEm(c);
  }
  const size_t len = ValidUtf8Length(text, i);
  i += len == 0 ? 1 : len;  // an invalid byte: one U+FFFD
  return kOtherEm;
}

}  // namespace

double EstimatedTextWidth(std::string_view text) {
  double em = 0;
  for (size_t i = 0; i < text.size();) em += NextCharEm(text, i);
  return em * kFontPx;
}

std::string EscapeFit(std::string_view text, double max_width) {
  if (EstimatedTextWidth(text) <= max_width) return Escape(text);
  const double room = max_width - kOtherEm * kFontPx;  // what "…" leaves
  double width = 0;
  size_t keep = 0;
  for (size_t i = 0; i < text.size();) {
    width += NextCharEm(text, i) * kFontPx;
    if (width > room) break;
    keep = i;
  }
  std::string out = Escape(text.substr(0, keep));
  out += "\xE2\x80\xA6";  // …
  return out;
}

}  // namespace casefile::html::svg
