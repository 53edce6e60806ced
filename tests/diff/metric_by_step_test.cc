// MetricByStep, the diff's step -> values table: steps ascending whatever
// order the series reach them in, each step's values in the order added,
// and lookups of present and absent steps.
#include <gtest/gtest.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "diff/metric_series.h"

namespace casefile::diff {
namespace {

LoggedValue V(int64_t line, double value) {
  LoggedValue v;
  v.file_id = 1;
  v.line_no = line;
  v.value = value;
  return v;
}

// (step, [line_no of each value]) in iteration order.
std::vector<std::pair<int64_t, std::vector<int64_t>>> Layout(const MetricByStep& m) {
  std::vector<std::pair<int64_t, std::vector<int64_t>>> out;
  for (const auto& [step, values] : m) {
    std::vector<int64_t> lines;
    for (const LoggedValue& v : values.values) lines.push_back(v.line_no);
    out.emplace_back(step, lines);
  }
  return out;
}

TEST(MetricByStep, SeriesAfterSeries) {
  MetricByStep m;
  // Series 1 logs 5..7; series 2 starts earlier, skips 7 and goes further;
  // series 3 restarts at 1 and logs step 2 twice.
  for (int64_t s : {5, 6, 7}) m.Add(s, V(100 + s, 1));
  for (int64_t s : {1, 2, 5, 6, 8}) m.Add(s, V(200 + s, 2));
  for (int64_t s : {1, 2, 2, 3}) m.Add(s, V(300 + s, 3));
  m.Finish();
  using L = std::vector<int64_t>;
  EXPECT_EQ(Layout(m), (std::vector<std::pair<int64_t, L>>{{1, L{201, 301}},
                                                           {2, L{202, 302, 302}},
                                                           {3, L{303}},
                                                           {5, L{105, 205}},
                                                           {6, L{106, 206}},
                                                           {7, L{107}},
                                                           {8, L{208}}}));
  EXPECT_EQ(m.size(), 7u);
  EXPECT_EQ(m.rbegin()->first, 8);
  ASSERT_NE(m.find(6), m.end());
  EXPECT_EQ(m.find(6)->second.values.size(), 2u);
  EXPECT_EQ(m.find(4), m.end());
  EXPECT_EQ(m.find(0), m.end());
  EXPECT_EQ(m.find(9), m.end());
  EXPECT_EQ(m.at(3).values.front().line_no, 303);
  EXPECT_THROW(m.at(4), std::out_of_range);
}

TEST(MetricByStep, ManySeriesOverOneRange) {
  // The usual shape: every rank logs the same steps.
  MetricByStep m;
  for (int rank = 0; rank < 64; ++rank) {
    for (int64_t s = 10; s < 1010; ++s) m.Add(s, V(rank * 10000 + s, rank));
  }
  m.Finish();
  ASSERT_EQ(m.size(), 1000u);
  int64_t want = 10;
  for (const auto& [step, values] : m) {
    EXPECT_EQ(step, want++);
    ASSERT_EQ(values.values.size(), 64u);
    for (int rank = 0; rank < 64; ++rank) EXPECT_EQ(values.values[rank].value, rank);
  }
  EXPECT_TRUE(MetricByStep().empty());
}

}  // namespace
}  // namespace casefile::diff
