// A small reader of markdown, shared by the tests of the two markdown pages
// (tests/report/markdown_test.cc, tests/diff/diff_markdown_test.cc). Their
// safety tests read a page the way a CommonMark renderer (GitHub's, GitLab's)
// does, as far as safety needs: fenced blocks, code spans and backslash
// escapes. What is left outside code is what a tracker would turn into HTML,
// mentions and links, so that is what the tests check stays inert.
// Header-only: the helpers report through GoogleTest where noted.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace casefile::test {

// The lines of `text`, split on '\n'; a final '\n' ends the last line
// rather than starting an empty one.
inline std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      out.push_back(text.substr(start));
      break;
    }
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

// A line that opens or closes a backtick fence: up to 3 spaces of indent
// (the diff's numbered list indents its fences; more would be an indented
// code block), then three or more backticks. Returns the run length, 0 when
// not a fence line; `indent` (when given) gets the spaces before the run,
// which CommonMark strips from the lines of the block.
inline size_t FenceRun(const std::string& line, size_t* indent = nullptr) {
  size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  size_t n = 0;
  while (i + n < line.size() && line[i + n] == '`') ++n;
  if (indent != nullptr) *indent = i;
  return n >= 3 ? n : 0;
}

// One line of prose with its code spans (a backtick run up to the next run
// of the same length) replaced by "CODE" and its backslash escapes by '~':
// neither is ever read as markup, mention or link, so what remains is
// exactly what a tracker would interpret. An unmatched run is literal text.
inline std::string StripInlineCode(const std::string& line) {
  std::string out;
  for (size_t i = 0; i < line.size();) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      out += '~';  // an escaped character: literal text, never markup
      i += 2;
      continue;
    }
    if (line[i] == '`') {
      size_t n = 0;
      while (i + n < line.size() && line[i + n] == '`') ++n;
      size_t j = i + n;
      bool closed = false;
      while (j < line.size()) {
        if (line[j] != '`') {
          ++j;
          continue;
        }
        size_t m = 0;
        while (j + m < line.size() && line[j + m] == '`') ++m;
        if (m == n) {
          closed = true;
          break;
        }
        j += m;
      }
      if (closed) {
        out += "CODE";
        i = j + n;
        continue;
      }
      out.append(n, '`');  // an unmatched run is literal text
      i += n;
      continue;
    }
    out += line[i++];
  }
  return out;
}

// One fenced block as a renderer shows it.
struct FencedBlock {
  std::vector<std::string> lines;  // without the indentation of the fence
  bool closed = false;             // false: the block ran to the end of the page
};

struct ParsedMarkdown {
  std::vector<FencedBlock> fences;
  // Text outside fences, with code spans and backslash escapes removed: what
  // a tracker reads as markup, mentions and links.
  std::string prose;
};

// Splits a page into its fenced blocks and its prose. A block ends at a
// fence line of at least its opening run holding only backticks (and
// spaces), as in CommonMark, so a test sees exactly where a renderer would
// end it. Every line of an indented block must carry the fence's
// indentation (checked with EXPECT): a line indented less would end the list
// item the block stands in, and the block with it.
inline ParsedMarkdown ParseMarkdown(const std::string& md) {
  ParsedMarkdown p;
  const std::vector<std::string> lines = SplitLines(md);
  for (size_t i = 0; i < lines.size(); ++i) {
    size_t indent = 0;
    const size_t run = FenceRun(lines[i], &indent);
    if (run > 0) {
      FencedBlock f;
      for (++i; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        if (FenceRun(l) >= run && l.find_first_not_of("` ") == std::string::npos) {
          f.closed = true;
          break;
        }
        EXPECT_EQ(l.substr(0, indent), std::string(indent, ' ')) << l;
        f.lines.push_back(l.substr(std::min(indent, l.size())));
      }
      p.fences.push_back(f);
      continue;
    }
    p.prose += StripInlineCode(lines[i]) + "\n";
  }
  return p;
}

// Every fenced block ends at a closing fence. A block running to the end of
// the page means bundle text upset the fences (a line closed one early and a
// later fence line opened another): the renderer would swallow the rest of
// the page as code.
inline void ExpectFencesClosed(const ParsedMarkdown& p) {
  for (const FencedBlock& f : p.fences) {
    EXPECT_TRUE(f.closed) << (f.lines.empty() ? std::string("(empty block)") : f.lines.front());
  }
}

// Whether some fenced block holds `line` exactly: evidence shown as code,
// whole, inside a block its text could not close.
inline bool AnyFenceHasLine(const ParsedMarkdown& p, const std::string& line) {
  for (const FencedBlock& f : p.fences) {
    for (const std::string& l : f.lines) {
      if (l == line) return true;
    }
  }
  return false;
}

// Prose may hold no HTML but the page's own tags (`own_tags`, e.g. the
// report's "<details>"): any other '<' or '>' left outside code could be a
// tag a tracker renders, or the half of one.
inline void ExpectNoForeignHtml(const std::string& prose,
                                std::initializer_list<std::string_view> own_tags = {}) {
  std::string rest = prose;
  for (std::string_view tag : own_tags) {
    for (size_t at = rest.find(tag); at != std::string::npos; at = rest.find(tag)) {
      rest.erase(at, tag.size());
    }
  }
  EXPECT_EQ(rest.find('<'), std::string::npos) << prose;
  EXPECT_EQ(rest.find('>'), std::string::npos) << prose;
}

// What a tracker turns into a notification or a link even in plain prose:
// a mention or e-mail ('@'), a URL ("://", a bare "www."), a markdown link
// ("]("). Bundle text holding them must reach the prose only as code.
inline void ExpectNoMentionOrLink(const std::string& prose) {
  EXPECT_EQ(prose.find('@'), std::string::npos) << prose;
  EXPECT_EQ(prose.find("://"), std::string::npos) << prose;
  EXPECT_EQ(prose.find("]("), std::string::npos) << prose;
  EXPECT_EQ(prose.find("www."), std::string::npos) << prose;
}

// The '|' of a GFM table row that delimit cells: those not escaped by a
// backslash. A row of n columns has n + 1; one more means a '|' of bundle
// text split a cell.
inline size_t UnescapedPipes(const std::string& row) {
  size_t pipes = 0;
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i] == '|' && (i == 0 || row[i - 1] != '\\')) ++pipes;
  }
  return pipes;
}

// Characters, as GitHub counts a comment against its 65,536 limit: UTF-8
// code points (every byte that is not a continuation byte starts one).
inline size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

}  // namespace casefile::test
