// scan::AnyOfFourBytes against a byte-by-byte search: every hit, in order,
// whatever the length (the 16-byte vector steps, the overlapping last step,
// lines shorter than one step) and wherever the caller stops.
#include "parse/line/byte_search.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace casefile::scan {
namespace {

std::vector<size_t> Naive(const std::string& s, const char set[4], size_t stop_after) {
  std::vector<size_t> hits;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == set[0] || s[i] == set[1] || s[i] == set[2] || s[i] == set[3]) {
      hits.push_back(i);
      if (hits.size() == stop_after) break;
    }
  }
  return hits;
}

TEST(ByteSearch, EveryHitInOrderAtEveryLength) {
  std::mt19937 rng(42);
  const char set[4] = {'g', 'G', 'v', 'v'};
  const std::string alphabet = "gGvxyz \t0";
  for (size_t len = 0; len <= 80; ++len) {
    for (int round = 0; round < 60; ++round) {
      std::string s(len, ' ');
      for (char& c : s) c = alphabet[rng() % alphabet.size()];
      for (size_t stop_after : {size_t{1}, size_t{2}, size_t{1000}}) {
        std::vector<size_t> got;
        const bool stopped = AnyOfFourBytes(s, set[0], set[1], set[2], set[3], [&](size_t i) {
          got.push_back(i);
          return got.size() == stop_after;
        });
        const std::vector<size_t> want = Naive(s, set, stop_after);
        ASSERT_EQ(got, want) << "len " << len << " text '" << s << "'";
        EXPECT_EQ(stopped, want.size() == stop_after);
      }
    }
  }
}

TEST(ByteSearch, HitOnlyInTheLastBytes) {
  // Each position of the tail after a full 16-byte step, and a line of 31
  // bytes whose last step overlaps the first by 15.
  for (size_t len : {17u, 20u, 31u, 32u, 33u, 47u}) {
    for (size_t at = 0; at < len; ++at) {
      std::string s(len, '.');
      s[at] = 'k';
      std::vector<size_t> got;
      AnyOfFourBytes(s, 'K', 'X', 'k', 'k', [&](size_t i) {
        got.push_back(i);
        return false;
      });
      EXPECT_EQ(got, std::vector<size_t>{at}) << "len " << len << " at " << at;
    }
  }
}

// AnyOfFourPairs against a look at every pair of neighbours: every hit, in
// order, at every length (short lines, the 16-byte steps, the overlapping
// last step) and wherever the caller stops.
TEST(ByteSearch, EveryPairInOrderAtEveryLength) {
  std::mt19937 rng(7);
  const BytePair pairs[4] = {{'g', 'a'}, {'G', 'A'}, {'n', 'r'}, {'n', 'r'}};
  const std::string alphabet = "gaGAnrx ";
  for (size_t len = 0; len <= 80; ++len) {
    for (int round = 0; round < 60; ++round) {
      std::string s(len, ' ');
      for (char& c : s) c = alphabet[rng() % alphabet.size()];
      for (size_t stop_after : {size_t{1}, size_t{2}, size_t{1000}}) {
        std::vector<size_t> want;
        for (size_t i = 0; i + 1 < s.size() && want.size() < stop_after; ++i) {
          for (const BytePair& p : pairs) {
            if (s[i] == p.first && s[i + 1] == p.second) {
              want.push_back(i);
              break;
            }
          }
        }
        std::vector<size_t> got;
        const bool stopped =
            AnyOfFourPairs(s, pairs[0], pairs[1], pairs[2], pairs[3], [&](size_t i) {
              got.push_back(i);
              return got.size() == stop_after;
            });
        ASSERT_EQ(got, want) << "len " << len << " text '" << s << "'";
        EXPECT_EQ(stopped, want.size() == stop_after);
      }
    }
  }
}

TEST(ByteSearch, PairOnlyInTheLastBytes) {
  for (size_t len : {2u, 16u, 17u, 18u, 31u, 32u, 33u, 34u, 47u}) {
    for (size_t at = 0; at + 1 < len; ++at) {
      std::string s(len, '.');
      s[at] = 'X';
      s[at + 1] = 'i';
      std::vector<size_t> got;
      AnyOfFourPairs(s, {'K', 'i'}, {'X', 'i'}, {'-', 'k'}, {'_', 'k'}, [&](size_t i) {
        got.push_back(i);
        return false;
      });
      EXPECT_EQ(got, std::vector<size_t>{at}) << "len " << len << " at " << at;
    }
  }
}

}  // namespace
}  // namespace casefile::scan
