// AttributeFromPath: host, task and rank from bundle paths (rules in
// path_attribution.h), including the look-alikes that must not match.
#include <gtest/gtest.h>

#include "parse/classify/classify.h"
#include "parse/classify/path_attribution.h"
#include "parse/version/version_facts.h"

namespace casefile {
namespace {

TEST(ClassifyPathTest, HostDirectoryAndRankDirectory) {
  PathAttribution a = AttributeFromPath("host-017/rank_3/train.log");
  EXPECT_EQ(a.host, "host-017");
  EXPECT_EQ(a.rank, 3);
  EXPECT_FALSE(a.task.has_value());
}

TEST(ClassifyPathTest, AnyNameUnderAHostsFolder) {
  EXPECT_EQ(AttributeFromPath("hosts/node03/logs/stdout.log").host, "node03");
  EXPECT_EQ(AttributeFromPath("bundle/hosts/gpu-a100-big/x.log").host, "gpu-a100-big");
  EXPECT_EQ(AttributeFromPath("machines/taurusi8017/dmesg.txt").host, "taurusi8017");
}

TEST(ClassifyPathTest, HostPatterns) {
  EXPECT_EQ(AttributeFromPath("node_2/x.log").host, "node_2");
  EXPECT_EQ(AttributeFromPath("Node03/x.log").host, "Node03");
  EXPECT_EQ(AttributeFromPath("logs/host017/x.log").host, "host017");
  EXPECT_EQ(AttributeFromPath("ip-10-0-1-23/x.log").host, "ip-10-0-1-23");
  // The outermost host-like directory wins ...
  EXPECT_EQ(AttributeFromPath("host-017/node03/x.log").host, "host-017");
  EXPECT_EQ(AttributeFromPath("bundle/hosts/h1/nodes/n2/x.log").host, "h1");
  // ... but a collector's folder at the root yields to the folder of the
  // host that wrote the files (a shared file system collected from one host).
  EXPECT_EQ(AttributeFromPath("hosts/login-1/logs/src/nodes/a100-r1/train.log").host, "a100-r1");
  EXPECT_EQ(AttributeFromPath("hosts/login-1/logs/run/node03/train.log").host, "node03");
  EXPECT_EQ(AttributeFromPath("hosts/login-1/logs/train.log").host, "login-1");
  // Not hosts: words that merely start with "host"/"node", bare numbers.
  EXPECT_FALSE(AttributeFromPath("hostfile").host.has_value());
  EXPECT_FALSE(AttributeFromPath("nodes_info/x.log").host.has_value());
  EXPECT_FALSE(AttributeFromPath("ip-10-0-1/x.log").host.has_value());
  EXPECT_FALSE(AttributeFromPath("logs/host-a/x.log").host.has_value());
}

TEST(ClassifyPathTest, TpuVmNamesGiveHostAndWorker) {
  PathAttribution a = AttributeFromPath("bundle/tpu-vm-abc-w-3/megascale.log");
  EXPECT_EQ(a.host, "tpu-vm-abc-w-3");
  EXPECT_EQ(a.task, "worker_3");
  PathAttribution b = AttributeFromPath("t1v-n-1234abcd-w-12/log.txt");
  EXPECT_EQ(b.host, "t1v-n-1234abcd-w-12");
  EXPECT_EQ(b.task, "worker_12");
  // An explicit task component closer to the file wins over the VM name.
  EXPECT_EQ(AttributeFromPath("t1v-n-1234abcd-w-12/task_5/log.txt").task, "task_5");
}

TEST(ClassifyPathTest, Tasks) {
  EXPECT_EQ(AttributeFromPath("worker_3/log.txt").task, "worker_3");
  EXPECT_EQ(AttributeFromPath("logs/worker-3.log").task, "worker_3");
  EXPECT_EQ(AttributeFromPath("logs/Worker7/out.txt").task, "worker_7");
  EXPECT_EQ(AttributeFromPath("slice_0/task_1/tpu.log").task, "slice_0/task_1");
  EXPECT_EQ(AttributeFromPath("mxla/task_4/tpu.log").task, "task_4");
  EXPECT_FALSE(AttributeFromPath("workers/log.txt").task.has_value());
  EXPECT_FALSE(AttributeFromPath("multitask_3/log.txt").task.has_value());
  EXPECT_FALSE(AttributeFromPath("worker_3/log.txt").host.has_value());
}

TEST(ClassifyPathTest, RankSpellings) {
  EXPECT_EQ(AttributeFromPath("logs/rank3.log").rank, 3);
  EXPECT_EQ(AttributeFromPath("rank_3/stdout.log").rank, 3);
  EXPECT_EQ(AttributeFromPath("run/rank-12/x.log").rank, 12);
  EXPECT_EQ(AttributeFromPath("logs/log_rank_2.txt").rank, 2);
  EXPECT_EQ(AttributeFromPath("Rank07.log").rank, 7);
  // The flight recorder's default dump name (formats.md 3.3).
  EXPECT_EQ(AttributeFromPath("tmp/nccl_trace_rank_0").rank, 0);
  // torchtitan's flight recorder layout.
  EXPECT_EQ(AttributeFromPath("dumps/rank_15").rank, 15);
}

TEST(ClassifyPathTest, ClosestComponentWinsForRank) {
  EXPECT_EQ(AttributeFromPath("rank_1/log_rank_2.txt").rank, 2);
  EXPECT_EQ(AttributeFromPath("rank_1/sub/out.txt").rank, 1);
}

TEST(ClassifyPathTest, NumbersThatAreNotRanks) {
  EXPECT_FALSE(AttributeFromPath("logs/train_3.log").rank.has_value());
  EXPECT_FALSE(AttributeFromPath("frank3.log").rank.has_value());
  EXPECT_FALSE(AttributeFromPath("local_rank_3.log").rank.has_value());
  EXPECT_FALSE(AttributeFromPath("localrank3.log").rank.has_value());
  EXPECT_FALSE(AttributeFromPath("ranks/all.log").rank.has_value());
  EXPECT_FALSE(AttributeFromPath("rank3of8.log").rank.has_value());
  // torchrun --log-dir: attempt_<n>/<local_rank>/ holds local ranks.
  EXPECT_FALSE(AttributeFromPath("run/attempt_0/3/stdout.log").rank.has_value());
  EXPECT_FALSE(AttributeFromPath("rank_1234567890.log").rank.has_value());
}

TEST(ClassifyPathTest, ProfilerFileNamesGiveTheHost) {
  // jax.profiler (formats.md 2.1).
  EXPECT_EQ(AttributeFromPath("plugins/profile/2023_01_22_17_22_49/taurusi8017.xplane.pb").host,
            "taurusi8017");
  EXPECT_EQ(
      AttributeFromPath("tb/plugins/profile/2023_01_22_17_22_49/n1.example.org.trace.json.gz").host,
      "n1.example.org");
  // torch.profiler's default worker name "<host>_<pid>" (formats.md 2.2).
  EXPECT_EQ(AttributeFromPath("traces/gpu-box_12345.1700000000000000000.pt.trace.json.gz").host,
            "gpu-box");
  // A host directory still wins over the file name.
  EXPECT_EQ(AttributeFromPath("host-2/traces/gpu-box_12345.1700000000000000000.pt.trace.json").host,
            "host-2");
  EXPECT_FALSE(
      AttributeFromPath("plugins/profile/2023_01_22/perfetto_trace.json.gz").host.has_value());
}

TEST(ClassifyPathTest, FileStemNamingAHost) {
  EXPECT_EQ(AttributeFromPath("logs/node03.log").host, "node03");
  PathAttribution a = AttributeFromPath("t1v-n-77-w-0.log");
  EXPECT_EQ(a.host, "t1v-n-77-w-0");
  EXPECT_EQ(a.task, "worker_0");
}

TEST(ClassifyPathTest, EmptyAndOddPaths) {
  PathAttribution a = AttributeFromPath("");
  EXPECT_FALSE(a.host || a.task || a.rank);
  PathAttribution b = AttributeFromPath("//host-1//rank2.log");
  EXPECT_EQ(b.host, "host-1");
  EXPECT_EQ(b.rank, 2);
}

TEST(CommandLineFile, TheCollectorsAndProcCopies) {
  EXPECT_TRUE(IsCommandLineFile("job/job_cmdline.txt"));
  EXPECT_TRUE(IsCommandLineFile("host-1/job/JOB_CMDLINE.TXT"));
  EXPECT_TRUE(IsCommandLineFile("proc_cmdline"));
  EXPECT_TRUE(IsCommandLineFile("node03/cmdline.txt"));
  EXPECT_FALSE(IsCommandLineFile("logs/cmdline_parser.log"));
  EXPECT_FALSE(IsCommandLineFile("job/cmdline/"));
  EXPECT_FALSE(IsCommandLineFile("my_cmdline.txt"));
}

TEST(VersionSource, PreferenceRunsFromRunTimeToEnvironment) {
  using version::SourcePreference;
  EXPECT_EQ(SourcePreference("nccl_log"), 0);
  EXPECT_LT(SourcePreference("collect_env"), SourcePreference("pip"));
  EXPECT_LT(SourcePreference("nvcc"), SourcePreference("cuda_dirs"));
  EXPECT_LT(SourcePreference("cuda_dirs"), SourcePreference("env"));
  EXPECT_GT(SourcePreference("something_else"), SourcePreference("env"));
}

}  // namespace
}  // namespace casefile
