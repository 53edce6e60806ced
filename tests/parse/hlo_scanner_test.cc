// HloScanner and the HLO header splitter on hand-written modules in both
// printing styles (formats.md 1.2, 1.3).
#include "parse/hlo/hlo_scanner.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/hash.h"
#include "parse/hlo/hlo_header.h"

namespace casefile {
namespace {

// Long ("%") printing, GPU scheduled, fingerprint in the header.
constexpr std::string_view kScheduledModule =
    "HloModule jit_contract_2, is_scheduled=true, "
    "entry_computation_layout={(f32[1,8]{1,0})->f32[8]{0}}, "
    "allow_spmd_sharding_propagation_to_output={true}, num_partitions=3, "
    "frontend_attributes={fingerprint_before_lhs=\"1ecf5621c56c9f3861571058e268ab5d\"}\n"
    "\n"
    "%fused_reduce (param_0.1: f32[1,8]) -> f32[8] {\n"
    "  %param_0.1 = f32[1,8]{1,0} parameter(0)\n"
    "  %constant_1 = f32[] constant(0)\n"
    "  ROOT %reduce.1 = f32[8]{0} reduce(f32[1,8]{1,0} %param_0.1, f32[] %constant_1), "
    "dimensions={0}, to_apply=%region_0.1\n"
    "}\n"
    "\n"
    "%region_0.1 (Arg_0.2: f32[], Arg_1.3: f32[]) -> f32[] {\n"
    "  %Arg_0.2 = f32[] parameter(0)\n"
    "  %Arg_1.3 = f32[] parameter(1)\n"
    "  ROOT %add.4 = f32[] add(f32[] %Arg_0.2, f32[] %Arg_1.3)\n"
    "} // region_0.1\n"
    "\n"
    "ENTRY %main.5 (Arg_0.1: f32[1,8]) -> f32[8] {\n"
    "  %Arg_0.1 = f32[1,8]{1,0} parameter(0), sharding={devices=[3,1]<=[3]}\n"
    "  %fusion = f32[8]{0} fusion(f32[1,8]{1,0} %Arg_0.1), kind=kInput, calls=%fused_reduce\n"
    "  %all-reduce-start = f32[8]{0} all-reduce-start(f32[8]{0} %fusion), channel_id=1, "
    "replica_groups=[1,3]<=[3], to_apply=%region_0.1, "
    "backend_config={\"operation_queue_id\":\"0\",\"collective_backend_config\":{\"is_sync\":"
    "false}}\n"
    "  ROOT %all-reduce-done = f32[8]{0} all-reduce-done(f32[8]{0} %all-reduce-start)\n"
    "}";

// Short printing (no '%', computations without signatures), before
// optimizations, no fingerprint.
constexpr std::string_view kShortModule =
    "HloModule jit_f, entry_computation_layout={(f32[3,8]{1,0})->f32[8]{0}}, "
    "allow_spmd_sharding_propagation_to_output={true}, num_partitions=3\n"
    "\n"
    "region_0.3 {\n"
    "  Arg_0.4 = f32[] parameter(0)\n"
    "  Arg_1.5 = f32[] parameter(1)\n"
    "  ROOT add.6 = f32[] add(Arg_0.4, Arg_1.5)\n"
    "}\n"
    "\n"
    "ENTRY main.9 {\n"
    "  Arg_0.1 = f32[3,8]{1,0} parameter(0)\n"
    "  constant.2 = f32[] constant(0)\n"
    "  ROOT reduce.7 = f32[8]{0} reduce(Arg_0.1, constant.2), dimensions={0}, "
    "to_apply=region_0.3, metadata={op_name=\"jit(f)/jit(main)/reduce_sum[axes=(0,)]\" "
    "source_file=\"/x.py\" source_line=18}\n"
    "}";

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return lines;
}

HloModuleRow Scan(std::string_view path, std::string_view text, bool* is_module = nullptr) {
  HloScanner scanner(path);
  for (std::string_view line : Lines(text)) scanner.AddLine(line);
  if (is_module) *is_module = scanner.is_module();
  return scanner.Finish();
}

std::string Fnv(std::string_view text) {
  Fnv1a64 h;
  h.Update(text);
  return h.HexDigest();
}

TEST(HloScannerTest, ScheduledGpuModuleLongPrinting) {
  bool is_module = false;
  HloModuleRow row = Scan("dump/module_0007.jit_contract_2.gfx908_gpu_after_optimizations.txt",
                          kScheduledModule, &is_module);
  EXPECT_TRUE(is_module);
  EXPECT_EQ(row.module_name, "jit_contract_2");
  EXPECT_EQ(row.stage, "gfx908_gpu_after_optimizations");
  EXPECT_EQ(row.xla_fingerprint, "1ecf5621c56c9f3861571058e268ab5d");
  EXPECT_EQ(row.computation_count, 3);
  EXPECT_EQ(row.instruction_count, 10);
  EXPECT_EQ(row.fingerprint, Fnv(kScheduledModule));
  EXPECT_FALSE(row.host.has_value());
}

TEST(HloScannerTest, ShortPrintingBeforeOptimizations) {
  HloModuleRow row =
      Scan("1624325116260738.module_0065.jit_f.before_optimizations.txt", kShortModule);
  EXPECT_EQ(row.module_name, "jit_f");
  EXPECT_EQ(row.stage, "before_optimizations");
  EXPECT_FALSE(row.xla_fingerprint.has_value());
  EXPECT_EQ(row.computation_count, 2);
  EXPECT_EQ(row.instruction_count, 6);
  EXPECT_EQ(row.fingerprint, Fnv(kShortModule));
}

TEST(HloScannerTest, FingerprintIgnoresLineEndingsAndTrailingBlankLines) {
  std::string crlf;
  for (std::string_view line : Lines(kShortModule)) {
    crlf.append(line);
    crlf.append("\r\n");
  }
  crlf.append("\r\n\r\n");
  HloModuleRow row = Scan("m.txt", crlf);
  EXPECT_EQ(row.fingerprint, Fnv(kShortModule));
  // One changed character changes it.
  std::string changed(kShortModule);
  changed[changed.find("source_line=18")] = 'S';
  EXPECT_NE(Scan("m.txt", changed).fingerprint, Fnv(kShortModule));
}

TEST(HloScannerTest, HeaderSpanningLines) {
  constexpr std::string_view kModule =
      "HloModule m, entry_computation_layout={()->f32[]}, origin_recovery_table={\n"
      "  \"a\": \"{b, c}\"\n"
      "}, frontend_attributes={other=\"x,y\",fingerprint_before_lhs=\"00ff\"}\n"
      "\n"
      "ENTRY e {\n"
      "  ROOT c = f32[] constant(1)\n"
      "}\n";
  HloModuleRow row = Scan("module_0001.m.sm_9.0_gpu_after_optimizations.txt", kModule);
  EXPECT_EQ(row.module_name, "m");
  EXPECT_EQ(row.stage, "sm_9.0_gpu_after_optimizations");
  EXPECT_EQ(row.xla_fingerprint, "00ff");
  EXPECT_EQ(row.computation_count, 1);
  EXPECT_EQ(row.instruction_count, 1);
}

TEST(HloScannerTest, OlderXlaPutTheFingerprintOnTheRoot) {
  constexpr std::string_view kModule =
      "HloModule old, is_scheduled=true\n"
      "\n"
      "ENTRY %main {\n"
      "  %p = f32[] parameter(0)\n"
      "  ROOT %n = f32[] negate(f32[] %p), "
      "frontend_attributes={fingerprint_before_lhs=\"4f0b158bd9d6b8288169c67c4314b51b\"}\n"
      "}\n";
  HloModuleRow row = Scan("module_0003.old.sm_8.0_gpu_after_optimizations.txt", kModule);
  EXPECT_EQ(row.xla_fingerprint, "4f0b158bd9d6b8288169c67c4314b51b");
  EXPECT_EQ(row.instruction_count, 2);
}

TEST(HloScannerTest, NotAModule) {
  bool is_module = true;
  HloModuleRow row = Scan("module_0007.jit_f.sm_9.0_gpu_after_optimizations-buffer-assignment.txt",
                          "BufferAssignment:\nallocation 0: size 32, parameter 0\n", &is_module);
  EXPECT_FALSE(is_module);
  EXPECT_EQ(row.instruction_count, 0);
  EXPECT_EQ(row.computation_count, 0);
  EXPECT_EQ(row.stage, "");
}

TEST(HloScannerTest, LeadingBlankLinesAndBomAreSkipped) {
  std::string text = "\xEF\xBB\xBF\n\n";
  text += kShortModule;
  bool is_module = false;
  HloModuleRow row = Scan("x.txt", text, &is_module);
  EXPECT_TRUE(is_module);
  EXPECT_EQ(row.module_name, "jit_f");
  EXPECT_EQ(row.instruction_count, 6);
}

TEST(HloScannerTest, ModuleNameFromTheFileWhenTheHeaderHasNone) {
  HloModuleRow row = Scan("module_0042.pmap_fn.before_optimizations.txt", "HloModule \n");
  EXPECT_EQ(row.module_name, "pmap_fn");
}

TEST(HloHeaderTest, SplitsOnlyAtDepthZero) {
  std::vector<std::string_view> parts =
      SplitTopLevel("a, b={(f32[1,8]{1,0}, s32[])->f32[8]{0}}, c=\"x, y\", d=[1,3]<=[3], e", ',');
  ASSERT_EQ(parts.size(), 5u);
  EXPECT_EQ(parts[0], "a");
  EXPECT_EQ(parts[1], "b={(f32[1,8]{1,0}, s32[])->f32[8]{0}}");
  EXPECT_EQ(parts[2], "c=\"x, y\"");
  EXPECT_EQ(parts[3], "d=[1,3]<=[3]");
  EXPECT_EQ(parts[4], "e");
  // Stray closers do not make the depth negative.
  EXPECT_EQ(SplitTopLevel("a}, b", ',').size(), 2u);
  EXPECT_TRUE(SplitTopLevel("", ',').empty());
}

TEST(HloHeaderTest, ParsesTheRocmHeader) {
  HloModuleHeader h = ParseHloModuleHeader(
      "HloModule jit_contract_2, is_scheduled=true, "
      "entry_computation_layout={(f32[1,8]{1,0})->f32[8]{0}}, "
      "allow_spmd_sharding_propagation_to_output={true}, num_partitions=3, "
      "frontend_attributes={fingerprint_before_lhs=\"1ecf5621c56c9f3861571058e268ab5d\"}");
  EXPECT_EQ(h.name, "jit_contract_2");
  ASSERT_EQ(h.attributes.size(), 5u);
  EXPECT_EQ(h.attributes[0], (std::pair<std::string, std::string>{"is_scheduled", "true"}));
  EXPECT_EQ(h.attributes[1].first, "entry_computation_layout");
  EXPECT_EQ(h.attributes[1].second, "{(f32[1,8]{1,0})->f32[8]{0}}");
  EXPECT_EQ(h.attributes[3], (std::pair<std::string, std::string>{"num_partitions", "3"}));
  EXPECT_EQ(h.fingerprint_before_lhs, "1ecf5621c56c9f3861571058e268ab5d");
  EXPECT_EQ(ParseHloModuleHeader("HloModule solo").name, "solo");
  EXPECT_TRUE(ParseHloModuleHeader("not a header").name.empty());
}

}  // namespace
}  // namespace casefile
