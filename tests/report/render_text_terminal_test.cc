// The text report is printed to terminals, and everything it quotes came
// from a bundle a stranger wrote: a cited log line with escape sequences
// must show them, never run them (docs/CLI.md, "Terminal safety").
#include <gtest/gtest.h>

#include <string>

#include "report/report.h"

namespace casefile {
namespace {

// A report whose one finding cites `line` as evidence.
Report Citing(const std::string& line) {
  Report r;
  BundleRow b;
  b.name = "run.tar.zst";
  b.format = "tar.zst";
  b.status = "complete";
  b.entries = 1;
  r.bundles.push_back(b);
  r.analyzers.push_back({"runtime", "1", "ran", "", 1});
  Finding f;
  f.code = "runtime.crash";
  f.analyzer = "runtime";
  f.severity = Severity::kError;
  f.title = "A rank crashed";
  f.summary = "see the line";
  f.culprits.push_back({std::string("host-1"), std::nullopt, 1});
  f.evidence.push_back({"run.tar.zst", "logs/host-1/worker.log", 7, line});
  f.recommendation = "Read the log.";
  r.findings.push_back(f);
  return r;
}

// The rendered evidence line (the one after the path:line line).
std::string EvidenceLine(const std::string& text) {
  const std::string where = "logs/host-1/worker.log:7\n      ";
  const size_t at = text.find(where);
  if (at == std::string::npos) return "<no evidence in: " + text + ">";
  const size_t start = at + where.size();
  return text.substr(start, text.find('\n', start) - start);
}

// No byte that a terminal acts on: C0 controls but the report's own line
// breaks, DEL, and no C1 control as UTF-8 or as a raw byte.
void ExpectInert(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    EXPECT_FALSE((c < 0x20 && c != '\n') || c == 0x7f) << "byte " << int(c) << " at " << i;
    if (c == 0xc2 && i + 1 < text.size()) {
      const auto next = static_cast<unsigned char>(text[i + 1]);
      EXPECT_FALSE(next >= 0x80 && next <= 0x9f) << "a C1 control at " << i;
    }
    EXPECT_NE(c, 0x9b) << "a raw CSI byte at " << i;
  }
  EXPECT_EQ(text.find("\xe2\x80\xae"), std::string::npos) << "U+202E survived";
}

TEST(RenderTextTerminal, EscapeSequencesShowInCaretNotation) {
  struct Case {
    const char* what;
    std::string line;
    std::string shown;
  } cases[] = {
      {"CSI colour", "E1201 \x1b[31mNCCL error\x1b[0m", "E1201 ^[[31mNCCL error^[[0m"},
      {"OSC window title", "x\x1b]0;pwned\x07y", "x^[]0;pwned^Gy"},
      {"cursor movement", "\x1b[2A\x1b[10Cok", "^[[2A^[[10Cok"},
      {"clear screen", "\x1b[2J\x1b[Hclean", "^[[2J^[[Hclean"},
      {"backspaces", "rank 3 ok\b\b\bFAIL", "rank 3 ok^H^H^HFAIL"},
      {"carriage return", "loss nan\rloss 0.1", "loss nan^Mloss 0.1"},
      {"line feed", "a\n[error] fake", "a^J[error] fake"},
      {"DEL and NUL",
       std::string("a\x7f"
                   "b\0c",
                   5),
       "a^?b^@c"},
      {"C1 CSI as UTF-8 (U+009B)",
       "x\xc2\x9b"
       "31my",
       "x<U+009B>31my"},
      {"C1 OSC as UTF-8 (U+009D)",
       "\xc2\x9d"
       "0;t\xc2\x9c",
       "<U+009D>0;t<U+009C>"},
      {"C1 CSI as a raw byte",
       "x\x9b"
       "31my",
       "x<0x9B>31my"},
      {"bidi override U+202E",
       "file \xe2\x80\xae"
       "gol.exe",
       "file <U+202E>gol.exe"},
      {"bidi isolate U+2067 and pop U+2069",
       "\xe2\x81\xa7"
       "a\xe2\x81\xa9",
       "<U+2067>a<U+2069>"},
      {"line separator U+2028",
       "a\xe2\x80\xa8"
       "b",
       "a<U+2028>b"},
      {"tab", "a\tb", "a b"},
  };
  for (const Case& c : cases) {
    const std::string text = RenderText(Citing(c.line), false);
    EXPECT_EQ(EvidenceLine(text), c.shown) << c.what;
    ExpectInert(text);
  }
}

TEST(RenderTextTerminal, PrintableTextIsUnchanged) {
  // Unicode that is not a control stays as written (accents, CJK, emoji,
  // the replacement-free path of valid UTF-8), and so do ASCII punctuation
  // and the caret itself.
  const std::string line = "Größe 张量 \xf0\x9f\x94\xa5 a^b [rank3]: ok ~!@#$%&*()";
  EXPECT_EQ(EvidenceLine(RenderText(Citing(line), false)), line);
}

TEST(RenderTextTerminal, EveryBundleStringIsInert) {
  Report r = Citing("plain");
  const std::string hostile = "h\x1b]0;pwned\x07\xc2\x9b\x9b\xe2\x80\xae\r";
  r.bundles[0].name = hostile;
  r.bundles[0].format = hostile;
  r.bundles[0].status = "partial";
  r.bundles[0].error = hostile;
  r.findings[0].title = hostile;
  r.findings[0].summary = hostile;
  r.findings[0].recommendation = hostile;
  r.findings[0].culprits[0].host = hostile;
  r.findings[0].culprits[0].task = hostile;
  r.findings[0].evidence[0].path = hostile;
  r.findings[0].evidence[0].text = hostile;
  r.analyzers.push_back({"ext", "1", "failed", hostile, 0});
  r.ingest_issues.push_back({hostile, {1, hostile, 12, "archive_corrupt", hostile}});
  r.ingest_issue_counts["archive_corrupt"] = 1;
  r.warnings.push_back(hostile);
  for (bool color : {false, true}) {
    std::string text = RenderText(r, color);
    if (color) {
      // The report's own colours are the only escapes, and only SGR ones.
      std::string stripped;
      for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
          size_t end = i + 2;
          while (end < text.size() && ((text[end] >= '0' && text[end] <= '9') || text[end] == ';'))
            ++end;
          ASSERT_LT(end, text.size());
          EXPECT_EQ(text[end], 'm') << "a non-colour escape at " << i;
          i = end;
          continue;
        }
        stripped += text[i];
      }
      text = stripped;
    }
    ExpectInert(text);
    // What was there is visible.
    EXPECT_NE(text.find("h^[]0;pwned^G<U+009B><0x9B><U+202E>^M"), std::string::npos) << text;
  }
}

TEST(RenderTextTerminal, LongLinesAreCutOnACharacterBoundary) {
  // 239 ASCII bytes then a 2-byte character across the 240-byte cut: the
  // cut goes before it, so no half character (shown as <0xC3>) appears.
  const std::string line = std::string(239, 'a') + "\xc3\xa9" + std::string(50, 'b');
  const std::string shown = EvidenceLine(RenderText(Citing(line), false));
  EXPECT_EQ(shown, std::string(239, 'a') + "...");
}

}  // namespace
}  // namespace casefile
