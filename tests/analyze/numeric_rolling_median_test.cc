// RollingMedian against the median of a copy of the window, computed the
// plain way, at every point of long random series: repeated values, zeros
// of both signs, negative and huge values, and windows of odd and even size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <random>
#include <vector>

#include "analyze/analyzers/numeric/rolling_median.h"

namespace casefile::numeric {
namespace {

double PlainMedian(const std::deque<double>& window) {
  std::vector<double> v(window.begin(), window.end());
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  if (v.size() % 2) return v[mid];
  return (v[mid - 1] + v[mid]) / 2;
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

template <size_t N>
void CheckAgainstPlain(const std::vector<double>& values) {
  RollingMedian<N> rolling;
  std::deque<double> window;
  for (size_t i = 0; i < values.size(); ++i) {
    rolling.Push(values[i]);
    window.push_back(values[i]);
    if (window.size() > N) window.pop_front();
    ASSERT_EQ(rolling.size(), window.size()) << "at " << i;
    const double want = PlainMedian(window);
    const double got = rolling.Median();
    // Equal as numbers (which zero a plain sort puts in the middle is
    // arbitrary: -0.0 == 0.0), and bit for bit otherwise.
    ASSERT_TRUE(got == want && (got == 0 || SameBits(got, want)))
        << "N=" << N << " at " << i << ": " << got << " vs " << want;
  }
}

std::vector<double> Series(uint32_t seed, size_t n, int kind) {
  std::mt19937 rng(seed);
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) {
    switch (kind) {
      case 0:  // a loss curve with noise and spikes
        out.push_back(2.0 / (1 + 0.01 * static_cast<double>(i)) +
                      std::uniform_real_distribution<double>(0, 0.05)(rng) +
                      (rng() % 97 == 0 ? 50.0 : 0.0));
        break;
      case 1:  // few distinct values: many ties
        out.push_back(static_cast<double>(rng() % 4));
        break;
      case 2: {  // zeros of both signs among small integers
        const uint32_t r = rng() % 5;
        out.push_back(r == 0 ? -0.0 : r == 1 ? 0.0 : static_cast<double>(r) - 3);
        break;
      }
      default:  // wide magnitudes
        out.push_back(std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng),
                                 static_cast<int>(rng() % 200) - 100));
    }
  }
  return out;
}

TEST(RollingMedian, EqualsThePlainMedianAtEveryPoint) {
  for (int kind = 0; kind < 4; ++kind) {
    for (uint32_t seed = 1; seed <= 5; ++seed) {
      const std::vector<double> s = Series(seed * 7 + static_cast<uint32_t>(kind), 3000, kind);
      CheckAgainstPlain<1>(s);
      CheckAgainstPlain<2>(s);
      CheckAgainstPlain<5>(s);
      CheckAgainstPlain<20>(s);
      CheckAgainstPlain<21>(s);
    }
  }
}

TEST(RollingMedian, OldestValueLeavesFirst) {
  RollingMedian<3> m;
  m.Push(10);
  EXPECT_EQ(m.Median(), 10);
  m.Push(20);
  EXPECT_EQ(m.Median(), 15);
  m.Push(30);
  EXPECT_EQ(m.Median(), 20);
  m.Push(1);  // 10 leaves: {20, 30, 1}
  EXPECT_EQ(m.Median(), 20);
  m.Push(2);  // 20 leaves: {30, 1, 2}
  EXPECT_EQ(m.Median(), 2);
  m.Push(3);  // 30 leaves: {1, 2, 3}
  EXPECT_EQ(m.Median(), 2);
  EXPECT_EQ(m.size(), 3u);
}

TEST(RollingMedian, RemovesTheZeroOfTheLeavingSign) {
  // -0.0 == 0.0, so a removal by value alone could take the wrong one and
  // leave the median's sign different from the window's.
  RollingMedian<3> m;
  m.Push(-0.0);
  m.Push(0.0);
  m.Push(0.0);
  m.Push(5);  // -0.0 leaves: {0, 0, 5}
  EXPECT_FALSE(std::signbit(m.Median()));
  RollingMedian<3> n;
  n.Push(0.0);
  n.Push(-0.0);
  n.Push(-0.0);
  n.Push(5);  // 0.0 leaves: {-0, -0, 5}
  EXPECT_TRUE(std::signbit(n.Median()));
}

}  // namespace
}  // namespace casefile::numeric
