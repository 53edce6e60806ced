// The configs section of the diff: config files, environment (dumps and
// NCCL's "set by environment" report) and the job's command line, compared
// with identity (hosts, ranks, ports, times) left out.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "diff/config_keys.h"
#include "diff/config_values.h"
#include "diff/sections.h"
#include "sections_b_index.h"

namespace casefile {
namespace {

using diff::DiffItem;
using test::SideIndex;
using test::TempDir;

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

std::vector<std::string> Keys(const std::vector<DiffItem>& items) {
  std::vector<std::string> out;
  for (const DiffItem& i : items) out.push_back(i.key);
  return out;
}

// A config file: its lines, and the configs rows ingest flattens from it
// (key, value, line).
int64_t Config(SideIndex& side, const std::string& path, const std::string& host,
               const std::vector<std::string>& lines,
               const std::vector<std::tuple<std::string, std::string, int64_t>>& rows) {
  const int64_t f = side.File(path, "config", host, lines);
  for (const auto& [key, value, line] : rows) side.w().AddConfig({f, key, value, line});
  return f;
}

// An env.txt as the collector writes it: KEY=VALUE lines, sorted.
int64_t EnvDump(SideIndex& side, const std::string& host,
                const std::vector<std::pair<std::string, std::string>>& vars) {
  std::vector<std::string> lines;
  std::vector<std::tuple<std::string, std::string, int64_t>> rows;
  for (const auto& [k, v] : vars) {
    lines.push_back(k + "=" + v);
    rows.emplace_back(k, v, static_cast<int64_t>(lines.size()));
  }
  return Config(side, "hosts/" + host + "/env/env.txt", host, lines, rows);
}

TEST(DiffConfigs, Fp16SwitchInDeepSpeedConfigOnNewMachines) {
  TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  Config(good, "hosts/node-1/configs/ds_config.json", "node-1",
         {"{", "  \"train_micro_batch_size_per_gpu\": 4,", "  \"gradient_clipping\": 1.0,",
          "  \"bf16\": {\"enabled\": true},", "  \"fp16\": {\"enabled\": false},",
          "  \"zero_optimization\": {\"stage\": 2}", "}"},
         {{"train_micro_batch_size_per_gpu", "4", 2},
          {"gradient_clipping", "1.0", 3},
          {"bf16.enabled", "true", 4},
          {"fp16.enabled", "false", 5},
          {"zero_optimization.stage", "2", 6}});
  // The bad run ran on another machine: the path names another host.
  Config(bad, "hosts/node-7/configs/ds_config.json", "node-7",
         {"{", "  \"train_micro_batch_size_per_gpu\": 4,", "  \"gradient_clipping\": 1.0,",
          "  \"bf16\": {\"enabled\": false},", "  \"fp16\": {", "    \"enabled\": true,",
          "    \"loss_scale\": 0,", "    \"initial_scale_power\": 16", "  },",
          "  \"zero_optimization\": {\"stage\": 2}", "}"},
         {{"train_micro_batch_size_per_gpu", "4", 2},
          {"gradient_clipping", "1.0", 3},
          {"bf16.enabled", "false", 4},
          {"fp16.enabled", "true", 6},
          {"fp16.loss_scale", "0", 7},
          {"fp16.initial_scale_power", "16", 8},
          {"zero_optimization.stage", "2", 10}});
  const auto items = diff::DiffConfigs(good.Open("good"), bad.Open("bad"));
  ASSERT_EQ(Keys(items),
            (std::vector<std::string>{"ds_config.json:bf16.enabled", "ds_config.json:fp16.enabled",
                                      "ds_config.json:fp16.initial_scale_power",
                                      "ds_config.json:fp16.loss_scale"}));
  const DiffItem& fp16 = items[1];
  EXPECT_EQ(fp16.section, "configs");
  EXPECT_EQ(fp16.kind, "changed");
  EXPECT_EQ(fp16.good, "false");
  EXPECT_EQ(fp16.bad, "true");
  EXPECT_EQ(fp16.score, 75);
  EXPECT_EQ(fp16.summary, "ds_config.json: fp16.enabled false -> true on host node-7");
  ASSERT_EQ(fp16.good_evidence.size(), 1u);
  EXPECT_EQ(fp16.good_evidence[0].text, "  \"fp16\": {\"enabled\": false},");
  EXPECT_EQ(fp16.good_evidence[0].line, 5);
  ASSERT_EQ(fp16.bad_evidence.size(), 1u);
  EXPECT_EQ(fp16.bad_evidence[0].text, "    \"enabled\": true,");
  EXPECT_EQ(fp16.bad_evidence[0].path, "hosts/node-7/configs/ds_config.json");
  EXPECT_EQ(TextField(fp16, "file_good"), "hosts/<host>/configs/ds_config.json");
  EXPECT_EQ(TextField(fp16, "config_kind"), "deepspeed");
  EXPECT_EQ(items[0].score, 75);  // bf16 switched off
  // The keys the fp16 block brings are part of the switch.
  EXPECT_EQ(items[3].kind, "added");
  EXPECT_EQ(items[3].score, 25);
  EXPECT_EQ(TextField(items[3], "part_of"), "fp16.enabled");
  EXPECT_EQ(items[3].summary, "ds_config.json: fp16.loss_scale = 0 only in bad on host node-7");
}

TEST(DiffConfigs, ConfigsOfOneKindMatchAcrossNamesAndLoneFilesAreOneItem) {
  TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  Config(good, "hosts/node-1/configs/ds_config_stage2.json", "node-1",
         {"{\"train_batch_size\": 64, \"bf16\": {\"enabled\": true},",
          " \"zero_optimization\": {\"stage\": 2}}"},
         {{"train_batch_size", "64", 1},
          {"bf16.enabled", "true", 1},
          {"zero_optimization.stage", "2", 2}});
  Config(bad, "hosts/node-1/configs/ds_config_stage3.json", "node-1",
         {"{\"train_batch_size\": 64, \"bf16\": {\"enabled\": true},",
          " \"zero_optimization\": {\"stage\": 3}}"},
         {{"train_batch_size", "64", 1},
          {"bf16.enabled", "true", 1},
          {"zero_optimization.stage", "3", 2}});
  Config(bad, "hosts/node-1/configs/data.yaml", "node-1", {"dataset: c4", "shuffle: true"},
         {{"dataset", "c4", 1}, {"shuffle", "true", 2}});
  const auto items = diff::DiffConfigs(good.Open("good"), bad.Open("bad"));
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].key, "ds_config_stage3.json:zero_optimization.stage");
  EXPECT_EQ(items[0].score, 70);
  EXPECT_EQ(items[0].good, "2");
  EXPECT_EQ(items[0].bad, "3");
  EXPECT_EQ(TextField(items[0], "file_good"), "hosts/<host>/configs/ds_config_stage2.json");
  EXPECT_EQ(items[0].bad_evidence.at(0).text, " \"zero_optimization\": {\"stage\": 3}}");
  EXPECT_EQ(items[1].key, "data.yaml");
  EXPECT_EQ(items[1].kind, "added");
  EXPECT_EQ(items[1].score, 25);
  EXPECT_EQ(items[1].summary, "config file hosts/<host>/configs/data.yaml (2 keys) only in bad");
  EXPECT_EQ(items[1].bad_evidence.at(0).text, "dataset: c4");
}

TEST(DiffConfigs, EnvironmentChangesWithoutIdentityNoise) {
  TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  for (const std::string host : {"node-1", "node-2"}) {
    const std::string rank = host == "node-1" ? "0" : "8";
    EnvDump(
        good, host,
        {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"},
         {"HF_DATASETS_CACHE", "/cache/run-2026-11-29T10:11:12"},
         {"MASTER_ADDR", "10.0.0.1"},
         {"MASTER_PORT", "29500"},
         {"NCCL_IB_HCA", "mlx5_0,mlx5_1"},
         {"OMP_NUM_THREADS", "8"},
         {"RANK", rank},
         {"SLURM_JOB_ID", "4242"},
         {"TORCH_NCCL_DEBUG_INFO_TEMP_FILE", "/tmp/" + host + "/nccl_trace_rank_"},
         {"XLA_FLAGS", "--xla_gpu_enable_latency_hiding_scheduler=true --xla_gpu_graph_level=0"}});
    EnvDump(
        bad, host,
        {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"},
         {"HF_DATASETS_CACHE", "/cache/run-2026-11-30T22:01:02"},
         {"MASTER_ADDR", "10.0.0.9"},
         {"MASTER_PORT", "29501"},
         {"NCCL_ALGO", "Tree"},
         {"NCCL_IB_HCA", host == "node-2" ? "mlx5_0" : "mlx5_0,mlx5_1"},
         {"OMP_NUM_THREADS", "4"},
         {"RANK", rank},
         {"SLURM_JOB_ID", "4377"},
         {"TORCH_NCCL_DEBUG_INFO_TEMP_FILE", "/tmp/" + host + "/nccl_trace_rank_"},
         {"XLA_FLAGS", "--xla_gpu_enable_latency_hiding_scheduler=false --xla_gpu_graph_level=0"}});
  }
  const auto items = diff::DiffConfigs(good.Open("good"), bad.Open("bad"));
  // NCCL_ALGO forces an algorithm on every collective: a transport switch
  // set outranks a changed value of another important variable.
  ASSERT_EQ(Keys(items),
            (std::vector<std::string>{"env:NCCL_ALGO", "env:NCCL_IB_HCA",
                                      "env:XLA_FLAGS --xla_gpu_enable_latency_hiding_scheduler",
                                      "env:OMP_NUM_THREADS"}));
  EXPECT_EQ(items[0].kind, "added");
  EXPECT_EQ(items[0].score, 72);
  EXPECT_EQ(items[0].summary, "environment: NCCL_ALGO = Tree only in bad on all 2 hosts");
  EXPECT_EQ(items[0].bad_evidence.size(), 2u);
  EXPECT_EQ(items[1].host, "node-2");
  EXPECT_EQ(items[1].score, 70);
  EXPECT_EQ(items[1].summary, "environment: NCCL_IB_HCA mlx5_0,mlx5_1 -> mlx5_0 on host node-2");
  EXPECT_EQ(items[1].bad_evidence.at(0).path, "hosts/node-2/env/env.txt");
  EXPECT_EQ(items[1].bad_evidence.at(0).text, "NCCL_IB_HCA=mlx5_0");
  EXPECT_EQ(items[2].good, "true");
  EXPECT_EQ(items[2].bad, "false");
  EXPECT_EQ(items[2].score, 70);
  EXPECT_FALSE(items[2].host.has_value());
  EXPECT_EQ(items[3].score, 35);
  EXPECT_EQ(items[3].good, "8");
  EXPECT_EQ(items[3].bad, "4");
}

// NCCL_DEBUG=INFO output of one process; `wrap` is the launcher's prefix.
int64_t NcclLog(SideIndex& side, const std::string& host, const std::string& wrap,
                const std::string& hca) {
  const std::string p = wrap + host + ":4242:4300 [0] NCCL INFO ";
  const int64_t f = side.File(
      "hosts/" + host + "/logs/train.log", "log", host,
      {p + "Bootstrap : Using eth0:10.0.0.1<0>", p + "cudaDriverVersion 12040",
       wrap + "NCCL version 2.19.3+cuda12.3", p + "NCCL_SOCKET_IFNAME set by environment to eth0",
       p + "NCCL_IB_HCA set by environment to " + hca,
       p + "comm 0x55d3c0a0b000 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 18000 commId "
           "0x49bbd7790311d5eb - Init COMPLETE",
       p + "comm 0x55d3c0a0c000 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId "
           "0x51aa00aa00aa00aa - Init COMPLETE"});
  for (int64_t first : {1, 7}) {
    NcclRankRow r;
    r.file_id = f;
    r.line_no = first;
    r.host = host;
    r.pid = 4242;
    r.env = "NCCL_IB_HCA=" + hca + ",NCCL_SOCKET_IFNAME=eth0";
    r.last_line = 7;
    side.w().AddNcclRank(r);
  }
  return f;
}

TEST(DiffConfigs, NcclReportedEnvironmentStandsInForAMissingDump) {
  TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  NcclLog(good, "node-1", "", "mlx5_0,mlx5_1");
  NcclLog(bad, "node-1", "[default0]:", "mlx5_0");
  // Only good has a dump, on another host: its variables cannot be
  // compared with a side that has none.
  EnvDump(good, "node-2", {{"PATH", "/usr/local/cuda/bin:/usr/bin"}});
  const auto items = diff::DiffConfigs(good.Open("good"), bad.Open("bad"));
  ASSERT_EQ(items.size(), 1u);
  const DiffItem& it = items[0];
  EXPECT_EQ(it.key, "env:NCCL_IB_HCA");
  EXPECT_EQ(it.good, "mlx5_0,mlx5_1");
  EXPECT_EQ(it.bad, "mlx5_0");
  EXPECT_EQ(it.host, "node-1");
  ASSERT_EQ(it.good_evidence.size(), 1u);
  EXPECT_EQ(it.good_evidence[0].line, 5);
  EXPECT_EQ(it.good_evidence[0].text,
            "node-1:4242:4300 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0,mlx5_1");
  ASSERT_EQ(it.bad_evidence.size(), 1u);
  EXPECT_EQ(it.bad_evidence[0].text,
            "[default0]:node-1:4242:4300 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0");
}

TEST(DiffConfigs, CommandLineFlagsWithoutLauncherIdentity) {
  TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  good.File("hosts/node-1/job/job_cmdline.txt", "log", "node-1",
            {"torchrun --nnodes 2 --node_rank 0 --master_addr 10.0.0.1 --master_port 29500 "
             "train.py --deepspeed ds_config.json --lr 3e-4 --bf16 --run_name 'pretrain "
             "2026-11-29'"});
  bad.File("hosts/node-1/job/job_cmdline.txt", "log", "node-1",
           {"torchrun --nnodes 2 --node_rank 1 --master_addr 10.0.0.9 --master_port 29500 "
            "train.py --deepspeed ds_config.json --lr 6e-4 --fp16 --run_name 'pretrain "
            "2026-11-30'"});
  const auto items = diff::DiffConfigs(good.Open("good"), bad.Open("bad"));
  ASSERT_EQ(Keys(items),
            (std::vector<std::string>{"cmdline:--bf16", "cmdline:--fp16", "cmdline:--lr"}));
  EXPECT_EQ(items[0].kind, "removed");
  EXPECT_EQ(items[0].score, 75);
  EXPECT_EQ(items[1].kind, "added");
  EXPECT_EQ(items[1].score, 75);
  EXPECT_EQ(items[2].summary, "command line: --lr 3e-4 -> 6e-4 on host node-1");
  EXPECT_EQ(items[2].score, 70);
  EXPECT_EQ(items[2].bad_evidence.at(0).line, 1);
}

TEST(DiffConfigs, SameHealthyRunOfAnotherLengthAndEmptyIndexesSayNothing) {
  TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad"), eg(tmp, "eg"), eb(tmp, "eb");
  for (SideIndex* side : {&good, &bad}) {
    const bool longer = side == &bad;
    Config(*side, "hosts/node-1/configs/ds_config.json", "node-1",
           {"{\"train_micro_batch_size_per_gpu\": 4, \"bf16\": {\"enabled\": true}}"},
           {{"train_micro_batch_size_per_gpu", "4", 1}, {"bf16.enabled", "true", 1}});
    // trainer_state.json is what the run did, not how it was set up.
    Config(*side,
           "output/checkpoint-" + std::string(longer ? "200" : "100") + "/trainer_state.json",
           "node-1", {"{", "  \"best_metric\": null,", "  \"global_step\": 100,", "}"},
           {{"best_metric", "null", 2},
            {"global_step", longer ? "200" : "100", 3},
            {"log_history[0].loss", "2.31", 4},
            {"log_history[1].loss", longer ? "2.20" : "2.21", 5}});
    EnvDump(*side, "node-1", {{"NCCL_DEBUG", "INFO"}, {"RANK", "0"}});
  }
  eg.File("hosts/node-1/logs/train.log", "log", "node-1", {"step 1 loss 2.31"});
  EXPECT_TRUE(diff::DiffConfigs(good.Open("good"), bad.Open("bad")).empty());
  EXPECT_TRUE(diff::DiffConfigs(eg.Open("good"), eb.Open("bad")).empty());
}

// ---- the helpers ------------------------------------------------------------

TEST(DiffConfigKeys, IdentityKeysAndLookalikes) {
  for (const char* k : {"MASTER_ADDR", "MASTER_PORT", "RANK", "LOCAL_RANK", "NODE_RANK",
                        "OMPI_COMM_WORLD_RANK", "SLURM_JOB_ID", "SLURM_NODELIST", "NCCL_COMM_ID",
                        "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT", "TPU_WORKER_HOSTNAMES",
                        "MEGASCALE_COORDINATOR_ADDRESS", "--node_rank", "--master-addr",
                        "--local-rank", "--rdzv_endpoint", "main_process_ip", "HOSTNAME"}) {
    EXPECT_TRUE(diff::IsIdentityKey(k)) << k;
  }
  for (const char* k : {"NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "SLURM_NNODES", "OMPI_MCA_btl",
                        "WORLD_SIZE", "pad_token_id", "lora_rank", "CUDA_VISIBLE_DEVICES", "--lr",
                        "fp16.enabled", "NCCL_SOCKET_IFNAME"}) {
    EXPECT_FALSE(diff::IsIdentityKey(k)) << k;
  }
}

TEST(DiffConfigKeys, WeightsOfKeys) {
  using diff::KeyWeight;
  for (const char* k : {"optimizer.params.lr",
                        "optimizer.type",
                        "zero_optimization.stage",
                        "gradient_clipping",
                        "max_grad_norm",
                        "scheduler.params.warmup_max_lr",
                        "learning_rate",
                        "--learning-rate",
                        "fp16.loss_scale",
                        "fp16.hysteresis",
                        "bf16.enabled",
                        "torch_dtype",
                        "amp",
                        "optim",
                        "--tensor-model-parallel-size",
                        "NCCL_ALGO",
                        "XLA_FLAGS",
                        "LIBTPU_INIT_ARGS",
                        "TORCH_NCCL_ASYNC_ERROR_HANDLING",
                        "CUDA_DEVICE_MAX_CONNECTIONS",
                        "env.NCCL_DEBUG"}) {
    EXPECT_EQ(diff::WeightOfKey(k), KeyWeight::kImportant) << k;
  }
  for (const char* k : {"zero_optimization.overlap_comm", "logging_steps", "CUDA_HOME",
                        "OMP_NUM_THREADS", "dataset", "output_dir", "PYTHONPATH",
                        "zero_optimization.offload_param.device", "world_size"}) {
    EXPECT_EQ(diff::WeightOfKey(k), KeyWeight::kOther) << k;
  }
}

TEST(DiffConfigKeys, PrecisionSwitches) {
  for (const char* k :
       {"fp16.enabled", "bf16.enabled", "bfloat16.enabled", "amp.enabled", "--fp16", "--bf16",
        "torch_dtype", "dtype", "model.dtype", "mixed_precision", "use_amp"}) {
    EXPECT_TRUE(diff::IsPrecisionKey(k)) << k;
  }
  for (const char* k :
       {"fp16.loss_scale", "fp16.initial_scale_power", "bf16.bf16_master_weights_and_grads",
        "zero_optimization.offload_param.enabled", "gradient_clipping"}) {
    EXPECT_FALSE(diff::IsPrecisionKey(k)) << k;
  }
  EXPECT_TRUE(diff::IsPrecisionValue("true"));
  EXPECT_TRUE(diff::IsPrecisionValue("torch.bfloat16"));
  EXPECT_TRUE(diff::IsPrecisionValue("float16"));
  EXPECT_FALSE(diff::IsPrecisionValue("0"));
  EXPECT_FALSE(diff::IsPrecisionValue("auto"));
}

TEST(DiffConfigKeys, CommandWordsAndKeys) {
  using Words = std::vector<std::string>;
  EXPECT_EQ(diff::SplitCommandWords("python -m train --name 'a b' --x=\"c \\\"d\\\"\" e\\ f"),
            (Words{"python", "-m", "train", "--name", "a b", "--x=c \"d\"", "e f"}));
  // /proc/PID/cmdline: NUL after each word.
  std::string proc;
  for (const char* w : {"python", "train.py", "--lr", "1e-4"}) {
    proc += w;
    proc.push_back('\0');
  }
  EXPECT_EQ(diff::SplitCommandWords(proc), (Words{"python", "train.py", "--lr", "1e-4"}));
  using Keys = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(
      diff::WordsToKeys({"deepspeed", "train.py", "--lr", "-1", "--fp16", "--seed=7", "out"}, true),
      (Keys{{"argv[0]", "deepspeed"},
            {"arg[1]", "train.py"},
            {"--lr", "-1"},
            {"--fp16", "true"},
            {"--seed", "7"},
            {"arg[2]", "out"}}));
  EXPECT_EQ(diff::WordsToKeys({"--xla_a=true", "--xla_b"}, false),
            (Keys{{"--xla_a", "true"}, {"--xla_b", "true"}}));
}

TEST(DiffConfigValues, MaskIdentity) {
  EXPECT_EQ(diff::MaskIdentity("/tmp/node-7/trace", {"node-7"}), "/tmp/<host>/trace");
  EXPECT_EQ(diff::MaskIdentity("10.0.0.1:29500", {}), "<ip>");
  EXPECT_EQ(diff::MaskIdentity("run-2026-11-29T10:11:12Z", {}), "run-<time>");
  EXPECT_EQ(diff::MaskIdentity("ckpt_20261129-101112", {}), "ckpt_<time>");
  // Lookalikes kept: versions, a flag value, a longer dotted number.
  EXPECT_EQ(diff::MaskIdentity("2.18.3", {}), "2.18.3");
  EXPECT_EQ(diff::MaskIdentity("1.2.3.4.5", {}), "1.2.3.4.5");
  EXPECT_EQ(diff::MaskIdentity("mlx5_0,mlx5_1", {"ml"}), "mlx5_0,mlx5_1");
  EXPECT_EQ(diff::MaskIdentity("v12:34", {}), "v12:34");
}

}  // namespace
}  // namespace casefile
