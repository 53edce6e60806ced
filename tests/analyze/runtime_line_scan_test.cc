// The runtime analyzer's pass over lines, fed LineRecords by hand: how the
// lines of one OOM kill become one kill, which PID a rank's lines carry,
// the time an unstamped failure row takes from its neighbours, and where
// assertion lines are looked for.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyze/analyzers/runtime/line_scan.h"

namespace casefile::runtime {
namespace {

class LineScanTest : public ::testing::Test {
 protected:
  // Keeps the texts alive: LineRecord holds views.
  LineRecord Line(int64_t no, std::string text, int64_t ts = kNoTimestamp, int32_t rank = -1,
                  int64_t pid = -1, std::string host = "node-1") {
    texts_.push_back(std::move(text));
    hosts_.push_back(std::move(host));
    LineRecord r;
    r.file_id = file_.id;
    r.line_no = no;
    r.ts_us = ts;
    r.rank = rank;
    r.pid = pid;
    r.text = texts_.back();
    r.host = hosts_.back();
    return r;
  }

  FileRow file_ = [] {
    FileRow f;
    f.id = 7;
    f.bundle_id = 1;
    f.path = "nodes/node-1/dmesg.txt";
    f.kind = "sysinfo";
    f.entry_type = "file";
    return f;
  }();
  RuntimeFacts facts_;
  std::vector<std::string> texts_{};
  std::vector<std::string> hosts_{};

 public:
  LineScanTest() {
    texts_.reserve(64);
    hosts_.reserve(64);
  }
};

TEST_F(LineScanTest, TheLinesOfOneKillAreOneKill) {
  FileScanner scan(/*is_log=*/false, /*want_asserts=*/false, facts_);
  scan.Add(Line(1,
                "python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE), order=0, "
                "oom_score_adj=0",
                100));
  scan.Add(Line(2, "Mem-Info:", 100));
  scan.Add(Line(
      3, "[   4242]  1000  4242 52011234 41823456 335872000        0             0 python", 100));
  scan.Add(Line(4,
                "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,"
                "global_oom,task_memcg=/,task=python,pid=4242,uid=0",
                100));
  scan.Add(Line(5,
                "Out of memory: Killed process 4242 (python) total-vm:2kB, anon-rss:1024kB, "
                "file-rss:0kB",
                100));
  // A second kill right after, without a trigger line of its own.
  scan.Add(Line(6,
                "Out of memory: Killed process 4250 (python) total-vm:2kB, anon-rss:2048kB, "
                "file-rss:0kB",
                200));
  scan.Add(Line(7, "oom_reaper: reaped process 4242 (python), now anon-rss:0kB", 210));
  scan.Finish();
  ASSERT_EQ(facts_.kills.size(), 2u);
  const KernelKill& a = facts_.kills[0];
  EXPECT_EQ(a.pid, 4242);
  EXPECT_EQ(a.trigger_line, 1);
  EXPECT_EQ(a.summary_line, 4);
  EXPECT_EQ(a.victim_line, 5);
  EXPECT_EQ(a.anon_rss_kb, 1024);
  EXPECT_EQ(a.ts_us, 100);
  EXPECT_EQ(a.host, "node-1");
  const KernelKill& b = facts_.kills[1];
  EXPECT_EQ(b.pid, 4250);
  EXPECT_EQ(b.victim_line, 6);
  EXPECT_EQ(b.trigger_line, 0);
  EXPECT_EQ(b.ts_us, 200);
}

TEST_F(LineScanTest, XidLinesAndSlurmReports) {
  FileScanner scan(false, false, facts_);
  scan.Add(
      Line(1, "NVRM: Xid (PCI:0000:3b:00): 79, pid=12, name=python, GPU has fallen off the bus."));
  scan.Add(Line(2, "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=5.0 cgroup."));
  scan.Finish();
  ASSERT_EQ(facts_.xids.size(), 1u);
  EXPECT_EQ(facts_.xids[0].xid, 79);
  EXPECT_EQ(facts_.xids[0].line_no, 1);
  ASSERT_EQ(facts_.kills.size(), 1u);
  EXPECT_TRUE(facts_.kills[0].slurm);
  EXPECT_TRUE(facts_.kills[0].memcg);
  EXPECT_EQ(facts_.kills[0].slurm_line, 2);
}

TEST_F(LineScanTest, PidsOfRanksComeFromLogLinesOnly) {
  FileScanner log(/*is_log=*/true, false, facts_);
  log.Add(Line(1, "[rank3]:node-1:4242:4242 [3] NCCL INFO Bootstrap", kNoTimestamp, 3, 4242));
  log.Add(Line(2, "[rank3]:node-1:4242:4250 [3] NCCL INFO Channel 00", kNoTimestamp, 3, 4242));
  log.Add(Line(3, "node-1:4300:4300 [0] NCCL INFO no rank on this line", kNoTimestamp, -1, 4300));
  log.Finish();
  ASSERT_EQ(facts_.pids.size(), 1u);
  EXPECT_EQ(facts_.pids[0].pid, 4242);
  EXPECT_EQ(facts_.pids[0].rank, 3);
  EXPECT_EQ(facts_.pids[0].host, "node-1");
  FileScanner other(/*is_log=*/false, false, facts_);
  other.Add(Line(1, "something", kNoTimestamp, 5, 999));
  other.Finish();
  EXPECT_EQ(facts_.pids.size(), 1u);
}

TEST_F(LineScanTest, UnstampedRowsTakeANeighboursTime) {
  for (int64_t line : {10, 500, 900}) {
    FailureRow r;
    r.file_id = file_.id;
    r.line_no = line;
    facts_.rows.push_back(r);
  }
  FileScanner scan(true, false, facts_);
  scan.SetWanted({0, 1, 2});
  scan.Add(Line(8, "stamped", 1000));
  scan.Add(Line(10, "Traceback row line"));
  // Row at 500: nothing stamped within 200 lines before; the next stamped
  // line, 50 lines after, gives its time.
  scan.Add(Line(500, "error"));
  scan.Add(Line(550, "stamped later", 5000));
  // Row at 900: the last stamped line is 350 lines back, and none follows.
  scan.Add(Line(900, "error"));
  scan.Finish();
  EXPECT_EQ(facts_.rows[0].est_ts_us, 1000);
  EXPECT_EQ(facts_.rows[1].est_ts_us, 5000);
  EXPECT_EQ(facts_.rows[2].est_ts_us, kNoTimestamp);
  EXPECT_EQ(facts_.run_first_us, 1000);
  EXPECT_EQ(facts_.run_last_us, 5000);
}

TEST_F(LineScanTest, AssertionLinesOnlyWhereWanted) {
  const std::string a =
      "[rank2]:../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [7,0,0], thread: "
      "[64,0,0] Assertion `index out of bounds` failed.";
  FileScanner off(true, /*want_asserts=*/false, facts_);
  off.Add(Line(1, a, kNoTimestamp, 2));
  off.Finish();
  EXPECT_TRUE(facts_.asserts.empty());
  FileScanner on(true, /*want_asserts=*/true, facts_);
  on.Add(Line(1, a, kNoTimestamp, 2));
  on.Add(Line(2, "[rank2]:Assertion `x` quoted in prose, and it failed", kNoTimestamp, 2));
  on.Finish();
  ASSERT_EQ(facts_.asserts.size(), 1u);
  EXPECT_EQ(facts_.asserts[0].line_no, 1);
  EXPECT_EQ(facts_.asserts[0].rank, 2);
}

}  // namespace
}  // namespace casefile::runtime
