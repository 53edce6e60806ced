// program_progress events (program_progress.cc). The format is inferred
// (see that file): glog lines from real_program_continuator.cc that carry a
// launch id, spelled as the MXLA guide spells it ("launch_id 13650",
// "Launch ID: 193"). The samples are made up.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dist_test_util.h"
#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/line/line_prefix.h"

namespace casefile::dist {
namespace {

constexpr int64_t kUs = 1000000;

std::vector<DistEventRow> Read(const std::vector<std::string>& lines) {
  return test::FeedFamily(*MakeProgramProgressFamily(), lines, 9, 2026);
}

TEST(DistProgress, LaunchIdsOfTheContinuatorInTheirSpellings) {
  const auto rows = Read({
      "I1129 12:00:00.000000   1234 real_program_continuator.cc:123] Program state: "
      "launch_id=42 stage=RUNNING",
      "I1129 12:00:01.000000   1234 real_program_continuator.cc:130] Launch ID: 43 module "
      "jit_train_step",
      "I1129 12:00:02.000000   1234 real_program_continuator.cc:131] continuing launch id 44",
      "I1129 12:00:03.000000   1234 real_program_continuator.cc:140] launch_id: 45 done",
  });
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].kind, std::string(kProgramProgress));
  EXPECT_EQ(rows[0].seq.value_or(-1), 42);
  EXPECT_EQ(rows[0].detail.value_or(""), "Program state: launch_id=42 stage=RUNNING");
  EXPECT_EQ(rows[0].ts_us, 1795953600 * kUs);
  EXPECT_EQ(rows[1].seq.value_or(-1), 43);
  EXPECT_EQ(rows[2].seq.value_or(-1), 44);
  EXPECT_EQ(rows[3].seq.value_or(-1), 45);
  EXPECT_EQ(rows[3].line_no, 4);
}

TEST(DistProgress, HostFromTheWrapper) {
  const auto rows = Read({
      "worker-3: I1129 12:00:00.123456   1234 real_program_continuator.cc:88] Launch ID: 12",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].host.value_or(""), "worker-3");
  EXPECT_EQ(rows[0].seq.value_or(-1), 12);
}

TEST(DistProgress, DetailIsCapped) {
  std::string line = "I1129 12:00:00.000000   1234 real_program_continuator.cc:1] launch_id=7 ";
  line.append(1000, 'x');
  const auto rows = Read({line});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].detail.value_or("").size(), 256u);
}

TEST(DistProgress, LookAlikesEmitNothing) {
  EXPECT_TRUE(Read({
                       // Another source file.
                       "I1129 12:00:00.000000   1234 tpu_program.cc:10] launch_id=3",
                       // The MXLA hang message is the digest family's, not progress.
                       "E1129 12:00:00.000000   1234 megascale.cc:10] Megascale hang detected: "
                       "Timed out waiting for 4 graphs to complete at launch_id 13650.",
                       // No glog header in front.
                       "real_program_continuator.cc:12] launch_id=3",
                       "the real_program_continuator launch_id=3",
                       // No launch id.
                       "I1129 12:00:00.000000   1234 real_program_continuator.cc:5] idle",
                       "I1129 12:00:00.000000   1234 real_program_continuator.cc:5] "
                       "launch_identity=5 launch_id=abc launch_id_=2",
                   })
                  .empty());
}

}  // namespace
}  // namespace casefile::dist
