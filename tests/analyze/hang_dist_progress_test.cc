// MXLA program progress (docs/FINDINGS.md, section hang, rule R6): hosts
// whose last launch id is behind are named in the Megascale finding, never
// alone; and the rank->host map every rule uses.
#include <gtest/gtest.h>

#include "analyze/analyzers/hang/progress_rules.h"
#include "analyze/hang_dist_fixture.h"

namespace casefile::hang {
namespace {

using test::Cites;
using test::Codes;
using test::DistBundle;
using test::HostOnly;

// Six hosts; host w-4 stops one launch before the others. Launch L of host
// h is logged at line L - 27000 of its worker.log.
DistBundle Progress() {
  DistBundle b;
  for (int h = 0; h < 6; ++h) {
    const std::string host = "w-" + std::to_string(h);
    const int64_t f = b.File("logs/" + host + "/worker.log", host);
    const int64_t last = h == 4 ? 27920 : 27921;
    for (int64_t id = 27900; id <= last; ++id) b.in.progress.push_back({host, id, f, id - 27000});
  }
  return b;
}

Finding Mxla(const std::string& code) {
  Finding f;
  f.code = code;
  f.severity = Severity::kError;
  f.summary = "5 workers reported \"Megascale hang detected\".";
  f.evidence = {Evidence{"bundle", "logs/w-0/worker.log", 950, "Megascale hang detected"}};
  return f;
}

TEST(ProgressLag, ReportOnlyUnknownBecomesAStraggler) {
  DistBundle b = Progress();
  MxlaOutcome mxla;
  mxla.findings.push_back(Mxla("hang.unknown"));
  const auto fs = b.Run(mxla);
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.straggler"});
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{HostOnly("w-4")}));
  EXPECT_NE(fs[0].summary.find("MXLA program progress: host w-4 stopped at launch id 27920 while 5 "
                               "hosts reached launch id 27921."),
            std::string::npos)
      << fs[0].summary;
  EXPECT_TRUE(Cites(fs[0], "logs/w-4/worker.log", 920));
  EXPECT_TRUE(Cites(fs[0], "logs/w-0/worker.log", 950));
}

TEST(ProgressLag, DigestFindingTakesTheHostsBehind) {
  DistBundle b = Progress();
  MxlaOutcome mxla;
  mxla.any_digest = true;
  Finding f = Mxla("hang.bad_chip");
  f.culprits = {HostOnly("w-4")};
  f.culprits[0].task = "jax_worker/4";
  mxla.findings.push_back(f);
  const auto fs = b.Run(mxla);
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.bad_chip"});
  ASSERT_EQ(fs[0].culprits.size(), 1u);
  EXPECT_EQ(fs[0].culprits[0].task, "jax_worker/4");
  EXPECT_TRUE(Cites(fs[0], "logs/w-4/worker.log", 920));
}

TEST(ProgressLag, NeverAFindingAlone) {
  DistBundle b = Progress();
  EXPECT_TRUE(b.Run().empty());
}

TEST(ProgressLag, HostsAtTheSameLaunchNameNoOne) {
  DistBundle b;
  for (int h = 0; h < 3; ++h) {
    const int64_t f = b.File("w" + std::to_string(h) + ".log", "w" + std::to_string(h));
    b.in.progress.push_back({"w" + std::to_string(h), 100, f, 5});
  }
  EXPECT_FALSE(FindProgressLag(b.Context()).has_value());
}

TEST(RankHostMap, WorldCommunicatorWinsAndSubCommunicatorsAreIgnored) {
  RankHostMap m;
  // A tensor-parallel communicator of 2: its rank 1 is not global rank 1.
  m.AddCommunicator(1, 2, "node-3");
  m.AddCommunicator(1, 16, "node-0");
  m.AddCommunicator(9, 16, "node-1");
  m.AddPair(9, "node-7", RankHostMap::Source::kExplicit);
  m.AddPair(4, "node-0", RankHostMap::Source::kAttributed);
  m.AddPair(4, "node-0", RankHostMap::Source::kAttributed);
  m.AddPair(4, "node-5", RankHostMap::Source::kAttributed);
  m.AddPair(12, "node-2", RankHostMap::Source::kAttributed);
  m.AddPair(12, "node-1", RankHostMap::Source::kExplicit);
  m.Finish();
  EXPECT_EQ(m.world_size(), 16);
  ASSERT_NE(m.HostOf(1), nullptr);
  EXPECT_EQ(*m.HostOf(1), "node-0");
  EXPECT_EQ(*m.HostOf(9), "node-1");
  EXPECT_EQ(*m.HostOf(4), "node-0");   // named most often
  EXPECT_EQ(*m.HostOf(12), "node-1");  // an explicit pair beats an attributed one
  EXPECT_EQ(m.HostOf(3), nullptr);
}

TEST(RankHostMap, ImplausibleCommunicatorSizesAreIgnored) {
  RankHostMap m;
  m.AddCommunicator(0, int64_t{1} << 40, "node-0");
  m.AddCommunicator(5, 4, "node-0");  // a rank outside its communicator
  m.AddCommunicator(-1, 8, "node-0");
  m.Finish();
  EXPECT_EQ(m.world_size(), 0);
  EXPECT_TRUE(m.hosts().empty());
}

TEST(RankHostMap, TiesGoToTheSmallestNameWhateverTheOrder) {
  RankHostMap a, b;
  a.AddPair(0, "host-b", RankHostMap::Source::kExplicit);
  a.AddPair(0, "host-a", RankHostMap::Source::kExplicit);
  b.AddPair(0, "host-a", RankHostMap::Source::kExplicit);
  b.AddPair(0, "host-b", RankHostMap::Source::kExplicit);
  a.Finish();
  b.Finish();
  EXPECT_EQ(*a.HostOf(0), "host-a");
  EXPECT_EQ(*b.HostOf(0), "host-a");
}

}  // namespace
}  // namespace casefile::hang
