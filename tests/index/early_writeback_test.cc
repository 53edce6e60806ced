// EarlyWriteback: writeback starts once per kStepBytes stored, and a file it
// cannot open only leaves the work to the final fsync (no error, no retry).
#include "index/early_writeback.h"

#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

namespace casefile {
namespace {

TEST(EarlyWriteback, StartsOncePerStep) {
  test::TempDir tmp;
  const std::string path = tmp.Join("index.db");
  test::WriteFile(path, std::string(1 << 20, 'x'));
  EarlyWriteback wb(path);
  wb.Stored(EarlyWriteback::kStepBytes - 1);
  EXPECT_EQ(wb.started(), 0);
#if defined(__linux__)
  wb.Stored(1);
  EXPECT_EQ(wb.started(), 1);
  wb.Stored(EarlyWriteback::kStepBytes / 2);
  EXPECT_EQ(wb.started(), 1);
  wb.Stored(EarlyWriteback::kStepBytes / 2);
  EXPECT_EQ(wb.started(), 2);
#endif
}

TEST(EarlyWriteback, AFileThatCannotBeOpenedIsLeftToTheFinalSync) {
  test::TempDir tmp;
  EarlyWriteback wb(tmp.Join("missing/index.db"));
  for (int i = 0; i < 3; ++i) wb.Stored(EarlyWriteback::kStepBytes);
  EXPECT_EQ(wb.started(), 0);
}

}  // namespace
}  // namespace casefile
