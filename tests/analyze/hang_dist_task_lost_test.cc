// hang.task_lost (docs/FINDINGS.md, section hang, rule R3): a JAX task the
// coordination service names as failed, its host, and the lines cited.
#include <gtest/gtest.h>

#include "analyze/analyzers/hang/task_lost_rules.h"
#include "analyze/hang_dist_fixture.h"

namespace casefile::hang {
namespace {

using test::Cites;
using test::Codes;
using test::DistBundle;

Culprit Task(const std::string& host, int64_t task) {
  Culprit c;
  if (!host.empty()) c.host = host;
  c.task = JaxTaskName(task);
  return c;
}

constexpr int64_t kT0 = 1'720'000'000'000'000;

TEST(TaskLost, TaskNamedByTheOthersIsTheCulpritWithItsOwnLastLine) {
  DistBundle b;
  int64_t file[4];
  for (int t = 0; t < 4; ++t) {
    const std::string host = "tpu-vm-" + std::to_string(t);
    // Task 2's log stops 95 s before the first coordination error.
    file[t] =
        b.File("logs/" + host + "/worker.log", host, std::nullopt, "worker_" + std::to_string(t),
               t == 2 ? 1500 : 2100, t == 2 ? kT0 - 95'000'000 : kT0 + 30'000'000);
  }
  for (int t : {0, 1, 3}) {
    DistEvent& e = b.Event(DistKind::kJaxCoordination, file[t], 2000 + t);
    e.detail = "heartbeat";
    e.seq = 2;
    e.ts_us = kT0 + t;
    DistEvent& end = b.Event(DistKind::kJaxCoordination, file[t], 2050 + t);
    end.detail = "terminating";
    end.ts_us = kT0 + 1000 + t;
  }
  const auto fs = b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.task_lost"});
  const Finding& f = fs[0];
  EXPECT_EQ(f.culprits, (std::vector<Culprit>{Task("tpu-vm-2", 2)}));
  EXPECT_NE(f.summary.find("task 2 (host tpu-vm-2) left the job: 3 coordination-service messages "
                           "name it as failed (heartbeat)"),
            std::string::npos)
      << f.summary;
  EXPECT_NE(f.summary.find("1 min 35 s before the first coordination error"), std::string::npos)
      << f.summary;
  EXPECT_NE(f.summary.find("The other 3 hosts that reported the error stopped"), std::string::npos)
      << f.summary;
  for (int t : {0, 1, 3}) {
    EXPECT_TRUE(Cites(f, "logs/tpu-vm-" + std::to_string(t) + "/worker.log", 2000 + t));
  }
  EXPECT_TRUE(Cites(f, "logs/tpu-vm-2/worker.log", 1500));
  EXPECT_NE(f.recommendation.find("OOM killer"), std::string::npos);
}

// Every task finished; task 2 was late to the shutdown barrier. A warning,
// and an error again as soon as any other coordination error is in the run.
TEST(TaskLost, OnlyTheShutdownBarrierFailedIsAWarning) {
  DistBundle b;
  int64_t file[4];
  for (int t = 0; t < 4; ++t) {
    const std::string host = "tpu-vm-" + std::to_string(t);
    file[t] = b.File("logs/" + host + "/worker.log", host, std::nullopt,
                     "worker_" + std::to_string(t), 2100, kT0 + 30'000'000);
  }
  for (int t : {0, 1, 3}) {
    DistEvent& e = b.Event(DistKind::kJaxCoordination, file[t], 2000 + t);
    e.detail =
        "shutdown: Failed to disconnect from coordination service with status: "
        "DEADLINE_EXCEEDED: Barrier timed out. Id: Shutdown::4761";
    e.seq = 2;
    e.ts_us = kT0 + t;
  }
  const auto fs = b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.task_lost"});
  EXPECT_EQ(fs[0].severity, Severity::kWarning);
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{Task("tpu-vm-2", 2)}));
  EXPECT_NE(fs[0].summary.find("Only the shutdown barrier failed"), std::string::npos)
      << fs[0].summary;
  DistEvent& hb = b.Event(DistKind::kJaxCoordination, file[0], 1900);
  hb.detail = "heartbeat: Task /job:jax_worker/replica:0/task:2 heartbeat timeout.";
  hb.seq = 2;
  const auto gs = b.Run();
  ASSERT_EQ(Codes(gs), std::vector<std::string>{"hang.task_lost"});
  EXPECT_EQ(gs[0].severity, Severity::kError);
  EXPECT_EQ(gs[0].summary.find("Only the shutdown barrier failed"), std::string::npos);
}

TEST(TaskLost, HostFromTheRankMapWhenNoFileIsAttributedToTheTask) {
  DistBundle b;
  const int64_t log = b.File("coordinator.log", "host-a");
  b.ranks.AddPair(5, "host-f", RankHostMap::Source::kExplicit);
  for (int i = 0; i < 3; ++i) {
    DistEvent& e = b.Event(DistKind::kJaxCoordination, log, 10 + i);
    e.seq = 5;
    e.detail = "unhealthy";
  }
  DistEvent& other = b.Event(DistKind::kJaxCoordination, log, 20);
  other.seq = 6;
  other.detail = "barrier";
  const auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{Task("host-f", 5)}));
  EXPECT_NE(fs[0].summary.find("Also named, less often: task 6 (1 message)"), std::string::npos)
      << fs[0].summary;
  EXPECT_TRUE(Cites(fs[0], "coordinator.log", 10));
  EXPECT_FALSE(Cites(fs[0], "coordinator.log", 20));
}

TEST(TaskLost, WithoutANamedTaskTheFirstHostToFailInTimeIsTheCulprit) {
  DistBundle b;
  const int64_t a = b.File("a/worker.log", "host-a", std::nullopt, "task_0");
  const int64_t c = b.File("c/worker.log", "host-c", std::nullopt, "task_2");
  DistEvent& late = b.Event(DistKind::kJaxCoordination, a, 300);
  late.detail = "terminating";
  late.ts_us = kT0 + 40'000'000;
  DistEvent& crash = b.Event(DistKind::kCrash, c, 280);
  crash.detail = "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Core halted unexpectedly";
  crash.ts_us = kT0;
  DistEvent& its = b.Event(DistKind::kJaxCoordination, c, 290);
  its.detail = "terminating";
  its.ts_us = kT0 + 2'000'000;
  const auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{Task("host-c", 2)}));
  EXPECT_NE(fs[0].summary.find("host host-c reported the first error or crash"), std::string::npos)
      << fs[0].summary;
  EXPECT_NE(fs[0].summary.find("40 s before the next host"), std::string::npos) << fs[0].summary;
  EXPECT_TRUE(Cites(fs[0], "c/worker.log", 280));
}

TEST(TaskLost, NoTimesAndNoNameGivesNoCulprit) {
  DistBundle b;
  const int64_t a = b.File("a.log", "host-a");
  b.Event(DistKind::kJaxCoordination, a, 7).detail = "terminating";
  const auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_TRUE(fs[0].culprits.empty());
  EXPECT_TRUE(Cites(fs[0], "a.log", 7));
}

TEST(TaskLost, TaskNumbers) {
  EXPECT_EQ(TaskNumber("worker_3"), 3);
  EXPECT_EQ(TaskNumber("slice_0/task_12"), 12);
  EXPECT_EQ(TaskNumber("7"), 7);
  EXPECT_EQ(TaskNumber("coordinator"), std::nullopt);
}

}  // namespace
}  // namespace casefile::hang
