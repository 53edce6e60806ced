// hang.collective_timeout and hang.collective_mismatch from the ranks' own
// lines (docs/FINDINGS.md, section hang, rules R1 and R2): which culprit
// rule wins, the numbers in the summary, the lines cited. Inputs are built
// as the index would hold them for a 16-rank job on two nodes of 8 GPUs,
// torchrun printing every rank's lines into one log per node.
#include <gtest/gtest.h>

#include "analyze/analyzers/hang/collective_rules.h"
#include "analyze/hang_dist_fixture.h"

namespace casefile::hang {
namespace {

using test::Cites;
using test::Codes;
using test::DistBundle;
using test::FindingOf;
using test::RankAt;

constexpr int64_t kRanks = 16;
const std::string kLog0 = "node-0/logs/train.log";
const std::string kLog1 = "node-1/logs/train.log";

// Two node logs (file 1: ranks 0-7 on node-0, file 2: ranks 8-15 on
// node-1) and NCCL's world communicator lines naming each rank's host.
struct Job {
  DistBundle b;
  int64_t node0 = 0, node1 = 0;
  Job() {
    node0 = b.File(kLog0, "node-0", std::nullopt, "", 5000);
    node1 = b.File(kLog1, "node-1", std::nullopt, "", 5000);
    for (int64_t r = 0; r < kRanks; ++r)
      b.ranks.AddCommunicator(r, kRanks, r < 8 ? "node-0" : "node-1");
  }
  int64_t FileOf(int64_t rank) const { return rank < 8 ? node0 : node1; }
  const std::string& PathOf(int64_t rank) const { return rank < 8 ? kLog0 : kLog1; }
  // The first timeout line of a rank: line 1000 + rank of its node's log.
  DistEvent& Timeout(int64_t rank, int64_t seq, const std::string& op = "ALLREDUCE",
                     int64_t numel = 4194304) {
    return b.Timeout(FileOf(rank), 1000 + rank, rank, seq, op, numel);
  }
};

TEST(CollectiveTimeout, RankBehindIsNamedWithItsLastEnqueuedSeq) {
  Job job;
  for (int64_t r = 0; r < kRanks; ++r) {
    if (r == 5) continue;
    job.Timeout(r, 1042);
    job.b.Progress(job.FileOf(r), 2000 + r, r, 1042, 1042, 1041);
  }
  // Rank 5 answers the dump signal: it never enqueued 1042.
  job.b.Progress(job.node0, 3005, 5, std::nullopt, 1041, 1041);
  const auto fs = job.b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_timeout"});
  const Finding& f = fs[0];
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.culprits, (std::vector<Culprit>{RankAt(5, "node-0")}));
  EXPECT_NE(f.summary.find("rank 5 (host node-0) last enqueued SeqNum 1041"), std::string::npos)
      << f.summary;
  EXPECT_NE(f.summary.find(
                "15 ranks wait at SeqNum 1042 (ALLREDUCE, 4194304 elements, timeout 600000 ms)"),
            std::string::npos)
      << f.summary;
  EXPECT_TRUE(Cites(f, kLog0, 3005));
  // The first timeout line of the 8 lowest waiting ranks: 0-4, 6, 7, 8.
  for (int64_t r : {0, 1, 2, 3, 4, 6, 7}) EXPECT_TRUE(Cites(f, kLog0, 1000 + r)) << r;
  EXPECT_TRUE(Cites(f, kLog1, 1008));
  EXPECT_FALSE(Cites(f, kLog1, 1009));
  EXPECT_EQ(f.evidence.size(), 9u);
  EXPECT_NE(f.recommendation.find("py-spy dump"), std::string::npos);
  EXPECT_NE(f.recommendation.find("TORCH_NCCL_TRACE_BUFFER_SIZE"), std::string::npos);
}

TEST(CollectiveTimeout, RankThatCrashedFirstIsTheCauseAndTimeoutsTheSymptom) {
  Job job;
  for (int64_t r = 0; r < 8; ++r) {
    job.Timeout(r, 311).ts_us = 1'700'000'600'000'000;
    // Each waiting rank dies of its own watchdog: consequences, not causes.
    DistEvent& c = job.b.Event(DistKind::kCrash, job.node0, 1100 + r, r);
    c.detail = "terminate called after throwing an instance of 'c10::DistBackendError'";
  }
  // Rank 11 ran out of memory ten minutes before; torchrun on node-1 names
  // it as the root cause and stops the other local workers with SIGTERM.
  DistEvent& oom = job.b.Event(DistKind::kCrash, job.node1, 700, 11);
  oom.detail = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB";
  oom.ts_us = 1'700'000'000'000'000;
  DistEvent& root = job.b.Event(DistKind::kLauncherFailure, job.node1, 760, 11);
  root.op = "torchrun";
  root.value = 1;
  root.detail = "root_cause";
  for (int64_t r : {8, 9, 10, 12, 13, 14, 15}) {
    DistEvent& killed = job.b.Event(DistKind::kLauncherFailure, job.node1, 740 + r, r);
    killed.op = "torchrun";
    killed.value = -15;
    killed.detail = "SIGTERM";
  }
  const auto fs = job.b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_timeout"});
  const Finding& f = fs[0];
  EXPECT_EQ(f.culprits, (std::vector<Culprit>{RankAt(11, "node-1")}));
  EXPECT_NE(f.summary.find("rank 11 (host node-1) failed first: torch.OutOfMemoryError: CUDA out "
                           "of memory. Tried to allocate 2.00 GiB (torchrun reports exit code 1)"),
            std::string::npos)
      << f.summary;
  EXPECT_NE(f.summary.find("the collective timeouts of 8 ranks are the symptom"), std::string::npos)
      << f.summary;
  EXPECT_TRUE(Cites(f, kLog1, 700));
  EXPECT_TRUE(Cites(f, kLog1, 760));
  EXPECT_FALSE(Cites(f, kLog1, 748));  // a SIGTERM'd rank is collateral
  EXPECT_TRUE(Cites(f, kLog0, 1000));
}

TEST(CollectiveTimeout, ErrorThatNamesOnlyItsLocalRankCountsForItsGlobalRank) {
  // torchrun --tee on node-1 prints rank 11's error under "[default3]:":
  // the row has the local rank 3 and no rank. The world's communicator
  // lines give each node one block of 8 ranks (node-1: 8-15), so local rank
  // 3 of node-1 is global rank 11. A traceback and a CUDA error alike.
  struct Case {
    DistKind kind;
    const char* detail;
    const char* said;
  };
  for (const Case& c : {
           Case{DistKind::kCrash,
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
                "rank 11 (host node-1) failed first: torch.OutOfMemoryError: CUDA out of memory. "
                "Tried to allocate 2.00 GiB; the collective timeouts of 15 ranks are the symptom"},
           Case{DistKind::kCudaError, "an illegal memory access was encountered",
                "rank 11 (host node-1) failed first: CUDA error: an illegal memory access was "
                "encountered; the collective timeouts of 15 ranks are the symptom"},
       }) {
    Job job;
    for (int64_t r = 0; r < kRanks; ++r) {
      if (r != 11) job.Timeout(r, 311).ts_us = 1'700'000'600'000'000;
    }
    DistEvent& err = job.b.Event(c.kind, job.node1, 700);
    err.local_rank = 3;
    err.detail = c.detail;
    err.ts_us = 1'700'000'000'000'000;
    const auto fs = job.b.Run();
    ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_timeout"});
    const Finding& f = fs[0];
    EXPECT_EQ(f.culprits, (std::vector<Culprit>{RankAt(11, "node-1")}));
    EXPECT_NE(f.summary.find(c.said), std::string::npos) << f.summary;
    EXPECT_TRUE(Cites(f, kLog1, 700));
  }
}

TEST(CollectiveTimeout, LocalRankIsNotMappedWhenTheHostsHoldNoEqualBlocks) {
  // node-0 holds ranks 0-9 and node-1 ranks 10-15: no block size K fits
  // both, so local rank 3 of node-1 names no global rank; rank 11, silent,
  // is named by rule (c) and the rank-less error is not its.
  DistBundle b;
  const int64_t node0 = b.File(kLog0, "node-0", std::nullopt, "", 5000);
  const int64_t node1 = b.File(kLog1, "node-1", std::nullopt, "", 5000);
  for (int64_t r = 0; r < kRanks; ++r)
    b.ranks.AddCommunicator(r, kRanks, r < 10 ? "node-0" : "node-1");
  for (int64_t r = 0; r < kRanks; ++r) {
    if (r != 11) b.Timeout(r < 10 ? node0 : node1, 1000 + r, r, 311);
  }
  DistEvent& oom = b.Event(DistKind::kCrash, node1, 700);
  oom.local_rank = 3;
  oom.detail = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB";
  const auto fs = b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_timeout"});
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{RankAt(11, "node-1")}));
  EXPECT_NE(fs[0].summary.find("rank 11 (host node-1) never reached SeqNum 311"), std::string::npos)
      << fs[0].summary;
  EXPECT_FALSE(Cites(fs[0], kLog1, 700));
}

TEST(CollectiveTimeout, ErrorLoggedAfterTheTimeoutsIsNotTheCause) {
  Job job;
  for (int64_t r = 0; r < kRanks; ++r) {
    if (r != 3) job.Timeout(r, 50).ts_us = 1'700'000'600'000'000;
  }
  // Rank 3 prints an unrelated error after everyone timed out.
  DistEvent& late = job.b.Event(DistKind::kCrash, job.node0, 4000, 3);
  late.detail = "RuntimeError: dataloader worker exited unexpectedly";
  late.ts_us = 1'700'000'700'000'000;
  const auto fs = job.b.Run();
  ASSERT_EQ(fs.size(), 1u);
  // Rank 3 still never arrived: rule (c), not (a).
  EXPECT_NE(fs[0].summary.find("rank 3 (host node-0) never reached SeqNum 50"), std::string::npos)
      << fs[0].summary;
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{RankAt(3, "node-0")}));
  EXPECT_FALSE(Cites(fs[0], kLog0, 4000));
}

TEST(CollectiveTimeout, SilentRankNeverArrivedWithTheEndOfItsOwnLog) {
  DistBundle b;
  const int64_t t0 = 1'700'000'000'000'000;
  std::vector<int64_t> file_of(kRanks);
  for (int64_t r = 0; r < kRanks; ++r) {
    const std::string host = r < 8 ? "node-0" : "node-1";
    // One log per rank (torchrun --log-dir); rank 11's stops 612 s before
    // the first timeout.
    file_of[r] = b.File("logs/rank" + std::to_string(r) + ".log", host, r, "", r == 11 ? 420 : 900,
                        r == 11 ? t0 - 612'000'000 : t0 + 5'000'000);
    b.ranks.AddCommunicator(r, kRanks, host);
  }
  for (int64_t r = 0; r < kRanks; ++r) {
    if (r == 11) continue;
    b.Timeout(file_of[r], 880, r, 77).ts_us = t0 + r;
  }
  const auto fs = b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_timeout"});
  const Finding& f = fs[0];
  EXPECT_EQ(f.culprits, (std::vector<Culprit>{RankAt(11, "node-1")}));
  EXPECT_NE(f.summary.find("rank 11 (host node-1) never reached SeqNum 77: 15 ranks wait at "
                           "SeqNum 77 (ALLREDUCE, 4194304 elements, timeout 600000 ms)"),
            std::string::npos)
      << f.summary;
  EXPECT_NE(f.summary.find("10 min 12 s before the first timeout"), std::string::npos) << f.summary;
  EXPECT_TRUE(Cites(f, "logs/rank11.log", 420));
  EXPECT_TRUE(Cites(f, "logs/rank0.log", 880));
}

TEST(CollectiveTimeout, ARankWhosePeerWentAwayIsNotSilent) {
  // node-1's ranks 12-15 vanish (their host's log ends); rank 11's
  // collective fails with the peer's "remote process exited" instead of a
  // timeout: it was inside the collective, not missing from it.
  Job job;
  for (int64_t r = 0; r < 11; ++r) job.Timeout(r, 310);
  job.b.Event(DistKind::kCollectiveError, job.node1, 1011, 11, "node-1").detail =
      "NCCL error: remote process exited or there was a network error, NCCL version 2.19.3";
  const auto fs = job.b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_timeout"});
  std::vector<Culprit> want;
  for (int64_t r = 12; r < 16; ++r) want.push_back(RankAt(r, "node-1"));
  EXPECT_EQ(fs[0].culprits, want) << fs[0].summary;
  // A silent rank interrupted at the teardown (Ctrl-C, scancel) is still
  // silent: its traceback says nothing of the collective.
  job.b.Event(DistKind::kCrash, job.node1, 4012, 12, "node-1").detail = "KeyboardInterrupt";
  const auto gs = job.b.Run();
  ASSERT_EQ(Codes(gs), std::vector<std::string>{"hang.collective_timeout"});
  EXPECT_EQ(gs[0].culprits, want) << gs[0].summary;
}

TEST(CollectiveMismatch, FromTheDetailFingerprintCheck) {
  // TORCH_DISTRIBUTED_DEBUG=DETAIL: rank 3 broadcasts where the others
  // all-reduce; every rank raises at once, no watchdog timeout.
  Job job;
  auto fp = [](const char* op, const char* shape) {
    return std::string("CollectiveFingerPrint(SequenceNumber=1503, OpType=") + op +
           ", TensorShape=" + shape + ", TensorDtypes=Float)";
  };
  for (int64_t r = 0; r < kRanks; ++r) {
    const int64_t other = r == 3 ? 0 : 3;
    const auto mine = r == 3 ? fp("BROADCAST", "[1]") : fp("ALLREDUCE", "[1024, 4096]");
    const auto theirs = r == 3 ? fp("ALLREDUCE", "[1024, 4096]") : fp("BROADCAST", "[1]");
    // torchrun's "[defaultN]:" names no global rank: the message's ranks do.
    job.b.Event(DistKind::kCrash, job.FileOf(r), 3000 + r).detail =
        "RuntimeError: Detected mismatch between collectives on ranks. Rank " + std::to_string(r) +
        " is running collective: " + mine + ", but Rank " + std::to_string(other) +
        " is running collective: " + theirs + ".";
  }
  const auto fs = job.b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_mismatch"});
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{RankAt(3, "node-0")}));
  EXPECT_NE(fs[0].summary.find("at SequenceNumber 1503: ranks 0-2, 4-15 ALLREDUCE [1024, 4096] "
                               "Float; rank 3 BROADCAST [1] Float"),
            std::string::npos)
      << fs[0].summary;
  EXPECT_TRUE(Cites(fs[0], kLog0, 3003));
  // Only the odd rank's own line is missing: the others' messages name it.
  job.b.in.events.erase(job.b.in.events.begin() + 3);
  const auto gs = job.b.Run();
  ASSERT_EQ(Codes(gs), std::vector<std::string>{"hang.collective_mismatch"});
  EXPECT_EQ(gs[0].culprits, (std::vector<Culprit>{RankAt(3, "node-0")}));
}

TEST(CollectiveTimeout, AllRanksWaitingAtTheSameSeqNamesNoOne) {
  Job job;
  for (int64_t r = 0; r < kRanks; ++r) {
    job.Timeout(r, 9).pg = "0(default_pg)";
    job.b.Progress(job.FileOf(r), 2000 + r, r, 9, 9, 8);
  }
  const auto fs = job.b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "hang.collective_timeout");
  EXPECT_TRUE(fs[0].culprits.empty());
  EXPECT_NE(fs[0].summary.find("16 ranks wait at SeqNum 9 (ALLREDUCE, 4194304 elements, timeout "
                               "600000 ms) in process group 0 (default_pg)."),
            std::string::npos)
      << fs[0].summary;
  EXPECT_NE(fs[0].summary.find("Nothing in the logs shows who is behind"), std::string::npos);
  EXPECT_NE(fs[0].recommendation.find("TORCH_NCCL_DUMP_ON_TIMEOUT=1"), std::string::npos);
  EXPECT_EQ(fs[0].evidence.size(), kMaxWaitingCited);
}

// torch >= 2.3's heartbeat monitor: every rank's watchdog thread blocked in
// a NCCL call (a network failure left the communicator hanging) and no
// collective timed out. The hang is still a hang, told as such.
TEST(CollectiveTimeout, StuckWatchdogsWithoutAnyTimeoutAreAHang) {
  Job job;
  for (int64_t r = 0; r < kRanks; ++r) {
    DistEvent& e = job.b.Event(DistKind::kWatchdogStuck, job.FileOf(r), 1500 + r, r);
    e.elapsed_ms = 480'000;
    e.detail = "stuck";
    e.ts_us = 1'700'000'600'000'000;
    // The monitor's abort: every rank's own consequence, not a cause.
    job.b.Event(DistKind::kCrash, job.FileOf(r), 1600 + r, r).detail =
        "terminate called after throwing an instance of 'c10::DistBackendError' what(): [PG 0 "
        "Rank 3] ProcessGroupNCCL's watchdog got stuck for 480 seconds";
  }
  const auto fs = job.b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_timeout"});
  const Finding& f = fs[0];
  EXPECT_TRUE(f.culprits.empty()) << f.summary;
  EXPECT_NE(f.summary.find("The ProcessGroupNCCL watchdog of 16 ranks got stuck in a NCCL or CUDA "
                           "call (480 s without progress)"),
            std::string::npos)
      << f.summary;
  EXPECT_NE(f.title.find("watchdog got stuck"), std::string::npos);
  EXPECT_NE(f.recommendation.find("py-spy dump --native"), std::string::npos);
  EXPECT_EQ(f.evidence.size(), kMaxWaitingCited);
  EXPECT_TRUE(Cites(f, kLog0, 1500));
}

// The culprit rules apply to stuck watchdogs as to timeouts: a rank that
// died before the others' watchdogs got stuck is the cause, and a rank
// that logged nothing at all never arrived.
TEST(CollectiveTimeout, StuckWatchdogsNameTheRankThatFailedFirstOrIsSilent) {
  Job job;
  for (int64_t r = 0; r < kRanks; ++r) {
    if (r == 13) continue;
    DistEvent& e = job.b.Event(DistKind::kWatchdogStuck, job.FileOf(r), 1500 + r, r);
    e.detail = "heartbeat";
    e.ts_us = 1'700'000'600'000'000;
  }
  const auto silent = job.b.Run();
  ASSERT_EQ(Codes(silent), std::vector<std::string>{"hang.collective_timeout"});
  EXPECT_EQ(silent[0].culprits, (std::vector<Culprit>{RankAt(13, "node-1")}));
  EXPECT_NE(silent[0].summary.find("logged no stuck watchdog, no timeout and no progress"),
            std::string::npos)
      << silent[0].summary;

  DistEvent& err = job.b.Event(DistKind::kCudaError, job.node1, 900, 13, "node-1");
  err.detail = "an illegal memory access was encountered";
  err.ts_us = 1'700'000'100'000'000;
  // Logged after the hang was reported: not the cause.
  DistEvent& late = job.b.Event(DistKind::kCrash, job.node0, 4000, 2, "node-0");
  late.detail = "RuntimeError: something late";
  late.ts_us = 1'700'000'700'000'000;
  const auto fs = job.b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_timeout"});
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{RankAt(13, "node-1")}));
  EXPECT_NE(fs[0].summary.find("rank 13 (host node-1) failed first: CUDA error: an illegal memory "
                               "access was encountered; the stuck watchdogs of 15 ranks are the "
                               "symptom (the ProcessGroupNCCL watchdog of 15 ranks got stuck"),
            std::string::npos)
      << fs[0].summary;
  EXPECT_TRUE(Cites(fs[0], kLog1, 900));

  // Rank 13's own watchdog got stuck too, after its fault: the fault before
  // its stuck line still makes it the rank that failed first.
  DistEvent& own = job.b.Event(DistKind::kWatchdogStuck, job.node1, 1513, 13);
  own.ts_us = 1'700'000'600'000'000;
  const auto gs = job.b.Run();
  ASSERT_EQ(Codes(gs), std::vector<std::string>{"hang.collective_timeout"});
  EXPECT_EQ(gs[0].culprits, (std::vector<Culprit>{RankAt(13, "node-1")})) << gs[0].summary;
  EXPECT_NE(gs[0].summary.find("rank 13 (host node-1) failed first"), std::string::npos)
      << gs[0].summary;
}

// torchrun --max-restarts: the worker group hung at SeqNum 1201, was
// restarted, and trained on past the hang. The hang is told, as a warning.
TEST(CollectiveTimeout, AHangTheRunRecoveredFromIsAWarning) {
  Job job;
  for (int64_t r = 0; r < kRanks; ++r) {
    if (r != 5) job.Timeout(r, 1201);
  }
  // Rank 0 logs the steps of node-0, rank 8 those of node-1: steps up to
  // 1100 before the timeouts (lines 1000+), then from the checkpoint at
  // 1000 on to `last` after the restart.
  auto run = [&](int64_t last) {
    job.b.in.steps.clear();
    for (int64_t r : {0, 8}) {
      StepSeries series;
      series.host = r < 8 ? "node-0" : "node-1";
      series.rank = r;
      for (int64_t step = 1000; step <= 1100; ++step)
        series.points.push_back({step, 1.0, job.FileOf(r), step - 1000 + 100});
      for (int64_t step = 1000; step <= last; ++step)
        series.points.push_back({step, 1.0, job.FileOf(r), step - 1000 + 3000});
      job.b.in.steps.push_back(std::move(series));
    }
    return job.b.Run();
  };
  const auto recovered = run(1500);
  ASSERT_EQ(Codes(recovered), std::vector<std::string>{"hang.collective_timeout"});
  EXPECT_EQ(recovered[0].severity, Severity::kWarning);
  EXPECT_EQ(recovered[0].culprits, (std::vector<Culprit>{RankAt(5, "node-0")}));
  EXPECT_NE(recovered[0].summary.find("The run recovered: after the hang its logs go on to step "
                                      "1500"),
            std::string::npos)
      << recovered[0].summary;
  // A few step lines after the timeouts (stdout flushed at exit) are no
  // recovery, even past the hang's step.
  job.b.in.steps.clear();
  for (int64_t r : {0, 8}) {
    StepSeries series;
    series.host = r < 8 ? "node-0" : "node-1";
    series.rank = r;
    series.points.push_back({1100, 1.0, job.FileOf(r), 100});
    series.points.push_back({1150, 1.0, job.FileOf(r), 3000});
    series.points.push_back({1151, 1.0, job.FileOf(r), 3001});
    job.b.in.steps.push_back(std::move(series));
  }
  const auto flushed = job.b.Run();
  ASSERT_EQ(Codes(flushed), std::vector<std::string>{"hang.collective_timeout"});
  EXPECT_EQ(flushed[0].severity, Severity::kError);
  // Restarted, but it never got past where it hung: still the failure.
  const auto again = run(1080);
  ASSERT_EQ(Codes(again), std::vector<std::string>{"hang.collective_timeout"});
  EXPECT_EQ(again[0].severity, Severity::kError);
  EXPECT_EQ(again[0].summary.find("recovered"), std::string::npos) << again[0].summary;
  // Steps after the timeouts in one node's log only: the other did not go on.
  job.b.in.steps.clear();
  StepSeries one;
  one.host = "node-0";
  one.rank = 0;
  one.points.push_back({1050, 1.0, job.node0, 100});
  one.points.push_back({1300, 1.0, job.node0, 4000});
  job.b.in.steps.push_back(one);
  const auto half = job.b.Run();
  ASSERT_EQ(Codes(half), std::vector<std::string>{"hang.collective_timeout"});
  EXPECT_EQ(half[0].severity, Severity::kError);
}

TEST(CollectiveTimeout, HalfTheRanksSilentIsNoEvidenceOfWhoIsMissing) {
  // Only node-0's log is in the bundle: ranks 8-15 are silent because
  // their log was not collected, not because they are stuck.
  Job job;
  for (int64_t r = 0; r < 8; ++r) job.Timeout(r, 9);
  const auto fs = job.b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_TRUE(fs[0].culprits.empty());
}

TEST(CollectiveTimeout, ManySilentRanksAreEachNamedOnce) {
  // 4,096 ranks on 512 nodes; the 1,000 ranks of nodes 100-224 never arrive.
  DistBundle b;
  constexpr int64_t kWorld = 4096;
  std::vector<int64_t> file_of_node;
  for (int64_t node = 0; node < kWorld / 8; ++node) {
    file_of_node.push_back(
        b.File("node-" + std::to_string(node) + "/train.log", "node-" + std::to_string(node)));
  }
  for (int64_t r = 0; r < kWorld; ++r) {
    const int64_t node = r / 8;
    b.ranks.AddCommunicator(r, kWorld, "node-" + std::to_string(node));
    if (node >= 100 && node < 225) continue;
    b.Timeout(file_of_node[node], 1000 + r % 8, r, 6);
    // The same rank's timeout again: still one culprit check per rank.
    b.Timeout(file_of_node[node], 1100 + r % 8, r, 6);
  }
  const auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  ASSERT_EQ(fs[0].culprits.size(), 1000u);
  EXPECT_EQ(fs[0].culprits.front(), RankAt(800, "node-100"));
  EXPECT_NE(fs[0].summary.find("ranks 800-1799 (hosts node-100, node-101,"), std::string::npos)
      << fs[0].summary.substr(0, 300);
  // Own-log lines are cited for the first 8 culprits only (all on node-100).
  EXPECT_TRUE(Cites(fs[0], "node-100/train.log", 100));
  EXPECT_FALSE(Cites(fs[0], "node-101/train.log", 100));
}

TEST(CollectiveTimeout, RepeatedTimeoutLinesCountEachRankOnceAtItsFirstLine) {
  Job job;
  for (int64_t r = 0; r < kRanks; ++r) {
    if (r == 2) continue;
    job.Timeout(r, 400);
    // The same timeout again in "watchdog thread terminated with
    // exception" and in the what() of the terminate.
    job.b.Timeout(job.FileOf(r), 1200 + r, r, 400);
    job.b.Timeout(job.FileOf(r), 1300 + r, r, 400);
  }
  const auto fs = job.b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_NE(fs[0].summary.find("15 ranks wait at SeqNum 400"), std::string::npos) << fs[0].summary;
  EXPECT_TRUE(Cites(fs[0], kLog0, 1000));
  EXPECT_FALSE(Cites(fs[0], kLog0, 1200));
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{RankAt(2, "node-0")}));
}

TEST(CollectiveTimeout, TimeoutWithoutGroupPrefixJoinsTheGroupItsProgressLineNames) {
  // torch 2.2-era lines: the timeout has no [PG ...] prefix, the progress
  // line says "[PG 1 Rank k] Exception ... detected by watchdog at work:
  // 88, last enqueued NCCL work: 88, last completed NCCL work: 87".
  Job job;
  for (int64_t r = 0; r < kRanks; ++r) {
    if (r == 13) {
      job.b.Progress(job.node1, 2013, 13, std::nullopt, 87, 87).pg = "1";
      continue;
    }
    job.Timeout(r, 88);
    job.b.Progress(job.FileOf(r), 2000 + r, r, 88, 88, 87).pg = "1";
  }
  const auto fs = job.b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{RankAt(13, "node-1")}));
  EXPECT_NE(fs[0].summary.find("15 ranks wait at SeqNum 88 (ALLREDUCE, 4194304 elements, timeout "
                               "600000 ms) in process group 1"),
            std::string::npos)
      << fs[0].summary;
  EXPECT_TRUE(Cites(fs[0], kLog1, 2013));
}

TEST(CollectiveTimeout, CudaErrorWithoutAnyTimeoutIsNotAHang) {
  Job job;
  DistEvent& e = job.b.Event(DistKind::kCudaError, job.node0, 50, 3);
  e.detail = "an illegal memory access was encountered";
  DistEvent& l = job.b.Event(DistKind::kLauncherFailure, job.node0, 90, 3);
  l.value = -6;
  l.detail = "root_cause";
  EXPECT_TRUE(job.b.Run().empty());
}

TEST(CollectiveTimeout, ConsequenceMarkers) {
  DistEvent e;
  e.kind = DistKind::kCrash;
  for (const char* d : {"torch.distributed.DistBackendError: [1] Watchdog caught ...",
                        "RuntimeError: NCCL communicator was aborted on rank 3.",
                        "Some NCCL operations have failed or timed out.",
                        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
                        "Socket Timeout", "received SIGTERM"}) {
    e.detail = d;
    EXPECT_TRUE(IsHangConsequence(e)) << d;
  }
  e.detail = "ValueError: expected input of shape [8, 512]";
  EXPECT_FALSE(IsHangConsequence(e));
  DistEvent term;
  term.kind = DistKind::kLauncherFailure;
  term.value = -15;
  EXPECT_TRUE(IsHangConsequence(term));
  term.value = -9;
  EXPECT_FALSE(IsHangConsequence(term));
}

TEST(CollectiveMismatch, OddOpAtTheSameSeqNumIsTheCulpritAndReplacesTheTimeout) {
  Job job;
  for (int64_t r = 0; r < 8; ++r) {
    if (r == 6) {
      job.Timeout(r, 12, "ALLGATHER", 1024);
    } else {
      job.Timeout(r, 12, "ALLREDUCE", 1024);
    }
  }
  for (int64_t r = 8; r < kRanks; ++r) job.Timeout(r, 12, "ALLREDUCE", 1024);
  const auto fs = job.b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_mismatch"});
  const Finding& f = fs[0];
  EXPECT_EQ(f.culprits, (std::vector<Culprit>{RankAt(6, "node-0")}));
  EXPECT_NE(f.summary.find("ranks 0-5, 7-15 ALLREDUCE (1024 elements); rank 6 ALLGATHER (1024 "
                           "elements)"),
            std::string::npos)
      << f.summary;
  EXPECT_NE(f.summary.find("The watchdog timed out as a result"), std::string::npos);
  EXPECT_TRUE(Cites(f, kLog0, 1006));
  EXPECT_TRUE(Cites(f, kLog0, 1000));
  EXPECT_NE(f.recommendation.find("TORCH_DISTRIBUTED_DEBUG=DETAIL"), std::string::npos);
}

TEST(CollectiveMismatch, DifferentSizesOnATieNameBothSides) {
  DistBundle b;
  const int64_t f0 = b.File("rank0.log", "h0", 0);
  const int64_t f1 = b.File("rank1.log", "h1", 1);
  b.Timeout(f0, 40, 0, 3, "BROADCAST", 131072000);
  b.Timeout(f1, 41, 1, 3, "BROADCAST", 65536000);
  const auto fs = b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_mismatch"});
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{RankAt(0, "h0"), RankAt(1, "h1")}));
  EXPECT_TRUE(Cites(fs[0], "rank0.log", 40));
  EXPECT_TRUE(Cites(fs[0], "rank1.log", 41));
}

TEST(CollectiveMismatch, MissingElementCountsOnOneSideAreNotAMismatch) {
  Job job;
  for (int64_t r = 0; r < kRanks; ++r) {
    DistEvent& e = job.Timeout(r, 5);
    if (r == 4) {
      e.numel_in.reset();
      e.numel_out.reset();
    }
  }
  const auto fs = job.b.Run();
  EXPECT_EQ(Codes(fs), std::vector<std::string>{"hang.collective_timeout"});
}

}  // namespace
}  // namespace casefile::hang
