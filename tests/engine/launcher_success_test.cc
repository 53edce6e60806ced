// torchrun's "worker group successfully finished" through the whole path:
// ingest stores a launcher_success row for the agent's line, and the runtime
// and comm analyzers read it. A host whose workers finished had no process of
// the run OOM-killed (an untimed plain-dmesg kill there is another job's),
// and the traceback or NCCL warning its processes printed before did not end
// the run: warnings, not errors. The same bundle without the agent's line
// gives the errors, so each assertion can fail.
#include <gtest/gtest.h>

#include <string>

#include "engine/session.h"
#include "test_util.h"

namespace casefile {
namespace {

const Finding* Find(const Report& r, const std::string& code) {
  for (const Finding& f : r.findings) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

enum class Success { kNone, kAfter, kBefore };

Report AnalyzeBundle(Success success) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log =
      "I0604 09:14:02.119000 140071928194880 torch/distributed/launcher/api.py:188] Starting "
      "elastic_operator with launch configs:\n";
  for (int step = 1; step <= 40; ++step) {
    log += "[default0]:[rank0]:2024-06-04 09:" + std::to_string(15 + step / 10) + ":0" +
           std::to_string(step % 10) + ",000 - INFO - step " + std::to_string(step) +
           " loss=2.31 step_time=0.98s\n";
  }
  const std::string finished =
      "I0604 11:02:41.882000 140071928194880 torch/distributed/elastic/agent/server/api.py:846] "
      "[default] worker group successfully finished. Waiting 300 seconds for other agents to "
      "finish.\n";
  // A preprocessing torchrun that finished before training started: the
  // training's launcher prints its banner before anything fails.
  if (success == Success::kBefore) {
    log += finished;
    for (int i = 0; i < 20; ++i)
      log += "I0604 11:05:0" + std::to_string(i % 10) +
             ".000000 140071928194880 torch/distributed/launcher/api.py:188] entrypoint: "
             "train.py\n";
  }
  // A reward function's traceback the program caught and printed.
  log +=
      "[default0]:[rank0]:Traceback (most recent call last):\n"
      "[default0]:[rank0]:  File \"/work/reward.py\", line 12, in score\n"
      "[default0]:[rank0]:IndexError: list index out of range\n"
      "[default0]:node-0:61018:61462 [0] proxy.cc:1507 NCCL WARN [Proxy Service 0] Failed to "
      "execute operation Close from rank 1, retcode 3\n";
  if (success == Success::kAfter) log += finished;
  test::WriteFile(root + "/hosts/node-0/logs/train.log", log);
  // Plain dmesg: seconds since boot, another user's python killed.
  test::WriteFile(
      root + "/hosts/node-0/sysinfo/dmesg.txt",
      "[  388812.552201] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,"
      "mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-2044.slice,task=python,"
      "pid=2211093,uid=2044\n"
      "[  388812.552290] Out of memory: Killed process 2211093 (python) total-vm:802113124kB, "
      "anon-rss:980112334kB, file-rss:71264kB, shmem-rss:12kB, UID:2044 pgtables:1981123kB "
      "oom_score_adj:0\n");
  SessionOptions o;
  o.index_path = tmp.Join("i.db");
  Session s({root}, o);
  return s.Analyze({"runtime", "comm"}, false);
}

TEST(LauncherSuccess, AHostWhoseWorkersFinishedHasWarningsNotErrors) {
  const Report done = AnalyzeBundle(Success::kAfter);
  EXPECT_EQ(Find(done, "runtime.oom_killed"), nullptr);
  const Finding* first = Find(done, "runtime.first_failure");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->severity, Severity::kWarning) << first->summary;
  EXPECT_NE(first->summary.find("that its workers finished"), std::string::npos);
  const Finding* nccl = Find(done, "comm.nccl_error");
  ASSERT_NE(nccl, nullptr);
  EXPECT_EQ(nccl->severity, Severity::kWarning) << nccl->summary;

  const Report died = AnalyzeBundle(Success::kNone);
  EXPECT_NE(Find(died, "runtime.oom_killed"), nullptr);
  ASSERT_NE(Find(died, "comm.nccl_error"), nullptr);
  EXPECT_EQ(Find(died, "comm.nccl_error")->severity, Severity::kError);

  // A success reported before the failure (an earlier torchrun of the same
  // job) softens nothing that came after it.
  const Report earlier = AnalyzeBundle(Success::kBefore);
  ASSERT_NE(Find(earlier, "comm.nccl_error"), nullptr);
  EXPECT_EQ(Find(earlier, "comm.nccl_error")->severity, Severity::kError);
}

}  // namespace
}  // namespace casefile
