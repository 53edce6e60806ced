// The frame shared by the analysis and the diff HTML pages: one
// self-contained file with inline CSS (screen, narrow screen and print) and a
// little inline JS (filtering findings or items, expanding evidence). A
// Content-Security-Policy meta forbids every network request, so a page that
// somehow held an external reference still loads nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/shell_quote.h"

namespace casefile::html {

// The size a page aims to stay under, whatever the bundle (docs/REPORTS.md):
// every list a page shows is capped with "N more" and the command that shows
// the rest.
inline constexpr size_t kPageBudgetBytes = 2 * 1024 * 1024;

// <!DOCTYPE html> ... <body><header><h1>title</h1><p class="subtitle">...
// `title` and `subtitle` are plain text (escaped here); <meta
// name="generator"> names the casefile version.
std::string PageBegin(std::string_view title, std::string_view subtitle);
// The same with a subtitle that is already HTML (built with Escape by the
// caller), for subtitles holding badges or several spans.
std::string PageBeginRaw(std::string_view title, std::string_view subtitle_html);
// Closes <main>, adds the footer (casefile version) and the inline script,
// closes the document.
std::string PageEnd();

// <section id="ID"><h2>heading</h2>  (heading is plain text)
std::string SectionBegin(std::string_view id, std::string_view heading);
std::string SectionEnd();

// <p class="more">N more ITEMS: <code>COMMAND</code></p>, the command
// escaped; "" when n <= 0.
std::string MoreLine(int64_t n, std::string_view items, std::string_view command);

// A shell-quoted argument for a command shown in "N more" lines
// (common/shell_quote.h).
using casefile::ShellQuote;

// The filter bar the page script drives: <div class="filters"> with
// <input id="filter" type="search">, optionally the severity toggles
// (<input type="checkbox" class="sev-toggle" data-severity="error|warning|info">)
// and the expand/collapse-all buttons (#expand-all, #collapse-all). The
// script filters article.finding and tr.diff-item elements by their text and
// their data-severity; print hides the bar.
std::string FilterBar(std::string_view placeholder, bool severity_toggles, bool expand_buttons);

}  // namespace casefile::html
