// --max-bytes planning (collect/size_budget.h), with budgets worked out by
// hand from the water-filling rule.
#include "collect/size_budget.h"

#include <gtest/gtest.h>

namespace casefile::collect {
namespace {

TEST(SizeBudget, EverythingFitsNothingIsCut) {
  EXPECT_EQ(PlanBudget({{100, true}, {50, false}}, 150), (std::vector<uint64_t>{100, 50}));
  EXPECT_EQ(PlanBudget({}, 0), std::vector<uint64_t>{});
}

TEST(SizeBudget, OnlyTheLargestLogsAreCutToEqualAmounts) {
  // Logs of 100, 400 and 1000 bytes in 700: 100 stays whole, the other two
  // share 600 -> 300 each.
  EXPECT_EQ(PlanBudget({{100, true}, {400, true}, {1000, true}}, 700),
            (std::vector<uint64_t>{100, 300, 300}));
  // An odd remainder is not kept: 601 over two is 300 each.
  EXPECT_EQ(PlanBudget({{100, true}, {400, true}, {1000, true}}, 701),
            (std::vector<uint64_t>{100, 300, 300}));
}

TEST(SizeBudget, SmallFilesThatCannotBeCutStayWhole) {
  // A 30-byte config and a 2000-byte log in 1000: the config fits under the
  // level (970), the log keeps 970.
  EXPECT_EQ(PlanBudget({{30, false}, {2000, true}}, 1000), (std::vector<uint64_t>{30, 970}));
}

TEST(SizeBudget, LargeFilesThatCannotBeCutAreLeftOut) {
  // First level over {10, 20, 5000(dump), 3000(log)} in 1000: 10 + 20 whole,
  // 970 / 2 = 485. The dump (5000 > 485) goes; again over {10, 20, 3000}:
  // the log keeps 970.
  EXPECT_EQ(PlanBudget({{10, false}, {20, false}, {5000, false}, {3000, true}}, 1000),
            (std::vector<uint64_t>{10, 20, 0, 970}));
  // Many mid-sized dumps do not crowd the logs out: four 300-byte dumps and
  // two 2000-byte logs in 1200: first level 200 drops every dump, the logs
  // keep 600 each.
  EXPECT_EQ(
      PlanBudget(
          {{300, false}, {300, false}, {300, false}, {300, false}, {2000, true}, {2000, true}},
          1200),
      (std::vector<uint64_t>{0, 0, 0, 0, 600, 600}));
}

TEST(SizeBudget, ABudgetOfZeroLeavesEverythingOut) {
  EXPECT_EQ(PlanBudget({{10, true}, {0, false}, {5, false}}, 0), (std::vector<uint64_t>{0, 0, 0}));
}

TEST(SizeBudget, TheSumNeverExceedsTheBudget) {
  std::vector<BudgetItem> items;
  for (uint64_t i = 1; i <= 200; ++i) items.push_back({i * 7919 % 5003, i % 3 != 0});
  for (uint64_t budget : {0ull, 1ull, 999ull, 100000ull, 400000ull}) {
    std::vector<uint64_t> keep = PlanBudget(items, budget);
    uint64_t sum = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      EXPECT_LE(keep[i], items[i].size);
      if (!items[i].tailable) {
        EXPECT_TRUE(keep[i] == 0 || keep[i] == items[i].size);
      }
      sum += keep[i];
    }
    EXPECT_LE(sum, budget);
  }
}

}  // namespace
}  // namespace casefile::collect
