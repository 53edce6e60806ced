// Markdown text primitives shared by the analysis report's markdown
// (lib/report/render_markdown.cc) and the diff's (lib/diff/
// diff_render_markdown.cc): what keeps bundle text from being read as
// markdown, HTML or tracker syntax, and what keeps a page within the size of
// an issue comment.
//
// Why these rules: an issue tracker (GitHub, GitLab) renders what is pasted.
// A log line holding "<script>", "@someone", "#12" or "[x](http://...)" must
// show as that text, not become HTML, a notification, a cross-reference or a
// link. Bundle text therefore reaches the page only
// - inside a fenced block (Fenced) or a code span (CodeSpan) whose backtick
//   run is longer than any run inside, so nothing inside can close it, or
// - through Inline, which backslash-escapes what markdown or HTML would read
//   and puts the words a tracker links even when escaped in code spans.
// Everything is first made printable by Clean (no control characters, no
// invisible bidirectional overrides, valid UTF-8, a byte cap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "report/html/html_text.h"

namespace casefile::md {

// GitHub refuses a comment over 65,536 characters; a page aims at this many
// bytes. Bytes, not characters: a byte count bounds the character count
// GitHub checks, whatever the script. The rest is room for the footer and
// for a reader's own words around the paste.
inline constexpr size_t kMarkdownBudgetBytes = 60 * 1024;

// The length of the UTF-8 sequence that `lead` starts: 1 for ASCII, 2, 3 or
// 4 by its high bits, 4 for anything else (callers run on SanitizeUtf8
// output, where only valid lead bytes start a character).
size_t Utf8Length(unsigned char lead);

// Whether one UTF-8 character (its bytes) changes how text reads without
// being visible: C1 controls (U+0080..U+009F) and the bidirectional
// overrides and isolates U+202A..U+202E, U+2066..U+2069 ("Trojan source":
// they can make a line display in an order other than the one it holds).
// The HTML escaping shares the rule.
using html::IsHiddenControl;

// Bundle text made printable: invalid UTF-8, C0 controls, DEL and hidden
// controls become U+FFFD (ESC included: a log's colour codes mean nothing in
// an issue); tabs, CR and LF become spaces (LF stays a line break when
// `keep_newlines`). The result is at most `max` bytes, cut between
// characters, plus "…" when anything was cut. Only a prefix of a huge input
// is sanitised: every input byte gives at least one output byte.
std::string Clean(std::string_view text, size_t max, bool keep_newlines = false);

// The longest run of consecutive backticks in `text` (0 when none).
size_t LongestBacktickRun(std::string_view text);

// `text` (already Clean, one line) as a code span nothing inside can close:
// delimited by one backtick more than its longest run, padded with a space
// on both sides when it starts or ends with a backtick or a space (markdown
// strips exactly one such space). "_(empty)_" for empty text, since an
// empty code span does not render. With `in_table`, '|' is written "\|": a
// '|' ends a GFM table cell even inside a code span, and GFM tables turn
// "\|" back into '|' there.
std::string CodeSpan(std::string_view text, bool in_table = false);

// Whether a space-free word is one a tracker turns into something else even
// when its characters are backslash-escaped: a mention or an e-mail address
// (any '@'), a URL ("://", or a leading "www."/"WWW."), an issue or merge
// request reference ('#' or '!' followed by a digit, GitHub's "GH-12"),
// a GitLab milestone ('%' followed by a digit).
bool TrackerWord(std::string_view word);

// Characters that markdown or inline HTML read anywhere in a line:
// \ ` * _ [ ] < > | # ~ & $ ('$' because GitHub renders $...$ as math).
bool MarkdownSpecial(char c);

// Bundle or plugin text as inline markdown that reads as exactly that text:
// Clean (to `max` bytes), leading and trailing spaces dropped (they could
// make an indented code block or a hard line break), MarkdownSpecial
// characters backslash-escaped, TrackerWords as code spans, and a first word
// that would start a list, a setext heading or an ordered list ("-", "+",
// "=", "1.", "1)") escaped. `in_table` as for CodeSpan.
std::string Inline(std::string_view raw, size_t max, bool in_table = false);

// A ```text fenced block holding `body` (lines ending in '\n'), every line
// prefixed by `indent` (to keep the block inside a list item). The fence is
// at least three backticks and one longer than any backtick run of the body:
// a closing fence must be at least as long as the opening one, so no line of
// the body can close the block early.
std::string Fenced(const std::string& body, std::string_view indent = "");

// A shell word for a command the reader can paste (Clean to 300 bytes
// first): as is when it holds only [A-Za-z0-9_@%+=:,./-]; else in double
// quotes when none of " $ ` \ ! is in it (SQL keeps its single quotes
// readable); else in single quotes, a quote written '\''.
std::string ShellWord(std::string_view raw);

// A SQL string literal: single quotes, a quote inside doubled.
std::string SqlString(std::string_view text);

// "1 host", "3 hosts": the count and the word that agrees with it.
std::string Plural(int64_t n, const char* one, const char* many);

// Appends `piece` to `out` when the result stays within `budget` bytes;
// says whether it did. Sections build their lists with it so that each
// stays within its share of kMarkdownBudgetBytes.
bool AppendWithin(std::string& out, const std::string& piece, size_t budget);

// The "### Warnings" section of a page ("" when there are none): one list
// item per warning, each Inline (warnings quote bundle and plugin text), at
// most `listed` of them and within `budget` bytes, then "- N more" for the
// rest. The report and the diff show their warnings alike.
std::string WarningsSection(const std::vector<std::string>& warnings, size_t listed, size_t budget);

}  // namespace casefile::md
