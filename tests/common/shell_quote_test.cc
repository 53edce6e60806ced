// The one quoting rule for printed command lines: bare when safe, else
// POSIX single quotes that a shell reads back to the same word.
#include "common/shell_quote.h"

#include <gtest/gtest.h>

namespace casefile {
namespace {

TEST(ShellQuote, SafeWordsStayBare) {
  EXPECT_EQ(ShellQuote("/data/run-1/host_3.tar.zst"), "/data/run-1/host_3.tar.zst");
  EXPECT_EQ(ShellQuote("--max-bytes=1G"), "--max-bytes=1G");
  EXPECT_EQ(ShellQuote("user@host:50%,a+b"), "user@host:50%,a+b");
  EXPECT_TRUE(IsShellSafeWord("a"));
  EXPECT_FALSE(IsShellSafeWord(""));
}

TEST(ShellQuote, EverythingElseIsSingleQuoted) {
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("two words"), "'two words'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("$HOME `x` \"q\" !"), "'$HOME `x` \"q\" !'");
  EXPECT_EQ(ShellQuote("a\nb"), "'a\nb'");
  EXPECT_FALSE(IsShellSafeWord("a*b"));
}

}  // namespace
}  // namespace casefile
