// Flight-recorder dumps (docs/FINDINGS.md, section hang, rule R2 and the
// missing ranks that feed R1): entries matched across ranks by process
// group and collective sequence id, as PyTorch's fr_trace matches them.
#include <gtest/gtest.h>

#include "analyze/analyzers/hang/flight_rules.h"
#include "analyze/hang_dist_fixture.h"

namespace casefile::hang {
namespace {

using test::Cites;
using test::Codes;
using test::DistBundle;
using test::RankAt;

// Four dumps, nccl_trace_rank_0..3, one JSON entry per line from line 10.
struct Dumps {
  DistBundle b;
  int64_t file[4] = {};
  Dumps() {
    for (int r = 0; r < 4; ++r) {
      file[r] =
          b.File("fr/nccl_trace_rank_" + std::to_string(r), "", r, "", 200, kNoTimestamp, "other");
      b.in.fr.groups.push_back({file[r], r, "0", "default_pg", "[0, 1, 2, 3]"});
    }
  }
  // Sequence ids 1..last of rank r, all-reduces of [[1024]] floats, the
  // last one still started.
  void Run(int r, int64_t last) {
    for (int64_t s = 1; s <= last; ++s) {
      b.FrEntryAt(file[r], 9 + s, r, "0", s, "nccl:all_reduce", "[[1024]]", "[\"Float\"]",
                  s == last ? "started" : "completed");
    }
  }
};

TEST(FlightRecorder, RankMissingFromTheLastCollectiveIsTheCulprit) {
  Dumps d;
  for (int r : {0, 1, 3}) d.Run(r, 10);
  d.Run(2, 9);
  const auto fs = d.b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_timeout"});
  const Finding& f = fs[0];
  EXPECT_EQ(f.culprits, (std::vector<Culprit>{RankAt(2, "")}));
  EXPECT_NE(f.summary.find("rank 2 stopped at SeqNum 9 in process group 0 while 3 ranks reached "
                           "SeqNum 10 (nccl:all_reduce)"),
            std::string::npos)
      << f.summary;
  EXPECT_NE(f.summary.find("No watchdog timeout was found in the logs"), std::string::npos);
  // The missing rank's last entry, and the waiting ranks' entry at 10.
  EXPECT_TRUE(Cites(f, "fr/nccl_trace_rank_2", 18));
  EXPECT_TRUE(Cites(f, "fr/nccl_trace_rank_0", 19));
  EXPECT_TRUE(Cites(f, "fr/nccl_trace_rank_3", 19));
}

TEST(FlightRecorder, MissingRanksJoinTheNeverArrivedRuleOfLogTimeouts) {
  Dumps d;
  const int64_t log = d.b.File("train.log", "node-0");
  for (int r : {0, 1, 3}) {
    d.Run(r, 10);
    d.b.Timeout(log, 100 + r, r, 10);
  }
  d.Run(2, 9);
  // No world size known from NCCL lines: the dumps' group has 4 members.
  const auto fs = d.b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_timeout"});
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{RankAt(2, "")}));
  EXPECT_NE(fs[0].summary.find("rank 2 never reached SeqNum 10"), std::string::npos)
      << fs[0].summary;
  EXPECT_NE(fs[0].summary.find("The flight-recorder dumps show rank 2 stopped at SeqNum 9"),
            std::string::npos)
      << fs[0].summary;
  EXPECT_TRUE(Cites(fs[0], "train.log", 100));
  EXPECT_TRUE(Cites(fs[0], "fr/nccl_trace_rank_2", 18));
}

TEST(FlightRecorder, SizeMismatchNamesTheMinorityRank) {
  Dumps d;
  for (int r = 0; r < 4; ++r) {
    for (int64_t s = 1; s <= 6; ++s) {
      const std::string sizes = s == 6 && r == 1 ? "[[2048]]" : "[[1024]]";
      d.b.FrEntryAt(d.file[r], 9 + s, r, "0", s, "nccl:all_reduce", sizes);
    }
  }
  const auto fs = d.b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_mismatch"});
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{RankAt(1, "")}));
  EXPECT_NE(fs[0].summary.find("disagree at collective SeqNum 6 of process group 0: ranks 0, 2-3 "
                               "ran nccl:all_reduce with input sizes [[1024]] [\"Float\"]; rank 1 "
                               "ran nccl:all_reduce with input sizes [[2048]] [\"Float\"]"),
            std::string::npos)
      << fs[0].summary;
  EXPECT_TRUE(Cites(fs[0], "fr/nccl_trace_rank_1", 15));
  EXPECT_TRUE(Cites(fs[0], "fr/nccl_trace_rank_0", 15));
}

TEST(FlightRecorder, DtypeAndOpMismatchesCount) {
  Dumps d;
  for (int r = 0; r < 4; ++r) {
    d.b.FrEntryAt(d.file[r], 10, r, "0", 1, "nccl:all_reduce", "[[8]]",
                  r == 3 ? "[\"BFloat16\"]" : "[\"Float\"]");
  }
  auto fs = d.b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_mismatch"});
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{RankAt(3, "")}));

  Dumps e;
  for (int r = 0; r < 4; ++r) {
    e.b.FrEntryAt(e.file[r], 10, r, "0", 1, r == 0 ? "nccl:broadcast" : "nccl:all_reduce");
  }
  fs = e.b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_mismatch"});
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{RankAt(0, "")}));
}

TEST(FlightRecorder, GatherScatterAndAllToAllSizesMayDiffer) {
  Dumps d;
  for (int r = 0; r < 4; ++r) {
    const std::string n = std::to_string(100 + r);
    d.b.FrEntryAt(d.file[r], 10, r, "0", 1, "nccl:all_to_all", "[[" + n + "]]");
    d.b.FrEntryAt(d.file[r], 11, r, "0", 2, "nccl:all_gather", "[[" + n + "]]");
    // A scatter's non-root ranks have no input: empty dtypes are not compared.
    d.b.FrEntryAt(d.file[r], 12, r, "0", 3, "nccl:scatter", r == 0 ? "[[4, 8]]" : "[]",
                  r == 0 ? "[\"Float\"]" : "[]");
  }
  EXPECT_TRUE(d.b.Run().empty());
  EXPECT_TRUE(FrSizesMayDiffer("nccl:reduce_scatter"));
  EXPECT_FALSE(FrSizesMayDiffer("nccl:all_reduce"));
}

TEST(FlightRecorder, P2pEntriesAndSameIdOfOtherMembersAreSeparate) {
  Dumps d;
  // Group "1" is {0, 1} on ranks 0-1 and {2, 3} on ranks 2-3 (same id,
  // different groups): their sequence ids are not compared with each other.
  for (int r = 0; r < 4; ++r) {
    d.b.in.fr.groups.push_back({d.file[r], r, "1", "", r < 2 ? "[0, 1]" : "[2, 3]"});
    d.b.FrEntryAt(d.file[r], 10, r, "1", 1, "nccl:all_reduce", r < 2 ? "[[16]]" : "[[32]]");
    d.b.FrEntryAt(d.file[r], 11, r, "0", 1, "nccl:send 0->1", "[[9]]", "[\"Float\"]", "started",
                  /*p2p=*/true);
  }
  EXPECT_TRUE(d.b.Run().empty());
}

TEST(FlightRecorder, RankWithoutAnyDumpCountsOnlyWhenMostMembersDumped) {
  Dumps d;
  for (int r : {0, 1, 2}) d.Run(r, 4);
  auto facts = AnalyzeFlightRecorder(d.b.in.fr);
  ASSERT_EQ(facts.missing.size(), 1u);
  EXPECT_EQ(facts.missing[0].missing, (std::vector<std::pair<int64_t, int64_t>>{{3, -1}}));

  Dumps half;
  for (int r : {0, 1}) half.Run(r, 4);
  EXPECT_TRUE(AnalyzeFlightRecorder(half.b.in.fr).missing.empty());
}

TEST(FlightRecorder, RankListParsing) {
  EXPECT_EQ(ParseRankList("[0, 1, 2]"), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(ParseRankList("[3,1,1]"), (std::vector<int64_t>{1, 3}));
  EXPECT_TRUE(ParseRankList("[]").empty());
  EXPECT_TRUE(ParseRankList("").empty());
}

}  // namespace
}  // namespace casefile::hang
