// The (host, rank) pairs rank_host.cc reads from wrapped lines and NCCL
// communicator lines, through the same prefix parsing ingest uses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dist_test_util.h"
#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/line/line_prefix.h"

namespace casefile::dist {
namespace {

std::vector<DistEventRow> ReadPairs(const std::vector<std::string>& lines) {
  return test::FeedFamily(*MakeRankHostFamily(), lines, 7, 2026);
}

TEST(DistRankHost, NcclInitCompleteNamesRankAndCommSize) {
  const auto rows = ReadPairs({
      "gpu-node-3:2211:2290 [5] NCCL INFO Channel 00/0 : 13[5] -> 14[6] via P2P/IPC",
      "gpu-node-3:2211:2290 [5] NCCL INFO comm 0x55d3a8f0 rank 13 nranks 16 cudaDev 5 nvmlDev 5 "
      "busId 9c000 commId 0x2f1e5b7a90c4d311 - Init COMPLETE",
      "gpu-node-3:2212:2291 [6] NCCL INFO ncclCommInitRank comm 0x61aa0c0 rank 14 nranks 16 "
      "cudaDev 6 nvmlDev 6 busId a0000 commId 0x2f1e5b7a90c4d311 - Init COMPLETE",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kind, std::string(kRankHost));
  EXPECT_EQ(rows[0].host.value_or(""), "gpu-node-3");
  EXPECT_EQ(rows[0].rank.value_or(-1), 13);
  EXPECT_EQ(rows[0].value.value_or(-1), 16);
  EXPECT_EQ(rows[0].line_no, 2);
  EXPECT_EQ(rows[1].rank.value_or(-1), 14);
  EXPECT_EQ(rows[1].line_no, 3);
}

TEST(DistRankHost, TheInitLineOfNccl218NamesRankAndCommSize) {
  // Printed by every rank while in init, before Init COMPLETE: the only
  // line of a rank that never completes.
  const auto rows = ReadPairs({
      "[default5]:node-1:61110:61110 [5] NCCL INFO comm 0x55d0c8a1b2c0 rank 13 nRanks 16 nNodes "
      "2 localRanks 8 localRank 5 MNNVL 0",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].host.value_or(""), "node-1");
  EXPECT_EQ(rows[0].rank.value_or(-1), 13);
  EXPECT_EQ(rows[0].value.value_or(-1), 16);
}

TEST(DistRankHost, EachPairOncePerFile) {
  const auto rows = ReadPairs({
      "node-7: [rank12]: step 10 loss 2.1",
      "node-7: [rank12]: step 11 loss 2.0",
      "node-7: [rank13]: step 11 loss 2.0",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].host.value_or(""), "node-7");
  EXPECT_EQ(rows[0].rank.value_or(-1), 12);
  EXPECT_FALSE(rows[0].value.has_value());
  EXPECT_EQ(rows[1].rank.value_or(-1), 13);
  EXPECT_EQ(rows[1].line_no, 3);
}

TEST(DistRankHost, SplitCommunicatorsAreMarked) {
  // A split's rank is its rank inside the sub-group: rank 1 of a
  // two-rank communicator here, on the host of global rank 13.
  const auto rows = ReadPairs({
      "gpu-node-3:2211:2290 [5] NCCL INFO ncclCommSplit comm 0x7f2c4c0 rank 1 nranks 2 cudaDev "
      "5 nvmlDev 5 busId 9c000 parent 0x55d3a8f0 color 1226819614 key 13 - Init COMPLETE",
      // The older form names only the parent.
      "gpu-node-3:2211:2290 [5] NCCL INFO comm 0x7f2d100 rank 3 nranks 8 cudaDev 5 nvmlDev 5 "
      "busId 9c000 parent 0x55d3a8f0 color 2004 key 13 commId 0x9a1b2c3d4e5f6071 - Init COMPLETE",
      // The world, of the same size as the first split: a pair of its own.
      "gpu-node-3:2211:2290 [5] NCCL INFO comm 0x55d3a8f0 rank 1 nranks 2 cudaDev 5 nvmlDev 5 "
      "busId 9c000 commId 0x2f1e5b7a90c4d311 - Init COMPLETE",
  });
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].rank, 1);
  EXPECT_EQ(rows[0].value, 2);
  EXPECT_EQ(rows[0].detail, std::string(kSplitDetail));
  EXPECT_EQ(rows[1].rank, 3);
  EXPECT_EQ(rows[1].value, 8);
  EXPECT_EQ(rows[1].detail, std::string(kSplitDetail));
  EXPECT_EQ(rows[2].rank, 1);
  EXPECT_EQ(rows[2].value, 2);
  EXPECT_FALSE(rows[2].detail.has_value());
}

TEST(DistRankHost, ASplitLineKeepsItsWrapperPair) {
  // The line's own wrappers still name the global rank and the host.
  const auto rows = ReadPairs({
      "node-7: [rank12]: node-7:3301:3390 [4] NCCL INFO ncclCommSplit comm 0x61aa0c0 rank 0 "
      "nranks 4 cudaDev 4 nvmlDev 4 busId a0000 parent 0x5511 color 3 key 0 - Init COMPLETE",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].rank, 0);
  EXPECT_EQ(rows[0].detail, std::string(kSplitDetail));
  EXPECT_EQ(rows[1].host.value_or(""), "node-7");
  EXPECT_EQ(rows[1].rank, 12);
  EXPECT_FALSE(rows[1].value.has_value());
  EXPECT_FALSE(rows[1].detail.has_value());
}

TEST(DistRankHost, NothingWithoutBothHostAndRank) {
  const auto rows = ReadPairs({
      "[rank3]: step 10 loss 2.1",
      "node-7: no rank here",
      "gpu-node-3:2211:2290 [5] NCCL INFO comm 0x55d3a8f0 rank nranks 16",
      "a comm with rank 3 nranks 8 but no host header",
  });
  EXPECT_TRUE(rows.empty());
}

}  // namespace
}  // namespace casefile::dist
