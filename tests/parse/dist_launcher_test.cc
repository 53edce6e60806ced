// launcher_failure events (launcher_summary.cc and launcher_*.cc) read from
// lines run through the prefix parsing ingest uses. Expected values are
// read off formats.md section 5 and the Slurm / Open MPI message texts;
// epoch seconds were computed with `date -u -d '<date> UTC' +%s`.
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
  return test::FeedFamily(*MakeLauncherFamily(), lines, 3, 2026);
}

void ExpectEvent(const DistEventRow& r, int64_t line_no, const char* op, int64_t rank,
                 const char* host, double value, const std::string& detail) {
  EXPECT_EQ(r.kind, std::string(kLauncherFailure));
  EXPECT_EQ(r.file_id, 3);
  EXPECT_EQ(r.line_no, line_no) << detail;
  EXPECT_EQ(r.op.value_or(""), op) << detail;
  if (rank < 0) {
    EXPECT_FALSE(r.rank.has_value()) << detail;
  } else {
    EXPECT_EQ(r.rank.value_or(-1), rank) << detail;
  }
  if (host == nullptr) {
    EXPECT_FALSE(r.host.has_value()) << detail;
  } else {
    EXPECT_EQ(r.host.value_or(""), host) << detail;
  }
  EXPECT_EQ(r.value.value_or(12345), value) << detail;
  EXPECT_EQ(r.detail.value_or(""), detail);
}

// --- torchrun ----------------------------------------------------------------

TEST(DistLauncher, TorchrunSummaryRootCauseAndOtherFailure) {
  const auto rows = Read({
      "[2024-03-02 10:15:40,118] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
      "(exitcode: -9) local_rank: 3 (pid: 1322) of binary: /opt/conda/bin/python",
      "Traceback (most recent call last):",
      "  File \"/opt/conda/bin/torchrun\", line 8, in <module>",
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
      "============================================================",
      "pretrain.py FAILED",
      "------------------------------------------------------------",
      "Failures:",
      "[1]:",
      "  time      : 2024-03-02_10:15:40",
      "  host      : gpu-node-2",
      "  rank      : 12 (local_rank: 4)",
      "  exitcode  : 1 (pid: 1323)",  // line 13
      "  error_file: /tmp/torchelastic_q1w2/none_e3r4/attempt_0/4/error.json",
      "  traceback : Traceback (most recent call last):",
      "    File \"/work/pretrain.py\", line 88, in main",
      "      loss.backward()",
      "  RuntimeError: NCCL communicator was aborted on rank 12.",
      "------------------------------------------------------------",
      "Root Cause (first observed failure):",
      "[0]:",
      "  time      : 2024-03-02_10:15:38",
      "  host      : gpu-node-2",
      "  rank      : 11 (local_rank: 3)",
      "  exitcode  : -9 (pid: 1322)",  // line 25
      "  error_file: <N/A>",
      "  traceback : Signal 9 (SIGKILL) received by PID 1322",
      "============================================================",
      "after the summary: an unrelated line",
  });
  ASSERT_EQ(rows.size(), 3u);
  ExpectEvent(rows[0], 1, "torchrun", -1, nullptr, -9,
              "local_rank 3, exitcode -9 (SIGKILL), pid 1322");
  EXPECT_EQ(rows[0].ts_us, 1709374540 * kUs + 118000);
  ExpectEvent(rows[1], 13, "torchrun", 12, "gpu-node-2", 1,
              "failure: exitcode 1, local_rank 4, pid 1323; RuntimeError: NCCL communicator was "
              "aborted on rank 12.");
  ExpectEvent(rows[2], 25, "torchrun", 11, "gpu-node-2", -9,
              "root cause: exitcode -9 (SIGKILL), local_rank 3, pid 1322");
  // The summary lines carry no stamp: the entry's own time is used.
  EXPECT_EQ(rows[2].ts_us, 1709374538 * kUs);
}

TEST(DistLauncher, TorchrunAgentReportsItsWorkersFinished) {
  const auto rows = Read({
      "I0604 11:02:41.882000 140071928194880 torch/distributed/elastic/agent/server/api.py:846] "
      "[default] worker group successfully finished. Waiting 300 seconds for other agents to "
      "finish.",
      "[2024-03-04 11:41:01,202] torch.distributed.elastic.agent.server.api: [INFO] Local worker "
      "group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish",
      "Successfully saved checkpoint to /ckpt/step_1000",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kind, kLauncherSuccess);
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_EQ(rows[1].kind, kLauncherSuccess);
  EXPECT_EQ(rows[1].line_no, 2);
}

TEST(DistLauncher, TorchrunNoOtherFailures) {
  const auto rows = Read({
      "Failures:",
      "  <NO_OTHER_FAILURES>",
      "------------------------------------------------------------",
      "Root Cause (first observed failure):",
      "[0]:",
      "  time      : 2024-03-02_10:15:38",
      "  host      : n-17.cluster.local",
      "  rank      : 0 (local_rank: 0)",
      "  exitcode  : 1 (pid: 78970)",
      "  error_file: <N/A>",
      "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
      "============================================================",
  });
  ASSERT_EQ(rows.size(), 1u);
  ExpectEvent(rows[0], 9, "torchrun", 0, "n-17.cluster.local", 1,
              "root cause: exitcode 1, local_rank 0, pid 78970");
}

TEST(DistLauncher, TorchrunSummariesOfTwoAgentsInterleavedByPdsh) {
  const auto rows = Read({
      "node-1: Root Cause (first observed failure):",
      "node-2: Root Cause (first observed failure):",
      "node-1: [0]:",
      "node-2: [0]:",
      "node-1:   time      : 2024-03-02_10:15:38",
      "node-2:   time      : 2024-03-02_10:15:41",
      "node-1:   host      : node-1",
      "node-2:   host      : node-2",
      "node-1:   rank      : 5 (local_rank: 5)",
      "node-2:   rank      : 9 (local_rank: 1)",
      "node-1:   exitcode  : -6 (pid: 4410)",
      "node-2:   exitcode  : -15 (pid: 5120)",
      "node-1:   error_file: <N/A>",
      "node-2:   error_file: <N/A>",
      "node-1:   traceback : Signal 6 (SIGABRT) received by PID 4410",
      "node-2:   traceback : Signal 15 (SIGTERM) received by PID 5120",
      "node-1: ============================================================",
      "node-2: ============================================================",
  });
  ASSERT_EQ(rows.size(), 2u);
  ExpectEvent(rows[0], 11, "torchrun", 5, "node-1", -6,
              "root cause: exitcode -6 (SIGABRT), local_rank 5, pid 4410");
  ExpectEvent(rows[1], 12, "torchrun", 9, "node-2", -15,
              "root cause: exitcode -15 (SIGTERM), local_rank 1, pid 5120");
}

TEST(DistLauncher, TorchrunRankOfTheMessageOverridesTheSrunLabel) {
  const auto rows = Read({
      "3: Root Cause (first observed failure):",
      "3: [0]:",
      "3:   host      : gpu-node-4",
      "3:   rank      : 24 (local_rank: 0)",
      "3:   exitcode  : -9 (pid: 881)",
      "3: ============================================================",
  });
  ASSERT_EQ(rows.size(), 1u);
  ExpectEvent(rows[0], 5, "torchrun", 24, "gpu-node-4", -9,
              "root cause: exitcode -9 (SIGKILL), local_rank 0, pid 881");
}

TEST(DistLauncher, TorchrunSummaryCutByEndOfFileEmitsWhatItHas) {
  auto rows = Read({
      "Root Cause (first observed failure):",
      "[0]:",
      "  time      : 2024-03-02_10:15:38",
      "  host      : gpu-node-7",
      "  rank      : 3 (local_rank: 3)",
      "  exitcode  : 1 (pid: 77)",
  });
  ASSERT_EQ(rows.size(), 1u);
  ExpectEvent(rows[0], 6, "torchrun", 3, "gpu-node-7", 1,
              "root cause: exitcode 1, local_rank 3, pid 77");

  // Cut before the exit code: the entry's header line, with what it named.
  rows = Read({
      "Root Cause (first observed failure):",
      "[0]:",
      "  time      : 2024-03-02_10:15:38",
      "  host      : gpu-node-7",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line_no, 2);
  EXPECT_EQ(rows[0].host.value_or(""), "gpu-node-7");
  EXPECT_FALSE(rows[0].value.has_value());
  EXPECT_EQ(rows[0].detail.value_or(""), "root cause: exitcode unknown");

  // Only the header: nothing is known.
  EXPECT_TRUE(Read({"Root Cause (first observed failure):", "[0]:"}).empty());
}

TEST(DistLauncher, TorchrunAgentLineInItsThreeStyles) {
  const auto rows = Read({
      "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 3 "
      "(pid: 407727) of binary: /usr/bin/python3",
      "[2024-05-08 08:47:31,877] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
      "(exitcode: 1) local_rank: 2 (pid: 5939) of binary: /usr/bin/python3",
      "E0325 20:57:27.620000 2606 site-packages/torch/distributed/elastic/multiprocessing/"
      "api.py:869] failed (exitcode: -9) local_rank: 5 (pid: 2630) of binary: /usr/bin/python3",
  });
  ASSERT_EQ(rows.size(), 3u);
  ExpectEvent(rows[0], 1, "torchrun", -1, nullptr, -9,
              "local_rank 3, exitcode -9 (SIGKILL), pid 407727");
  ExpectEvent(rows[1], 2, "torchrun", -1, nullptr, 1, "local_rank 2, exitcode 1, pid 5939");
  ExpectEvent(rows[2], 3, "torchrun", -1, nullptr, -9,
              "local_rank 5, exitcode -9 (SIGKILL), pid 2630");
}

TEST(DistLauncher, AFailuresHeaderWithoutEntriesIsNotASummary) {
  EXPECT_TRUE(Read({
                       "Failures:",
                       "test_data.py::test_shuffle FAILED",
                       "  exitcode  : 1 (pid: 10)",
                       "[0]:",
                   })
                  .empty());
}

// --- DeepSpeed ---------------------------------------------------------------

TEST(DistLauncher, DeepSpeedReturnCodes) {
  const auto rows = Read({
      "[2025-01-10 08:01:02,345] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 74810",
      "[2025-01-10 08:01:03,001] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', "
      "'-u', 'train.py', '--local_rank=1', '--deepspeed', 'ds.json'] exits with return code = -6",
      "gpu-node-2: [2025-01-10 08:01:03,001] [ERROR] [launch.py:325:sigkill_handler] "
      "['/usr/bin/python3', '-u', 'train.py', '--local-rank', '2'] exits with return code = 1",
      "[2025-01-10 08:01:04,000] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', "
      "'train.py'] exits with return code = 137",
  });
  ASSERT_EQ(rows.size(), 3u);
  ExpectEvent(rows[0], 2, "deepspeed", -1, nullptr, -6, "local_rank 1, return code -6 (SIGABRT)");
  ExpectEvent(rows[1], 3, "deepspeed", -1, "gpu-node-2", 1, "local_rank 2, return code 1");
  ExpectEvent(rows[2], 4, "deepspeed", -1, nullptr, 137, "return code 137 (128+SIGKILL)");
}

// --- srun --------------------------------------------------------------------

TEST(DistLauncher, SrunTaskExits) {
  const auto rows = Read({
      "srun: error: node-7: task 12: Exited with exit code 1",
      "srun: error: node-7: tasks 0-2,5: Killed",
      "srun: error: node-3: task 4: Segmentation fault (core dumped)",
      "srun: error: node-3: task 6: Terminated",
      "srun: error: node-9: task 1: Out Of Memory",
      "srun: error: Unable to create step for job 881: More processors requested than permitted",
      "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
      "srun: error: node-[1-2]: tasks 8,9: Exited with exit code 2",
  });
  ASSERT_EQ(rows.size(), 10u);
  ExpectEvent(rows[0], 1, "srun", 12, "node-7", 1, "exit code 1");
  ExpectEvent(rows[1], 2, "srun", 0, "node-7", -9, "Killed");
  ExpectEvent(rows[2], 2, "srun", 1, "node-7", -9, "Killed");
  ExpectEvent(rows[3], 2, "srun", 2, "node-7", -9, "Killed");
  ExpectEvent(rows[4], 2, "srun", 5, "node-7", -9, "Killed");
  ExpectEvent(rows[5], 3, "srun", 4, "node-3", -11, "Segmentation fault (core dumped)");
  ExpectEvent(rows[6], 4, "srun", 6, "node-3", -15, "Terminated");
  ExpectEvent(rows[7], 5, "srun", 1, "node-9", -9, "Out Of Memory");
  // A host list names no single host for a task.
  ExpectEvent(rows[8], 8, "srun", 8, nullptr, 2, "exit code 2");
  ExpectEvent(rows[9], 8, "srun", 9, nullptr, 2, "exit code 2");
}

TEST(DistLauncher, SrunTaskListsAreCapped) {
  EXPECT_TRUE(Read({"srun: error: n1: tasks 0-99999999: Killed"}).empty());
  const auto rows = Read({"srun: error: n1: tasks 0-9999: Killed"});
  ASSERT_EQ(rows.size(), 4096u);
  EXPECT_EQ(rows.back().rank.value_or(-1), 4095);
}

TEST(DistLauncher, SrunMalformedTaskListsEmitNothing) {
  EXPECT_TRUE(Read({
                       "srun: error: node-7: tasks 3-1: Killed",
                       "srun: error: node-7: task x: Killed",
                       "srun: error: node-7: task 3: Something else happened",
                   })
                  .empty());
}

// --- Open MPI ----------------------------------------------------------------

TEST(DistLauncher, MpiReports) {
  const auto rows = Read({
      "mpirun noticed that process rank 3 with PID 1234 on node node-2 exited on signal 9 "
      "(Killed).",
      "prterun noticed that process rank 7 with PID 0 on node gpu-11 exited on",
      "signal 11 (Segmentation fault).",
      "[1,5]<stderr>:MPI_ABORT was invoked on rank 5 in communicator MPI_COMM_WORLD",
      "[1,5]<stderr>:with errorcode 2.",
      "mpirun detected that one or more processes exited with non-zero status, thus causing",
      "the job to be terminated. The first process to do so was:",
      "",
      "  Process name: [[4242,1],6]",
      "  Exit code:    3",  // line 10
      "--------------------------------------------------------------------------",
      "process rank 9 exited with status 4",
      "mpirun has exited due to process rank 2 with PID 0 on node n05 exiting improperly.",
  });
  ASSERT_EQ(rows.size(), 6u);
  ExpectEvent(rows[0], 1, "mpi", 3, "node-2", -9, "exited on signal 9 (Killed)");
  ExpectEvent(rows[1], 2, "mpi", 7, "gpu-11", -11, "exited on signal 11 (Segmentation fault)");
  ExpectEvent(rows[2], 4, "mpi", 5, nullptr, 2, "MPI_ABORT errorcode 2");
  ExpectEvent(rows[3], 10, "mpi", 6, nullptr, 3,
              "first process to exit with non-zero status, exit code 3");
  ExpectEvent(rows[4], 12, "mpi", 9, nullptr, 4, "exited with status 4");
  EXPECT_EQ(rows[5].line_no, 13);
  EXPECT_EQ(rows[5].rank.value_or(-1), 2);
  EXPECT_EQ(rows[5].host.value_or(""), "n05");
  EXPECT_FALSE(rows[5].value.has_value());
  EXPECT_EQ(rows[5].detail.value_or(""), "exited improperly");
}

TEST(DistLauncher, MpiAbortInAnotherCommunicatorKeepsTheLineRank) {
  const auto rows = Read({
      "MPI_ABORT was invoked on rank 1 in communicator my_split_comm with errorcode 7.",
      "MPI_ABORT was invoked on rank 4 in communicator MPI_COMM_WORLD",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].rank.has_value());
  EXPECT_EQ(rows[0].value.value_or(0), 7);
  EXPECT_EQ(rows[0].detail.value_or(""), "MPI_ABORT on rank 1 of another communicator errorcode 7");
  // Cut before its errorcode line: emitted at the end of the file, no value.
  EXPECT_EQ(rows[1].line_no, 2);
  EXPECT_EQ(rows[1].rank.value_or(-1), 4);
  EXPECT_FALSE(rows[1].value.has_value());
}

// --- look-alikes -------------------------------------------------------------

TEST(DistLauncher, LookAlikesEmitNothing) {
  EXPECT_TRUE(Read({
                       "Exiting training loop after 100 steps.",
                       "The exitcode of the worker is printed below.",
                       "    sys.exit(main())",
                       "worker 3 exited with status 0",
                       "Failures: 0, retries: 2",
                       "Killing subprocess 74810",
                       "[INFO] the child exits with return code = unknown",
                       "Root Cause analysis follows",
                       "the agent noticed that process group 2 is slow",
                       "  exitcode  : 1 (pid: 5)",
                   })
                  .empty());
}

}  // namespace
}  // namespace casefile::dist
