// The numeric rules on hand-made series and tables (no index): the spike
// baseline, the zero-loss inference, the scaler's minimum, the culprit frame
// and the growth between traced batches.
#include "analyze/analyzers/numeric/numeric_rules.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "parse/numeric/metric_forms.h"

namespace casefile::numeric {
namespace {

std::vector<SeriesPoint> Points(const std::vector<double>& values, int64_t first_line = 1) {
  std::vector<SeriesPoint> out;
  for (size_t i = 0; i < values.size(); ++i) {
    SeriesPoint p;
    p.line_no = first_line + static_cast<int64_t>(i);
    p.step = static_cast<int64_t>(i + 1);
    p.value = values[i];
    p.kind = std::isnan(values[i])   ? ValueKind::kNan
             : std::isinf(values[i]) ? ValueKind::kPosInf
                                     : ValueKind::kFinite;
    out.push_back(p);
  }
  return out;
}

MetricGroup Group(const std::string& form) {
  MetricGroup g;
  g.file_id = 4;
  g.form = form;
  g.who = Who{"host-1", 0};
  return g;
}

const double kNan = std::numeric_limits<double>::quiet_NaN();

TEST(NumericRules, SpikeNeedsABaselineAndThreeTimesItsMedian) {
  const MetricGroup g = Group("key_value");
  // Four values are not enough of a baseline.
  EXPECT_FALSE(AnalyzeCurve(g, kLoss, Points({1, 1, 1, 1, 10})).first_spike);
  // Exactly 3x the median is not above it; above is.
  EXPECT_FALSE(AnalyzeCurve(g, kLoss, Points({1, 1, 1, 1, 1, 3})).first_spike);
  const CurveFacts c = AnalyzeCurve(g, kLoss, Points({1, 1, 1, 1, 1, 3.01, 1, 5}));
  ASSERT_TRUE(c.first_spike);
  EXPECT_EQ(c.first_spike->line_no, 6);
  EXPECT_EQ(c.first_spike->baseline, 1.0);
  EXPECT_EQ(c.spike_count, 2u);
  ASSERT_TRUE(c.max_spike);
  EXPECT_EQ(c.max_spike->line_no, 8);
  // Grad norms are never spikes.
  EXPECT_FALSE(AnalyzeCurve(g, kGradNorm, Points({1, 1, 1, 1, 1, 30})).first_spike);
}

TEST(NumericRules, BaselineIsTheMedianOfTheLastTwenty) {
  std::vector<double> v(30, 10.0);
  for (int i = 0; i < 20; ++i) v.push_back(1.0);  // the level drops to 1
  v.push_back(3.5);                               // 3.5x the new median
  const CurveFacts c = AnalyzeCurve(Group("hf_dict"), kLoss, Points(v));
  ASSERT_TRUE(c.first_spike);
  EXPECT_EQ(c.first_spike->line_no, 51);
  EXPECT_EQ(c.first_spike->baseline, 1.0);
}

TEST(NumericRules, FirstNonFiniteAndTheValueBefore) {
  const CurveFacts c = AnalyzeCurve(Group("hf_dict"), kLoss, Points({2.0, 1.9, kNan, 1.8, kNan}));
  ASSERT_TRUE(c.first_bad);
  EXPECT_EQ(c.first_bad->line_no, 3);
  ASSERT_TRUE(c.last_finite);
  EXPECT_EQ(c.last_finite->value, 1.9);
  EXPECT_EQ(c.last_finite->step, 2);
  // A series that starts non-finite has no value before.
  EXPECT_FALSE(AnalyzeCurve(Group("hf_dict"), kLoss, Points({kNan})).last_finite);
}

TEST(NumericRules, AGradNormFiniteAgainIsASkippedStep) {
  const MetricGroup g = Group("hf_dict");
  const double inf = std::numeric_limits<double>::infinity();
  // fp16 warm-up: the scaler skips the overflowing steps and goes on.
  EXPECT_FALSE(AnalyzeCurve(g, kGradNorm, Points({inf, kNan, inf, 4.1, 3.8, 3.5})).first_bad);
  EXPECT_FALSE(AnalyzeCurve(g, kGradNorm, Points({3.9, 3.7, inf, 3.6})).first_bad);
  // Non-finite to the end of the series: from the first of that run.
  const CurveFacts c = AnalyzeCurve(g, kGradNorm, Points({inf, 3.9, 3.7, kNan, 3.6, kNan, kNan}));
  ASSERT_TRUE(c.first_bad);
  EXPECT_EQ(c.first_bad->line_no, 6);
  ASSERT_TRUE(c.last_finite);
  EXPECT_EQ(c.last_finite->value, 3.6);
  EXPECT_TRUE(AnalyzeCurve(g, kGradNorm, Points({kNan, kNan})).first_bad);
  // A last point is enough (a coarse log may hold one point of the end).
  EXPECT_TRUE(AnalyzeCurve(g, kGradNorm, Points({3.9, 3.7, 3.6, inf})).first_bad);
  // The loss itself is never excused.
  EXPECT_TRUE(AnalyzeCurve(g, kLoss, Points({2.0, kNan, 1.9})).first_bad);
  // An eval loss printed as nan until the first evaluation, then finite: no
  // divergence; nan from some evaluation to the end is one.
  EXPECT_FALSE(AnalyzeCurve(g, kEvalLoss, Points({kNan, kNan, 3.1, 2.9})).first_bad);
  EXPECT_TRUE(AnalyzeCurve(g, kEvalLoss, Points({kNan, 3.1, 2.9, kNan})).first_bad);
}

TEST(NumericRules, ZeroLossAfterNormalValues) {
  const MetricGroup g = Group("hf_dict");
  const CurveFacts stuck = AnalyzeCurve(g, kLoss, Points({1.5, 1.4, 1.3, 0.0, 0.0}));
  ASSERT_TRUE(stuck.first_zero);
  EXPECT_EQ(stuck.first_zero->line_no, 4);
  EXPECT_EQ(stuck.value_before_zero, 1.3);
  // Recovering at once is no stuck loss; three zeros in a row are.
  EXPECT_FALSE(AnalyzeCurve(g, kLoss, Points({1.5, 1.4, 1.3, 0.0, 1.2})).first_zero);
  EXPECT_TRUE(AnalyzeCurve(g, kLoss, Points({1.5, 1.4, 1.3, 0.0, 0.0, 0.0, 1.2})).first_zero);
  // Too few values before, or a loss already near zero: not inferred.
  EXPECT_FALSE(AnalyzeCurve(g, kLoss, Points({1.5, 1.4, 0.0, 0.0})).first_zero);
  EXPECT_FALSE(AnalyzeCurve(g, kLoss, Points({1.5, 0.3, 0.04, 0.0, 0.0})).first_zero);
}

MetricGroup Overflows(const std::vector<std::pair<double, double>>& scales) {
  MetricGroup g = Group("deepspeed_overflow");
  std::vector<double> skip, attempted, reduced;
  for (const auto& [a, r] : scales) {
    skip.push_back(1);
    attempted.push_back(a);
    reduced.push_back(r);
  }
  g.series = {{kOverflowSkip, Points(skip, 10)},
              {kScaleAttempted, Points(attempted, 10)},
              {kScaleReducedTo, Points(reduced, 10)}};
  return g;
}

TEST(NumericRules, ScaleCollapseAtTheConfiguredMinimum) {
  const ScaleFacts calibrating = AnalyzeScale(Overflows({{65536, 32768}, {32768, 16384}}), 1);
  EXPECT_FALSE(calibrating.collapsed);
  EXPECT_EQ(calibrating.overflows, 2u);

  const ScaleFacts two = AnalyzeScale(Overflows({{2, 1}, {1, 1}, {1, 1}}), 1);
  EXPECT_FALSE(two.collapsed);
  EXPECT_EQ(two.at_minimum, 2u);

  const ScaleFacts three = AnalyzeScale(Overflows({{2, 1}, {1, 1}, {1, 1}, {1, 1}}), 1);
  EXPECT_TRUE(three.collapsed);
  EXPECT_EQ(three.first_at_minimum, 11);
  EXPECT_TRUE(three.rank_named);

  // A configured minimum of 16 is reached earlier.
  EXPECT_TRUE(AnalyzeScale(Overflows({{16, 16}, {16, 16}, {16, 16}}), 16).collapsed);
  // A scale of zero collapses at once.
  const ScaleFacts zero = AnalyzeScale(Overflows({{0, 0}}), 1);
  EXPECT_TRUE(zero.collapsed);
  EXPECT_EQ(zero.first_zero, 10);
}

TEST(NumericRules, ApexScalerWithoutFloor) {
  MetricGroup g = Group("apex_overflow");
  g.series = {{kOverflowSkip, Points({1}, 20)}, {kScaleReducedTo, Points({0.0001220703125}, 20)}};
  const ScaleFacts f = AnalyzeScale(g, 1);
  EXPECT_TRUE(f.collapsed);
  EXPECT_EQ(f.first_zero, 20);
  EXPECT_FALSE(f.rank_named);
}

TEST(NumericRules, IterationScaleMustFallToTheMinimum) {
  MetricGroup bf16 = Group("megatron_iteration");
  bf16.series = {{kLossScale, Points({1, 1, 1, 1, 1})},
                 {kSkippedIterations, Points({0, 0, 0, 0, 3})}};
  EXPECT_FALSE(AnalyzeScale(bf16, 1).collapsed);  // never above the minimum

  MetricGroup fp16 = Group("megatron_iteration");
  fp16.series = {{kLossScale, Points({1024, 8, 1, 1, 1, 1})},
                 {kSkippedIterations, Points({0, 7, 10, 0, 10, 10})}};
  const ScaleFacts f = AnalyzeScale(fp16, 1);
  EXPECT_TRUE(f.collapsed);
  EXPECT_EQ(f.first_at_minimum, 3);
  EXPECT_EQ(f.iterations_after_minimum, 4u);
  EXPECT_EQ(f.at_minimum, 3u);
}

FrameRowData Row(int64_t line, int64_t frame, const std::string& path, const std::string& role,
                 const std::string& max_text, const std::string& min_text = "0.00e+00") {
  FrameRowData r;
  r.line_no = line;
  r.frame_index = frame;
  r.module_line_no = 100 + frame;
  r.module_path = path;
  r.module_class = "Linear";
  r.role = role;
  r.min_text = min_text;
  r.max_text = max_text;
  return r;
}

TEST(NumericRules, CulpritIsTheFirstFrameWithANonFiniteOutput) {
  FrameTable t;
  t.kind = "overflow";
  t.rows = {
      Row(1, 0, "a", "weight", "3.00e+00"),   Row(2, 0, "a", "input[0]", "inf"),
      Row(3, 0, "a", "output", "5.00e+04"),   Row(4, 1, "b", "weight", "2.00e+00"),
      Row(5, 1, "b", "input[0]", "6.10e+04"), Row(6, 1, "b", "output[0]", "nan", "nan"),
      Row(7, 2, "c", "output", "inf"),
  };
  const OverflowFacts f = AnalyzeTable(t);
  ASSERT_TRUE(f.found);
  EXPECT_TRUE(f.in_output);
  EXPECT_EQ(f.module_path, "b");
  EXPECT_EQ(f.module_line, 101);
  EXPECT_EQ(f.value_text, "nan");
  EXPECT_EQ(f.frames, 3u);
  // Before it: frame a's rows and b's own inputs; the inf input is not finite.
  ASSERT_TRUE(f.largest_finite);
  EXPECT_EQ(*f.largest_finite, 61000.0);
  EXPECT_EQ(f.largest_where, "b input[0]");
}

TEST(NumericRules, NoNonFiniteOutputFallsBackToTheFirstNonFiniteValue) {
  FrameTable t;
  t.rows = {Row(1, 0, "a", "output", "1.00e+00"), Row(2, 1, "b", "weight", "nan", "nan"),
            Row(3, 1, "b", "output", "2.00e+00")};
  const OverflowFacts f = AnalyzeTable(t);
  ASSERT_TRUE(f.found);
  EXPECT_FALSE(f.in_output);
  EXPECT_EQ(f.role, "weight");
  FrameTable clean;
  clean.rows = {Row(1, 0, "a", "output", "1.00e+00")};
  EXPECT_FALSE(AnalyzeTable(clean).found);
}

TEST(NumericRules, FastestGrowthBetweenTracedBatches) {
  FrameTable b1, b3;
  b1.kind = b3.kind = "trace";
  b1.batch = 1;
  b3.batch = 3;
  b1.rows = {Row(1, 0, "enc.wo", "output", "2.00e+03"), Row(2, 1, "enc.ln", "output", "4.00e+00")};
  b3.rows = {Row(9, 0, "enc.wo", "output", "6.20e+03"), Row(10, 1, "enc.ln", "output", "5.00e+00")};
  const std::optional<Growth> g = FastestGrowth({&b1, &b3});
  ASSERT_TRUE(g);
  EXPECT_EQ(g->module_path, "enc.wo");
  EXPECT_EQ(g->batch_from, 1);
  EXPECT_EQ(g->batch_to, 3);
  EXPECT_EQ(g->from, 2000.0);
  EXPECT_EQ(g->to, 6200.0);
  EXPECT_FALSE(FastestGrowth({&b1}));
}

}  // namespace
}  // namespace casefile::numeric
