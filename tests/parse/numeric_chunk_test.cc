// metric_chunks.points: the JSON the `metrics` view decodes, written and
// read back, and the chunk summary columns.
#include <gtest/gtest.h>

#include <vector>

#include "parse/numeric/metric_chunk.h"

namespace casefile::numeric {
namespace {

MetricValue Value(std::string_view text) {
  MetricValue v;
  EXPECT_TRUE(ParseMetricValue(text, &v)) << text;
  return v;
}

TEST(MetricChunk, EncodesAsJsonAndSummarises) {
  MetricChunkBuilder b;
  EXPECT_TRUE(b.empty());
  b.Add(100, 7, Value("2.5000"));
  b.Add(104, std::nullopt, Value("NaN"));
  b.Add(111, 9, Value("-Infinity"));
  b.Add(120, 10, Value("1e-05"));
  MetricChunkRow row;
  b.TakeInto(&row);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(row.points, "[[0,7,\"2.5000\"],[4,null,\"nan\"],[7,2,\"-inf\"],[9,1,\"1e-05\"]]");
  EXPECT_EQ(row.first_line, 100);
  EXPECT_EQ(row.last_line, 120);
  EXPECT_EQ(row.point_count, 4);
  EXPECT_EQ(row.nonfinite_count, 2);
  EXPECT_EQ(row.min_value, 1e-05);
  EXPECT_EQ(row.max_value, 2.5);

  std::vector<MetricPoint> back;
  ASSERT_TRUE(DecodeMetricPoints(row.points, row.first_line,
                                 [&](const MetricPoint& p) { back.push_back(p); }));
  ASSERT_EQ(back.size(), 4u);
  EXPECT_EQ(back[0].line_no, 100);
  EXPECT_EQ(back[0].step, 7);
  EXPECT_EQ(back[0].value.value, 2.5);
  EXPECT_EQ(back[1].line_no, 104);
  EXPECT_FALSE(back[1].step);
  EXPECT_EQ(back[1].value.kind, ValueKind::kNan);
  EXPECT_EQ(back[2].value.kind, ValueKind::kNegInf);
  EXPECT_EQ(back[2].line_no, 111);
  EXPECT_EQ(back[2].step, 9);
  EXPECT_EQ(back[3].line_no, 120);
  EXPECT_EQ(back[3].step, 10);
}

TEST(MetricChunk, NextChunkStartsAfresh) {
  MetricChunkBuilder b;
  b.Add(5, 1, Value("1"));
  MetricChunkRow first;
  b.TakeInto(&first);
  b.Add(9, 2, Value("3"));
  MetricChunkRow second;
  b.TakeInto(&second);
  EXPECT_EQ(second.points, "[[0,2,\"3\"]]");
  EXPECT_EQ(second.first_line, 9);
  EXPECT_EQ(second.min_value, 3.0);
  EXPECT_FALSE(first.min_value == second.min_value);
}

TEST(MetricChunk, FullAtThePointLimit) {
  MetricChunkBuilder b;
  for (size_t i = 0; i + 1 < kMaxChunkPoints; ++i) b.Add(static_cast<int64_t>(i), 1, Value("1"));
  EXPECT_FALSE(b.full());
  b.Add(static_cast<int64_t>(kMaxChunkPoints), 1, Value("1"));
  EXPECT_TRUE(b.full());
}

TEST(MetricChunk, DecodeStopsAtDamage) {
  std::vector<int64_t> lines;
  auto cb = [&](const MetricPoint& p) { lines.push_back(p.line_no); };
  EXPECT_TRUE(DecodeMetricPoints("[]", 1, cb));
  EXPECT_FALSE(DecodeMetricPoints("[[0,1,\"2\"],[1,x,\"3\"]]", 10, cb));
  EXPECT_EQ(lines, std::vector<int64_t>{10});
  // Steps may go back (a restart from a checkpoint): negative deltas.
  std::vector<int64_t> steps;
  EXPECT_TRUE(DecodeMetricPoints("[[0,500,\"1\"],[3,-200,\"2\"]]", 1,
                                 [&](const MetricPoint& p) { steps.push_back(*p.step); }));
  EXPECT_EQ(steps, (std::vector<int64_t>{500, 300}));
  EXPECT_FALSE(DecodeMetricPoints("[[0,1,\"two\"]]", 1, cb));
  EXPECT_FALSE(DecodeMetricPoints("[[0,1,\"2\"]", 1, cb));
  EXPECT_FALSE(DecodeMetricPoints("", 1, cb));
}

}  // namespace
}  // namespace casefile::numeric
