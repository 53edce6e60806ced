// The hlo section of the diff: hlo_modules rows with their dump files (the
// header line first, as XLA writes `module_0001.jit_train_step.<stage>.txt`).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "diff/sections.h"
#include "sections_b_index.h"

namespace casefile {
namespace {

using diff::DiffItem;
using test::SideIndex;

void Dump(SideIndex& idx, const std::string& host, const std::string& module,
          const std::string& stage, const std::string& fingerprint, int64_t instructions,
          const std::string& comment = "") {
  std::vector<std::string> lines;
  if (!comment.empty()) lines.push_back(comment);
  lines.push_back(
      "HloModule " + module +
      ", is_scheduled=true, entry_computation_layout={(f32[8,128]{1,0})->f32[8,128]{1,0}}");
  lines.push_back("");
  lines.push_back("ENTRY %main.4 (Arg_0.1: f32[8,128]) -> f32[8,128] {");
  lines.push_back(
      "  ROOT %add.3 = f32[8,128]{1,0} add(f32[8,128]{1,0} %Arg_0.1, f32[8,128]{1,0} %Arg_0.1)");
  lines.push_back("}");
  const int64_t id =
      idx.File("hosts/" + host + "/xla_dump/module_0001." + module + "." + stage + ".txt", "hlo",
               host, lines);
  HloModuleRow m;
  m.file_id = id;
  m.module_name = module;
  m.stage = stage;
  m.fingerprint = fingerprint;
  m.instruction_count = instructions;
  m.computation_count = 1;
  idx.w().AddHloModule(m);
}

TEST(DiffHlo, SameModulesGiveNothing) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  for (const char* host : {"host-0", "host-1"}) {
    Dump(good, host, "jit_train_step", "after_optimizations", "a1b2c3", 4);
    Dump(bad, host, "jit_train_step", "after_optimizations", "a1b2c3", 4);
  }
  // A third host in bad compiled the same: a set, not a count.
  Dump(bad, "host-2", "jit_train_step", "after_optimizations", "a1b2c3", 4);
  EXPECT_TRUE(diff::DiffHlo(good.Open("good"), bad.Open("bad")).empty());
}

TEST(DiffHlo, ChangedFingerprintWithHeaderEvidence) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  Dump(good, "host-0", "jit_train_step", "after_optimizations", "a1b2c3", 4);
  Dump(good, "host-0", "jit_train_step", "before_optimizations", "0f0f0f", 9);
  Dump(bad, "host-0", "jit_train_step", "after_optimizations", "d4e5f6", 7,
       "// comment written by a dump tool");
  Dump(bad, "host-0", "jit_train_step", "before_optimizations", "0f0f0f", 9);
  const auto items = diff::DiffHlo(good.Open("good"), bad.Open("bad"));
  ASSERT_EQ(items.size(), 1u);
  const DiffItem& c = items[0];
  EXPECT_EQ(c.section, "hlo");
  EXPECT_EQ(c.kind, "changed");
  EXPECT_EQ(c.key, "jit_train_step:after_optimizations");
  EXPECT_EQ(c.score, 45);
  EXPECT_EQ(*c.good, "a1b2c3");
  EXPECT_EQ(*c.bad, "d4e5f6");
  EXPECT_EQ(std::get<int64_t>(*test::FieldOf(c, "good_instructions")), 4);
  EXPECT_EQ(std::get<int64_t>(*test::FieldOf(c, "bad_instructions")), 7);
  ASSERT_EQ(c.good_evidence.size(), 1u);
  EXPECT_EQ(c.good_evidence[0].line, 1);
  EXPECT_EQ(c.good_evidence[0].path,
            "hosts/host-0/xla_dump/module_0001.jit_train_step.after_optimizations.txt");
  ASSERT_EQ(c.bad_evidence.size(), 1u);
  EXPECT_EQ(c.bad_evidence[0].line, 2);  // after the comment
  EXPECT_EQ(c.bad_evidence[0].text.rfind("HloModule jit_train_step, ", 0), 0u);
  EXPECT_EQ(c.summary,
            "HLO module jit_train_step (after_optimizations) compiled differently: fingerprint "
            "a1b2c3 -> d4e5f6, 4 -> 7 instructions");
}

TEST(DiffHlo, AddedAndRemoved) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  Dump(good, "host-0", "jit_train_step", "after_optimizations", "a1b2c3", 4);
  Dump(good, "host-0", "jit_eval_step", "after_optimizations", "777777", 3);
  Dump(bad, "host-0", "jit_train_step", "after_optimizations", "a1b2c3", 4);
  Dump(bad, "host-0", "jit_train_step_1", "after_optimizations", "888888", 5);
  Dump(bad, "host-1", "jit_train_step_1", "after_optimizations", "888888", 5);
  const auto items = diff::DiffHlo(good.Open("good"), bad.Open("bad"));
  ASSERT_EQ(items.size(), 2u);
  const DiffItem* added = test::ItemOf(items, "added", "jit_train_step_1:after_optimizations");
  ASSERT_NE(added, nullptr);
  EXPECT_EQ(added->score, 30);
  EXPECT_FALSE(added->good.has_value());
  EXPECT_EQ(*added->bad, "888888");
  EXPECT_EQ(added->summary,
            "HLO module jit_train_step_1 (after_optimizations) only in bad on 2 hosts");
  EXPECT_TRUE(added->good_evidence.empty());
  EXPECT_EQ(added->bad_evidence.size(), 1u);
  const DiffItem* removed = test::ItemOf(items, "removed", "jit_eval_step:after_optimizations");
  ASSERT_NE(removed, nullptr);
  EXPECT_EQ(removed->score, 30);
  EXPECT_FALSE(removed->bad.has_value());
  // Ties broken by key: jit_eval_step before jit_train_step_1.
  EXPECT_EQ(items[0].kind, "removed");
}

TEST(DiffHlo, HostsDisagreeingInsideOneSideAreComparedAsSets) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  // Both sides have the same two variants across hosts: no difference here
  // (the hang analyzer judges the disagreement inside a run).
  Dump(good, "host-0", "jit_train_step", "after_optimizations", "aaaa", 4);
  Dump(good, "host-1", "jit_train_step", "after_optimizations", "bbbb", 4);
  Dump(bad, "host-0", "jit_train_step", "after_optimizations", "bbbb", 4);
  Dump(bad, "host-1", "jit_train_step", "after_optimizations", "aaaa", 4);
  // A second module: bad gained a variant on one host.
  Dump(good, "host-0", "jit_step2", "after_optimizations", "cccc", 4);
  Dump(good, "host-1", "jit_step2", "after_optimizations", "cccc", 4);
  Dump(bad, "host-0", "jit_step2", "after_optimizations", "cccc", 4);
  Dump(bad, "host-1", "jit_step2", "after_optimizations", "dddd", 4);
  const auto items = diff::DiffHlo(good.Open("good"), bad.Open("bad"));
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].kind, "changed");
  EXPECT_EQ(items[0].key, "jit_step2:after_optimizations");
  EXPECT_EQ(*items[0].bad, "cccc,dddd");
  EXPECT_EQ(std::get<int64_t>(*test::FieldOf(items[0], "bad_fingerprints")), 2);
}

TEST(DiffHlo, OneSideWithoutDumpsGivesNothing) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  good.File("train.log", "log", "host-0", {"step 1 loss=2.0"});
  Dump(bad, "host-0", "jit_train_step", "after_optimizations", "a1b2c3", 4);
  // Good collected no dumps at all: that is a bundle without them, not a
  // run that compiled nothing, so no module is "added".
  EXPECT_TRUE(diff::DiffHlo(good.Open("good"), bad.Open("bad")).empty());
}

}  // namespace
}  // namespace casefile
