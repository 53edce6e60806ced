// The markdown text primitives (markdown_text.h says what each does and
// why). Moved here unchanged from the two markdown renderers, which held
// identical copies: their output is byte-for-byte what it was.
#include "report/markdown/markdown_text.h"

#include <algorithm>

#include "common/json_writer.h"
#include "common/shell_quote.h"
#include "report/html/html_text.h"

namespace casefile::md {

size_t Utf8Length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  return 4;
}

// Bundle text made printable: invalid UTF-8 and control characters (ESC
// included: a log's colour codes mean nothing in an issue) become U+FFFD,
// tabs and line breaks become spaces (or stay line breaks when
// `keep_newlines`), and the result is cut to at most `max` bytes between
// characters, with "…" when cut.
std::string Clean(std::string_view text, size_t max, bool keep_newlines) {
  // Every input byte gives at least one output byte, so a prefix a little
  // longer than `max` holds everything that can be kept (a huge line is not
  // sanitised whole to keep 200 bytes of it).
  const bool input_cut = text.size() > max + 4;
  const std::string valid = SanitizeUtf8(input_cut ? text.substr(0, max + 4) : text);
  std::string out;
  out.reserve(std::min(valid.size(), max) + 3);
  bool cut = false;
  for (size_t i = 0; i < valid.size();) {
    const size_t n = std::min(Utf8Length(static_cast<unsigned char>(valid[i])), valid.size() - i);
    const std::string_view ch(valid.data() + i, n);
    i += n;
    std::string_view put = ch;
    if (n == 1) {
      const char c = ch[0];
      if (c == '\n' && keep_newlines) {
        put = "\n";
      } else if (c == '\t' || c == '\n' || c == '\r') {
        put = " ";
      } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        put = "\xEF\xBF\xBD";
      }
    } else if (html::IsHiddenControl(ch)) {
      put = "\xEF\xBF\xBD";
    }
    if (out.size() + put.size() > max) {
      cut = true;
      break;
    }
    out += put;
  }
  if (cut || (input_cut && out.size() >= max)) out += "\xE2\x80\xA6";
  return out;
}

size_t LongestBacktickRun(std::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// `text` (already Clean, one line) as a code span that nothing inside can
// close. In a table cell a '|' would end the cell even inside a code span,
// so it is written "\|", which GFM tables turn back into '|'.
std::string CodeSpan(std::string_view text, bool in_table) {
  if (text.empty()) return "_(empty)_";
  const std::string ticks(LongestBacktickRun(text) + 1, '`');
  // A space on each side keeps a leading or trailing backtick off the
  // delimiter; markdown strips exactly one space from each side.
  const bool pad =
      text.front() == '`' || text.back() == '`' || text.front() == ' ' || text.back() == ' ';
  std::string out = ticks + (pad ? " " : "");
  for (char c : text) {
    if (in_table && c == '|') out += '\\';
    out += c;
  }
  return out + (pad ? " " : "") + ticks;
}

// A word a tracker would turn into something else even when its characters
// are escaped: a mention or an e-mail address (@), a URL, an issue or merge
// request reference (#12, !12).
bool TrackerWord(std::string_view word) {
  if (word.find('@') != std::string_view::npos) return true;
  if (word.find("://") != std::string_view::npos) return true;
  if (word.size() > 4 && (word.substr(0, 4) == "www." || word.substr(0, 4) == "WWW.")) return true;
  auto digit = [&](size_t i) { return i < word.size() && word[i] >= '0' && word[i] <= '9'; };
  for (size_t i = 0; i + 1 < word.size(); ++i) {
    // #12 and !12 (GitHub/GitLab issues and merge requests), %12 (a GitLab
    // milestone).
    if ((word[i] == '#' || word[i] == '!' || word[i] == '%') && digit(i + 1)) return true;
  }
  // GH-12: GitHub's other issue reference.
  for (size_t at = word.find("GH-"); at != std::string_view::npos; at = word.find("GH-", at + 1)) {
    if (digit(at + 3)) return true;
  }
  return false;
}

bool MarkdownSpecial(char c) {
  switch (c) {
    case '\\':
    case '`':
    case '*':
    case '_':
    case '[':
    case ']':
    case '<':
    case '>':
    case '|':
    case '#':
    case '~':
    case '&':
    case '$':  // GitHub renders $...$ as math
      return true;
    default:
      return false;
  }
}

// Bundle or plugin text as inline markdown that reads as exactly that text:
// Clean, then specials backslash-escaped, tracker words as code spans, and
// a leading character that would start a list, quote or heading escaped.
std::string Inline(std::string_view raw, size_t max, bool in_table) {
  // Leading spaces could make an indented code block of a paragraph, and
  // trailing ones a hard line break.
  std::string text = Clean(raw, max);
  text.erase(0, std::min(text.find_first_not_of(' '), text.size()));
  text.erase(text.find_last_not_of(' ') + 1);
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      out += ' ';
      ++i;
      continue;
    }
    const size_t end = std::min(text.find(' ', i), text.size());
    const std::string_view word(text.data() + i, end - i);
    if (TrackerWord(word)) {
      out += CodeSpan(word, in_table);
    } else {
      for (size_t k = 0; k < word.size(); ++k) {
        const char c = word[k];
        // "-", "+", "=" only matter where a line starts; a word "1." or "1)" too.
        const bool line_start_marker =
            i == 0 && ((k == 0 && (c == '-' || c == '+' || c == '=')) ||
                       ((c == '.' || c == ')') && k > 0 && k + 1 == word.size() &&
                        word.find_first_not_of("0123456789") == k));
        if (MarkdownSpecial(c) || line_start_marker) out += '\\';
        out += c;
      }
    }
    i = end;
  }
  return out;
}

// A fenced block holding `body` (lines ending in '\n'); the fence is longer
// than any backtick run of the body, so no line of it can close the block.
std::string Fenced(const std::string& body, std::string_view indent) {
  const std::string fence(std::max<size_t>(3, LongestBacktickRun(body) + 1), '`');
  std::string out = std::string(indent) + fence + "text\n";
  size_t start = 0;
  while (start < body.size()) {
    const size_t nl = std::min(body.find('\n', start), body.size());
    out += std::string(indent) + body.substr(start, nl - start) + "\n";
    start = nl + 1;
  }
  return out + std::string(indent) + fence + "\n";
}

// A shell word for a command the reader can paste: as is when plain, else
// in double quotes when nothing in it is special there (SQL keeps its single
// quotes readable), else in single quotes.
std::string ShellWord(std::string_view raw) {
  const std::string s = Clean(raw, 300);
  if (IsShellSafeWord(s)) return s;
  // Double quotes read more naturally when nothing inside is special there.
  if (s.find_first_of("\"$`\\!") == std::string::npos) return "\"" + s + "\"";
  return ShellQuote(s);
}

// A SQL string literal ('' for a quote).
std::string SqlString(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string Plural(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Appends `piece` when `out` stays within `budget`; says whether it did.
bool AppendWithin(std::string& out, const std::string& piece, size_t budget) {
  if (out.size() + piece.size() > budget) return false;
  out += piece;
  return true;
}

std::string WarningsSection(const std::vector<std::string>& warnings, size_t listed,
                            size_t budget) {
  if (warnings.empty()) return "";
  std::string out = "### Warnings\n\n";
  // 60 bytes of the budget are kept for the "- N more" line.
  const size_t limit = budget > 60 ? budget - 60 : 0;
  size_t shown = 0;
  for (const std::string& w : warnings) {
    if (shown == listed || !AppendWithin(out, "- " + Inline(w, 300) + "\n", limit)) break;
    ++shown;
  }
  if (shown < warnings.size()) out += "- " + std::to_string(warnings.size() - shown) + " more\n";
  return out + "\n";
}

}  // namespace casefile::md
