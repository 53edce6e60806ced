// Text from a bundle made safe for HTML. Everything a report shows that came
// from a bundle (log lines, paths, host names, finding text written by a
// plugin) goes through these: a line holding "<script>" shows as text.
#pragma once

#include <string>
#include <string_view>

namespace casefile::html {

// Escapes & < > " ' for element text and quoted attribute values; also "="
// and the second "/" of "//", so no text from a bundle reads as "src=" or a
// URL in the page source (the browser shows them unchanged). Invalid
// UTF-8 becomes U+FFFD and control bytes other than tab and newline become
// U+FFFD too, so the page stays valid whatever bytes a log held.
std::string Escape(std::string_view text);
// Length of the valid UTF-8 sequence starting at text[i] (i < size), or 0
// when the bytes there are not one (overlong forms, surrogates and values
// past U+10FFFF included, as the HTML parser would replace them anyway).
// Escape writes U+FFFD for each byte where it is 0.
size_t ValidUtf8Length(std::string_view text, size_t i);

// Whether one UTF-8 character (its bytes) changes how text reads without
// being visible: a C1 control or a bidirectional override or isolate
// (U+202A..U+202E, U+2066..U+2069, the "Trojan source" characters). Escape
// and the markdown writer show them as U+FFFD.
bool IsHiddenControl(std::string_view utf8_char);
// Appends Escape(text) to `out` (no temporary for the hot path of evidence).
void AppendEscaped(std::string& out, std::string_view text);
// Escape(text) cut to at most `max_bytes` of the input (never inside a UTF-8
// sequence), with "…" appended when cut.
std::string EscapeCut(std::string_view text, size_t max_bytes);

// A number for SVG coordinates and attributes: fixed, at most 2 decimals,
// no exponent, "0" for NaN/inf (locale-independent, deterministic).
std::string Num(double v);

}  // namespace casefile::html
