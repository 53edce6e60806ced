// The HTML text primitives: escaping of whatever a bundle held, the fixed
// number format of SVG coordinates, shell quoting of "more" commands.
#include "report/html/html_text.h"

#include <gtest/gtest.h>

#include "report/html/html_page.h"

namespace casefile::html {
namespace {

constexpr std::string_view kFffd = "\xEF\xBF\xBD";

TEST(HtmlEscape, MarkupCharacters) {
  EXPECT_EQ(Escape("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(Escape("a & b"), "a &amp; b");
  EXPECT_EQ(Escape("x=\"1\" y='2'"), "x&#61;&quot;1&quot; y&#61;&#39;2&#39;");
  // An attribute breakout attempt stays inside the quoted value, and
  // "src=" / "onerror=" do not appear in the source even as text.
  EXPECT_EQ(Escape("\" onerror=\"alert(1)"), "&quot; onerror&#61;&quot;alert(1)");
  EXPECT_EQ(Escape("<img src=x>"), "&lt;img src&#61;x&gt;");
}

TEST(HtmlEscape, PlainTextAndUtf8Unchanged) {
  EXPECT_EQ(Escape("NCCL INFO Channel 00/02 : 0 1"), "NCCL INFO Channel 00/02 : 0 1");
  EXPECT_EQ(Escape("grüße \xE2\x86\x92 \xF0\x9F\x94\xA5"), "grüße \xE2\x86\x92 \xF0\x9F\x94\xA5");
  EXPECT_EQ(Escape("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(Escape(""), "");
}

TEST(HtmlEscape, DoubleSlashIsNotWrittenRaw) {
  // "http://" in a log line must not appear as such in the page source.
  const std::string e = Escape("see http://evil.example/x and a//b and ///");
  EXPECT_EQ(e.find("//"), std::string::npos) << e;
  EXPECT_EQ(e, "see http:/&#47;evil.example/x and a/&#47;b and /&#47;&#47;");
  EXPECT_EQ(Escape("/var/log/a.log"), "/var/log/a.log");
}

TEST(HtmlEscape, InvalidUtf8BecomesReplacement) {
  EXPECT_EQ(Escape("bad \xff byte"), "bad " + std::string(kFffd) + " byte");
  // Lone continuation byte, truncated 3-byte sequence at the end.
  EXPECT_EQ(Escape("\x80x"), std::string(kFffd) + "x");
  EXPECT_EQ(Escape("ab\xE2\x86"), "ab" + std::string(kFffd) + std::string(kFffd));
  // Overlong "/" (C0 AF) and an encoded surrogate (ED A0 80) are invalid.
  EXPECT_EQ(Escape("\xC0\xAF"), std::string(kFffd) + std::string(kFffd));
  EXPECT_EQ(Escape("\xED\xA0\x80"), std::string(kFffd) + std::string(kFffd) + std::string(kFffd));
}

TEST(HtmlEscape, ControlBytesAndAnsiEscapes) {
  // A colourised glog line: ESC becomes U+FFFD, the rest stays readable.
  const std::string e = Escape("\x1b[31mE1201 12:00:01.5 123 x.cc:9] boom\x1b[0m");
  EXPECT_EQ(e.find('\x1b'), std::string::npos);
  EXPECT_EQ(
      e, std::string(kFffd) + "[31mE1201 12:00:01.5 123 x.cc:9] boom" + std::string(kFffd) + "[0m");
  EXPECT_EQ(Escape(std::string("a\0b\rc\x7f", 6)),
            "a" + std::string(kFffd) + "b" + std::string(kFffd) + "c" + std::string(kFffd));
  // C1 control U+0085 (C2 85) is replaced; U+00A0 (C2 A0) is kept.
  EXPECT_EQ(Escape("\xC2\x85|\xC2\xA0"), std::string(kFffd) + "|\xC2\xA0");
}

TEST(HtmlEscape, BidiOverridesAndC1ControlsBecomeReplacement) {
  // "Trojan source": U+202E (RIGHT-TO-LEFT OVERRIDE) and U+2066 (LEFT-TO-RIGHT
  // ISOLATE) would reorder what a reader sees; U+0085 is a C1 control.
  EXPECT_EQ(Escape("a\xE2\x80\xAE"
                   "b\xE2\x81\xA6"
                   "c\xC2\x85"
                   "d"),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD"
            "c\xEF\xBF\xBD"
            "d");
  // Their neighbours are ordinary text: U+2029 and U+2070 stay.
  EXPECT_EQ(Escape("\xE2\x80\xA9\xE2\x81\xB0"), "\xE2\x80\xA9\xE2\x81\xB0");
  EXPECT_TRUE(IsHiddenControl("\xE2\x81\xA9"));
  EXPECT_FALSE(IsHiddenControl("\xC2\xA0"));  // no-break space
}

TEST(HtmlEscape, AppendEscapedMatchesEscape) {
  std::string out = "prefix:";
  AppendEscaped(out, "<b>&");
  EXPECT_EQ(out, "prefix:&lt;b&gt;&amp;");
}

TEST(HtmlEscape, EscapeCutNeverSplitsACharacter) {
  EXPECT_EQ(EscapeCut("short", 10), "short");
  EXPECT_EQ(EscapeCut("abcdef", 3), "abc\xE2\x80\xA6");
  // "é" is C3 A9 at bytes 2..3: a cut at 3 backs off to 2.
  EXPECT_EQ(EscapeCut("abéz", 3), "ab\xE2\x80\xA6");
  EXPECT_EQ(EscapeCut("<<<<", 2), "&lt;&lt;\xE2\x80\xA6");
}

TEST(HtmlNum, FixedFormat) {
  EXPECT_EQ(Num(0), "0");
  EXPECT_EQ(Num(12), "12");
  EXPECT_EQ(Num(-3), "-3");
  EXPECT_EQ(Num(1.5), "1.5");
  EXPECT_EQ(Num(1.25), "1.25");
  EXPECT_EQ(Num(2.999), "3");
  EXPECT_EQ(Num(0.004), "0");
  EXPECT_EQ(Num(-0.004), "0");  // no "-0"
  EXPECT_EQ(Num(-12.347), "-12.35");
  EXPECT_EQ(Num(1e20), "9000000000000000");  // clamped, never an exponent
  EXPECT_EQ(Num(1234567.891), "1234567.89");
}

TEST(HtmlNum, NonFiniteIsZero) {
  EXPECT_EQ(Num(std::numeric_limits<double>::quiet_NaN()), "0");
  EXPECT_EQ(Num(std::numeric_limits<double>::infinity()), "0");
  EXPECT_EQ(Num(-std::numeric_limits<double>::infinity()), "0");
}

TEST(HtmlPage, ShellQuote) {
  EXPECT_EQ(ShellQuote("/data/run-7/host-0.tar.zst"), "/data/run-7/host-0.tar.zst");
  EXPECT_EQ(ShellQuote("my bundle.tar"), "'my bundle.tar'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("$(rm -rf x)"), "'$(rm -rf x)'");
  EXPECT_EQ(ShellQuote(""), "''");
}

TEST(HtmlPage, MoreLine) {
  EXPECT_EQ(MoreLine(0, "hosts", "x"), "");
  EXPECT_EQ(MoreLine(-2, "hosts", "x"), "");
  EXPECT_EQ(MoreLine(3, "hosts", "casefile query b 'SELECT 1 WHERE a<2'"),
            "<p class=\"more\">3 more hosts: <code>casefile query b &#39;SELECT 1 WHERE "
            "a&lt;2&#39;</code></p>\n");
}

TEST(HtmlPage, FrameHoldsTheContract) {
  const std::string page = PageBegin("casefile <report>", "a & b") + PageEnd();
  EXPECT_NE(page.find("<meta charset=\"utf-8\">"), std::string::npos);
  EXPECT_NE(page.find("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"),
            std::string::npos);
  EXPECT_NE(page.find("<meta name=\"generator\" content=\"casefile "), std::string::npos);
  EXPECT_NE(page.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                      "'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src "
                      "data:\">"),
            std::string::npos);
  EXPECT_NE(page.find("<h1>casefile &lt;report&gt;</h1>"), std::string::npos);
  EXPECT_NE(page.find("a &amp; b"), std::string::npos);
  EXPECT_NE(page.find("@media print"), std::string::npos);
  EXPECT_NE(page.find("@media (max-width:700px)"), std::string::npos);
  EXPECT_NE(page.find("<script>"), std::string::npos);
  // The frame itself references nothing outside the page.
  EXPECT_EQ(page.find("//"), std::string::npos);
  EXPECT_EQ(page.find("src="), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("url("), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);
  EXPECT_TRUE(page.ends_with("</html>\n"));
}

TEST(HtmlPage, SectionAndFilterBar) {
  EXPECT_EQ(SectionBegin("diff-hlo", "HLO <modules>"),
            "<section id=\"diff-hlo\">\n<h2>HLO &lt;modules&gt;</h2>\n");
  EXPECT_EQ(SectionEnd(), "</section>\n");
  const std::string bar = FilterBar("Filter", true, true);
  EXPECT_NE(bar.find("<input id=\"filter\" type=\"search\""), std::string::npos);
  EXPECT_NE(bar.find("data-severity=\"error\""), std::string::npos);
  EXPECT_NE(bar.find("id=\"expand-all\""), std::string::npos);
  const std::string plain = FilterBar("Filter", false, false);
  EXPECT_EQ(plain.find("sev-toggle"), std::string::npos);
  EXPECT_EQ(plain.find("expand-all"), std::string::npos);
}

}  // namespace
}  // namespace casefile::html
