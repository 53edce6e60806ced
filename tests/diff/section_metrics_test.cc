// The metrics section of the diff on hand-built indexes: loss series as
// metric_chunks rows and step times as dist_events rows, with the log lines
// they were read from (key=value training lines, written here).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "diff/sections.h"
#include "sections_b_index.h"

namespace casefile {
namespace {

using diff::DiffItem;
using test::SideIndex;

double Loss(int64_t step) { return 2.0 + 8.0 / (1.0 + static_cast<double>(step) / 20.0); }
double Steady(int64_t step) { return step <= 2 ? 30.0 : 1.20; }  // compile first

std::string Num(double v, const char* fmt = "%.4f") {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

struct RunSpec {
  int64_t steps = 100;
  std::function<double(int64_t)> loss = Loss;
  std::function<double(int64_t)> seconds = Steady;
  std::string host = "gpu-node-00";
  bool log_loss = true;
  bool log_steps = true;  // false: HF dict lines without a step
};

// One log of a run: a banner line, then one line per step (line = step + 1)
// carrying the loss and the step time. Returns the file id.
int64_t WriteRun(SideIndex& idx, const RunSpec& run) {
  std::vector<std::string> lines = {"[2026-03-01 10:00:00] INFO starting training on " + run.host};
  std::vector<std::tuple<int64_t, std::optional<int64_t>, std::string>> points;
  for (int64_t s = 1; s <= run.steps; ++s) {
    const std::string loss = Num(run.loss(s));
    if (run.log_steps) {
      lines.push_back("[rank0]: step " + std::to_string(s) + " | loss=" + loss +
                      " | step_time=" + Num(run.seconds(s), "%.3f") + "s");
    } else {
      lines.push_back("{'loss': " + loss +
                      ", 'grad_norm': 0.87, 'learning_rate': 1e-05, 'epoch': " +
                      Num(static_cast<double>(s) / 100, "%.2f") + "}");
    }
    points.emplace_back(s + 1, run.log_steps ? std::optional<int64_t>(s) : std::nullopt, loss);
  }
  const int64_t id = idx.File("logs/" + run.host + "/train.log", "log", run.host, lines);
  if (run.log_loss)
    idx.Chunk(id, "loss", points, std::nullopt, std::nullopt,
              run.log_steps ? "key_value" : "hf_dict");
  if (run.log_steps) {
    for (int64_t s = 1; s <= run.steps; ++s) idx.StepTime(id, s + 1, s, run.seconds(s));
  }
  return id;
}

std::vector<DiffItem> Diff(SideIndex& good, SideIndex& bad) {
  return diff::DiffMetrics(good.Open("good"), bad.Open("bad"));
}

TEST(DiffMetrics, SameRunAtDifferentLengthsIsQuiet) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g;
  g.steps = 400;
  RunSpec b;
  b.steps = 150;  // stopped earlier: not a difference
  WriteRun(good, g);
  WriteRun(bad, b);
  const auto items = Diff(good, bad);
  EXPECT_LT(test::MaxScore(items), 50);
  EXPECT_EQ(test::ItemOf(items, "diverged", "loss"), nullptr);
  const DiffItem* st = test::ItemOf(items, "unchanged", "step_time");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(*st->good, "1.2 s");
  EXPECT_EQ(*st->bad, "1.2 s");
  // Compared up to the shorter run's last step.
  EXPECT_EQ(std::get<int64_t>(*test::FieldOf(*st, "last_compared_step")), 150);
}

TEST(DiffMetrics, RunToRunNoiseIsNotADivergence) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g, b;
  // +-5% alternating noise and a 3% slower step: within tolerance.
  b.loss = [](int64_t s) { return Loss(s) * (s % 2 ? 1.05 : 0.95); };
  b.seconds = [](int64_t s) { return Steady(s) * 1.03; };
  WriteRun(good, g);
  WriteRun(bad, b);
  const auto items = Diff(good, bad);
  EXPECT_LT(test::MaxScore(items), 50);
}

TEST(DiffMetrics, SustainedDivergenceNamesTheFirstStepWithEvidence) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g, b;
  b.loss = [](int64_t s) { return s < 60 ? Loss(s) : Loss(s) * 1.5 + 0.1 * (s - 60); };
  WriteRun(good, g);
  WriteRun(bad, b);
  const auto items = Diff(good, bad);
  const DiffItem* d = test::ItemOf(items, "diverged", "loss");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->score, 75);
  EXPECT_EQ(std::get<int64_t>(*test::FieldOf(*d, "first_divergence_step")), 60);
  // Loss(60) = 2 + 8/4 = 4.0; bad 6.0.
  EXPECT_EQ(*d->good, "4 at step 60");
  EXPECT_EQ(*d->bad, "6 at step 60");
  ASSERT_EQ(d->good_evidence.size(), 1u);
  ASSERT_EQ(d->bad_evidence.size(), 1u);
  EXPECT_EQ(d->good_evidence[0].bundle, "good-bundle");
  EXPECT_EQ(d->good_evidence[0].path, "logs/gpu-node-00/train.log");
  EXPECT_EQ(d->good_evidence[0].line, 61);
  EXPECT_EQ(d->good_evidence[0].text, "[rank0]: step 60 | loss=4.0000 | step_time=1.200s");
  EXPECT_EQ(d->bad_evidence[0].line, 61);
  EXPECT_EQ(d->bad_evidence[0].text, "[rank0]: step 60 | loss=6.0000 | step_time=1.200s");
  EXPECT_EQ(d->summary.rfind("loss diverges from step 60: 4 in good vs 6 in bad", 0), 0u)
      << d->summary;
}

TEST(DiffMetrics, ASpikeThatRecoversIsNotADivergence) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g, b;
  // Two steps far off, then back: under the 3 sustained steps.
  b.loss = [](int64_t s) { return s == 40 || s == 41 ? Loss(s) * 3 : Loss(s); };
  WriteRun(good, g);
  WriteRun(bad, b);
  EXPECT_EQ(test::ItemOf(Diff(good, bad), "diverged", "loss"), nullptr);
}

TEST(DiffMetrics, DivergenceUpToTheLastMatchedStepCounts) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g, b;
  b.steps = 50;  // blew up in its last two steps and stopped
  b.loss = [](int64_t s) { return s >= 49 ? 40.0 : Loss(s); };
  WriteRun(good, g);
  WriteRun(bad, b);
  const auto items = Diff(good, bad);
  const DiffItem* d = test::ItemOf(items, "diverged", "loss");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(std::get<int64_t>(*test::FieldOf(*d, "first_divergence_step")), 49);
  EXPECT_EQ(std::get<int64_t>(*test::FieldOf(*d, "sustained_steps")), 2);
}

TEST(DiffMetrics, LowerLossIsReportedLow) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g, b;
  b.loss = [](int64_t s) { return Loss(s) * 0.7; };
  WriteRun(good, g);
  WriteRun(bad, b);
  const auto items = Diff(good, bad);
  const DiffItem* d = test::ItemOf(items, "improved", "loss");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->score, 20);
  EXPECT_EQ(test::ItemOf(items, "diverged", "loss"), nullptr);
}

TEST(DiffMetrics, NanOnlyInBad) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g, b;
  b.steps = 80;
  b.loss = [](int64_t s) { return s >= 70 ? NAN : Loss(s); };
  WriteRun(good, g);
  WriteRun(bad, b);
  const auto items = Diff(good, bad);
  const DiffItem* n = test::ItemOf(items, "nonfinite", "loss");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->score, 90);
  EXPECT_EQ(*n->bad, "nan at step 70");
  EXPECT_EQ(*n->good, "3.778 at step 70");  // 2 + 8 / 4.5
  EXPECT_EQ(
      n->summary,
      "loss becomes nan at step 70 in bad (11 non-finite values); good has none up to step 100");
  EXPECT_EQ(std::get<int64_t>(*test::FieldOf(*n, "bad_nonfinite_points")), 11);
  ASSERT_EQ(n->bad_evidence.size(), 1u);
  EXPECT_EQ(n->bad_evidence[0].line, 71);
  EXPECT_EQ(n->bad_evidence[0].text, "[rank0]: step 70 | loss=nan | step_time=1.200s");
  ASSERT_EQ(n->good_evidence.size(), 1u);
  EXPECT_EQ(n->good_evidence[0].line, 71);
  // The divergence is only the nan: no second item for it.
  EXPECT_EQ(test::ItemOf(items, "diverged", "loss"), nullptr);
  EXPECT_EQ(items.front().kind, "nonfinite");
}

TEST(DiffMetrics, NanInBadWhenGoodLoggedNoLossIsNotCompared) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g, b;
  g.log_loss = false;
  b.loss = [](int64_t s) { return s >= 70 ? NAN : Loss(s); };
  WriteRun(good, g);
  WriteRun(bad, b);
  EXPECT_EQ(test::ItemOf(Diff(good, bad), "nonfinite", "loss"), nullptr);
}

TEST(DiffMetrics, NanOnBothSidesIsNotADifference) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g, b;
  g.loss = b.loss = [](int64_t s) { return s == 30 ? INFINITY : Loss(s); };
  WriteRun(good, g);
  WriteRun(bad, b);
  EXPECT_EQ(test::ItemOf(Diff(good, bad), "nonfinite", "loss"), nullptr);
}

TEST(DiffMetrics, StepsAreAggregatedOverRanksByTheMedian) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g;
  WriteRun(good, g);
  // Bad: three ranks log loss; one is off by 2x everywhere, the median of
  // the three is the good curve: no divergence.
  for (int r = 0; r < 3; ++r) {
    RunSpec b;
    b.host = "gpu-node-0" + std::to_string(r);
    b.loss = [r](int64_t s) { return r == 2 ? Loss(s) * 2 : Loss(s); };
    WriteRun(bad, b);
  }
  EXPECT_EQ(test::ItemOf(Diff(good, bad), "diverged", "loss"), nullptr);
}

TEST(DiffMetrics, SeriesWithoutStepsMatchByOrder) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g, b;
  g.log_steps = b.log_steps = false;
  b.steps = 60;
  b.loss = [](int64_t s) { return s >= 30 ? Loss(s) + 3 : Loss(s); };
  WriteRun(good, g);
  WriteRun(bad, b);
  const auto items = Diff(good, bad);
  const DiffItem* d = test::ItemOf(items, "diverged", "loss");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(std::get<int64_t>(*test::FieldOf(*d, "first_divergence_step")), 30);
  EXPECT_EQ(d->bad_evidence[0].line, 31);
  EXPECT_EQ(d->bad_evidence[0].text.rfind("{'loss': ", 0), 0u);
}

TEST(DiffMetrics, SlowerStepTimeIgnoresWarmup) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g, b;
  // Bad compiles faster (warm-up ignored) but runs 1.5x slower after.
  b.seconds = [](int64_t s) { return s <= 2 ? 5.0 : 1.80; };
  WriteRun(good, g);
  WriteRun(bad, b);
  const auto items = Diff(good, bad);
  const DiffItem* st = test::ItemOf(items, "slower", "step_time");
  ASSERT_NE(st, nullptr);
  // 65 + 25 * (1.5 - 1.2) = 72.5
  EXPECT_NEAR(st->score, 72.5, 1e-9);
  EXPECT_EQ(*st->good, "1.2 s");
  EXPECT_EQ(*st->bad, "1.8 s");
  EXPECT_NEAR(std::get<double>(*test::FieldOf(*st, "median_ratio")), 1.5, 1e-9);
  ASSERT_EQ(st->bad_evidence.size(), 1u);
  EXPECT_NE(st->bad_evidence[0].text.find("step_time=1.800s"), std::string::npos);
  EXPECT_EQ(st->summary, "median step time 1.2 s -> 1.8 s (1.50x slower)");
  // 10% warm-up of 100 steps: steps 11..100 compared.
  EXPECT_EQ(std::get<int64_t>(*test::FieldOf(*st, "good_steps")), 90);
}

TEST(DiffMetrics, MuchSlowerScoresHigherButCapped) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g, b;
  b.seconds = [](int64_t) { return 6.0; };
  WriteRun(good, g);
  WriteRun(bad, b);
  const auto items = Diff(good, bad);
  const DiffItem* st = test::ItemOf(items, "slower", "step_time");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->score, 85);
}

TEST(DiffMetrics, SlowTailOnlyIsP90) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g, b;
  // One step in four takes 2 s: median unchanged, p90 1.2 -> 2.0.
  b.seconds = [](int64_t s) { return s <= 2 ? 30.0 : (s % 4 == 0 ? 2.0 : 1.2); };
  WriteRun(good, g);
  WriteRun(bad, b);
  const auto items = Diff(good, bad);
  const DiffItem* st = test::ItemOf(items, "slower_p90", "step_time");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->score, 55);
}

TEST(DiffMetrics, FasterIsLow) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  RunSpec g, b;
  b.seconds = [](int64_t s) { return s <= 2 ? 30.0 : 0.8; };
  WriteRun(good, g);
  WriteRun(bad, b);
  const auto items = Diff(good, bad);
  const DiffItem* st = test::ItemOf(items, "faster", "step_time");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->score, 20);
}

TEST(DiffMetrics, StragglerHostOfBadIsNamed) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  for (int h = 0; h < 4; ++h) {
    RunSpec g, b;
    g.host = b.host = "gpu-node-0" + std::to_string(h);
    g.log_loss = b.log_loss = h == 0;
    // Host 2 of bad takes 2.4 s a step; the others 1.2 s.
    if (h == 2) b.seconds = [](int64_t s) { return s <= 2 ? 30.0 : 2.4; };
    WriteRun(good, g);
    WriteRun(bad, b);
  }
  const auto items = Diff(good, bad);
  const DiffItem* st = test::ItemOf(items, "slower", "step_time");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(std::get<std::string>(*test::FieldOf(*st, "slowest_host")), "gpu-node-02");
  EXPECT_NEAR(std::get<double>(*test::FieldOf(*st, "slowest_host_median_s")), 2.4, 1e-9);
  EXPECT_NEAR(std::get<double>(*test::FieldOf(*st, "other_hosts_median_s")), 1.2, 1e-9);
  EXPECT_NEAR(std::get<double>(*test::FieldOf(*st, "slowest_host_good_median_s")), 1.2, 1e-9);
  // The step lasts as long as its slowest host: 2x, score capped at 85.
  EXPECT_EQ(st->score, 85);
  EXPECT_EQ(st->bad_evidence[0].path, "logs/gpu-node-02/train.log");
  EXPECT_NE(st->summary.find("slowest host gpu-node-02 at 2.4 s vs 1.2 s for the other 3 hosts"),
            std::string::npos)
      << st->summary;
}

TEST(DiffMetrics, EvaluationBarIsLeftOut) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  for (SideIndex* idx : {&good, &bad}) {
    std::vector<std::string> lines;
    for (int s = 1; s <= 100; ++s) {
      lines.push_back(" " + std::to_string(s) + "%|| " + std::to_string(s) +
                      "/1000 [00:10<02:00,  1.20s/it]");
    }
    // An evaluation bar, only in bad, restarting at 1 with slow steps.
    if (idx == &bad) {
      for (int s = 1; s <= 20; ++s) {
        lines.push_back(" " + std::to_string(s * 5) + "%|| " + std::to_string(s) +
                        "/20 [00:10<00:10,  4.00s/it]");
      }
    }
    const int64_t id = idx->File("train.log", "log", "gpu-node-00", lines);
    for (int s = 1; s <= 100; ++s) idx->StepTime(id, s, s, 1.2, std::nullopt, "tqdm total=1000");
    if (idx == &bad) {
      for (int s = 1; s <= 20; ++s)
        idx->StepTime(id, 100 + s, s, 4.0, std::nullopt, "tqdm total=20");
    }
  }
  const auto items = Diff(good, bad);
  EXPECT_LT(test::MaxScore(items), 50);
  EXPECT_NE(test::ItemOf(items, "unchanged", "step_time"), nullptr);
}

TEST(DiffMetrics, ThroughputDrop) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  for (SideIndex* idx : {&good, &bad}) {
    const double rate = idx == &good ? 250.0 : 200.0;
    std::vector<std::string> lines;
    std::vector<std::tuple<int64_t, std::optional<int64_t>, std::string>> points;
    for (int s = 1; s <= 50; ++s) {
      lines.push_back("step " + std::to_string(s) + " samples_per_second=" + Num(rate, "%.1f"));
      points.emplace_back(s, s, Num(rate, "%.1f"));
    }
    const int64_t id = idx->File("train.log", "log", "gpu-node-00", lines);
    idx->Chunk(id, "samples_per_second", points);
  }
  const auto items = Diff(good, bad);
  const DiffItem* t = test::ItemOf(items, "throughput_lower", "samples_per_second");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->score, 60);
  EXPECT_NEAR(std::get<double>(*test::FieldOf(*t, "ratio")), 0.8, 1e-9);
}

TEST(DiffMetrics, LogOnlyOrEmptySidesGiveNothing) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  good.File("train.log", "log", "gpu-node-00", {"hello", "world"});
  RunSpec b;
  WriteRun(bad, b);  // only one side has metrics: nothing to compare
  EXPECT_TRUE(Diff(good, bad).empty());
}

}  // namespace
}  // namespace casefile
