// collect/discovery.h: inputs found from XLA_FLAGS, the flight-recorder
// prefix and the failed job's command line.
#include "collect/discovery.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace casefile::collect {
namespace {

using casefile::test::TempDir;
using casefile::test::WriteFile;

TEST(Discovery, XlaDumpDirectoryIsTheLastDumpToFlag) {
  EXPECT_EQ(XlaDumpDirectory("--xla_dump_to=/tmp/xla"), "/tmp/xla");
  EXPECT_EQ(XlaDumpDirectory("--xla_dump_hlo_as_text --xla_dump_to=/a --xla_gpu_foo=1 "
                             "--xla_dump_to=/b"),
            "/b");
  EXPECT_EQ(XlaDumpDirectory("--xla_dump_to=\"/path with space\" --x=1"), "/path with space");
  EXPECT_EQ(XlaDumpDirectory("--xla_dump_hlo_as_text"), std::nullopt);
  EXPECT_EQ(XlaDumpDirectory(""), std::nullopt);
  // Another flag that merely contains the name is not it.
  EXPECT_EQ(XlaDumpDirectory("--xla_dump_to_sponge=/x"), std::nullopt);
}

TEST(Discovery, CommandLinesSplitLikeAShell) {
  EXPECT_EQ(SplitCommandLine("python train.py --lr 3e-4"),
            (std::vector<std::string>{"python", "train.py", "--lr", "3e-4"}));
  EXPECT_EQ(SplitCommandLine("a 'b c' \"d \\\"e\\\"\" f\\ g"),
            (std::vector<std::string>{"a", "b c", "d \"e\"", "f g"}));
  EXPECT_EQ(SplitCommandLine("torchrun \\\n  train.py"),
            (std::vector<std::string>{"torchrun", "train.py"}));
  EXPECT_EQ(SplitCommandLine("''"), (std::vector<std::string>{""}));
  // /proc/PID/cmdline: NUL-separated, spaces inside arguments kept.
  EXPECT_EQ(SplitCommandLine(std::string("python\0my script.py\0--x\0", 24)),
            (std::vector<std::string>{"python", "my script.py", "--x"}));
}

TEST(Discovery, JobConfigsFromFlagsAndExistingConfigArguments) {
  TempDir dir;
  WriteFile(dir.Join("ds.json"), "{}\n");
  WriteFile(dir.Join("conf/model.yaml"), "a: 1\n");
  WriteFile(dir.Join("accel.yml"), "b: 2\n");
  std::vector<std::string> args = {
      "deepspeed",       "train.py",      "--deepspeed",
      "ds.json",         "--config_file", "accel.yml",
      "conf/model.yaml", "missing.yaml",  "--deepspeed_config=ds2.json",
      "--output",        "out.json"};
  std::vector<std::string> paths = JobConfigPaths(args, dir.path());
  // Flag values whether or not they exist; other .json/.yaml arguments only
  // when they do (out.json, missing.yaml do not).
  EXPECT_EQ(paths, (std::vector<std::string>{dir.Join("ds.json"), dir.Join("accel.yml"),
                                             dir.Join("conf/model.yaml"), dir.Join("ds2.json")}));
  // DeepSpeed's launcher uses --deepspeed as a switch: a following argument
  // that is no .json is not a config.
  EXPECT_EQ(JobConfigPaths({"train.py", "--deepspeed", "--deepspeed_config", "/abs/c.json"}, "/x"),
            (std::vector<std::string>{"/abs/c.json"}));
}

TEST(Discovery, FromTheEnvironment) {
  TempDir dir;
  WriteFile(dir.Join("dump/module_0001.a.txt"), "HloModule a\n");
  WriteFile(dir.Join("fr/rank_0"), "{}\n");
  WriteFile(dir.Join("ds.json"), "{}\n");
  std::vector<std::string> env = {"XLA_FLAGS=--xla_dump_to=" + dir.Join("dump"),
                                  "TORCH_NCCL_DEBUG_INFO_TEMP_FILE=" + dir.Join("fr/old_"),
                                  "TORCH_FR_DUMP_TEMP_FILE=" + dir.Join("fr/rank_")};
  Discovery d =
      Discover(env, true, false,
               {"--deepspeed", dir.Join("ds.json"), "--config", dir.Join("nope.yaml")}, "/");
  ASSERT_EQ(d.inputs.size(), 3u);
  EXPECT_EQ(d.inputs[0].folder, "hlo");
  EXPECT_EQ(d.inputs[0].path, dir.Join("dump"));
  // The newer variable wins, as in torch.
  EXPECT_EQ(d.inputs[1].folder, "flight_recorder");
  EXPECT_EQ(d.inputs[1].path, dir.Join("fr/rank_") + "*");
  EXPECT_EQ(d.inputs[1].origin, "TORCH_FR_DUMP_TEMP_FILE");
  EXPECT_EQ(d.inputs[2].folder, "configs");
  EXPECT_TRUE(d.inputs[2].named);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].source, dir.Join("nope.yaml"));

  // --hlo-dump given: XLA_FLAGS is not looked at; no environment lookups
  // at all with from_environment off.
  Discovery with_flag = Discover(env, true, true, {}, "/");
  ASSERT_EQ(with_flag.inputs.size(), 1u);
  EXPECT_EQ(with_flag.inputs[0].folder, "flight_recorder");
  Discovery off = Discover(env, false, false, {}, "/");
  EXPECT_TRUE(off.inputs.empty());
  EXPECT_TRUE(off.notes.empty());
}

TEST(Discovery, WhatIsNotThereIsANote) {
  TempDir dir;
  std::vector<std::string> env = {"XLA_FLAGS=--xla_dump_to=" + dir.Join("absent"),
                                  "TORCH_NCCL_DEBUG_INFO_TEMP_FILE=" + dir.Join("none_")};
  Discovery d = Discover(env, true, false, {}, "/");
  EXPECT_TRUE(d.inputs.empty());
  ASSERT_EQ(d.notes.size(), 2u);
  EXPECT_EQ(d.notes[0].source, dir.Join("absent"));
  EXPECT_EQ(d.notes[1].source, dir.Join("none_") + "*");
  Discovery stdout_mode = Discover({"XLA_FLAGS=--xla_dump_to=-"}, true, false, {}, "/");
  EXPECT_EQ(stdout_mode.notes[0].reason, "--xla_dump_to=- is not a directory");
}

}  // namespace
}  // namespace casefile::collect
