// The markdown text primitives shared by the report's and the diff's
// markdown (report/markdown/markdown_text.h), tested one by one: what each
// writes for the text that would otherwise be read as markdown, HTML or
// tracker syntax. The renderers' own tests (markdown_test.cc,
// diff/diff_markdown_test.cc) check whole pages.
#include "report/markdown/markdown_text.h"

#include <gtest/gtest.h>

#include <string>

namespace casefile::md {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD
const std::string kEllipsis = "\xE2\x80\xA6";     // …

TEST(MarkdownText, BudgetStaysUnderGithubsCommentLimit) {
  EXPECT_EQ(kMarkdownBudgetBytes, 61440u);
  EXPECT_LT(kMarkdownBudgetBytes, 65536u);
}

TEST(MarkdownText, Utf8LengthByLeadByte) {
  EXPECT_EQ(Utf8Length('a'), 1u);
  EXPECT_EQ(Utf8Length(0x7F), 1u);
  EXPECT_EQ(Utf8Length(0xC3), 2u);  // é = C3 A9
  EXPECT_EQ(Utf8Length(0xE2), 3u);  // … = E2 80 A6
  EXPECT_EQ(Utf8Length(0xF0), 4u);  // an emoji
}

TEST(MarkdownText, HiddenControlsAreC1AndBidiOverridesOnly) {
  EXPECT_TRUE(IsHiddenControl("\xC2\x80"));      // U+0080, first C1 control
  EXPECT_TRUE(IsHiddenControl("\xC2\x85"));      // U+0085 NEXT LINE
  EXPECT_TRUE(IsHiddenControl("\xC2\x9F"));      // U+009F, last C1 control
  EXPECT_TRUE(IsHiddenControl("\xE2\x80\xAA"));  // U+202A LRE
  EXPECT_TRUE(IsHiddenControl("\xE2\x80\xAE"));  // U+202E RLO ("Trojan source")
  EXPECT_TRUE(IsHiddenControl("\xE2\x81\xA6"));  // U+2066 LRI
  EXPECT_TRUE(IsHiddenControl("\xE2\x81\xA9"));  // U+2069 PDI
  // Lookalikes next to the ranges: visible or harmless characters.
  EXPECT_FALSE(IsHiddenControl("\xC2\xA0"));      // U+00A0 NO-BREAK SPACE
  EXPECT_FALSE(IsHiddenControl("\xC3\xA9"));      // é
  EXPECT_FALSE(IsHiddenControl("\xE2\x80\xA9"));  // U+2029, just before LRE
  EXPECT_FALSE(IsHiddenControl("\xE2\x80\xAF"));  // U+202F, just after RLO
  EXPECT_FALSE(IsHiddenControl("\xE2\x81\xA5"));  // U+2065, just before LRI
  EXPECT_FALSE(IsHiddenControl("\xE2\x81\xAA"));  // U+206A, just after PDI
  EXPECT_FALSE(IsHiddenControl("\xE2\x80\xA6"));  // …
  EXPECT_FALSE(IsHiddenControl("a"));
}

TEST(MarkdownText, CleanMakesTextPrintable) {
  EXPECT_EQ(Clean("plain text", 100), "plain text");
  // Tabs and line breaks become spaces, one each.
  EXPECT_EQ(Clean("a\tb\r\nc", 100), "a b  c");
  // ...or a line break stays one when asked (CR still a space).
  EXPECT_EQ(Clean("a\r\nb\n", 100, true), "a \nb\n");
  // ANSI colour: ESC is a control character.
  EXPECT_EQ(Clean("\x1b[31mred\x1b[0m", 100), kReplacement + "[31mred" + kReplacement + "[0m");
  EXPECT_EQ(Clean(std::string("a\0b\x7f", 4), 100), "a" + kReplacement + "b" + kReplacement);
  // Invalid UTF-8 and the hidden controls.
  EXPECT_EQ(Clean("x\xff"
                  "y",
                  100),
            "x" + kReplacement + "y");
  EXPECT_EQ(Clean("admin\xE2\x80\xAE"
                  "evil",
                  100),
            "admin" + kReplacement + "evil");
  EXPECT_EQ(Clean("next\xC2\x85line", 100), "next" + kReplacement + "line");
  // Valid text outside ASCII is kept.
  EXPECT_EQ(Clean("caf\xC3\xA9 \xE6\x97\xA5", 100), "caf\xC3\xA9 \xE6\x97\xA5");
}

TEST(MarkdownText, CleanCutsBetweenCharactersWithAnEllipsis) {
  EXPECT_EQ(Clean("abcd", 4), "abcd");
  EXPECT_EQ(Clean("abcde", 4), "abcd" + kEllipsis);
  // "ab" and the 3 bytes of 日 would be 5 bytes: 日 goes whole.
  EXPECT_EQ(Clean("ab\xE6\x97\xA5", 4), "ab" + kEllipsis);
  // A replacement takes 3 bytes of the budget.
  EXPECT_EQ(Clean("ab\x1b"
                  "c",
                  4),
            "ab" + kEllipsis);
  // A huge input: only its start is read, the cut is marked.
  EXPECT_EQ(Clean(std::string(100000, 'x'), 10), std::string(10, 'x') + kEllipsis);
  EXPECT_EQ(Clean("", 10), "");
}

TEST(MarkdownText, LongestBacktickRun) {
  EXPECT_EQ(LongestBacktickRun(""), 0u);
  EXPECT_EQ(LongestBacktickRun("no ticks"), 0u);
  EXPECT_EQ(LongestBacktickRun("a`b``c```d`"), 3u);
  EXPECT_EQ(LongestBacktickRun("``````"), 6u);
}

TEST(MarkdownText, CodeSpanOutlastsItsBackticks) {
  EXPECT_EQ(CodeSpan("abc"), "`abc`");
  EXPECT_EQ(CodeSpan("a`b"), "``a`b``");
  EXPECT_EQ(CodeSpan("a```b`"), "```` a```b` ````");  // ends with a backtick: padded
  EXPECT_EQ(CodeSpan("`x"), "`` `x ``");
  EXPECT_EQ(CodeSpan(" x"), "`  x `");  // markdown strips one space each side
  EXPECT_EQ(CodeSpan("x "), "` x  `");
  EXPECT_EQ(CodeSpan(""), "_(empty)_");
  EXPECT_EQ(CodeSpan("<script>@me"), "`<script>@me`");
}

TEST(MarkdownText, CodeSpanEscapesPipesOnlyInTables) {
  EXPECT_EQ(CodeSpan("a|b", true), "`a\\|b`");
  EXPECT_EQ(CodeSpan("a|b"), "`a|b`");
  EXPECT_EQ(CodeSpan("||", true), "`\\|\\|`");
}

TEST(MarkdownText, TrackerWords) {
  EXPECT_TRUE(TrackerWord("@octocat"));
  EXPECT_TRUE(TrackerWord("@team/admins"));
  EXPECT_TRUE(TrackerWord("ops@example.com"));
  EXPECT_TRUE(TrackerWord("http://203.0.113.9/x"));
  EXPECT_TRUE(TrackerWord("(see:https://example.org)"));
  EXPECT_TRUE(TrackerWord("www.example.org"));
  EXPECT_TRUE(TrackerWord("WWW.EXAMPLE.ORG"));
  EXPECT_TRUE(TrackerWord("#123"));
  EXPECT_TRUE(TrackerWord("!45"));
  EXPECT_TRUE(TrackerWord("issue#7"));
  EXPECT_TRUE(TrackerWord("(#12)"));
  EXPECT_TRUE(TrackerWord("GH-12"));  // GitHub's other issue reference
  EXPECT_TRUE(TrackerWord("see:GH-3"));
  EXPECT_TRUE(TrackerWord("%12"));  // a GitLab milestone
  // Lookalikes a tracker leaves alone.
  EXPECT_FALSE(TrackerWord("www."));  // nothing after the dot
  EXPECT_FALSE(TrackerWord("wwwx.org"));
  EXPECT_FALSE(TrackerWord("#define"));
  EXPECT_FALSE(TrackerWord("C#"));
  EXPECT_FALSE(TrackerWord("!important"));
  EXPECT_FALSE(TrackerWord("file:/tmp/x"));
  EXPECT_FALSE(TrackerWord("rank3"));
  EXPECT_FALSE(TrackerWord("GH-"));
  EXPECT_FALSE(TrackerWord("GH-x"));
  EXPECT_FALSE(TrackerWord("50%"));  // a percentage: '%' after the digits
  EXPECT_FALSE(TrackerWord(""));
}

TEST(MarkdownText, MarkdownSpecials) {
  for (char c : std::string("\\`*_[]<>|#~&$")) EXPECT_TRUE(MarkdownSpecial(c)) << c;
  for (char c : std::string("aZ09 -+=.!()@:/'\"")) EXPECT_FALSE(MarkdownSpecial(c)) << c;
}

TEST(MarkdownText, InlineEscapesWhatMarkdownWouldRead) {
  EXPECT_EQ(Inline("plain words", 100), "plain words");
  EXPECT_EQ(Inline("*em* _u_ ~~s~~", 100), "\\*em\\* \\_u\\_ \\~\\~s\\~\\~");
  EXPECT_EQ(Inline("<script>alert(1)</script>", 100), "\\<script\\>alert(1)\\</script\\>");
  EXPECT_EQ(Inline("costs $5 & a|b", 100), "costs \\$5 \\& a\\|b");
  EXPECT_EQ(Inline("back\\slash `tick`", 100), "back\\\\slash \\`tick\\`");
  EXPECT_EQ(Inline("## fake heading", 100), "\\#\\# fake heading");
  // Tracker words go whole into code spans (escaping would not stop them).
  EXPECT_EQ(Inline("cc @octocat see #123 and !45", 100), "cc `@octocat` see `#123` and `!45`");
  EXPECT_EQ(Inline("[x](http://evil.example/x)", 100), "`[x](http://evil.example/x)`");
  EXPECT_EQ(Inline("x@y|z", 100, true), "`x@y\\|z`");
}

TEST(MarkdownText, InlineEscapesLineStartMarkersOnlyAtTheStart) {
  EXPECT_EQ(Inline("- not a list", 100), "\\- not a list");
  EXPECT_EQ(Inline("+ not a list", 100), "\\+ not a list");
  EXPECT_EQ(Inline("=== not a heading", 100), "\\=== not a heading");
  EXPECT_EQ(Inline("1. not a list", 100), "1\\. not a list");
  EXPECT_EQ(Inline("12) not a list", 100), "12\\) not a list");
  EXPECT_EQ(Inline("> not a quote", 100), "\\> not a quote");
  // Not at the start, or not a marker: left alone.
  EXPECT_EQ(Inline("a - b + c = d", 100), "a - b + c = d");
  EXPECT_EQ(Inline("step 1. done", 100), "step 1. done");
  EXPECT_EQ(Inline("1.5 GB", 100), "1.5 GB");
  EXPECT_EQ(Inline("v1. x", 100), "v1. x");
  EXPECT_EQ(Inline("-1", 100), "\\-1");
}

TEST(MarkdownText, InlineTrimsAndCleans) {
  // Leading spaces would make an indented code block, trailing ones a
  // hard line break.
  EXPECT_EQ(Inline("    not code  ", 100), "not code");
  EXPECT_EQ(Inline("a\nb\tc", 100), "a b c");
  EXPECT_EQ(Inline("\x1b[1mbold", 100), kReplacement + "\\[1mbold");
  EXPECT_EQ(Inline("abcdef", 3), "abc" + kEllipsis);
  EXPECT_EQ(Inline("", 10), "");
  EXPECT_EQ(Inline("   ", 10), "");
}

TEST(MarkdownText, FenceOutlastsTheBody) {
  EXPECT_EQ(Fenced("a\nb\n"), "```text\na\nb\n```\n");
  EXPECT_EQ(Fenced("no newline"), "```text\nno newline\n```\n");
  // A body holding a fence of its own: the outer one is longer.
  EXPECT_EQ(Fenced("```\nx\n```\n"), "````text\n```\nx\n```\n````\n");
  EXPECT_EQ(Fenced("`````` six\n"), "```````text\n`````` six\n```````\n");
  // Inside a list item every line is indented.
  EXPECT_EQ(Fenced("a\nb\n", "   "), "   ```text\n   a\n   b\n   ```\n");
  EXPECT_EQ(Fenced(""), "```text\n```\n");
}

TEST(MarkdownText, ShellWords) {
  EXPECT_EQ(ShellWord("corpus/run-1/bundle.tar.zst"), "corpus/run-1/bundle.tar.zst");
  EXPECT_EQ(ShellWord("a@b:%+=,"), "a@b:%+=,");
  EXPECT_EQ(ShellWord("my bundle"), "\"my bundle\"");
  EXPECT_EQ(ShellWord("SELECT * FROM t WHERE k='x'"), "\"SELECT * FROM t WHERE k='x'\"");
  EXPECT_EQ(ShellWord("a$b"), "'a$b'");
  EXPECT_EQ(ShellWord("say \"hi\""), "'say \"hi\"'");
  EXPECT_EQ(ShellWord("it's $HOME"), "'it'\\''s $HOME'");
  EXPECT_EQ(ShellWord("x`id`"), "'x`id`'");
  EXPECT_EQ(ShellWord("wow!"), "'wow!'");
  EXPECT_EQ(ShellWord(""), "\"\"");
  // Cleaned first: no control character reaches the terminal.
  EXPECT_EQ(ShellWord("a\nb"), "\"a b\"");
}

TEST(MarkdownText, SqlStringsPluralsAndBudgets) {
  EXPECT_EQ(SqlString("nccl"), "'nccl'");
  EXPECT_EQ(SqlString("o'k''"), "'o''k'''''");
  EXPECT_EQ(SqlString(""), "''");

  EXPECT_EQ(Plural(1, "host", "hosts"), "1 host");
  EXPECT_EQ(Plural(0, "host", "hosts"), "0 hosts");
  EXPECT_EQ(Plural(2, "more finding", "more findings"), "2 more findings");

  std::string out = "ab";
  EXPECT_TRUE(AppendWithin(out, "cd", 4));
  EXPECT_EQ(out, "abcd");
  EXPECT_FALSE(AppendWithin(out, "e", 4));
  EXPECT_EQ(out, "abcd");
  EXPECT_TRUE(AppendWithin(out, "", 4));
}

}  // namespace
}  // namespace casefile::md
