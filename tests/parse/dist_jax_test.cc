// jax_coordination events (jax_coordination.cc) from lines run through the
// prefix parsing ingest uses. The message texts follow the XLA/TSL
// coordination service sources named in jax_coordination.cc; the samples
// (tasks, times, pids) are made up. Epoch seconds were computed with
// `date -u -d '<date> UTC' +%s`.
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
  return test::FeedFamily(*MakeJaxCoordinationFamily(), lines, 5, 2026);
}

// The category word a detail starts with ("heartbeat" of "heartbeat: ...").
std::string Category(const DistEventRow& r) {
  const std::string d = r.detail.value_or("");
  return d.substr(0, d.find(':'));
}

TEST(DistJax, AgentThatGivesUpNamesTheUnhealthyTaskOnTheNextLine) {
  const auto rows = Read({
      "E0412 08:00:21.500100  9120 coordination_service_agent.cc:332] Polled an error from "
      "coordination service (this can be an error from this or another task).",
      "F0412 08:00:21.500300  9120 client.h:77] Terminating process because the JAX distributed "
      "service detected fatal errors. This most likely indicates that another task died. "
      "absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):",
      "/job:jax_worker/replica:0/task:5",
      "The tasks have crashed. Check the task logs for an earlier error.",
  });
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].kind, std::string(kJaxCoordination));
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_EQ(Category(rows[0]), "polled_error");
  EXPECT_FALSE(rows[0].seq.has_value());
  EXPECT_EQ(rows[0].ts_us, 1775980821 * kUs + 500100);
  EXPECT_EQ(rows[1].line_no, 2);
  EXPECT_EQ(Category(rows[1]), "terminating");
  EXPECT_FALSE(rows[1].seq.has_value());
  EXPECT_EQ(rows[2].line_no, 3);
  EXPECT_EQ(Category(rows[2]), "unhealthy");
  EXPECT_EQ(rows[2].seq.value_or(-1), 5);
  // The list's event carries its header's message.
  EXPECT_NE(rows[2].detail.value_or("").find("The following tasks are unhealthy"),
            std::string::npos);
}

TEST(DistJax, ServiceSideTaskErrorAndFlattenedList) {
  const auto rows = Read({
      "E0412 08:00:10.000100  4001 coordination_service.cc:412] "
      "/job:jax_worker/replica:0/task:6 has been set to ERROR in coordination service: "
      "UNAVAILABLE: Task /job:jax_worker/replica:0/task:6 heartbeat timeout. This indicates "
      "that the remote task has failed, got preempted, or crashed unexpectedly.",
      "E0412 08:00:10.000200  4001 coordination_service.cc:530] Use error polling to propagate "
      "the following error to all tasks: UNAVAILABLE: The following tasks are unhealthy "
      "(stopped sending heartbeats): /job:jax_worker/replica:0/task:6 "
      "/job:jax_worker/replica:0/task:7",
      "Task /job:jax_worker/replica:0/task:2 heartbeat timeout. This indicates that the remote "
      "task has failed.",
  });
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(Category(rows[0]), "task_error");
  EXPECT_EQ(rows[0].seq.value_or(-1), 6);
  EXPECT_EQ(rows[0].ts_us, 1775980810 * kUs + 100);
  EXPECT_EQ(Category(rows[1]), "unhealthy");
  EXPECT_EQ(rows[1].seq.value_or(-1), 6);
  EXPECT_EQ(rows[2].line_no, 2);
  EXPECT_EQ(rows[2].seq.value_or(-1), 7);
  EXPECT_EQ(Category(rows[3]), "heartbeat");
  EXPECT_EQ(rows[3].seq.value_or(-1), 2);
}

TEST(DistJax, BarrierTimeoutNamesTheLateTaskNotTheFirstOne) {
  const auto rows = Read({
      "Barrier timed out. Id: PjitBarrier::0. This usually happens because a task triggered "
      "the barrier too early or too slowly.",
      "# of tasks that reached the barrier: 7/8.",
      "The first task at the barrier: /job:jax_worker/replica:0/task:0. Some timed out task "
      "names:",
      "/job:jax_worker/replica:0/task:5",
      "Barrier timed out. Barrier_id: init. Timed out task names:",
      "/job:worker/task:2",
  });
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_EQ(Category(rows[0]), "barrier");
  EXPECT_FALSE(rows[0].seq.has_value());
  EXPECT_EQ(rows[1].line_no, 4);
  EXPECT_EQ(Category(rows[1]), "barrier");
  EXPECT_EQ(rows[1].seq.value_or(-1), 5);
  // The older text, and a task name without a replica.
  EXPECT_EQ(rows[2].line_no, 5);
  EXPECT_FALSE(rows[2].seq.has_value());
  EXPECT_EQ(rows[3].line_no, 6);
  EXPECT_EQ(rows[3].seq.value_or(-1), 2);
}

TEST(DistJax, ShutdownAndRpcFailures) {
  const auto rows = Read({
      "Failed to disconnect from coordination service with status: DEADLINE_EXCEEDED: Barrier "
      "timed out. Id: Shutdown::0.",
      "Shutdown barrier has failed.",
      "UNAVAILABLE: Failed to send RPC to coordination service. Either the leader task was "
      "preempted/died/restarted unexpectedly or this task is experiencing network issues.",
      "INTERNAL: Coordination service has stopped. RecordHeartbeat() from task: "
      "/job:jax_worker/replica:0/task:2 failed.",
      "DEADLINE_EXCEEDED: Deadline Exceeded while calling "
      "/tensorflow.CoordinationService/Heartbeat",
      "/job:jax_worker/replica:0/task:4 Heartbeat: Incarnation ID mismatch: expecting 11 but got "
      "12.",
  });
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(Category(rows[0]), "shutdown");
  EXPECT_EQ(Category(rows[1]), "shutdown");
  EXPECT_EQ(Category(rows[2]), "rpc_failed");
  EXPECT_EQ(Category(rows[3]), "rpc_failed");
  // The task that sent the RPC is not the one that failed.
  EXPECT_FALSE(rows[3].seq.has_value());
  EXPECT_EQ(Category(rows[4]), "heartbeat");
  EXPECT_FALSE(rows[4].seq.has_value());
  EXPECT_EQ(Category(rows[5]), "heartbeat");
  EXPECT_EQ(rows[5].seq.value_or(-1), 4);
  for (const auto& r : rows) EXPECT_FALSE(r.rank.has_value());
}

// The shutdown barrier's list names tasks late to leave: category shutdown,
// also when the list header comes on a line after the barrier's id.
TEST(DistJax, ShutdownBarrierListsAndOlderClientHeartbeats) {
  const auto rows = Read({
      "Failed to disconnect from coordination service with status: DEADLINE_EXCEEDED: Barrier "
      "timed out. Id: Shutdown::4761239804573923. # of tasks that reached the barrier: 3/4.",
      "The first task at the barrier: /job:jax_worker/replica:0/task:0. Some timed out task "
      "names:",
      "/job:jax_worker/replica:0/task:2",
      "Terminating process because of missing heartbeat response from the coordinator. This most "
      "likely indicates that the coordinator task died.",
      "Terminating process because the coordinator detected missing heartbeats. This most likely "
      "indicates that another task died.",
  });
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(Category(rows[0]), "shutdown");
  EXPECT_EQ(Category(rows[1]), "shutdown");
  EXPECT_EQ(rows[1].line_no, 3);
  EXPECT_EQ(rows[1].seq.value_or(-1), 2);
  EXPECT_EQ(Category(rows[2]), "heartbeat");
  EXPECT_EQ(rows[2].seq.value_or(-1), 0);  // the coordinator
  EXPECT_EQ(Category(rows[3]), "heartbeat");
  EXPECT_FALSE(rows[3].seq.has_value());
}

TEST(DistJax, ListsStayWithTheProcessThatPrintedThem) {
  const auto rows = Read({
      "host-a: The following tasks are unhealthy (stopped sending heartbeats):",
      "host-b: step 120 loss 2.1",
      "host-b: /job:jax_worker/replica:0/task:9",
      "host-a: /job:jax_worker/replica:0/task:4",
      "host-a: The tasks have crashed.",
      "host-a: /job:jax_worker/replica:0/task:8",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line_no, 4);
  EXPECT_EQ(rows[0].host.value_or(""), "host-a");
  EXPECT_EQ(rows[0].seq.value_or(-1), 4);
}

TEST(DistJax, LookAlikesEmitNothing) {
  EXPECT_TRUE(Read({
                       "Waiting for 1/8 tasks to connect.",
                       "Example stragglers:",
                       "/job:jax_worker/replica:0/task:7",
                       "/job:jax_worker/replica:0/task:3 has disconnected from coordination "
                       "service.",
                       "Barrier(PjitBarrier::0) has passed with status: OK",
                       "torch.distributed.barrier() finished in 0.2 s",
                       "Sent heartbeat to the experiment tracker",
                       "JAX version 0.6.2 initialised",
                       "Coordination agent has successfully shut down.",
                       // A clean shutdown, glog level I (the service and the
                       // barrier that ends it).
                       "I0304 11:13:02.300000   120 coordination_service.cc:1310] Shutdown "
                       "barrier in coordination service has passed.",
                       "I0304 11:13:02.400000   120 coordination_service.cc:1290] Coordination "
                       "service has stopped.",
                   })
                  .empty());
}

TEST(DistJax, DetailIsCappedAt512Bytes) {
  std::string line =
      "Terminating process because the JAX distributed service detected fatal "
      "errors. ";
  while (line.size() < 3000) line += "Additional GRPC error information \xC3\xA9 ";
  const auto rows = Read({line});
  ASSERT_EQ(rows.size(), 1u);
  const std::string d = rows[0].detail.value_or("");
  EXPECT_LE(d.size(), 512u);
  EXPECT_GE(d.size(), 500u);
  EXPECT_EQ(d.rfind("terminating: Terminating process", 0), 0u);
  // Not cut inside the two-byte character.
  EXPECT_NE(static_cast<unsigned char>(d.back()), 0xC3);
}

}  // namespace
}  // namespace casefile::dist
