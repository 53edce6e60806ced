// The runtime analyzer end to end: bundles written here go through ingest
// into an index, the analyzer reads the rows and scans the lines back.
// Each case pins the code, culprits and cited lines that the rules of
// docs/FINDINGS.md ("runtime") give, written by hand; the healthy case
// holds the look-alikes a clean run prints.
#include "analyze/analyzers/runtime/runtime_analyzer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyze/analyzer_test_util.h"

namespace casefile {
namespace {

std::unique_ptr<IndexReader> Index(const test::TempDir& tmp, const std::string& root) {
  return test::IndexOf(tmp, root);
}

AnalysisResult RunRuntime(const IndexReader& index) {
  return test::RunOne(index, MakeRuntimeAnalyzer());
}

const Finding* Find(const AnalysisResult& r, const std::string& code) {
  return test::FindCode(r, code);
}

bool Cited(const Finding& f, const std::string& path, int64_t line) {
  for (const Evidence& e : f.evidence) {
    if (e.path == path && e.line == line) return true;
  }
  return false;
}

std::string Codes(const AnalysisResult& r) {
  std::string s;
  for (const Finding& f : r.findings) s += f.code + ": " + f.summary + "\n";
  return s;
}

// Rank r's step line of a torch 2.3 job ([rankN]: prefix, Python logging).
std::string Step(int rank, int step, const std::string& clock) {
  return "[rank" + std::to_string(rank) + "]:2024-05-01 " + clock + ",000 - train - INFO - step " +
         std::to_string(step) + "/500 loss=2.41 step_time=0.412s\n";
}

TEST(RuntimeAnalyzer, KernelOomKillMatchedToTheRankByItsPid) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  std::string log =
      "+ torchrun --nnodes 1 --nproc_per_node 2 train.py\n"                           // 1
      "[rank0]:node-0:4240:4240 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"   // 2
      "[rank1]:node-0:4242:4242 [1] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n";  // 3
  log += Step(0, 1, "12:00:01") + Step(1, 1, "12:00:01");                             // 4-5
  log += Step(0, 2, "12:00:02") + Step(1, 2, "12:00:02");                             // 6-7
  log +=
      "[2024-05-01 12:03:12,100] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
      "(exitcode: -9) local_rank: 1 (pid: 4242) of binary: /usr/bin/python\n"  // 8
      "[2024-05-01 12:03:12,300] torch.distributed.elastic.multiprocessing.api: [WARNING] "
      "Sending process 4240 closing signal SIGTERM\n";  // 9
  test::WriteFile(root + "/logs/node-0/train.log", log);
  test::WriteFile(
      root + "/sysinfo/node-0/dmesg.txt",
      "[Wed May  1 11:58:40 2024] IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready\n"  // 1
      "[Wed May  1 12:03:11 2024] python invoked oom-killer: "
      "gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0\n"  // 2
      "[Wed May  1 12:03:11 2024] Mem-Info:\n"                                          // 3
      "[Wed May  1 12:03:11 2024] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,"
      "mems_allowed=0-1,global_oom,task_memcg=/user.slice,task=python,pid=4242,uid=1000\n"  // 4
      "[Wed May  1 12:03:11 2024] Out of memory: Killed process 4242 (python) "
      "total-vm:98214400kB, anon-rss:83886080kB, file-rss:10240kB, shmem-rss:0kB, UID:1000 "
      "pgtables:170000kB oom_score_adj:0\n"  // 5
      "[Wed May  1 12:03:12 2024] oom_reaper: reaped process 4242 (python), now anon-rss:0kB, "
      "file-rss:0kB, shmem-rss:0kB\n");  // 6
  auto index = Index(tmp, root);
  const AnalysisResult r = RunRuntime(*index);
  ASSERT_EQ(r.findings.size(), 1u) << Codes(r);
  const Finding* f = Find(r, "runtime.oom_killed");
  ASSERT_NE(f, nullptr) << Codes(r);
  ASSERT_EQ(f->culprits.size(), 1u);
  EXPECT_EQ(f->culprits[0].rank, 1);
  EXPECT_EQ(f->culprits[0].host, "node-0");
  EXPECT_TRUE(Cited(*f, "sysinfo/node-0/dmesg.txt", 4));
  EXPECT_TRUE(Cited(*f, "sysinfo/node-0/dmesg.txt", 5));
  EXPECT_TRUE(Cited(*f, "logs/node-0/train.log", 8));
  EXPECT_NE(f->summary.find("pid 4242 (python), anon-rss 80.00 GiB; at 2024-05-01 12:03:11 UTC"),
            std::string::npos)
      << f->summary;
}

TEST(RuntimeAnalyzer, DeviceAssertAndTheFirstFailure) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  std::string log = Step(2, 40, "12:10:00") + Step(3, 40, "12:10:00");  // 1-2
  log +=
      "[rank2]:../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [7,0,0], "
      "thread: [64,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of "
      "bounds\"` failed.\n"                                               // 3
      "[rank2]:Traceback (most recent call last):\n"                      // 4
      "[rank2]:  File \"/workspace/train.py\", line 88, in <module>\n"    // 5
      "[rank2]:    logits = model(batch)\n"                               // 6
      "[rank2]:RuntimeError: CUDA error: device-side assert triggered\n"  // 7
      "[rank2]:CUDA kernel errors might be asynchronously reported at some other API call, so "
      "the stacktrace below might be incorrect.\n"                       // 8
      "[rank2]:For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"  // 9
      "[rank3]:[E501 12:20:01.000000000 ProcessGroupNCCL.cpp:1595] [PG 0 Rank 3] Process group "
      "watchdog thread terminated with exception: [Rank 3] Watchdog caught collective operation "
      "timeout: WorkNCCL(SeqNum=80, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
      "Timeout(ms)=600000) ran for 600012 milliseconds before timing out.\n";  // 10
  test::WriteFile(root + "/logs/node-0/train.log", log);
  auto index = Index(tmp, root);
  const AnalysisResult r = RunRuntime(*index);
  const Finding* cuda = Find(r, "runtime.cuda_error");
  ASSERT_NE(cuda, nullptr) << Codes(r);
  ASSERT_EQ(cuda->culprits.size(), 1u);
  EXPECT_EQ(cuda->culprits[0].rank, 2);
  EXPECT_TRUE(Cited(*cuda, "logs/node-0/train.log", 7));
  EXPECT_TRUE(Cited(*cuda, "logs/node-0/train.log", 3));
  EXPECT_NE(cuda->summary.find("`-sizes[i] <= index && index < sizes[i] && \"index out of "
                               "bounds\"`"),
            std::string::npos)
      << cuda->summary;
  const Finding* first = Find(r, "runtime.first_failure");
  ASSERT_NE(first, nullptr) << Codes(r);
  EXPECT_EQ(first->severity, Severity::kInfo);
  ASSERT_EQ(first->culprits.size(), 1u);
  EXPECT_EQ(first->culprits[0].rank, 2);
  EXPECT_TRUE(Cited(*first, "logs/node-0/train.log", 7));
  // The traceback has no time; the step line before it has.
  EXPECT_NE(first->summary.find("at about 2024-05-01 12:10:00 UTC"), std::string::npos)
      << first->summary;
  EXPECT_EQ(r.findings.size(), 2u) << Codes(r);
}

// torchrun's "[defaultN]:" names only the local rank. NCCL's world
// communicator lines put ranks 0-3 on node-0 and 4-7 on node-1, so the
// CUDA OOM under "[default2]:" on node-1 is global rank 6.
TEST(RuntimeAnalyzer, LocalRankOfATeedLogMapsToItsGlobalRank) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  for (int node = 0; node < 2; ++node) {
    const std::string host = "node-" + std::to_string(node);
    std::string log;
    for (int k = 0; k < 4; ++k) {
      const int g = node * 4 + k;
      log += "[default" + std::to_string(k) + "]:" + host + ":" + std::to_string(900 + g) + ":" +
             std::to_string(950 + g) + " [" + std::to_string(k) + "] NCCL INFO comm 0x7f3a" +
             std::to_string(k) + " rank " + std::to_string(g) + " nranks 8 cudaDev " +
             std::to_string(k) + " busId 1b000 - Init COMPLETE\n";
    }
    if (node == 1) {
      log +=
          "[default2]:Traceback (most recent call last):\n"                    // 5
          "[default2]:  File \"/workspace/train.py\", line 88, in <module>\n"  // 6
          "[default2]:    loss.backward()\n"                                   // 7
          "[default2]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
          "GPU 2 has a total capacity of 79.15 GiB of which 1.06 GiB is free.\n";  // 8
    }
    test::WriteFile(root + "/logs/" + host + "/train.log", log);
  }
  auto index = Index(tmp, root);
  const AnalysisResult r = RunRuntime(*index);
  const Finding* f = Find(r, "runtime.cuda_oom");
  ASSERT_NE(f, nullptr) << Codes(r);
  ASSERT_EQ(f->culprits.size(), 1u) << Codes(r);
  EXPECT_EQ(f->culprits[0].rank, 6) << Codes(r);
  EXPECT_EQ(f->culprits[0].host, "node-1");
  EXPECT_TRUE(Cited(*f, "logs/node-1/train.log", 8)) << Codes(r);
}

TEST(RuntimeAnalyzer, HealthyLookAlikesStaySilent) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  std::string log =
      "+ export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
      "[rank0]:2024-05-01 12:00:00,000 - train - INFO - config: {'oom_retry': True, "
      "'oom_kill_disable': False, 'auto_find_batch_size': True}\n";
  log += Step(0, 1, "12:00:01");
  log +=
      "[rank0]:2024-05-01 12:00:02,000 - train - WARNING - CUDA out of memory at batch size 64, "
      "retrying with 32\n"
      "[rank0]:Traceback (most recent call last):\n"
      "[rank0]:  File \"/workspace/train.py\", line 51, in step\n"
      "[rank0]:    out = model(x)\n"
      "[rank0]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has "
      "a total capacity of 79.10 GiB of which 6.01 GiB is free.\n";
  for (int s = 2; s <= 6; ++s) log += Step(0, s, "12:00:0" + std::to_string(s + 2));
  log += "[2024-05-01 12:01:00,000] [INFO] [launch.py:347:main] Process 4100 exits successfully.\n";
  test::WriteFile(root + "/logs/node-0/train.log", log);
  test::WriteFile(root + "/sysinfo/node-0/dmesg.txt",
                  "[   12.041233] nvidia: loading out-of-tree module taints kernel.\n"
                  "[   13.502210] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15\n"
                  "[  518.050606] NVRM: Xid (PCI:0000:3b:00): 63, pid='<unknown>', name=<unknown>, "
                  "Row Remapper: New row marked for remapping, reset gpu to activate.\n"
                  "[  519.100000] EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode.\n"
                  "[  600.000000] python (4100): drop_caches: 3\n");
  auto index = Index(tmp, root);
  const AnalysisResult r = RunRuntime(*index);
  EXPECT_TRUE(r.findings.empty()) << Codes(r);
  ASSERT_EQ(r.analyzers.size(), 1u);
  EXPECT_EQ(r.analyzers[0].status, "ran");
}

TEST(RuntimeAnalyzer, NotApplicableWithoutLogsOrKernelLogs) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  test::WriteFile(root + "/config/ds_config.json", "{\"train_batch_size\": 8}\n");
  auto index = Index(tmp, root);
  const AnalysisResult r = RunRuntime(*index);
  ASSERT_EQ(r.analyzers.size(), 1u);
  EXPECT_EQ(r.analyzers[0].status, "not_applicable");
}

}  // namespace
}  // namespace casefile
