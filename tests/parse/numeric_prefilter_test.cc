// The numeric prefilter: which literal families it reports, and that the
// vector paths (SSE2/AVX2/AVX-512, chosen at run time) agree with the byte
// loop on every length and needle position, including the window tails.
#include "parse/numeric/numeric_prefilter.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace casefile::numeric {
namespace {

TEST(NumericPrefilter, Families) {
  EXPECT_EQ(ScanLiterals(""), 0u);
  EXPECT_EQ(ScanLiterals("lo"), 0u);
  EXPECT_EQ(ScanLiterals("step 12 loss=2.5"), kHitLoss);
  EXPECT_EQ(ScanLiterals("LOSS"), kHitLoss);
  EXPECT_EQ(ScanLiterals("'grad_norm': NaN"), kHitNan);
  EXPECT_EQ(ScanLiterals("NAN"), kHitNan);
  EXPECT_EQ(ScanLiterals("[deepscale] OVERFLOW! Rank 0"), kHitOverflow);
  EXPECT_EQ(ScanLiterals("Gradient overflow.  Skipping step"), kHitOverflow);
  EXPECT_EQ(ScanLiterals("found Inf in local grad norm"), kHitInf);
  EXPECT_EQ(ScanLiterals("lm loss: NAN | loss scale: inf"), kHitLoss | kHitNan | kHitInf);
  // Folding maps only letters onto letters: "_" and "?" never stand in.
  EXPECT_EQ(ScanLiterals("o_s ?ss 0SS n@n"), 0u);
  EXPECT_EQ(ScanLiterals("NCCL INFO Channel 00/0"), kHitInf);
  EXPECT_EQ(ScanLiterals("gradient bucket backward stream"), 0u);
}

TEST(NumericPrefilter, NeedleAtEveryPositionAndLength) {
  const char* needles[] = {"oss", "NaN", "rFl", "Inf", "iNF"};
  for (size_t len = 0; len <= 200; ++len) {
    std::string base(len, 'x');
    EXPECT_EQ(ScanLiterals(base), 0u) << len;
    for (const char* needle : needles) {
      for (size_t at = 0; at + 3 <= len; ++at) {
        std::string s = base;
        s.replace(at, 3, needle);
        ASSERT_EQ(ScanLiterals(s), ScanLiteralsScalar(s))
            << needle << " at " << at << " of " << len;
        ASSERT_NE(ScanLiterals(s), 0u) << needle << " at " << at << " of " << len;
      }
    }
  }
}

TEST(NumericPrefilter, VectorAndScalarAgreeOnRandomText) {
  std::mt19937 rng(7);
  const std::string alphabet = "losSnaNrfLIiOF _.x\x80\xff";
  for (int round = 0; round < 20000; ++round) {
    std::string s(rng() % 160, ' ');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    ASSERT_EQ(ScanLiterals(s), ScanLiteralsScalar(s)) << s;
  }
}

TEST(NumericPrefilter, ReadsOnlyTheView) {
  // The needle sits just past the end of the view: it must not be seen.
  const std::string buffer = std::string(100, 'x') + "loss";
  for (size_t len = 0; len <= 100; ++len) {
    EXPECT_EQ(ScanLiterals(std::string_view(buffer).substr(100 - len, len)), 0u) << len;
  }
}

}  // namespace
}  // namespace casefile::numeric
