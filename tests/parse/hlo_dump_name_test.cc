// ParseHloDumpName on the file names of formats.md 1.1.
#include "parse/hlo/hlo_dump_name.h"

#include <gtest/gtest.h>

namespace casefile {
namespace {

TEST(HloDumpNameTest, TimestampIdNameAndStage) {
  HloDumpName n = ParseHloDumpName(
      "1624325116260738.module_0065.pmap__unnamed_wrapped_function_.186875.before_optimizations."
      "txt");
  EXPECT_EQ(n.timestamp_us, 1624325116260738);
  EXPECT_EQ(n.module_id, 65);
  EXPECT_EQ(n.module_name, "pmap__unnamed_wrapped_function_.186875");
  EXPECT_EQ(n.stage, "before_optimizations");
}

TEST(HloDumpNameTest, Stages) {
  EXPECT_EQ(ParseHloDumpName("module_0021.jit_train_step.before_optimizations.txt").stage,
            "before_optimizations");
  EXPECT_EQ(ParseHloDumpName("module_0023.jit_train_step.after_optimizations.txt").stage,
            "after_optimizations");
  EXPECT_EQ(ParseHloDumpName("module_0001.jit_f.cpu_after_optimizations.txt").stage,
            "cpu_after_optimizations");
  EXPECT_EQ(ParseHloDumpName("module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt").stage,
            "sm_9.0_gpu_after_optimizations");
  EXPECT_EQ(ParseHloDumpName("module_0001.jit_f.sm_8.9_gpu_after_optimizations.txt").stage,
            "sm_8.9_gpu_after_optimizations");
  EXPECT_EQ(ParseHloDumpName("module_0001.jit_f.sm_100a_gpu_after_optimizations.txt").stage,
            "sm_100a_gpu_after_optimizations");
  EXPECT_EQ(
      ParseHloDumpName("dump/module_0007.jit_contract_2.gfx908_gpu_after_optimizations.txt").stage,
      "gfx908_gpu_after_optimizations");
  EXPECT_EQ(ParseHloDumpName("module_0001.jit_f.before_optimizations.txt.gz").stage,
            "before_optimizations");
}

TEST(HloDumpNameTest, NamesAroundTheStage) {
  HloDumpName sm = ParseHloDumpName("module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt");
  EXPECT_EQ(sm.module_name, "jit_f");
  EXPECT_EQ(sm.module_id, 1);
  EXPECT_FALSE(sm.timestamp_us.has_value());
  EXPECT_EQ(ParseHloDumpName("module_0001.jit_f.cpu_after_optimizations.txt").module_name, "jit_f");
  EXPECT_EQ(ParseHloDumpName("module_12345.jit_g.before_optimizations.txt").module_id, 12345);
  // A name over 255 characters is dropped by XLA.
  HloDumpName dropped = ParseHloDumpName("module_0042.before_optimizations.txt");
  EXPECT_EQ(dropped.module_id, 42);
  EXPECT_EQ(dropped.module_name, "");
  EXPECT_EQ(dropped.stage, "before_optimizations");
}

TEST(HloDumpNameTest, UnknownStages) {
  EXPECT_EQ(
      ParseHloDumpName("module_0007.jit_f.sm_8.0_gpu_after_optimizations-buffer-assignment.txt")
          .stage,
      "");
  EXPECT_EQ(ParseHloDumpName("module_0007.jit_contract_2.gpu_target_config.pbtxt").stage, "");
  EXPECT_EQ(ParseHloDumpName("module_0007.jit_f.xafter_optimizations.txt").stage, "");
  EXPECT_EQ(ParseHloDumpName("module_0007.jit_f.sm_x_gpu_after_optimizations.txt").stage, "");
  HloDumpName pass = ParseHloDumpName("0001.pipeline.after_x.before_y.txt");
  EXPECT_EQ(pass.stage, "");
  EXPECT_FALSE(pass.module_id.has_value());
  EXPECT_FALSE(ParseHloDumpName("module_abc.before_optimizations.txt").module_id.has_value());
  EXPECT_EQ(ParseHloDumpName("").stage, "");
}

}  // namespace
}  // namespace casefile
