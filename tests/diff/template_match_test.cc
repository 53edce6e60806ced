#include "diff/template_match.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace casefile::diff {
namespace {

TEST(PatternTokens, SplitsOnAnyWhitespaceRun) {
  auto t = PatternTokens("  NCCL WARN\tNET/IB : <*>  ");
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[0], "NCCL");
  EXPECT_EQ(t[2], "NET/IB");
  EXPECT_EQ(t[4], "<*>");
  EXPECT_TRUE(PatternTokens("").empty());
}

TEST(WildcardEqual, StarMatchesOneTokenOnEitherSide) {
  auto a = PatternTokens("Loading shard <*> of <NUM>");
  auto b = PatternTokens("Loading shard model.safetensors of <NUM>");
  EXPECT_TRUE(WildcardEqual(a, b));
  EXPECT_TRUE(WildcardEqual(b, a));
  // A typed mask is a constant: <NUM> is not <HEX>.
  EXPECT_FALSE(WildcardEqual(PatternTokens("id <NUM>"), PatternTokens("id <HEX>")));
  // Lengths must agree: <*> stands for exactly one token.
  EXPECT_FALSE(WildcardEqual(PatternTokens("a <*>"), PatternTokens("a b c")));
  EXPECT_FALSE(WildcardEqual(PatternTokens("using fp16"), PatternTokens("using bf16")));
}

TEST(LooksLikeFailure, FailureWordsButNotLookalikes) {
  EXPECT_TRUE(LooksLikeFailure("RuntimeError: CUDA error: an illegal memory access"));
  EXPECT_TRUE(LooksLikeFailure("Connection refused by <IP>"));
  EXPECT_TRUE(LooksLikeFailure("Watchdog caught collective operation timeout"));
  EXPECT_TRUE(LooksLikeFailure("loss is NaN at step <NUM>"));
  EXPECT_TRUE(LooksLikeFailure("Traceback (most recent call last):"));
  EXPECT_FALSE(LooksLikeFailure("step <NUM> loss <NUM> lr <NUM>"));
  EXPECT_FALSE(LooksLikeFailure("financial nanotech dataset loaded"));
  EXPECT_FALSE(LooksLikeFailure("Saving checkpoint to <PATH>"));
}

TEST(TemplateIndex, MatchesByLevelAndWildcard) {
  TemplateIndex idx;
  idx.Add(1, "info", "Loading shard <*> of <NUM>");
  idx.Add(2, "warning", "Loading shard <*> of <NUM>");
  idx.Add(3, "info", "step <NUM> loss <NUM>");
  auto m = idx.Matches("info", "Loading shard a.bin of <NUM>");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0], 1);
  EXPECT_TRUE(idx.Matches("error", "Loading shard a.bin of <NUM>").empty());
  EXPECT_TRUE(idx.Matches("info", "step <NUM> loss").empty());
  // Many entries in one group: every one stays matchable (no dangling views).
  // The index keeps views: the patterns live here, as in the section.
  std::vector<std::string> patterns;
  for (int i = 0; i < 200; ++i) patterns.push_back("x" + std::to_string(i) + " y");
  for (int i = 0; i < 200; ++i) idx.Add(100 + i, "info", patterns[i]);
  auto many = idx.Matches("info", "x150 y");
  ASSERT_EQ(many.size(), 1u);
  EXPECT_EQ(many[0], 250);
}

TEST(TemplateIndex, StarsOnEitherSideAndInTheFirstPosition) {
  TemplateIndex idx;
  idx.Add(1, "info", "Loading shard a.bin of <NUM>");
  idx.Add(2, "info", "Loading <*> b.bin of <NUM>");
  idx.Add(3, "info", "<*> started in <NUM> s");
  idx.Add(4, "info", "<NUM> started in <NUM> s");
  // A plain query finds its exact twin and the starred patterns.
  EXPECT_EQ(idx.Matches("info", "Loading shard a.bin of <NUM>"), (std::vector<int64_t>{1}));
  EXPECT_EQ(idx.Matches("info", "Loading weights b.bin of <NUM>"), (std::vector<int64_t>{2}));
  // A starred query scans the plain ones of its group too.
  EXPECT_EQ(idx.Matches("info", "Loading shard <*> of <NUM>"), (std::vector<int64_t>{1, 2}));
  // A merged first position matches any first token, and the reverse.
  EXPECT_EQ(idx.Matches("info", "<HEX> started in <NUM> s"), (std::vector<int64_t>{3}));
  EXPECT_EQ(idx.Matches("info", "<*> started in <NUM> s"), (std::vector<int64_t>{3, 4}));
  EXPECT_TRUE(idx.Matches("info", "Loading shard a.bin of <HEX>").empty());
}

}  // namespace
}  // namespace casefile::diff
