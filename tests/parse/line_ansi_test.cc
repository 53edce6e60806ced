#include <gtest/gtest.h>

#include <string>

#include "parse/line/ansi.h"

namespace casefile {
namespace {

// The cleaned text, or the input itself when nothing was removed (as a
// caller would use it).
std::string Clean(std::string_view in) {
  std::string out;
  return StripAnsi(in, out) ? out : std::string(in);
}

TEST(StripAnsi, FastPathLeavesOutputEmpty) {
  std::string out = "stale";
  EXPECT_FALSE(StripAnsi("[rank0]:[E1218 20:27:21.4 ProcessGroupNCCL.cpp:629] plain", out));
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(StripAnsi("", out));
  EXPECT_TRUE(out.empty());
}

TEST(StripAnsi, BracketDigitWithoutRemnantIsNotRemoved) {
  std::string out;
  EXPECT_FALSE(StripAnsi("[80746] [2025-12-18 20:27:22,783] [1,0]<stdout>: x", out));
  EXPECT_TRUE(out.empty());
}

TEST(StripAnsi, Csi) {
  EXPECT_EQ(Clean("\x1b[31mERROR\x1b[0m done"), "ERROR done");
  EXPECT_EQ(Clean("\x1b[1;32;40mgreen\x1b[m"), "green");
  EXPECT_EQ(Clean("\x1b[38;5;208morange"), "orange");
  EXPECT_EQ(Clean("bar\x1b[2K\x1b[1Gnext"), "barnext");
  EXPECT_EQ(Clean("\x1b[?25lhidden cursor\x1b[?25h"), "hidden cursor");
}

TEST(StripAnsi, Osc) {
  EXPECT_EQ(Clean("\x1b]0;window title\x07text"), "text");
  EXPECT_EQ(Clean("\x1b]8;;http://x/y\x1b\\link\x1b]8;;\x1b\\ after"), "link after");
}

TEST(StripAnsi, UnterminatedOscKeepsTheText) {
  EXPECT_EQ(Clean("\x1b]0;title and message"), "0;title and message");
}

TEST(StripAnsi, TwoByteAndCharsetSequences) {
  EXPECT_EQ(Clean("\x1b"
                  "7saved\x1b"
                  "8"),
            "saved");
  EXPECT_EQ(Clean("\x1b(Bplain"), "plain");
  EXPECT_EQ(Clean("\x1bMup"), "up");
  EXPECT_EQ(Clean("lone at end\x1b"), "lone at end");
}

TEST(StripAnsi, CutCsiDropsOnlyWhatItRead) {
  EXPECT_EQ(Clean("text\x1b[31"), "text");
  EXPECT_EQ(Clean("a\x1b[3\x01"
                  "b"),
            "a\x01"
            "b");
}

TEST(StripAnsi, EscLessRemnants) {
  EXPECT_EQ(Clean("[36m(RayWorkerWrapper pid=1)[0m INFO x"), "(RayWorkerWrapper pid=1) INFO x");
  EXPECT_EQ(Clean("[1;31mERROR[0m: boom"), "ERROR: boom");
  EXPECT_EQ(Clean("[0m"), "");
  EXPECT_EQ(Clean("done[0m"), "done");
  EXPECT_EQ(Clean("[38;5;208morange"), "orange");
}

TEST(StripAnsi, CaretNotation) {
  EXPECT_EQ(Clean("^[[31mred^[[0m"), "red");
  EXPECT_EQ(Clean("^[[Kcleared"), "cleared");
}

TEST(StripAnsi, LookAlikesStay) {
  std::string out;
  // Durations, lists and malformed parameter lists are text, not colours.
  EXPECT_FALSE(StripAnsi("waited [10m] for peers", out));
  EXPECT_FALSE(StripAnsi("eta [2m 30s] left", out));
  EXPECT_FALSE(StripAnsi("[1234m] weird", out));
  EXPECT_FALSE(StripAnsi("[1234mweird", out));
  EXPECT_FALSE(StripAnsi("[36 m spaced", out));
  EXPECT_FALSE(StripAnsi("[;36m empty parameter", out));
  EXPECT_FALSE(StripAnsi("[1;m trailing ';'", out));
  EXPECT_FALSE(StripAnsi("100% [1/10]", out));
  EXPECT_FALSE(StripAnsi("a ^ b [x]", out));
  EXPECT_TRUE(out.empty());
}

TEST(StripAnsi, RemovesEverythingAndReportsIt) {
  std::string out = "stale";
  EXPECT_TRUE(StripAnsi("\x1b[0m", out));
  EXPECT_EQ(out, "");
}

TEST(StripAnsi, OutputIsReusedAcrossLines) {
  std::string out;
  EXPECT_TRUE(StripAnsi("\x1b[31mfirst line that is long enough\x1b[0m", out));
  EXPECT_EQ(out, "first line that is long enough");
  EXPECT_TRUE(StripAnsi("\x1b[32msecond\x1b[0m", out));
  EXPECT_EQ(out, "second");
}

TEST(AnsiSequenceAt, Lengths) {
  EXPECT_EQ(AnsiSequenceAt("\x1b[31mX", 0), 5u);
  EXPECT_EQ(AnsiSequenceAt("[36m(Ray", 0), 4u);
  EXPECT_EQ(AnsiSequenceAt("x[0m", 1), 3u);
  EXPECT_EQ(AnsiSequenceAt("[rank0]:", 0), 0u);
  EXPECT_EQ(AnsiSequenceAt("[10m]", 0), 0u);
  EXPECT_EQ(AnsiSequenceAt("abc", 5), 0u);
}

TEST(StripAnsi, EveryCutIsSafe) {
  const std::string text =
      "\x1b[1;31mE\x1b]8;;http://x\x1b\\l\x1b]0;t\x07 ^[[2K[36m(R)[0m \x1b(B\x1b"
      "7 end";
  std::string out;
  for (size_t len = 0; len <= text.size(); ++len) {
    const std::string cut = text.substr(0, len);
    if (StripAnsi(cut, out)) {
      EXPECT_LT(out.size(), cut.size()) << len;
    } else {
      EXPECT_TRUE(out.empty()) << len;
    }
  }
}

}  // namespace
}  // namespace casefile
