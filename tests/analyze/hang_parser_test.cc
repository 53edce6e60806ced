// MegascaleParser: every digest form of the MXLA debugging workflow, as a
// coordinator log holds it (one glog record per line with other threads
// interleaved, or one record with raw continuation lines), the workers'
// reports, truncation, and look-alikes that must not be taken for a hang.
#include <gtest/gtest.h>

#include "analyze/hang_test_lines.h"

namespace casefile::hang {
namespace {

using test::Glog;
using test::ParseLog;

std::vector<std::string> Hosts(const std::vector<WorkerRef>& ws) {
  std::vector<std::string> out;
  for (const auto& w : ws) out.push_back(w.host);
  return out;
}

std::vector<int64_t> KeyLines(const HangDigest& d) {
  std::vector<int64_t> out;
  for (const auto& l : d.key_lines) out.push_back(l.line_no);
  return out;
}

// ---- Worker reports --------------------------------------------------------

TEST(HangReport, ParsesEveryField) {
  auto r = ParseHangReport(
      "Megascale hang detected: Timed out waiting for 4 graphs to complete at launch_id 13650. "
      "Already completed: 100. StepGloballyInProgress: true. Timeout: 1m");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->graphs, 4);
  EXPECT_EQ(r->launch_id, 13650);
  EXPECT_EQ(r->completed, 100);
  EXPECT_EQ(r->step_in_progress, true);
  EXPECT_EQ(r->timeout, "1m");
}

TEST(HangReport, VariantsOfTheFamily) {
  // Wrapped in the Python exception that ends the worker, singular "graph",
  // a compound timeout and a false in-progress flag.
  auto r = ParseHangReport(
      "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Megascale hang detected: Timed out "
      "waiting for 1 graph to complete at launch_id 7. Already completed: 0. "
      "StepGloballyInProgress: false. Timeout: 5m30s.");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->graphs, 1);
  EXPECT_EQ(r->launch_id, 7);
  EXPECT_EQ(r->completed, 0);
  EXPECT_EQ(r->step_in_progress, false);
  EXPECT_EQ(r->timeout, "5m30s");
}

TEST(HangReport, LookAlikesAreNotReports) {
  EXPECT_FALSE(ParseHangReport("Megascale hang detection enabled, timeout 1m"));
  EXPECT_FALSE(ParseHangReport("--megascale_graph_hang_threshold=5m"));
  EXPECT_FALSE(ParseHangReport("grep -n 'Megascale hang detected' /tmp/tpu_logs/*.log"));
  EXPECT_FALSE(ParseHangReport("Megascale hang detected: see the digest"));
  // A source line shown in a traceback: a format string, not a count.
  EXPECT_FALSE(ParseHangReport(
      "LOG(ERROR) << \"Megascale hang detected: Timed out waiting for \" << n << \" graphs\";"));
  EXPECT_FALSE(ParseHangReport("step 4100: the input pipeline may hang, detected slow reads"));
}

TEST(HangParser, ReportsKeepLineHostAndCount) {
  const std::string log =
      Glog('I', "09:19:20.100000", 3190, "train.py:212", {"step 13219, loss=2.31"}) +
      Glog('E', "09:19:28.946147", 4213, "megascale_hang_detector.cc:131",
           {"Megascale hang detected: Timed out waiting for 4 graphs to complete at launch_id "
            "13650. Already completed: 100. StepGloballyInProgress: true. Timeout: 1m"}) +
      "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Megascale hang detected: Timed "
      "out waiting for 4 graphs to complete at launch_id 13650. Already completed: 100. "
      "StepGloballyInProgress: true. Timeout: 1m\n";
  auto p = ParseLog(log);
  ASSERT_EQ(p.reports.size(), 2u);
  EXPECT_EQ(p.report_count, 2);
  EXPECT_EQ(p.reports[0].line.line_no, 2);
  EXPECT_EQ(p.reports[1].line.line_no, 3);
  EXPECT_EQ(p.reports[0].line.text.substr(0, 6), "E1129 ");
  EXPECT_NE(p.reports[0].ts_us, kNoTimestamp);
  EXPECT_TRUE(p.digests.empty());
}

// ---- Bad TPU chips ---------------------------------------------------------

const std::vector<std::string> kBadChipBody = {
    "Megascale detects a hang that is likely caused by bad TPU chips on the following hosts. "
    "Please remove the hosts from the fleet and restart the workload. If problem persists please "
    "contact Megascale XLA team.",
    "  The host that have bad TPUs are: t1v-n-7a3f91c2-w-5",
    "  Full error digest:",
    "    Potential cause: Bad TPU chips",
    "    Potential culprit workers: jax_worker/5:t1v-n-7a3f91c2-w-5",
};

void ExpectBadChip(const HangDigest& d) {
  EXPECT_EQ(d.cause, DigestCause::kBadChip);
  EXPECT_EQ(Hosts(d.named_hosts), std::vector<std::string>{"t1v-n-7a3f91c2-w-5"});
  EXPECT_EQ(d.potential_cause, "Bad TPU chips");
  ASSERT_EQ(d.culprit_lists.size(), 1u);
  ASSERT_EQ(d.culprit_lists[0].size(), 1u);
  EXPECT_EQ(d.culprit_lists[0][0].host, "t1v-n-7a3f91c2-w-5");
  EXPECT_EQ(d.culprit_lists[0][0].task, "jax_worker/5");
  EXPECT_EQ(d.cause_text.substr(0, 36), "bad TPU chips on the following hosts");
}

TEST(HangParser, BadChipGlogOnEveryLine) {
  auto p =
      ParseLog(Glog('E', "09:19:31.246147", 4213, "megascale_hang_handler.cc:214", kBadChipBody));
  ASSERT_EQ(p.digests.size(), 1u);
  ExpectBadChip(p.digests[0]);
  EXPECT_EQ(p.digests[0].header.line_no, 1);
  // Header, host list, potential cause, culprits; not "Full error digest:".
  EXPECT_EQ(KeyLines(p.digests[0]), (std::vector<int64_t>{1, 2, 4, 5}));
  EXPECT_TRUE(p.digests[0].cut_by_eof);
  EXPECT_TRUE(p.reports.empty());
}

TEST(HangParser, BadChipOneRecordWithRawContinuationLines) {
  std::string log = Glog('I', "09:19:20.000001", 4140, "coordination_service_agent.cc:512",
                         {"Heartbeat to coordination service ok (seq 62924)"});
  log += Glog('E', "09:19:31.246147", 4213, "megascale_hang_handler.cc:214", {kBadChipBody[0]});
  for (size_t i = 1; i < kBadChipBody.size(); ++i) log += kBadChipBody[i] + "\n";
  log += Glog('I', "09:19:32.000001", 4140, "coordination_service_agent.cc:512",
              {"Heartbeat to coordination service ok (seq 62925)"});
  auto p = ParseLog(log);
  ASSERT_EQ(p.digests.size(), 1u);
  ExpectBadChip(p.digests[0]);
  EXPECT_EQ(p.digests[0].header.line_no, 2);
  EXPECT_EQ(KeyLines(p.digests[0]), (std::vector<int64_t>{2, 3, 5, 6}));
  EXPECT_EQ(p.digests[0].key_lines[3].text,
            "    Potential culprit workers: jax_worker/5:t1v-n-7a3f91c2-w-5");
  // A complete line follows the digest: the file was not cut inside it.
  EXPECT_FALSE(p.digests[0].cut_by_eof);
}

TEST(HangParser, ForeignLinesInterleavedAreIgnored) {
  const std::string handler = "megascale_hang_handler.cc:214";
  std::string log;
  log += Glog('E', "09:19:31.246147", 4213, handler, {kBadChipBody[0], kBadChipBody[1]});
  // Another thread logs a line shaped like a digest line: not the header's.
  log += Glog('I', "09:19:31.246150", 3427, "megascale_coordinator.cc:388",
              {"Received hang report from jax_worker/2 (t1v-n-7a3f91c2-w-2)",
               "    Potential culprit workers: t1v-n-7a3f91c2-w-2"});
  log += "step 13220 metrics flushed\n";
  log += Glog('E', "09:19:31.246201", 4213, handler, {kBadChipBody[2], kBadChipBody[3]});
  log += Glog('I', "09:19:31.246210", 4017420061, "metric_logger.py:88",
              {"flushing metrics to gs://runs/llama/tensorboard"});
  log += Glog('E', "09:19:31.246239", 4213, handler, {kBadChipBody[4]});
  auto p = ParseLog(log);
  ASSERT_EQ(p.digests.size(), 1u);
  ExpectBadChip(p.digests[0]);
  EXPECT_EQ(KeyLines(p.digests[0]), (std::vector<int64_t>{1, 2, 7, 9}));
}

// ---- Networking issue ------------------------------------------------------

TEST(HangParser, NetworkLinksAndHostLists) {
  const std::string handler = "megascale_hang_handler.cc:231";
  std::string log = Glog(
      'E', "14:27:38.753218", 3563, handler,
      {"Megascale detects a hang that is likely caused by a networking issue. Please examine the "
       "underlying networking stack for the following hosts.",
       "    The hosts are: t1v-n-c27f90d4-w-1, t1v-n-5b0e7a13-w-2",
       "    Full error digest:", "      Potential cause: Networking issue",
       "      Potential culprit workers: t1v-n-c27f90d4-w-1,t1v-n-5b0e7a13-w-2",
       "      Potential culprit workers: t1v-n-5b0e7a13-w-3 t1v-n-c27f90d4-w-1."});
  auto p = ParseLog(log);
  ASSERT_EQ(p.digests.size(), 1u);
  const HangDigest& d = p.digests[0];
  EXPECT_EQ(d.cause, DigestCause::kNetwork);
  EXPECT_EQ(Hosts(d.named_hosts),
            (std::vector<std::string>{"t1v-n-c27f90d4-w-1", "t1v-n-5b0e7a13-w-2"}));
  ASSERT_EQ(d.culprit_lists.size(), 2u);
  EXPECT_EQ(Hosts(d.culprit_lists[0]),
            (std::vector<std::string>{"t1v-n-c27f90d4-w-1", "t1v-n-5b0e7a13-w-2"}));
  EXPECT_EQ(Hosts(d.culprit_lists[1]),
            (std::vector<std::string>{"t1v-n-5b0e7a13-w-3", "t1v-n-c27f90d4-w-1"}));
  EXPECT_EQ(d.potential_cause, "Networking issue");
}

// ---- Different modules -----------------------------------------------------

TEST(HangParser, DifferentModulesWithStatsAndStates) {
  const std::string handler = "megascale_hang_handler.cc:214";
  std::string log = Glog(
      'E', "23:03:38.733142", 3409, handler,
      {"Megascale detects a hang that is likely caused by running different modules on different "
       "devices. Please confirm that all workers is running the exact same program. It can also be "
       "caused by a hang in a subset of devices and the unaffected devices have moved on to the "
       "next program. Please inspect the digest below to further root cause the hang.",
       "Example hosts that have different HLO modules: t1v-n-d4b21f88-w-1", "Full error digest:",
       "  Potential cause: Different module", "  Potential culprit workers: t1v-n-d4b21f88-w-1",
       "  TPU stats:", "    t1v-n-a90c6e15-w-0: 0x000033e9", "    t1v-n-d4b21f88-w-1: 0x000014f4",
       "  TPU states:", "    Module: jit_loss_and_grad", "    Fingerprint: 80ccf74fe9569834",
       "    Launch ID: 193", "      tc0:0x33e9(fusion.366): t1v-n-a90c6e15-w-0",
       "      tc0:0x1459(fusion.379): t1v-n-a90c6e15-w-1",
       "      tc0:0x3a0d(fusion.366): t1v-n-d4b21f88-w-0", "    Module: jit_optimizer_apply",
       "    Fingerprint: 1f0e5d7c33a2b918", "    Launch ID: 0",
       "      tc0:0x14f4(copy.12): t1v-n-d4b21f88-w-1"});
  auto p = ParseLog(log);
  ASSERT_EQ(p.digests.size(), 1u);
  const HangDigest& d = p.digests[0];
  EXPECT_EQ(d.cause, DigestCause::kDifferentModule);
  EXPECT_EQ(Hosts(d.named_hosts), std::vector<std::string>{"t1v-n-d4b21f88-w-1"});
  ASSERT_EQ(d.tpu_stats.size(), 2u);
  EXPECT_EQ(d.tpu_stats[0].worker.host, "t1v-n-a90c6e15-w-0");
  EXPECT_EQ(d.tpu_stats[0].value, "0x000033e9");
  EXPECT_EQ(d.tpu_stats[1].line.line_no, 8);
  ASSERT_EQ(d.modules.size(), 2u);
  EXPECT_EQ(d.modules[0].module, "jit_loss_and_grad");
  EXPECT_EQ(d.modules[0].fingerprint, "80ccf74fe9569834");
  EXPECT_EQ(d.modules[0].launch_id, 193);
  EXPECT_EQ(
      Hosts(d.modules[0].workers),
      (std::vector<std::string>{"t1v-n-a90c6e15-w-0", "t1v-n-a90c6e15-w-1", "t1v-n-d4b21f88-w-0"}));
  EXPECT_EQ(d.modules[1].module, "jit_optimizer_apply");
  EXPECT_EQ(d.modules[1].launch_id, 0);
  EXPECT_EQ(Hosts(d.modules[1].workers), std::vector<std::string>{"t1v-n-d4b21f88-w-1"});
  ASSERT_EQ(d.modules[1].rows.size(), 1u);
  EXPECT_EQ(d.modules[1].rows[0].line_no, 19);
}

// ---- Fingerprint mismatch --------------------------------------------------

TEST(HangParser, FingerprintMismatchGroupsUnderTpuStats) {
  // As printed: the groups sit under "TPU stats:", and the culprit line has
  // less indentation than the cause line.
  std::string log = Glog(
      'E', "03:30:39.910898", 4132, "megascale_hang_handler.cc:214",
      {"Megascale detects a hang that is likely caused by inconsistent HLO module compilation "
       "across workers. This is likely a bug in JAX tracing or XLA compiler. Please inspect the "
       "HLO dumps to confirm the root cause.",
       "  Example hosts that have different HLO fingerprints: t1v-n-e5a7129f-w-0",
       "  Full error digest:", "    Potential cause: Fingerprint mismatch",
       "  Potential culprit workers: t1v-n-e5a7129f-w-0", "  TPU stats:", "    Module: reduce.31",
       "    Fingerprint: f5ff62a84676ff5b", "    Launch ID: 37",
       "      tc0:0x1a40(reduce.31): t1v-n-6f31d0a2-w-0, t1v-n-6f31d0a2-w-1, t1v-n-e5a7129f-w-1",
       "    Module: reduce.31", "    Fingerprint: 5fa3ba844e7d8872", "    Launch ID: 40",
       "      tc0:0x1a58(reduce.31): t1v-n-e5a7129f-w-0"});
  auto p = ParseLog(log);
  ASSERT_EQ(p.digests.size(), 1u);
  const HangDigest& d = p.digests[0];
  EXPECT_EQ(d.cause, DigestCause::kFingerprintMismatch);
  EXPECT_EQ(d.potential_cause, "Fingerprint mismatch");
  ASSERT_EQ(d.culprit_lists.size(), 1u);
  EXPECT_EQ(Hosts(d.culprit_lists[0]), std::vector<std::string>{"t1v-n-e5a7129f-w-0"});
  ASSERT_EQ(d.modules.size(), 2u);
  EXPECT_EQ(d.modules[0].fingerprint, "f5ff62a84676ff5b");
  EXPECT_EQ(d.modules[0].launch_id, 37);
  EXPECT_EQ(d.modules[0].workers.size(), 3u);
  EXPECT_EQ(d.modules[1].module, "reduce.31");
  EXPECT_EQ(d.modules[1].fingerprint, "5fa3ba844e7d8872");
  EXPECT_EQ(d.modules[1].launch_id, 40);
  EXPECT_EQ(Hosts(d.modules[1].workers), std::vector<std::string>{"t1v-n-e5a7129f-w-0"});
  EXPECT_TRUE(d.tpu_stats.empty());
}

TEST(HangParser, InconsistentTpuProgramWording) {
  // The older wording: an enum-style cause and per-host fingerprints.
  std::string log = Glog(
      'E', "03:30:39.910898", 4132, "megascale_hang_handler.cc:190",
      {"Megascale detects a hang that is likely caused by inconsistent TPU programs. This can be "
       "caused by some workers running with different JIT functions or a bug in the XLA compiler.",
       "", "Example hosts that have different HLO fingerprints: t1v-n-e5a7129f-w-0", "",
       "Full error digest:", "  Potential cause: INCONSISTENT_TPU_PROGRAM",
       "  Potential culprit workers: t1v-n-e5a7129f-w-0",
       "  TPU stats:", "    t1v-n-6f31d0a2-w-0: 0x1a40", "    t1v-n-e5a7129f-w-0: 0x1a58",
       "  TPU program fingerprints:", "    t1v-n-6f31d0a2-w-0: f5ff62a84676ff5b",
       "    t1v-n-6f31d0a2-w-1: f5ff62a84676ff5b", "    t1v-n-e5a7129f-w-0: 5fa3ba844e7d8872"});
  auto p = ParseLog(log);
  ASSERT_EQ(p.digests.size(), 1u);
  const HangDigest& d = p.digests[0];
  EXPECT_EQ(d.cause, DigestCause::kFingerprintMismatch);
  EXPECT_EQ(d.potential_cause, "INCONSISTENT_TPU_PROGRAM");
  EXPECT_EQ(d.tpu_stats.size(), 2u);
  ASSERT_EQ(d.program_fingerprints.size(), 3u);
  EXPECT_EQ(d.program_fingerprints[2].worker.host, "t1v-n-e5a7129f-w-0");
  EXPECT_EQ(d.program_fingerprints[2].value, "5fa3ba844e7d8872");
}

// ---- Data input stall ------------------------------------------------------

TEST(HangParser, InputStallWithWrappedHeader) {
  std::string log =
      Glog('E', "11:29:18.832426", 3468, "megascale_hang_handler.cc:276",
           {"Megascale detects a hang that is likely caused by data input stall on the"});
  log +=
      "following hosts. Please check the workers to make sure the data input pipeline\n"
      "is working properly.\n"
      "  The host that have data input stalls are: t1v-n-71c9ab30-w-2\n";
  auto p = ParseLog(log);
  ASSERT_EQ(p.digests.size(), 1u);
  const HangDigest& d = p.digests[0];
  EXPECT_EQ(d.cause, DigestCause::kInputStall);
  EXPECT_EQ(Hosts(d.named_hosts), std::vector<std::string>{"t1v-n-71c9ab30-w-2"});
  EXPECT_EQ(KeyLines(d), (std::vector<int64_t>{1, 4}));
}

TEST(HangParser, CauseWrappedRightAfterCausedBy) {
  // The verdict itself is on the next line: classified from the prose.
  std::string log = Glog('E', "11:29:18.832426", 3468, "megascale_hang_handler.cc:276",
                         {"Megascale detects a hang that is likely caused by"});
  log += "data input stall on the following hosts.\n";
  log += "  The host that have data input stalls are: t1v-n-71c9ab30-w-1, t1v-n-71c9ab30-w-3\n";
  auto p = ParseLog(log);
  ASSERT_EQ(p.digests.size(), 1u);
  EXPECT_EQ(p.digests[0].cause, DigestCause::kInputStall);
  EXPECT_EQ(p.digests[0].cause_text, "data input stall on the following hosts.");
  EXPECT_EQ(p.digests[0].named_hosts.size(), 2u);
}

// ---- Unrecoverable error ---------------------------------------------------

TEST(HangParser, UnrecoverableRowsAndInspectList) {
  std::string log = Glog(
      'E', "00:08:43.413556", 3705, "megascale_hang_handler.cc:305",
      {"Some workers have halted with an unrecoverable error:",
       "  jax_worker/3:t1v-n-3d5f0e96-w-3 : INTERNAL: TPU to host DMA failed on TPU_1 (chip 1, "
       "core 0): transfer of 33554432 bytes timed out after 30s",
       "  jax_worker/6:t1v-n-9a1c27b4-w-2 : {Check failed: launch_id == expected_launch_id (41771 "
       "vs. 41770)}",
       "  Please inspect the error log of these workers:", "  t1v-n-3d5f0e96-w-3",
       "  t1v-n-9a1c27b4-w-2"});
  auto p = ParseLog(log);
  ASSERT_EQ(p.digests.size(), 1u);
  const HangDigest& d = p.digests[0];
  EXPECT_EQ(d.cause, DigestCause::kUnrecoverable);
  ASSERT_EQ(d.halted.size(), 2u);
  EXPECT_EQ(d.halted[0].worker.task, "jax_worker/3");
  EXPECT_EQ(d.halted[0].worker.host, "t1v-n-3d5f0e96-w-3");
  EXPECT_EQ(
      d.halted[0].error,
      "INTERNAL: TPU to host DMA failed on TPU_1 (chip 1, core 0): transfer of 33554432 bytes "
      "timed out after 30s");
  EXPECT_EQ(d.halted[1].worker.task, "jax_worker/6");
  EXPECT_EQ(d.halted[1].error, "{Check failed: launch_id == expected_launch_id (41771 vs. 41770)}");
  EXPECT_EQ(Hosts(d.inspect_workers),
            (std::vector<std::string>{"t1v-n-3d5f0e96-w-3", "t1v-n-9a1c27b4-w-2"}));
  EXPECT_EQ(KeyLines(d), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(HangParser, UnrecoverableErrorSpanningLines) {
  std::string log =
      "ABORTED: Some workers have halted with an unrecoverable error:\n"
      "  slice_1/worker_2:tpu-pod-1-2 : {UNAVAILABLE: Socket closed\n"
      "    additional detail: peer reset}\n"
      "  Please inspect the error log of these workers:\n"
      "  slice_1/worker_2:tpu-pod-1-2\n"
      "Retrying\n";
  auto p = ParseLog(log);
  ASSERT_EQ(p.digests.size(), 1u);
  const HangDigest& d = p.digests[0];
  ASSERT_EQ(d.halted.size(), 1u);
  EXPECT_EQ(d.halted[0].worker.task, "slice_1/worker_2");
  EXPECT_EQ(d.halted[0].worker.host, "tpu-pod-1-2");
  EXPECT_EQ(d.halted[0].error, "{UNAVAILABLE: Socket closed additional detail: peer reset}");
  ASSERT_EQ(d.inspect_workers.size(), 1u);
  EXPECT_EQ(d.inspect_workers[0].task, "slice_1/worker_2");
}

TEST(HangParser, UnrecoverableLookAlike) {
  auto p = ParseLog(
      "W1129 09:00:00.000000  100 loader.py:40] Encountered an unrecoverable error in shard 7, "
      "skipping it\n"
      "I1129 09:00:01.000000  100 loader.py:41] A worker halted with an unrecoverable error "
      "code 3 last week\n");
  EXPECT_TRUE(p.digests.empty());
}

// ---- Unknown cause ---------------------------------------------------------

TEST(HangParser, CannotDetermineRootCause) {
  std::string log = Glog(
      'E', "13:42:29.056698", 3734, "megascale_hang_handler.cc:342",
      {"Megascale detects a hang but cannot determine the root cause. Please inspect the",
       "full digest below.", "  Full error digest:", "    TPU stats:",
       "      t1v-n-4c8d19e2-w-0: 0x0000247f", "      t1v-n-4c8d19e2-w-1: 0x000021ea",
       "    TPU states:", "      Module: jit_train_step", "      Fingerprint: 8ba8ab4e51c68eea",
       "      Launch ID: 5998", "        sc0:0x449(all-gather-start.3): t1v-n-4c8d19e2-w-0",
       "        sc1:0x48e(all-gather-start.4): t1v-n-4c8d19e2-w-1"});
  auto p = ParseLog(log);
  ASSERT_EQ(p.digests.size(), 1u);
  const HangDigest& d = p.digests[0];
  EXPECT_EQ(d.cause, DigestCause::kUnknown);
  EXPECT_EQ(d.tpu_stats.size(), 2u);
  ASSERT_EQ(d.modules.size(), 1u);
  EXPECT_EQ(d.modules[0].workers.size(), 2u);
  EXPECT_TRUE(d.culprit_lists.empty());
}

TEST(HangParser, UnknownWordingFallsBackToPotentialCause) {
  auto p = ParseLog(
      "Megascale detects a hang that is likely caused by a flaky optical transceiver.\n"
      "  Full error digest:\n"
      "    Potential cause: NETWORKING_ISSUE\n"
      "    Potential culprit workers: host-a, host-b\n"
      "Megascale detects a hang that is likely caused by cosmic rays.\n");
  ASSERT_EQ(p.digests.size(), 2u);
  EXPECT_EQ(p.digests[0].cause, DigestCause::kNetwork);
  EXPECT_EQ(p.digests[1].cause, DigestCause::kUnknown);
  EXPECT_EQ(p.digests[1].cause_text, "cosmic rays.");
}

// ---- Shapes of the log -----------------------------------------------------

TEST(HangParser, TruncatedDigestKeepsWhatWasRead) {
  std::string log = Glog('E', "09:19:31.246147", 4213, "megascale_hang_handler.cc:214",
                         {kBadChipBody[0], kBadChipBody[1], kBadChipBody[2]});
  log += "    Potential ca";  // the file stops mid-line
  auto p = ParseLog(log);
  ASSERT_EQ(p.digests.size(), 1u);
  const HangDigest& d = p.digests[0];
  EXPECT_EQ(d.cause, DigestCause::kBadChip);
  EXPECT_TRUE(d.cut_by_eof);
  EXPECT_EQ(Hosts(d.named_hosts), std::vector<std::string>{"t1v-n-7a3f91c2-w-5"});
  EXPECT_TRUE(d.culprit_lists.empty());
  EXPECT_TRUE(d.potential_cause.empty());
}

TEST(HangParser, DigestWithEscapedNewlinesOnOneLine) {
  // A log export that kept the message on one line with "\n" escapes.
  auto p = ParseLog(
      "2025-11-29T09:19:31.246Z ERROR Megascale detects a hang that is likely caused by bad TPU "
      "chips on the following hosts.\\n  The host that have bad TPUs are: t1v-n-7a3f91c2-w-5\\n  "
      "Full error digest:\\n    Potential cause: Bad TPU chips\\n    Potential culprit workers: "
      "jax_worker/5:t1v-n-7a3f91c2-w-5\n");
  ASSERT_EQ(p.digests.size(), 1u);
  const HangDigest& d = p.digests[0];
  EXPECT_EQ(d.cause, DigestCause::kBadChip);
  EXPECT_EQ(d.potential_cause, "Bad TPU chips");
  ASSERT_EQ(d.culprit_lists.size(), 1u);
  EXPECT_EQ(d.culprit_lists[0][0].task, "jax_worker/5");
  EXPECT_EQ(KeyLines(d), std::vector<int64_t>{1});
}

TEST(HangParser, WindowClosesAfterAGap) {
  std::string log =
      "Megascale detects a hang that is likely caused by a networking issue.\n"
      "  The hosts are: host-a\n";
  for (int i = 0; i < kDigestGapLines + 5; ++i) log += "training step " + std::to_string(i) + "\n";
  log += "    Potential culprit workers: host-z\n";
  auto p = ParseLog(log);
  ASSERT_EQ(p.digests.size(), 1u);
  EXPECT_TRUE(p.digests[0].culprit_lists.empty());
  EXPECT_FALSE(p.digests[0].cut_by_eof);
}

TEST(HangParser, NextHeaderClosesTheDigest) {
  std::string log =
      "Megascale detects a hang that is likely caused by a networking issue.\n"
      "    Potential culprit workers: host-a, host-b\n"
      "Megascale detects a hang that is likely caused by bad TPU chips on the following hosts.\n"
      "    Potential culprit workers: host-c\n";
  auto p = ParseLog(log);
  ASSERT_EQ(p.digests.size(), 2u);
  EXPECT_EQ(p.digests[0].cause, DigestCause::kNetwork);
  EXPECT_EQ(Hosts(p.digests[0].culprit_lists.at(0)),
            (std::vector<std::string>{"host-a", "host-b"}));
  EXPECT_EQ(p.digests[1].cause, DigestCause::kBadChip);
  EXPECT_EQ(Hosts(p.digests[1].culprit_lists.at(0)), std::vector<std::string>{"host-c"});
}

TEST(HangParser, LookAlikesDoNotOpenADigest) {
  std::string log =
      Glog('I', "09:02:16.798343", 4046, "megascale_hang_detector.cc:75",
           {"Megascale hang detection enabled, timeout 1m"}) +
      "+ export LIBTPU_INIT_ARGS='--megascale_graph_hang_threshold=5m "
      "--megascale_abort_on_hangs=true'\n" +
      Glog('I', "09:02:17.000000", 4046, "train.py:30",
           {"See the runbook: look for `Megascale detects a hang` in the coordinator log",
            "if the job hangs we will retry; no hang detected so far"}) +
      "    Potential culprit workers: host-a\n";
  auto p = ParseLog(log);
  EXPECT_TRUE(p.digests.empty());
  EXPECT_TRUE(p.reports.empty());
}

TEST(HangParser, CapsBoundMemory) {
  std::string log;
  const int n = static_cast<int>(kMaxReportsPerFile) + 100;
  for (int i = 0; i < n; ++i) {
    log += "Megascale hang detected: Timed out waiting for 4 graphs to complete at launch_id " +
           std::to_string(i) +
           ". Already completed: 1. StepGloballyInProgress: true. Timeout: 1m\n";
  }
  for (size_t i = 0; i < kMaxDigestsPerFile + 5; ++i) {
    log += "Megascale detects a hang but cannot determine the root cause.\n";
  }
  auto p = ParseLog(log);
  EXPECT_EQ(p.reports.size(), kMaxReportsPerFile);
  EXPECT_EQ(p.report_count, n);
  EXPECT_EQ(p.digests.size(), kMaxDigestsPerFile);
}

TEST(HangParser, SurvivesHostileLines) {
  // Digest fragments, truncated keys, huge tokens and control bytes in a
  // pseudo-random order: nothing may crash, and the caps hold.
  const std::vector<std::string> pieces = {
      "Megascale detects a hang that is likely caused by",
      "Some workers have halted with an unrecoverable error:",
      "Potential culprit workers:",
      "Potential cause:",
      "TPU states:",
      "TPU stats:",
      "TPU program fingerprints:",
      "Module:",
      "Fingerprint:",
      "Launch ID: 99999999999999999999999",
      "tc0:0x1(",
      "): ",
      " : {",
      "}",
      "\\n",
      ",,,,",
      "Please inspect the error log of these workers:",
      "Megascale hang detected: Timed out waiting for -5 graphs",
      std::string(5000, 'h'),
      std::string("\x00\xff\x1b[31m", 6),
      "job/7:host-7",
      "E1129 09:19:31.246147  4213 x.cc:1] ",
  };
  uint32_t seed = 12345;
  auto next = [&seed] {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) & 0x7fff;
  };
  std::string log;
  for (int line = 0; line < 3000; ++line) {
    const int parts = next() % 6;
    for (int k = 0; k < parts; ++k) log += pieces[next() % pieces.size()] + (next() % 2 ? " " : "");
    log += "\n";
  }
  auto p = ParseLog(log);
  EXPECT_LE(p.digests.size(), kMaxDigestsPerFile);
  for (const auto& d : p.digests) {
    EXPECT_LE(d.key_lines.size(), kMaxKeyLinesPerDigest);
    EXPECT_LE(d.modules.size(), kMaxModuleGroups);
    for (const auto& h : d.halted) EXPECT_LE(h.error.size(), kMaxErrorBytes);
  }
}

// ---- Text helpers ----------------------------------------------------------

TEST(HangText, WorkerRefs) {
  auto a = ParseWorkerRef("jax_worker/5:t1v-n-7a3f91c2-w-5");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->task, "jax_worker/5");
  EXPECT_EQ(a->host, "t1v-n-7a3f91c2-w-5");
  auto b = ParseWorkerRef("10.128.0.11:8471");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->host, "10.128.0.11");
  EXPECT_EQ(b->task, "");
  auto c = ParseWorkerRef("/job:jax_worker/replica:0/task:3");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->task, "jax_worker/3");
  EXPECT_EQ(c->host, "");
  auto d = ParseWorkerRef("resource_manager/0");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->task, "resource_manager/0");
  EXPECT_FALSE(ParseWorkerRef("..."));
  EXPECT_FALSE(ParseWorkerRef("<host_name>"));
  EXPECT_FALSE(ParseWorkerRef("two words"));
  EXPECT_FALSE(ParseWorkerRef(std::string(300, 'a')));
}

TEST(HangText, WorkerLists) {
  auto l = ParseWorkerList("h1, h2,h3 h4.");
  EXPECT_EQ(Hosts(l), (std::vector<std::string>{"h1", "h2", "h3", "h4"}));
  EXPECT_TRUE(ParseWorkerList("...").empty());
  EXPECT_EQ(ParseWorkerList("a, b, c, d", 2).size(), 2u);
  EXPECT_TRUE(IsWorkerList("t1v-n-3d5f0e96-w-3"));
  EXPECT_TRUE(IsWorkerList("h1, h2"));
  EXPECT_FALSE(IsWorkerList("step 100 done"));
  EXPECT_FALSE(IsWorkerList("h1,,h2"));
  EXPECT_FALSE(IsWorkerList(""));
}

TEST(HangText, Durations) {
  EXPECT_EQ(ParseDurationUs("1m"), 60'000'000);
  EXPECT_EQ(ParseDurationUs("1m30s"), 90'000'000);
  EXPECT_EQ(ParseDurationUs("1h2m"), 3'720'000'000);
  EXPECT_EQ(ParseDurationUs("2.5s"), 2'500'000);
  EXPECT_EQ(ParseDurationUs("500ms"), 500'000);
  EXPECT_FALSE(ParseDurationUs("soon"));
  EXPECT_FALSE(ParseDurationUs(""));
  EXPECT_FALSE(ParseDurationUs("5x"));
}

TEST(HangText, GlogHeaderFallback) {
  EXPECT_EQ(StripGlogHeader(
                "E1129 09:19:31.246147  4213 megascale_hang_handler.cc:214]   Full error digest:"),
            "  Full error digest:");
  EXPECT_EQ(StripGlogHeader("[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] text"), "text");
  EXPECT_EQ(StripGlogHeader("  t1v-n-a90c6e15-w-0: 0x000033e9"),
            "  t1v-n-a90c6e15-w-0: 0x000033e9");
  EXPECT_EQ(StripGlogHeader("I1129 no header"), "I1129 no header");
}

TEST(HangText, CauseClassification) {
  EXPECT_EQ(ClassifyCauseText("Bad TPU chips"), DigestCause::kBadChip);
  EXPECT_EQ(ClassifyCauseText("BAD_TPU_CHIPS"), DigestCause::kBadChip);
  EXPECT_EQ(ClassifyCauseText("Networking issue"), DigestCause::kNetwork);
  EXPECT_EQ(ClassifyCauseText("Different module"), DigestCause::kDifferentModule);
  EXPECT_EQ(ClassifyCauseText("Fingerprint mismatch"), DigestCause::kFingerprintMismatch);
  EXPECT_EQ(ClassifyCauseText("inconsistent HLO module compilation across workers"),
            DigestCause::kFingerprintMismatch);
  EXPECT_EQ(ClassifyCauseText("data input stall on the"), DigestCause::kInputStall);
  EXPECT_EQ(ClassifyCauseText("but cannot determine the root cause"), DigestCause::kUnknown);
  EXPECT_FALSE(ClassifyCauseText("cosmic rays"));
}

}  // namespace
}  // namespace casefile::hang
