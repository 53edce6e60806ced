// The runtime rules on facts built by hand: each case sets the rows ingest
// would have stored and the lines a scan would have found, and checks the
// code, severity, culprits, cited lines and the key words of the summary
// against the rules of docs/FINDINGS.md ("runtime").
#include "analyze/analyzers/runtime/runtime_rules.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "analyze/analyzers/runtime/runtime_common.h"

namespace casefile::runtime {
namespace {

constexpr int64_t kT0 = 1'717'000'000'000'000;  // 2024-05-29 16:26:40 UTC
constexpr int64_t kSec = 1'000'000;

class RuntimeRulesTest : public ::testing::Test {
 protected:
  RuntimeRulesTest() {
    facts_.ranks = &ranks_;
    facts_.line = [this](int64_t file, int64_t line) {
      Evidence e;
      e.path = "f" + std::to_string(file);
      e.line = line;
      auto it = texts_.find({file, line});
      e.text = it == texts_.end() ? "" : it->second;
      return e;
    };
  }

  FailureRow& Row(RowKind kind, int64_t file, int64_t line, std::optional<int64_t> rank,
                  std::string host, std::string detail, int64_t ts = kNoTimestamp) {
    FailureRow r;
    r.kind = kind;
    r.file_id = file;
    r.line_no = line;
    r.rank = rank;
    r.host = std::move(host);
    r.detail = std::move(detail);
    r.ts_us = ts;
    texts_[{file, line}] = r.detail;
    facts_.rows.push_back(std::move(r));
    return facts_.rows.back();
  }
  FailureRow& Launcher(int64_t file, int64_t line, std::optional<int64_t> rank, std::string host,
                       double code, std::string detail, int64_t ts = kNoTimestamp) {
    FailureRow& r =
        Row(RowKind::kLauncherFailure, file, line, rank, std::move(host), std::move(detail), ts);
    r.op = "torchrun";
    r.value = code;
    return r;
  }
  void Text(int64_t file, int64_t line, std::string text) {
    texts_[{file, line}] = std::move(text);
  }

  static bool Cites(const Finding& f, int64_t file, int64_t line) {
    for (const Evidence& e : f.evidence) {
      if (e.path == "f" + std::to_string(file) && e.line == line) return true;
    }
    return false;
  }
  static bool Says(const Finding& f, const std::string& words) {
    return f.summary.find(words) != std::string::npos;
  }

  RankHostMap ranks_;
  RuntimeFacts facts_;
  std::map<std::pair<int64_t, int64_t>, std::string> texts_;
};

// ---- runtime.oom_killed ----------------------------------------------------

TEST_F(RuntimeRulesTest, KernelKillMatchedToARankByPid) {
  Launcher(1, 500, std::nullopt, "node-1", -9, "local_rank 1, exitcode -9 (SIGKILL), pid 23817",
           kT0 + 2 * kSec);
  Launcher(1, 520, 5, "node-1.cluster.local", -9,
           "root cause: exitcode -9 (SIGKILL), local_rank 1, pid 23817", kT0 + 3 * kSec);
  KernelKill k;
  k.file_id = 2;
  k.host = "node-1";
  k.ts_us = kT0;
  k.pid = 23817;
  k.comm = "python";
  k.anon_rss_kb = 60 * 1024 * 1024;
  k.summary_line = 40;
  k.victim_line = 41;
  facts_.kills.push_back(k);
  facts_.kernel_log_hosts = {"node-1"};

  const auto f = BuildOomKilled(facts_);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, Severity::kError);
  ASSERT_EQ(f->culprits.size(), 1u);
  EXPECT_EQ(f->culprits[0].rank, 5);
  EXPECT_EQ(f->culprits[0].host, "node-1");  // the shorter spelling
  EXPECT_TRUE(Says(*f, "the OOM killer killed 1 process of the run: rank 5 (host node-1)"));
  EXPECT_TRUE(Says(*f, "pid 23817 (python), anon-rss 60.00 GiB"));
  EXPECT_TRUE(Says(*f, "signal 9 (SIGKILL)"));
  EXPECT_FALSE(Says(*f, "Probably"));
  EXPECT_TRUE(Cites(*f, 2, 41));
  EXPECT_TRUE(Cites(*f, 2, 40));
  EXPECT_TRUE(Cites(*f, 1, 500));
  EXPECT_TRUE(Cites(*f, 1, 520));
}

TEST_F(RuntimeRulesTest, KernelKillWithoutPidMatchedByHostAndTime) {
  Launcher(1, 100, 2, "node-0", -9, "failure: exitcode -9 (SIGKILL), local_rank 2",
           kT0 + 600 * kSec);
  Launcher(3, 100, 9, "node-1", -9, "root cause: exitcode -9 (SIGKILL), local_rank 1",
           kT0 + 4 * kSec);
  KernelKill k;
  k.file_id = 2;
  k.host = "node-1";
  k.ts_us = kT0;
  k.trigger_line = 7;  // only the trigger survived in this capture
  k.comm = "python";
  facts_.kills.push_back(k);

  const auto f = BuildOomKilled(facts_);
  ASSERT_TRUE(f.has_value());
  // Rank 9 by its host; rank 2 died of SIGKILL too, with no traceback and
  // no other failure before it: a probable case of its own.
  ASSERT_EQ(f->culprits.size(), 2u);
  EXPECT_EQ(f->culprits[0].rank, 9);
  EXPECT_EQ(f->culprits[1].rank, 2);
  EXPECT_TRUE(Cites(*f, 2, 7));
  EXPECT_TRUE(Says(*f, "Probably out of host memory (not certain): rank 2 (host node-0)"));
}

TEST_F(RuntimeRulesTest, SigkillWithoutTracebackIsProbable) {
  Launcher(1, 300, 3, "node-0", -9, "root cause: exitcode -9 (SIGKILL), local_rank 3, pid 1322",
           kT0);
  const auto f = BuildOomKilled(facts_);
  ASSERT_TRUE(f.has_value());
  ASSERT_EQ(f->culprits.size(), 1u);
  EXPECT_EQ(f->culprits[0].rank, 3);
  EXPECT_TRUE(Says(*f, "Probably out of host memory (not certain)"));
  EXPECT_TRUE(Says(*f, "the rank left no traceback"));
  EXPECT_TRUE(Says(*f, "no kernel log in the bundle says so"));
  EXPECT_TRUE(Cites(*f, 1, 300));

  // With a kernel log of that host that shows no kill, the summary says so.
  facts_.kernel_log_hosts = {"node-0"};
  const auto g = BuildOomKilled(facts_);
  ASSERT_TRUE(g.has_value());
  EXPECT_TRUE(Says(*g, "the kernel log of host node-0 in the bundle shows no OOM kill"));
}

TEST_F(RuntimeRulesTest, Exit137CountsLikeSigkill) {
  FailureRow& r = Launcher(1, 10, 4, "node-2", 137, "exit code 137 (128+SIGKILL)");
  r.op = "srun";
  const auto f = BuildOomKilled(facts_);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(Says(*f, "srun reports exit code 137 (128 + SIGKILL)"));
}

TEST_F(RuntimeRulesTest, SrunOutOfMemoryIsCertain) {
  FailureRow& r = Launcher(1, 10, 4, "node-2", -9, "Out Of Memory");
  r.op = "srun";
  const auto f = BuildOomKilled(facts_);
  ASSERT_TRUE(f.has_value());
  EXPECT_FALSE(Says(*f, "Probably"));
  EXPECT_TRUE(Says(*f, "srun reports Out Of Memory"));
}

TEST_F(RuntimeRulesTest, SigkillAfterTheRanksOwnTracebackIsNotOom) {
  Row(RowKind::kCrash, 1, 200, 3, "node-0", "RuntimeError: shape mismatch");
  Launcher(1, 300, 3, "node-0", -9, "root cause: exitcode -9 (SIGKILL), local_rank 3, pid 1322");
  EXPECT_FALSE(BuildOomKilled(facts_).has_value());
}

TEST_F(RuntimeRulesTest, SigkillOfALauncherTeardownIsNotOom) {
  // Rank 0 failed first; torchrun later killed rank 1 (not its root cause).
  Row(RowKind::kCrash, 1, 200, 0, "node-0", "ValueError: bad batch", kT0);
  Launcher(1, 300, 1, "node-0", -9, "failure: exitcode -9 (SIGKILL), local_rank 1, pid 99",
           kT0 + 40 * kSec);
  EXPECT_FALSE(BuildOomKilled(facts_).has_value());
}

TEST_F(RuntimeRulesTest, OtherExitCodesAreNotOom) {
  Launcher(1, 300, 1, "node-0", -6, "root cause: exitcode -6 (SIGABRT), local_rank 1");
  Launcher(1, 310, 2, "node-0", 1, "failure: exitcode 1, local_rank 2");
  Launcher(1, 320, 3, "node-0", -15, "failure: exitcode -15 (SIGTERM), local_rank 3");
  EXPECT_FALSE(BuildOomKilled(facts_).has_value());
}

TEST_F(RuntimeRulesTest, SrunKillingTheRestOfAStepIsNoOom) {
  // srun names every task it killed after task 2 exited 1 (--kill-on-bad-exit).
  FailureRow& failed = Launcher(1, 40, 2, "node-0", 1, "exit code 1", kT0);
  failed.op = "srun";
  for (int64_t task : {0, 1, 3}) {
    FailureRow& r = Launcher(1, 41, task, "node-0", -9, "Killed", kT0 + kSec);
    r.op = "srun";
  }
  EXPECT_FALSE(BuildOomKilled(facts_).has_value());
}

TEST_F(RuntimeRulesTest, SigkillAfterAnotherWorkerExitedIsNoOom) {
  // A worker exited 1 first (no traceback in the bundle); the other one was
  // killed later, and it is not torchrun's root cause.
  Launcher(1, 40, 0, "node-0", 1, "root cause: exitcode 1, local_rank 0, pid 11", kT0);
  Launcher(1, 48, 1, "node-0", -9, "failure: exitcode -9 (SIGKILL), local_rank 1, pid 12",
           kT0 + 30 * kSec);
  EXPECT_FALSE(BuildOomKilled(facts_).has_value());
}

TEST_F(RuntimeRulesTest, DataLoaderWorkerKilled) {
  Row(RowKind::kCrash, 1, 900, 6, "node-1",
      "RuntimeError: DataLoader worker (pid 44120) is killed by signal: Killed. ");
  KernelKill k;
  k.file_id = 2;
  k.host = "node-1";
  k.pid = 44120;
  k.comm = "pt_data_worker";
  k.victim_line = 12;
  facts_.kills.push_back(k);
  const auto f = BuildOomKilled(facts_);
  ASSERT_TRUE(f.has_value());
  ASSERT_EQ(f->culprits.size(), 1u);
  EXPECT_EQ(f->culprits[0].rank, 6);
  EXPECT_TRUE(Says(*f, "its DataLoader worker (pid 44120) was killed by signal: Killed"));
  EXPECT_TRUE(Cites(*f, 2, 12));
  EXPECT_TRUE(Cites(*f, 1, 900));
}

TEST_F(RuntimeRulesTest, KernelKillsOutsideTheRunAreIgnored) {
  facts_.run_first_us = kT0;
  facts_.run_last_us = kT0 + 3600 * kSec;
  KernelKill old_python;  // two days before the run
  old_python.file_id = 2;
  old_python.host = "node-1";
  old_python.ts_us = kT0 - 48 * 3600 * kSec;
  old_python.pid = 5;
  old_python.comm = "python";
  old_python.victim_line = 3;
  KernelKill foreign;  // an hour before the run, not a training process
  foreign.file_id = 2;
  foreign.host = "node-1";
  foreign.ts_us = kT0 - 3600 * kSec;
  foreign.pid = 6;
  foreign.comm = "chrome";
  foreign.victim_line = 4;
  facts_.kills = {old_python, foreign};
  EXPECT_FALSE(BuildOomKilled(facts_).has_value());

  // The same foreign kill during the run, which went on for an hour after
  // it: not the run's.
  facts_.kills[1].ts_us = kT0 + 60 * kSec;
  EXPECT_FALSE(BuildOomKilled(facts_).has_value());
  // Near the run's end it counts (host only): the run may have died of the
  // same memory pressure.
  facts_.kills[1].ts_us = kT0 + 3540 * kSec;
  const auto f = BuildOomKilled(facts_);
  ASSERT_TRUE(f.has_value());
  ASSERT_EQ(f->culprits.size(), 1u);
  EXPECT_FALSE(f->culprits[0].rank.has_value());
  EXPECT_EQ(f->culprits[0].host, "node-1");
  EXPECT_TRUE(Cites(*f, 2, 4));
}

// Plain dmesg (seconds since boot) on a host whose torchrun agent reported
// its workers finished: a python process killed and an Xid of some pid not
// of the run are another job's, whenever they were. Without the success
// report, the same untimed lines count.
TEST_F(RuntimeRulesTest, UntimedKernelEventsOnAHostWhoseWorkersFinishedAreForeign) {
  KernelKill k;
  k.file_id = 2;
  k.host = "shared-gpu-12";
  k.pid = 2211093;
  k.comm = "python";
  k.victim_line = 8;
  facts_.kills = {k};
  XidLine x;
  x.file_id = 2;
  x.line_no = 9;
  x.host = "shared-gpu-12";
  x.xid = 13;
  x.pci = "0000:3b:00";
  x.pid = 2213551;
  x.text = "Graphics SM Warp Exception";
  facts_.xids = {x};
  EXPECT_TRUE(BuildOomKilled(facts_).has_value());
  EXPECT_TRUE(BuildCudaError(facts_).has_value());
  facts_.succeeded.hosts = {"shared-gpu-12"};
  EXPECT_FALSE(BuildOomKilled(facts_).has_value());
  EXPECT_FALSE(BuildCudaError(facts_).has_value());
  // A kill with a time is judged by its time, not by the report.
  facts_.kills[0].ts_us = kT0;
  facts_.run_first_us = kT0 - 60 * kSec;
  facts_.run_last_us = kT0 + 60 * kSec;
  EXPECT_TRUE(BuildOomKilled(facts_).has_value());
}

TEST_F(RuntimeRulesTest, CgroupKillIsSaid) {
  KernelKill k;
  k.file_id = 2;
  k.host = "gpu-3";
  k.pid = 77;
  k.comm = "python3";
  k.memcg = true;
  k.victim_line = 9;
  facts_.kills.push_back(k);
  const auto f = BuildOomKilled(facts_);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(Says(*f, "at its memory cgroup's limit"));
}

// ---- runtime.cuda_oom -------------------------------------------------------

// ---- runtime.device_oom -----------------------------------------------------

TEST_F(RuntimeRulesTest, XlaDeviceOomAtRunAndCompileTime) {
  Row(RowKind::kCrash, 1, 52, std::nullopt, "jax-gpu-1",
      "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to "
      "allocate 129449984 bytes.",
      kT0 + 2 * kSec);
  Row(RowKind::kCrash, 2, 123, std::nullopt, "tpu-w-0",
      "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent "
      "error. Ran out of memory in memory space hbm. Used 17.43G of 15.48G hbm. Exceeded hbm "
      "capacity by 1.95G.",
      kT0);
  // A CUDA allocator's message is runtime.cuda_oom's, a deadline no OOM.
  Row(RowKind::kCrash, 3, 9, 4, "dgx-1", "torch.OutOfMemoryError: CUDA out of memory.", kT0);
  Row(RowKind::kCrash, 4, 9, std::nullopt, "jax-gpu-0",
      "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out.", kT0);
  const auto f = BuildDeviceOom(facts_);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, Severity::kError);
  ASSERT_EQ(f->culprits.size(), 2u);
  EXPECT_EQ(f->culprits[0].host, "tpu-w-0");
  EXPECT_TRUE(Says(*f,
                   "in 2 processes: host tpu-w-0 could not fit the compiled program (17.43G "
                   "of 15.48G hbm used, 1.95G over); host jax-gpu-1 tried to allocate "
                   "123.45 MiB."))
      << f->summary;
  // Hosts that say the same are named together.
  Row(RowKind::kCrash, 5, 123, std::nullopt, "tpu-w-1", facts_.rows[1].detail, kT0 + kSec);
  const auto g = BuildDeviceOom(facts_);
  ASSERT_TRUE(g.has_value());
  EXPECT_TRUE(Says(*g,
                   "in 3 processes: host tpu-w-0 and host tpu-w-1 could not fit the compiled "
                   "program (17.43G of 15.48G hbm used, 1.95G over); host jax-gpu-1"))
      << g->summary;
  facts_.rows.pop_back();
  EXPECT_TRUE(Says(*f, "fails the same way on every run"));
  EXPECT_TRUE(Cites(*f, 1, 52));
  EXPECT_TRUE(Cites(*f, 2, 123));
  EXPECT_FALSE(Cites(*f, 3, 9));
  // The allocators' other words.
  EXPECT_TRUE(
      IsXlaDeviceOom("XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request "
                     "for 2.00GiB (2147483648B) on device ordinal 0"));
  EXPECT_TRUE(
      IsXlaDeviceOom("RESOURCE_EXHAUSTED: Attempting to reserve 4.00G at the bottom of "
                     "memory. That was not possible. There are 2.10G free, 0B reserved, "
                     "and 2.10G reservable."));
  // A Pallas kernel out of VMEM is its block size's problem, not the
  // model's memory.
  EXPECT_FALSE(
      IsXlaDeviceOom("RESOURCE_EXHAUSTED: Mosaic failed to compile TPU kernel: Ran out "
                     "of memory in memory space vmem."));
  // A PyTorch CUDA OOM alone gives no device_oom, even worded by XLA's
  // status.
  facts_.rows.erase(facts_.rows.begin(), facts_.rows.begin() + 2);
  facts_.rows.front().detail = "RESOURCE_EXHAUSTED: torch.OutOfMemoryError: CUDA out of memory.";
  EXPECT_FALSE(BuildDeviceOom(facts_).has_value());
}

TEST_F(RuntimeRulesTest, CudaOomPerRankWithNumbers) {
  Row(RowKind::kCrash, 1, 1666, 6, "dgx-a08",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 2 has a "
      "total capacity of 79.15 GiB of which 2.06 GiB is free. Process 294086 has 77.08 GiB "
      "memory in use. Of the allocated memory 72.64 GiB is allocated by PyTorch, and 4.31 GiB is "
      "reserved by PyTorch but unallocated.",
      kT0);
  Row(RowKind::kCrash, 1, 1700, 7, "dgx-a08",
      "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 3; 79.15 GiB total "
      "capacity; 78.50 GiB already allocated; 3.19 MiB free; 78.60 GiB reserved in total by "
      "PyTorch)",
      kT0 + kSec);
  // Rank 6's second error (the same OOM in a chain) is not a second case.
  Row(RowKind::kCudaError, 1, 1800, 6, "dgx-a08", "out of memory", kT0 + 5 * kSec);
  const auto f = BuildCudaOom(facts_);
  ASSERT_TRUE(f.has_value());
  ASSERT_EQ(f->culprits.size(), 2u);
  EXPECT_TRUE(Says(*f, "CUDA out of memory on 2 ranks (6-7)"));
  EXPECT_TRUE(Says(*f,
                   "rank 6 (host dgx-a08) tried to allocate 3.91 GiB on GPU 2 (79.15 GiB "
                   "total, 2.06 GiB free, 72.64 GiB allocated by PyTorch, 4.31 GiB reserved "
                   "but unallocated)"));
  EXPECT_TRUE(Says(*f, "rank 7 (host dgx-a08) tried to allocate 20.00 MiB on GPU 3"));
  // 4.31 GiB reserved-but-free >= 3.91 GiB asked: fragmentation.
  EXPECT_TRUE(Says(*f, "On rank 6 (host dgx-a08) the memory reserved but unallocated"));
  EXPECT_TRUE(Cites(*f, 1, 1666));
  EXPECT_TRUE(Cites(*f, 1, 1700));
  EXPECT_FALSE(Cites(*f, 1, 1800));
}

TEST_F(RuntimeRulesTest, NumbersComeFromTheWholeLineWhenTheDetailIsCut) {
  Row(RowKind::kCrash, 1, 50, 0, "h", "torch.OutOfMemoryError: CUDA out of memory. Tried to");
  Text(1, 50,
       "[rank0]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 "
       "has a total capacity of 39.39 GiB of which 512.00 MiB is free.");
  const auto f = BuildCudaOom(facts_);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(Says(*f, "tried to allocate 1.00 GiB on GPU 0 (39.39 GiB total, 512.00 MiB free)"));
}

TEST_F(RuntimeRulesTest, HandledOomDoesNotFire) {
  Row(RowKind::kCrash, 1, 100, 0, "h",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB");
  for (int64_t s = 0; s < 3; ++s) facts_.steps.push_back({1, 150 + s, 40 + s});
  EXPECT_FALSE(BuildCudaOom(facts_).has_value());
  EXPECT_FALSE(BuildFirstFailure(facts_, false).has_value());
  // Two later steps are not enough: a dying rank's peers log one more.
  facts_.steps.pop_back();
  EXPECT_TRUE(BuildCudaOom(facts_).has_value());
}

// ---- runtime.cuda_error -----------------------------------------------------

TEST_F(RuntimeRulesTest, IllegalMemoryAccessOnRanks) {
  Row(RowKind::kCudaError, 1, 400, 3, "node-0", "an illegal memory access was encountered",
      kT0 + 2 * kSec);
  Row(RowKind::kCrash, 1, 410, 3, "node-0",
      "RuntimeError: CUDA error: an illegal memory access was encountered", kT0 + 3 * kSec);
  Row(RowKind::kCudaError, 2, 90, 11, "node-1", "an illegal memory access was encountered",
      kT0 + 9 * kSec);
  const auto f = BuildCudaError(facts_);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->code, "runtime.cuda_error");
  ASSERT_EQ(f->culprits.size(), 2u);
  EXPECT_TRUE(Says(*f, "rank 3 (host node-0) hit an illegal memory access"));
  EXPECT_TRUE(Says(*f, "then rank 11 (host node-1) (an illegal memory access)"));
  EXPECT_TRUE(Cites(*f, 1, 400));
  EXPECT_TRUE(Cites(*f, 2, 90));
}

TEST_F(RuntimeRulesTest, DeviceAssertNamesTheAssertion) {
  Row(RowKind::kCrash, 1, 700, 2, "node-0",
      "RuntimeError: CUDA error: device-side assert triggered");
  AssertLine a;
  a.file_id = 1;
  a.line_no = 650;
  a.rank = 2;
  facts_.asserts.push_back(a);
  Text(1, 650,
       "[rank2]:../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: "
       "block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.");
  const auto f = BuildCudaError(facts_);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(Says(*f, "a device-side assert"));
  EXPECT_TRUE(Says(*f, "The kernel's failed assertion: `t >= 0 && t < n_classes`"));
  EXPECT_TRUE(Cites(*f, 1, 650));
}

TEST_F(RuntimeRulesTest, XidLinesNameTheHostAndTheRankByPid) {
  Launcher(1, 300, 5, "node-1", -6, "root cause: exitcode -6 (SIGABRT), local_rank 1, pid 2630");
  XidLine x;
  x.file_id = 4;
  x.line_no = 77;
  x.host = "node-1";
  x.xid = 79;
  x.pci = "0000:3b:00";
  x.pid = 2630;
  x.text = "GPU has fallen off the bus.";
  facts_.xids.push_back(x);
  XidLine again = x;  // the driver repeats it
  again.line_no = 78;
  facts_.xids.push_back(again);
  const auto f = BuildCudaError(facts_);
  ASSERT_TRUE(f.has_value());
  ASSERT_EQ(f->culprits.size(), 1u);
  EXPECT_EQ(f->culprits[0].rank, 5);
  EXPECT_EQ(f->culprits[0].host, "node-1");
  EXPECT_TRUE(Says(*f,
                   "Xid 79 (the GPU has fallen off the bus) on GPU 0000:3b:00 for pid 2630 "
                   "(rank 5)"));
  EXPECT_TRUE(Says(*f, "a fault of the GPU, its memory or its links"));
  EXPECT_TRUE(Cites(*f, 4, 77));
  EXPECT_FALSE(Cites(*f, 4, 78));
}

TEST_F(RuntimeRulesTest, InformationalXidsAloneDoNotFire) {
  XidLine x;
  x.file_id = 4;
  x.line_no = 5;
  x.host = "node-1";
  x.pci = "0000:3b:00";
  x.xid = 63;
  facts_.xids.push_back(x);
  x.xid = 45;
  x.line_no = 6;
  facts_.xids.push_back(x);
  EXPECT_FALSE(BuildCudaError(facts_).has_value());
}

TEST_F(RuntimeRulesTest, SetUpErrorsAndOomAreNotCudaFaults) {
  Row(RowKind::kCudaError, 1, 10, 0, "h",
      "no kernel image is available for execution on the device");
  Row(RowKind::kCudaError, 1, 20, 1, "h", "out of memory");
  EXPECT_FALSE(BuildCudaError(facts_).has_value());
}

// ---- runtime.first_failure --------------------------------------------------

TEST_F(RuntimeRulesTest, FirstFailureSkipsConsequences) {
  Row(RowKind::kCrash, 1, 100, 0, "node-0",
      "c10::DistBackendError: [PG 0 Rank 0] Process group watchdog thread terminated with "
      "exception: [Rank 0] Watchdog caught collective operation timeout",
      kT0 - 100 * kSec);
  Row(RowKind::kCrash, 1, 120, std::nullopt, "node-0",
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:", kT0 - 99 * kSec);
  Row(RowKind::kCrash, 1, 130, 1, "node-0", "SIGABRT received by PID 3041", kT0 - 98 * kSec);
  Row(RowKind::kCrash, 1, 140, 2, "node-0", "KeyboardInterrupt", kT0 - 97 * kSec);
  Row(RowKind::kCollectiveError, 1, 150, 3, "node-0",
      "remote process exited or there was a network error", kT0 - 96 * kSec);
  Row(RowKind::kCrash, 2, 900, 9, "node-1", "ValueError: labels out of range", kT0);
  Launcher(2, 950, 9, "node-1", 1, "root cause: exitcode 1, local_rank 1, pid 7");
  const auto f = BuildFirstFailure(facts_, /*explained=*/false);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, Severity::kError);
  ASSERT_EQ(f->culprits.size(), 1u);
  EXPECT_EQ(f->culprits[0].rank, 9);
  EXPECT_TRUE(Says(*f,
                   "rank 9 (host node-1) failed first: ValueError: labels out of range, at "
                   "2024-05-29 16:26:40 UTC."));
  EXPECT_TRUE(Says(*f, "5 errors were consequences"));
  EXPECT_TRUE(Says(*f, "A hang finding may name the same rank."));
  EXPECT_TRUE(Cites(*f, 2, 900));
  EXPECT_TRUE(Cites(*f, 2, 950));
}

TEST_F(RuntimeRulesTest, FirstFailureByTimeWithEstimatedTimes) {
  FailureRow& late = Row(RowKind::kCrash, 1, 100, 4, "node-0", "RuntimeError: late");
  late.est_ts_us = kT0 + 30 * kSec;
  FailureRow& early = Row(RowKind::kCrash, 2, 5000, 12, "node-1", "RuntimeError: early");
  early.est_ts_us = kT0;
  const auto f = BuildFirstFailure(facts_, /*explained=*/true);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_EQ(f->culprits[0].rank, 12);
  EXPECT_TRUE(Says(*f, "at about 2024-05-29 16:26:40 UTC (the time of a line next to it)"));
  EXPECT_TRUE(Says(*f, "1 other rank failed after it (rank 4)"));
}

TEST_F(RuntimeRulesTest, FirstFailureWithoutTimesTakesTorchrunsRootCause) {
  Row(RowKind::kCrash, 1, 100, 4, "node-0", "RuntimeError: one");
  Row(RowKind::kCrash, 2, 100, 12, "node-1", "RuntimeError: two");
  Launcher(2, 300, 12, "node-1", 1, "root cause: exitcode 1, local_rank 4");
  const auto f = BuildFirstFailure(facts_, false);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->culprits[0].rank, 12);
  EXPECT_TRUE(Says(*f, "The errors carry no time"));
}

TEST_F(RuntimeRulesTest, FirstFailureWarnsOfCloseTimesOnTwoHosts) {
  Row(RowKind::kCrash, 1, 100, 4, "node-0", "RuntimeError: first", kT0);
  Row(RowKind::kCrash, 2, 100, 12, "node-1", "RuntimeError: second", kT0 + 700'000);
  const auto f = BuildFirstFailure(facts_, false);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->culprits[0].rank, 4);
  EXPECT_TRUE(Says(*f, "rank 12 (host node-1) failed within 700 ms on another host"));
  // Estimated times are too coarse for the warning.
  facts_.rows[1].est_ts_us = facts_.rows[1].ts_us;
  facts_.rows[1].ts_us = kNoTimestamp;
  const auto g = BuildFirstFailure(facts_, false);
  ASSERT_TRUE(g.has_value());
  EXPECT_FALSE(Says(*g, "failed within"));
}

TEST_F(RuntimeRulesTest, LaunchersReportingTheChildAreConsequences) {
  Row(RowKind::kCrash, 1, 100, std::nullopt, "node-0",
      "subprocess.CalledProcessError: Command '['/usr/bin/python', 'train.py']' returned non-zero "
      "exit status 1.");
  EXPECT_FALSE(BuildFirstFailure(facts_, false).has_value());
}

TEST_F(RuntimeRulesTest, CudaFaultInsideTheWatchdogIsNotAConsequence) {
  Row(RowKind::kCrash, 1, 100, 3, "node-0",
      "c10::DistBackendError: [PG 0 Rank 3] Process group watchdog thread terminated with "
      "exception: CUDA error: an illegal memory access was encountered");
  const auto f = BuildFirstFailure(facts_, false);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->culprits[0].rank, 3);
}

TEST_F(RuntimeRulesTest, NothingButConsequencesGivesNoFirstFailure) {
  Row(RowKind::kCrash, 1, 100, 0, "node-0",
      "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Megascale hang detected: Timed "
      "out waiting for 4 graphs");
  Row(RowKind::kCrash, 1, 200, 1, "node-0", "Fatal Python error: Aborted after: SIGABRT received");
  Launcher(1, 300, 1, "node-0", -6, "root cause: exitcode -6 (SIGABRT)");
  EXPECT_FALSE(BuildFirstFailure(facts_, false).has_value());
  EXPECT_TRUE(BuildRuntimeFindings(facts_).empty());
}

TEST_F(RuntimeRulesTest, FirstFailureIsInfoBesideAnotherRuntimeFinding) {
  Row(RowKind::kCrash, 1, 10, 0, "h", "torch.OutOfMemoryError: CUDA out of memory.");
  const std::vector<Finding> all = BuildRuntimeFindings(facts_);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].code, "runtime.cuda_oom");
  EXPECT_EQ(all[1].code, "runtime.first_failure");
  EXPECT_EQ(all[1].severity, Severity::kInfo);
}

// ---- helpers ----------------------------------------------------------------

TEST(RuntimeCommon, Helpers) {
  EXPECT_TRUE(SameHost("node-1", "node-1.cluster.local"));
  EXPECT_TRUE(SameHost("node-1.cluster.local", "node-1"));
  EXPECT_FALSE(SameHost("node-1", "node-10"));
  EXPECT_FALSE(SameHost("", "node-1"));
  EXPECT_EQ(ExceptionType("torch.cuda.OutOfMemoryError: CUDA out of memory"),
            "torch.cuda.OutOfMemoryError");
  EXPECT_EQ(ExceptionType("c10::Error: CUDA error"), "c10::Error");
  EXPECT_EQ(ExceptionType("KeyboardInterrupt"), "KeyboardInterrupt");
  EXPECT_EQ(ExceptionType("SIGSEGV received by PID 12"), "");
  EXPECT_EQ(IntAfter("exitcode -9 (SIGKILL), local_rank 3, pid 1322", "pid "), 1322);
  EXPECT_EQ(IntAfter("exitcode -9", "exitcode "), -9);
  EXPECT_FALSE(IntAfter("no pid here", "pid ").has_value());
}

}  // namespace
}  // namespace casefile::runtime
