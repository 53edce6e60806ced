// The built-in pack's rules over the whole family of each message (the
// PyTorch, DeepSpeed, NCCL and shell wordings, prefixed as torchrun, torch
// and NCCL print them) and the look-alikes of a healthy run, which must not
// fire. Lines are written from the messages' documented shapes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyze/analyzer_test_util.h"
#include "analyze/rules/rules_analyzer.h"
#include "analyze/rules/rules_registry.h"

namespace casefile::rules {
namespace {

AnalysisResult RunBuiltin(const IndexReader& index) {
  return test::RunOne(index, std::make_unique<RulesAnalyzer>(BuiltinRulePacks()));
}

std::vector<int64_t> Lines(const AnalysisResult& r, const std::string& code) {
  std::vector<int64_t> out;
  if (const Finding* f = test::FindCode(r, code)) {
    for (const Evidence& e : f->evidence) out.push_back(e.line);
  }
  return out;
}

std::string Codes(const AnalysisResult& r) {
  std::string s;
  for (const Finding& f : r.findings) s += f.code + ": " + f.summary + "\n";
  return s;
}

TEST(BuiltinRules, DiskFullFamily) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  test::WriteFile(
      root + "/logs/node-3/train.log",
      "[default0]:[rank0]: OSError: [Errno 28] No space left on device: "
      "'/ckpt/global_step400/mp_rank_00_model_states.pt'\n"  // 1
      "[rank1]: RuntimeError: [enforce fail at inline_container.cc:595] . PytorchStreamWriter "
      "failed writing file data/17: file write failed\n"  // 2
      "tar: ckpt.tar: Wrote only 4096 of 10240 bytes\n"   // 3 (no signature)
      "write error: No space left on device\n"            // 4
      "\x1b[31m[2024-05-02 10:11:12,345] [ERROR] [engine.py:3320:_save_checkpoint] "
      "Failed to save checkpoint: [Errno 28] No space left on device\x1b[0m\n"  // 5
      "node-3:2210:2290 [2] NCCL WARN Failed to write to /dev/shm/nccl-Hj2k1: no space left on "
      "device\n"  // 6
      "E0916 20:41:09.123456 51423 checkpoint_writer.cc:88] shard 3 write failed: No space left "
      "on device\n");  // 7 (glog header)
  auto index = test::IndexOf(tmp, root);
  const auto r = RunBuiltin(*index);
  EXPECT_EQ(Lines(r, "runtime.disk_full"), (std::vector<int64_t>{1, 2, 4, 5, 6})) << Codes(r);
  const Finding* f = test::FindCode(r, "runtime.disk_full");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kError);
  // Six lines match (all but 3); the first five are cited.
  EXPECT_NE(f->summary.find("6 line(s) on node-3"), std::string::npos) << f->summary;
  EXPECT_EQ(r.findings.size(), 1u) << Codes(r);
}

TEST(BuiltinRules, TooManyOpenFilesFamily) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  test::WriteFile(
      root + "/logs/node-1/train.log",
      "[rank5]: OSError: [Errno 24] Too many open files: '/data/shard-00412.tar'\n"  // 1
      "[rank5]: RuntimeError: received 0 items of ancdata\n"                         // 2
      "node-1:3310:3391 [5] misc/socket.cc:484 NCCL WARN socketAccept: accept returned Too "
      "many open files\n"  // 3
      "[W socket.cpp:663] [c10d] The client socket has failed to connect: too many open "
      "files\n");  // 4
  auto index = test::IndexOf(tmp, root);
  const auto r = RunBuiltin(*index);
  EXPECT_EQ(Lines(r, "runtime.too_many_open_files"), (std::vector<int64_t>{1, 2, 3, 4}))
      << Codes(r);
  EXPECT_EQ(r.findings.size(), 1u) << Codes(r);
}

TEST(BuiltinRules, DataLoaderKilledFamily) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  test::WriteFile(
      root + "/logs/node-2/train.log",
      "[rank2]: ERROR: Unexpected bus error encountered in worker. This might be caused by "
      "insufficient shared memory (shm).\n"  // 1
      "[rank2]: RuntimeError: DataLoader worker (pid 51423) is killed by signal: Bus error. It "
      "is possible that dataloader's workers are out of shared memory. Please try to raise your "
      "shared memory limit.\n"                                                               // 2
      "[rank3]: RuntimeError: DataLoader worker (pid 51877) is killed by signal: Killed.\n"  // 3
      "[rank4]: RuntimeError: DataLoader worker (pid 52001) exited unexpectedly with exit code "
      "1. Details are lost due to multiprocessing. Rerunning with num_workers=0 may give better "
      "error trace.\n"                                                                        // 4
      "[rank5]: RuntimeError: DataLoader worker (pid(s) 52117, 52118) exited unexpectedly\n"  // 5
      "[rank6]: ERROR: Unexpected segmentation fault encountered in worker.\n");              // 6
  auto index = test::IndexOf(tmp, root);
  const auto r = RunBuiltin(*index);
  const Finding* f = test::FindCode(r, "runtime.dataloader_killed");
  ASSERT_TRUE(f) << Codes(r);
  EXPECT_EQ(f->summary.find("6 line(s) on node-2"), 0u) << f->summary;
  EXPECT_EQ(Lines(r, "runtime.dataloader_killed"), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  // Culprits: the ranks of the lines, capped at none here (5 distinct).
  EXPECT_EQ(f->culprits.size(), 5u);
}

TEST(BuiltinRules, LookalikesDoNotFire) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  test::WriteFile(
      root + "/logs/node-0/train.log",
      "+ ulimit -n 1048576\n"
      "open files                      (-n) 1048576\n"
      "[rank0]: config: max_open_files=65536 open_files_warn=True\n"
      "[rank0]: Saving model checkpoint to /ckpt/checkpoint-500\n"
      "[rank0]: [2024-05-02 10:11:12,345] [INFO] [engine.py:3370:_save_checkpoint] "
      "Saved checkpoint global_step500 (2.1 GB written, 812 GB left on device /dev/nvme0n1)\n"
      "[rank0]: disk check: plenty of space left on device /ckpt\n"
      "[rank0]: DataLoader: num_workers=8, pin_memory=True, persistent_workers=True\n"
      "[rank0]: dataloader worker 3 started (pid 4410)\n"
      "[rank0]: torch.multiprocessing sharing strategy: file_descriptor\n"
      "[rank0]: Errno 28 is ENOSPC; retry policy: abort\n"
      "[rank0]: step 500 loss=1.92 errors=0\n"
      // A line cut mid-signature (no final newline): not the message.
      "[rank0]: OSError: [Errno 2");
  auto index = test::IndexOf(tmp, root);
  const auto r = RunBuiltin(*index);
  EXPECT_TRUE(r.findings.empty()) << Codes(r);
}

TEST(BuiltinRules, DiskFullQuotaAndTorchSaveVariants) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  test::WriteFile(root + "/logs/node-1/train.log",
                  "[rank3]: RuntimeError: [enforce fail at inline_container.cc:595] . unexpected "
                  "pos 2166730752 vs 2166730648\n"  // 1
                  "OSError: [Errno 122] Disk quota exceeded: "
                  "'/scratch/ckpt/global_step1200/mp_rank_03_model_states.pt'\n"  // 2
                  "cp: error writing '/home/u/ckpt.tar': Disk quota exceeded\n"   // 3
                  "step 10 loss=2.1 unexpected position embedding size\n");       // 4: no
  auto index = test::IndexOf(tmp, root);
  const auto r = RunBuiltin(*index);
  EXPECT_EQ(Lines(r, "runtime.disk_full"), (std::vector<int64_t>{1, 2, 3})) << Codes(r);
  const Finding* f = test::FindCode(r, "runtime.disk_full");
  ASSERT_TRUE(f);
  EXPECT_NE(f->title.find("full or the quota"), std::string::npos) << f->title;
}

TEST(BuiltinRules, DataLoaderDeathWordingOnly) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  test::WriteFile(
      root + "/logs/node-3/train.log",
      "RuntimeError: Pin memory thread exited unexpectedly\n"                              // 1
      "[rank0]: RuntimeError: DataLoader worker (pid 99) is killed by signal: Aborted.\n"  // 2
      // Not deaths of their own: an exception the dataset code raised in a
      // worker (re-raised in the rank with its traceback: the rank's own
      // failure), a worker starting, and the SIGTERM / SIGINT of the job's
      // teardown after another failure.
      "[rank1]: RuntimeError: Caught RuntimeError in DataLoader worker process 3.\n"  // 3
      "2026-09-17 08:00:12,345 - train - INFO - DataLoader worker (pid 4512) started for "
      "shard 3\n"                                                                              // 4
      "[rank0]: RuntimeError: DataLoader worker (pid 100) is killed by signal: Terminated.\n"  // 5
      "[rank2]: RuntimeError: DataLoader worker (pid 101) is killed by signal: Interrupt.\n"   // 6
      "RuntimeError: DataLoader timed out after 1800 seconds\n");                              // 7
  auto index = test::IndexOf(tmp, root);
  const auto r = RunBuiltin(*index);
  EXPECT_EQ(Lines(r, "runtime.dataloader_killed"), (std::vector<int64_t>{1, 2})) << Codes(r);
  EXPECT_EQ(r.findings.size(), 1u) << Codes(r);
}

TEST(BuiltinRules, StartedAndTeardownWorkersAloneDoNotFire) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  test::WriteFile(root + "/logs/node-0/train.log",
                  "[rank0]: DataLoader worker (pid 4410) started\n"
                  "[rank0]: RuntimeError: DataLoader worker (pid 99) is killed by signal: "
                  "Terminated.\n");
  auto index = test::IndexOf(tmp, root);
  const auto r = RunBuiltin(*index);
  EXPECT_TRUE(r.findings.empty()) << Codes(r);
}

}  // namespace
}  // namespace casefile::rules
