// hang.straggler from step times (docs/FINDINGS.md, section hang, rule R5):
// a series consistently slower than its peers fires; shared slow steps,
// isolated spikes and too little data do not.
#include <gtest/gtest.h>

#include "analyze/analyzers/hang/step_stragglers.h"
#include "analyze/hang_dist_fixture.h"

namespace casefile::hang {
namespace {

using test::Cites;
using test::Codes;
using test::DistBundle;
using test::RankAt;

constexpr int kSteps = 40;

// A small deterministic wobble (+-0.03 s) so that no two series are equal.
double Wobble(int series, int step) {
  return 0.01 * static_cast<double>((series * 7 + step * 3) % 7 - 3);
}

// `n` hosts, one rank each (rank i on host node-i), one log each; step s of
// series i is logged at line 100 + s.
DistBundle Steps(int n, const std::function<double(int, int)>& seconds) {
  DistBundle b;
  for (int i = 0; i < n; ++i) {
    const std::string host = "node-" + std::to_string(i);
    const int64_t f = b.File(host + "/train.log", host, i);
    StepSeries s;
    s.host = host;
    s.rank = i;
    for (int step = 1; step <= kSteps; ++step) {
      s.points.push_back({step, seconds(i, step), f, 100 + step});
    }
    b.in.steps.push_back(std::move(s));
  }
  return b;
}

TEST(StepStraggler, ConsistentlySlowHostIsAWarningWithItsSlowdown) {
  DistBundle b =
      Steps(16, [](int i, int step) { return (i == 7 ? 1.91 : 1.20) + Wobble(i, step); });
  const auto fs = b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.straggler"});
  const Finding& f = fs[0];
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.culprits, (std::vector<Culprit>{RankAt(7, "node-7")}));
  EXPECT_NE(f.summary.find("host node-7 (rank 7) median step 1.91 s vs 1.20 s for its 15 peers "
                           "(1.6x slower)"),
            std::string::npos)
      << f.summary;
  // Its last step line, and the same step of a peer.
  EXPECT_TRUE(Cites(f, "node-7/train.log", 100 + kSteps));
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_NE(f.evidence[0].path, f.evidence[1].path);
  EXPECT_EQ(f.evidence[0].line, f.evidence[1].line);
}

TEST(StepStraggler, BesideAHangItIsAnErrorThatExplainsIt) {
  DistBundle b = Steps(8, [](int i, int step) { return (i == 2 ? 3.0 : 1.0) + Wobble(i, step); });
  const int64_t log = b.in.files[0].id;
  for (int r : {0, 1, 3, 4, 5, 6, 7}) b.Timeout(log, 500 + r, r, 90);
  const auto fs = b.Run();
  const Finding* st = test::FindingOf(fs, "hang.straggler");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->severity, Severity::kError);
  EXPECT_NE(st->summary.find("this straggler explains it"), std::string::npos) << st->summary;
  EXPECT_NE(test::FindingOf(fs, "hang.collective_timeout"), nullptr);
}

TEST(StepStraggler, SlowStepsEveryRankSharesDoNotFire) {
  // Evaluation every 10 steps takes 6x longer on every host.
  DistBundle b =
      Steps(16, [](int i, int step) { return (step % 10 == 0 ? 7.2 : 1.2) + Wobble(i, step); });
  EXPECT_TRUE(b.Run().empty());
}

TEST(StepStraggler, IsolatedSpikesDoNotFire) {
  DistBundle b = Steps(16, [](int i, int step) {
    return (i == 4 && (step == 5 || step == 17 || step == 33) ? 12.0 : 1.2) + Wobble(i, step);
  });
  EXPECT_TRUE(b.Run().empty());
}

TEST(StepStraggler, SlowMedianWithoutConsistencyDoesNotFire) {
  // Host 9 is slow in 24 of 40 steps (60%, under the 75% needed) and fast in the rest.
  DistBundle b = Steps(16, [](int i, int step) {
    if (i == 9) return step % 5 < 3 ? 2.4 : 0.6;
    return 1.2 + Wobble(i, step);
  });
  EXPECT_TRUE(b.Run().empty());
}

TEST(StepStraggler, TooFewSeriesOrStepsDoNotFire) {
  DistBundle three = Steps(3, [](int i, int) { return i == 0 ? 5.0 : 1.0; });
  EXPECT_TRUE(three.Run().empty());
  DistBundle b = Steps(8, [](int i, int step) { return (i == 1 ? 4.0 : 1.0) + Wobble(i, step); });
  for (StepSeries& s : b.in.steps) s.points.resize(kMinSteps - 1);
  EXPECT_TRUE(b.Run().empty());
}

TEST(StepStraggler, JoinsTheMegascaleStragglerFinding) {
  DistBundle b = Steps(6, [](int i, int step) { return (i == 5 ? 2.0 : 1.0) + Wobble(i, step); });
  MxlaOutcome mxla;
  Finding f;
  f.code = "hang.straggler";
  f.severity = Severity::kError;
  f.culprits = {test::HostOnly("node-5")};
  f.evidence = {Evidence{"bundle", "node-5/train.log", 9, "Megascale hang detected"}};
  mxla.findings.push_back(f);
  const auto fs = b.Run(mxla);
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.straggler"});
  // One culprit: the host named by both, with its rank.
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{RankAt(5, "node-5")}));
  EXPECT_TRUE(Cites(fs[0], "node-5/train.log", 9));
  EXPECT_TRUE(Cites(fs[0], "node-5/train.log", 100 + kSteps));
}

}  // namespace
}  // namespace casefile::hang
