// The versions section of the diff: versions rows as ingest writes them
// (docs/SCHEMA.md), compared per component, per host where hosts disagree,
// by value set when the runs share no host name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "diff/sections.h"
#include "sections_b_index.h"

namespace casefile {
namespace {

using diff::DiffItem;
using test::SideIndex;
using test::TempDir;

VersionRow V(int64_t file_id, int64_t line_no, const std::string& component,
             const std::string& version, const std::string& detail, const std::string& source) {
  return {file_id, line_no, component, version, detail, source};
}

const diff::DiffField* Field(const DiffItem& item, const std::string& name) {
  for (const auto& f : item.fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string TextField(const DiffItem& item, const std::string& name) {
  const diff::DiffField* f = Field(item, name);
  if (f == nullptr || !std::holds_alternative<std::string>(f->value)) return "<none>";
  return std::get<std::string>(f->value);
}

int64_t IntField(const DiffItem& item, const std::string& name) {
  const diff::DiffField* f = Field(item, name);
  if (f == nullptr || !std::holds_alternative<int64_t>(f->value)) return -1;
  return std::get<int64_t>(f->value);
}

// A host's training log: the NCCL version line a process printed, and the
// versions row ingest derives from it (source nccl_log, detail host + pid).
void NcclLog(SideIndex& side, const std::string& host, int pid, const std::string& version) {
  const int64_t f =
      side.File("hosts/" + host + "/logs/train.log", "log", host,
                {"[rank0]: starting step loop", "NCCL version " + version + "+cuda12.1",
                 host + ":" + std::to_string(pid) + ":" + std::to_string(pid + 7) +
                     " [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>"});
  side.w().AddVersion(
      V(f, 2, "nccl", version, "host " + host + " pid " + std::to_string(pid), "nccl_log"));
}

// pip freeze of a host: one versions row per line, components as
// package_names.cc maps them.
int64_t PipFreeze(SideIndex& side, const std::string& host,
                  const std::vector<std::pair<std::string, std::string>>& packages) {
  std::vector<std::string> lines;
  for (const auto& [name, version] : packages) lines.push_back(name + "==" + version);
  const int64_t f = side.File("hosts/" + host + "/versions/pip_freeze.txt", "version", host, lines);
  int64_t line = 0;
  for (const auto& [name, version] : packages) {
    ++line;
    std::string component = name == "nvidia-nccl-cu12"            ? "nccl"
                            : name == "torch" || name == "triton" ? name
                                                                  : "pip:" + name;
    side.w().AddVersion(V(f, line, component, version, "", "pip"));
  }
  return f;
}

// nvidia-smi --query-gpu CSV of a host: one gpu_name row per GPU.
void GpuQuery(SideIndex& side, const std::string& host, const std::string& driver,
              const std::vector<std::string>& gpu_names) {
  std::vector<std::string> lines = {"index, name, compute_cap, driver_version, memory.total [MiB]"};
  for (size_t i = 0; i < gpu_names.size(); ++i) {
    lines.push_back(std::to_string(i) + ", " + gpu_names[i] + ", 9.0, " + driver + ", 81559 MiB");
  }
  const int64_t f =
      side.File("hosts/" + host + "/versions/nvidia_smi_query.txt", "version", host, lines);
  for (size_t i = 0; i < gpu_names.size(); ++i) {
    const int64_t line = static_cast<int64_t>(i) + 2;
    const std::string gpu = "GPU " + std::to_string(i);
    side.w().AddVersion(V(f, line, "gpu_name", gpu_names[i], gpu, "nvidia_smi_csv"));
    side.w().AddVersion(V(f, line, "driver", driver, "", "nvidia_smi_csv"));
  }
}

const DiffItem* FindKey(const std::vector<DiffItem>& items, const std::string& key) {
  for (const DiffItem& i : items) {
    if (i.key == key) return &i;
  }
  return nullptr;
}

TEST(DiffVersions, NcclUpgradeOnEveryHostIsOneItemAndRunTimeVersionWins) {
  TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  for (const std::string host : {"node-1", "node-2"}) {
    NcclLog(good, host, 4100, "2.18.3");
    NcclLog(bad, host, 5100, "2.21.5");
    // pip reports the same installed wheel on both sides; what ran differs.
    PipFreeze(good, host, {{"nvidia-nccl-cu12", "2.18.1"}});
    PipFreeze(bad, host, {{"nvidia-nccl-cu12", "2.18.1"}});
  }
  const auto items = diff::DiffVersions(good.Open("good"), bad.Open("bad"));
  ASSERT_EQ(items.size(), 1u);
  const DiffItem& it = items[0];
  EXPECT_EQ(it.section, "versions");
  EXPECT_EQ(it.kind, "changed");
  EXPECT_EQ(it.key, "nccl");
  EXPECT_FALSE(it.host.has_value());
  EXPECT_EQ(it.good, "2.18.3");
  EXPECT_EQ(it.bad, "2.21.5");
  EXPECT_EQ(it.score, 80);
  EXPECT_EQ(it.summary, "NCCL 2.18.3 -> 2.21.5 on all 2 hosts");
  ASSERT_FALSE(it.good_evidence.empty());
  ASSERT_FALSE(it.bad_evidence.empty());
  EXPECT_EQ(it.good_evidence[0].text, "NCCL version 2.18.3+cuda12.1");
  EXPECT_EQ(it.good_evidence[0].line, 2);
  EXPECT_EQ(it.good_evidence[0].path, "hosts/node-1/logs/train.log");
  EXPECT_EQ(it.bad_evidence[0].text, "NCCL version 2.21.5+cuda12.1");
  EXPECT_EQ(TextField(it, "sources_bad"), "nccl_log");
  EXPECT_EQ(IntField(it, "hosts_total"), 2);
}

TEST(DiffVersions, OneHostDisagreeingIsAnItemForThatHost) {
  TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  for (const std::string host : {"node-1", "node-2", "node-3"}) {
    GpuQuery(good, host, "535.104.05", {"NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"});
    GpuQuery(bad, host, host == "node-3" ? "550.54.15" : "535.104.05",
             {"NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"});
  }
  const auto items = diff::DiffVersions(good.Open("good"), bad.Open("bad"));
  ASSERT_EQ(items.size(), 1u);
  const DiffItem& it = items[0];
  EXPECT_EQ(it.key, "driver");
  EXPECT_EQ(it.host, "node-3");
  EXPECT_EQ(it.good, "535.104.05");
  EXPECT_EQ(it.bad, "550.54.15");
  EXPECT_EQ(it.score, 80);
  EXPECT_EQ(it.summary, "NVIDIA driver 535.104.05 -> 550.54.15 on host node-3");
  ASSERT_EQ(it.bad_evidence.size(), 1u);
  EXPECT_EQ(it.bad_evidence[0].path, "hosts/node-3/versions/nvidia_smi_query.txt");
  EXPECT_EQ(it.bad_evidence[0].text, "0, NVIDIA H100 80GB HBM3, 9.0, 550.54.15, 81559 MiB");
  EXPECT_EQ(IntField(it, "hosts_changed"), 1);
  EXPECT_EQ(IntField(it, "hosts_total"), 3);
}

TEST(DiffVersions, PerGpuValuesFoldIntoOneItemPerHostChange) {
  TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  GpuQuery(good, "node-1", "535.104.05", std::vector<std::string>(8, "NVIDIA H100 80GB HBM3"));
  GpuQuery(bad, "node-1", "535.104.05", std::vector<std::string>(8, "NVIDIA A100-SXM4-80GB"));
  const auto items = diff::DiffVersions(good.Open("good"), bad.Open("bad"));
  ASSERT_EQ(items.size(), 1u);  // not one per GPU
  EXPECT_EQ(items[0].key, "gpu_name");
  EXPECT_EQ(items[0].good, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(items[0].bad, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(items[0].score, 40);  // not a key component
  EXPECT_EQ(items[0].host, "node-1");
}

TEST(DiffVersions, NewMachinesWithTheSameVersionsAreNoDifference) {
  TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  PipFreeze(good, "a100-r1", {{"torch", "2.3.0+cu121"}});
  PipFreeze(good, "a100-r2", {{"torch", "2.3.0+cu121"}});
  PipFreeze(bad, "h100-x7", {{"torch", "2.3.0+cu121"}});
  PipFreeze(bad, "h100-x8", {{"torch", "2.3.0+cu121"}});
  EXPECT_TRUE(diff::DiffVersions(good.Open("good"), bad.Open("bad")).empty());
}

TEST(DiffVersions, NewMachinesDisagreeingAreComparedAsValueSets) {
  TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  PipFreeze(good, "a100-r1", {{"torch", "2.3.0+cu121"}});
  PipFreeze(good, "a100-r2", {{"torch", "2.3.0+cu121"}});
  PipFreeze(bad, "h100-x7", {{"torch", "2.3.0+cu121"}});
  PipFreeze(bad, "h100-x8", {{"torch", "2.4.0+cu121"}});
  const auto items = diff::DiffVersions(good.Open("good"), bad.Open("bad"));
  ASSERT_EQ(items.size(), 1u);
  const DiffItem& it = items[0];
  EXPECT_EQ(it.key, "torch");
  EXPECT_FALSE(it.host.has_value());  // h100-x8 has no twin in good
  EXPECT_EQ(it.good, "2.3.0+cu121");
  EXPECT_EQ(it.bad, "2.3.0+cu121 (1 host), 2.4.0+cu121 (1 host)");
  EXPECT_EQ(TextField(it, "compared_by"), "value_set");
  EXPECT_EQ(it.score, 80);
  ASSERT_FALSE(it.bad_evidence.empty());
  EXPECT_EQ(it.bad_evidence[0].text, "torch==2.4.0+cu121");  // the host that differs
}

TEST(DiffVersions, PackagesAddedAndRemovedOnlyWhereTheReportExists) {
  TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  PipFreeze(
      good, "node-1",
      {{"flash-attn", "2.5.8"}, {"nvidia-cuda-runtime-cu12", "12.1.105"}, {"numpy", "1.26.4"}});
  PipFreeze(bad, "node-1",
            {{"nvidia-cuda-runtime-cu12", "12.4.127"}, {"numpy", "1.26.4"}, {"triton", "2.3.1"}});
  // ds_report only on good: its facts are not "removed" in bad, bad never ran it.
  const int64_t ds = good.File("hosts/node-1/versions/ds_report.txt", "version", "node-1",
                               {"DeepSpeed general environment info:",
                                "deepspeed info ................... 0.14.0, unknown, unknown"});
  good.w().AddVersion(V(ds, 2, "deepspeed", "0.14.0", "", "ds_report"));
  auto items = diff::DiffVersions(good.Open("good"), bad.Open("bad"));
  ASSERT_EQ(items.size(), 3u);
  // Ranked: key component changed (80), key component added (60), other
  // package removed (25).
  EXPECT_EQ(items[0].key, "pip:nvidia-cuda-runtime-cu12");
  EXPECT_EQ(items[0].kind, "changed");
  EXPECT_EQ(items[0].score, 80);
  EXPECT_EQ(items[0].summary, "nvidia-cuda-runtime-cu12 (pip) 12.1.105 -> 12.4.127 on host node-1");
  EXPECT_EQ(items[1].key, "triton");
  EXPECT_EQ(items[1].kind, "added");
  EXPECT_EQ(items[1].score, 60);
  EXPECT_EQ(items[1].summary, "Triton 2.3.1 added on host node-1");
  ASSERT_EQ(items[1].bad_evidence.size(), 1u);
  EXPECT_EQ(items[1].bad_evidence[0].text, "triton==2.3.1");
  EXPECT_EQ(items[2].key, "pip:flash-attn");
  EXPECT_EQ(items[2].kind, "removed");
  EXPECT_EQ(items[2].good, "2.5.8");
  EXPECT_FALSE(items[2].bad.has_value());
  EXPECT_EQ(items[2].score, 25);
  EXPECT_EQ(items[2].summary, "flash-attn (pip) 2.5.8 removed on host node-1");
  ASSERT_EQ(items[2].good_evidence.size(), 1u);
  EXPECT_EQ(items[2].good_evidence[0].text, "flash-attn==2.5.8");
  EXPECT_TRUE(items[2].bad_evidence.empty());
  EXPECT_EQ(FindKey(items, "deepspeed"), nullptr);
}

TEST(DiffVersions, SharedLauncherLogAttributesNcclVersionsByTheirPrefixHost) {
  TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  for (SideIndex* side : {&good, &bad}) {
    const bool is_bad = side == &bad;
    // A launcher log without a host of its own (collected from a shared disk).
    const int64_t f = side->File(
        "launcher/slurm-4242.out", "log", std::nullopt,
        {"NCCL version 2.19.3+cuda12.3", "node-1:100:110 [0] NCCL INFO cudaDriverVersion 12040",
         is_bad ? "NCCL version 2.20.5+cuda12.4" : "NCCL version 2.19.3+cuda12.3",
         "node-2:200:210 [0] NCCL INFO cudaDriverVersion 12040"});
    side->w().AddVersion(V(f, 1, "nccl", "2.19.3", "host node-1 pid 100", "nccl_log"));
    side->w().AddVersion(
        V(f, 3, "nccl", is_bad ? "2.20.5" : "2.19.3", "host node-2 pid 200", "nccl_log"));
  }
  const auto items = diff::DiffVersions(good.Open("good"), bad.Open("bad"));
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].host, "node-2");
  EXPECT_EQ(items[0].summary, "NCCL 2.19.3 -> 2.20.5 on host node-2");
  ASSERT_EQ(items[0].bad_evidence.size(), 1u);
  EXPECT_EQ(items[0].bad_evidence[0].line, 3);
  EXPECT_EQ(items[0].bad_evidence[0].bundle, "bad-bundle");
}

TEST(DiffVersions, IdenticalRunsOfDifferentLengthAndEmptyIndexesSayNothing) {
  TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad"), empty_good(tmp, "eg"), empty_bad(tmp, "eb");
  for (const std::string host : {"node-1", "node-2"}) {
    NcclLog(good, host, 4100, "2.18.3");
    NcclLog(bad, host, 9100, "2.18.3");  // another pid: another run
    GpuQuery(good, host, "535.104.05", {"NVIDIA H100 80GB HBM3"});
    GpuQuery(bad, host, "535.104.05", {"NVIDIA H100 80GB HBM3"});
  }
  good.File("hosts/node-1/logs/extra.log", "log", "node-1",
            {"step 1 loss 2.31", "step 2 loss 2.20"});
  empty_good.File("hosts/node-1/logs/train.log", "log", "node-1", {"step 1 loss 2.31"});
  EXPECT_TRUE(diff::DiffVersions(good.Open("good"), bad.Open("bad")).empty());
  EXPECT_TRUE(diff::DiffVersions(empty_good.Open("good"), empty_bad.Open("bad")).empty());
}

}  // namespace
}  // namespace casefile
