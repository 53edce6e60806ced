// The hang.* rules (docs/FINDINGS.md, "hang"): which code, which culprits,
// which lines are cited, over per-file parse results of small multi-host
// bundles written here by hand.
#include "analyze/analyzers/hang/hang_findings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "analyze/hang_test_lines.h"

namespace casefile::hang {
namespace {

using test::Glog;
using test::ParseLog;

const std::string kDetector = "megascale_hang_detector.cc:131";
const std::string kHandler = "megascale_hang_handler.cc:214";

std::string Report(int64_t launch_id, int64_t completed) {
  return "Megascale hang detected: Timed out waiting for 4 graphs to complete at launch_id " +
         std::to_string(launch_id) + ". Already completed: " + std::to_string(completed) +
         ". StepGloballyInProgress: true. Timeout: 1m";
}

// A worker log: some training lines, then its hang report (if any).
std::string WorkerLog(const std::string& report_clock,
                      std::optional<std::pair<int64_t, int64_t>> pos) {
  std::string log = Glog('I', "09:18:00.000000", 3190, "train.py:212", {"step 13218, loss=2.31"});
  log += Glog('I', "09:18:10.000000", 4140, "coordination_service_agent.cc:512",
              {"Heartbeat to coordination service ok (seq 100)"});
  if (pos) log += Glog('E', report_clock, 4213, kDetector, {Report(pos->first, pos->second)});
  return log;
}

class Bundle {
 public:
  void Add(const std::string& path, const std::string& host, const std::string& log) {
    test::ParsedFile p = ParseLog(log);
    FileScan f;
    f.file_id = static_cast<int64_t>(files_.size()) + 1;
    f.path = path;
    f.host = host;
    f.last_ts_us = p.last_ts_us;
    f.last_ts_line = p.last_ts_line;
    f.reports = p.reports;
    f.report_count = p.report_count;
    f.digests = p.digests;
    files_.push_back(std::move(f));
  }
  std::vector<Finding> Run() const {
    EvidenceFn fn = [this](int64_t file_id, const SourceLine& line) {
      Evidence e;
      e.bundle = "bundle";
      e.path = files_.at(file_id - 1).path;
      e.line = line.line_no;
      e.text = line.text;
      return e;
    };
    std::vector<Finding> out = BuildHangFindings(files_, fn);
    for (Finding& f : out) Normalize(f);
    return out;
  }

 private:
  std::vector<FileScan> files_;
};

bool Cites(const Finding& f, const std::string& path, int64_t line, const std::string& contains) {
  return std::any_of(f.evidence.begin(), f.evidence.end(), [&](const Evidence& e) {
    return e.path == path && e.line == line && e.text.find(contains) != std::string::npos;
  });
}

Culprit HostTask(const std::string& host, const std::string& task = "") {
  Culprit c;
  c.host = host;
  if (!task.empty()) c.task = task;
  return c;
}

std::vector<Culprit> Sorted(std::vector<Culprit> cs) {
  std::sort(cs.begin(), cs.end());
  return cs;
}

// Four hosts; the first also holds the coordinator, whose digest follows
// its own report.
Bundle FourHostsWithDigest(const std::vector<std::string>& digest) {
  Bundle b;
  for (int i = 0; i < 4; ++i) {
    const std::string host = "t1v-n-8e41c2d0-w-" + std::to_string(i);
    std::string log =
        WorkerLog("09:19:28.9" + std::to_string(i) + "0000", std::make_pair(13650, 100));
    if (i == 0) log += Glog('E', "09:19:31.246147", 4213, kHandler, digest);
    b.Add("logs/" + host + "/worker.log", host, log);
  }
  return b;
}

TEST(HangFindings, BadChip) {
  Bundle b = FourHostsWithDigest(
      {"Megascale detects a hang that is likely caused by bad TPU chips on the following hosts. "
       "Please remove the hosts from the fleet and restart the workload.",
       "  The host that have bad TPUs are: t1v-n-8e41c2d0-w-5",
       "  Full error digest:", "    Potential cause: Bad TPU chips",
       "    Potential culprit workers: jax_worker/5:t1v-n-8e41c2d0-w-5"});
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  const Finding& f = fs[0];
  EXPECT_EQ(f.code, "hang.bad_chip");
  EXPECT_EQ(f.analyzer, "hang");
  EXPECT_EQ(f.severity, Severity::kError);
  // The host list and the culprit line name one worker: one culprit.
  EXPECT_EQ(f.culprits, std::vector<Culprit>{HostTask("t1v-n-8e41c2d0-w-5", "jax_worker/5")});
  const std::string coord = "logs/t1v-n-8e41c2d0-w-0/worker.log";
  EXPECT_TRUE(
      Cites(f, coord, 4, "Megascale detects a hang that is likely caused by bad TPU chips"));
  EXPECT_TRUE(Cites(f, coord, 5, "The host that have bad TPUs are: t1v-n-8e41c2d0-w-5"));
  EXPECT_TRUE(Cites(f, coord, 7, "Potential cause: Bad TPU chips"));
  EXPECT_TRUE(Cites(f, coord, 8, "Potential culprit workers: jax_worker/5:t1v-n-8e41c2d0-w-5"));
  EXPECT_TRUE(Cites(f, "logs/t1v-n-8e41c2d0-w-3/worker.log", 3, "Megascale hang detected"));
  EXPECT_EQ(f.evidence.size(), 8u);  // 4 digest lines + one report per host
  EXPECT_NE(f.summary.find("bad TPU chips on t1v-n-8e41c2d0-w-5 (jax_worker/5)"), std::string::npos)
      << f.summary;
  EXPECT_NE(f.summary.find("4 workers reported"), std::string::npos) << f.summary;
  EXPECT_NE(
      f.summary.find("4 graphs to complete at launch_id 13650, already completed 100, timeout 1m"),
      std::string::npos)
      << f.summary;
  EXPECT_FALSE(f.recommendation.empty());
}

TEST(HangFindings, NetworkNamesTheHostSharedByLinks) {
  Bundle b;
  std::string log = WorkerLog("14:27:37.000000", std::make_pair(97067, 100));
  log += Glog('E', "14:27:38.753218", 3563, kHandler,
              {"Megascale detects a hang that is likely caused by a networking issue. Please "
               "examine the underlying networking stack for the following hosts.",
               "    The hosts are: t1v-n-c27f90d4-w-1, t1v-n-5b0e7a13-w-2",
               "    Full error digest:", "      Potential cause: Networking issue",
               "      Potential culprit workers: t1v-n-c27f90d4-w-1, t1v-n-5b0e7a13-w-2"});
  log += Glog('E', "14:28:39.898595", 3563, kHandler,
              {"Megascale detects a hang that is likely caused by a networking issue. Please "
               "examine the underlying networking stack for the following hosts.",
               "    The hosts are: t1v-n-5b0e7a13-w-3, t1v-n-c27f90d4-w-1",
               "    Full error digest:", "      Potential cause: Networking issue",
               "      Potential culprit workers: t1v-n-5b0e7a13-w-3, t1v-n-c27f90d4-w-1"});
  b.Add("logs/t1v-n-5b0e7a13-w-0/worker.log", "t1v-n-5b0e7a13-w-0", log);
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  const Finding& f = fs[0];
  EXPECT_EQ(f.code, "hang.network");
  EXPECT_EQ(f.culprits, Sorted({HostTask("t1v-n-c27f90d4-w-1"), HostTask("t1v-n-5b0e7a13-w-2"),
                                HostTask("t1v-n-5b0e7a13-w-3")}));
  const std::string path = "logs/t1v-n-5b0e7a13-w-0/worker.log";
  EXPECT_TRUE(Cites(f, path, 4, "likely caused by a networking issue"));
  EXPECT_TRUE(
      Cites(f, path, 8, "Potential culprit workers: t1v-n-c27f90d4-w-1, t1v-n-5b0e7a13-w-2"));
  EXPECT_TRUE(Cites(f, path, 9, "likely caused by a networking issue"));
  EXPECT_TRUE(
      Cites(f, path, 13, "Potential culprit workers: t1v-n-5b0e7a13-w-3, t1v-n-c27f90d4-w-1"));
  EXPECT_NE(f.summary.find("likely faulty host: t1v-n-c27f90d4-w-1 (in 2 links)"),
            std::string::npos)
      << f.summary;
}

TEST(HangFindings, DifferentModuleFromTheOddGroupOut) {
  // No culprit line: the host alone on the other module is the culprit.
  Bundle b = FourHostsWithDigest(
      {"Megascale detects a hang that is likely caused by running different modules on different "
       "devices.",
       "Full error digest:", "  Potential cause: Different module",
       "  TPU states:", "    Module: jit_loss_and_grad", "    Fingerprint: 80ccf74fe9569834",
       "    Launch ID: 193", "      tc0:0x33e9(fusion.366): t1v-n-8e41c2d0-w-0, t1v-n-8e41c2d0-w-1",
       "      tc1:0x3a0d(fusion.366): t1v-n-8e41c2d0-w-2", "    Module: jit_optimizer_apply",
       "    Fingerprint: 1f0e5d7c33a2b918", "    Launch ID: 0",
       "      tc0:0x14f4(copy.12): t1v-n-8e41c2d0-w-3"});
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  const Finding& f = fs[0];
  EXPECT_EQ(f.code, "hang.different_module");
  EXPECT_EQ(f.culprits, std::vector<Culprit>{HostTask("t1v-n-8e41c2d0-w-3")});
  EXPECT_TRUE(Cites(f, "logs/t1v-n-8e41c2d0-w-0/worker.log", 16, "copy.12): t1v-n-8e41c2d0-w-3"));
  EXPECT_NE(f.summary.find("jit_optimizer_apply (launch id 0) on t1v-n-8e41c2d0-w-3"),
            std::string::npos)
      << f.summary;
}

TEST(HangFindings, DifferentModuleCulpritLineWins) {
  Bundle b = FourHostsWithDigest(
      {"Megascale detects a hang that is likely caused by running different modules on different "
       "devices.",
       "Example hosts that have different HLO modules: t1v-n-8e41c2d0-w-1", "Full error digest:",
       "  Potential cause: Different module", "  Potential culprit workers: t1v-n-8e41c2d0-w-1",
       "  TPU states:", "    Module: jit_loss_and_grad",
       "      tc0:0x33e9(fusion.366): t1v-n-8e41c2d0-w-0, t1v-n-8e41c2d0-w-2, t1v-n-8e41c2d0-w-3",
       "    Module: jit_optimizer_apply", "      tc0:0x14f4(copy.12): t1v-n-8e41c2d0-w-1"});
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].culprits, std::vector<Culprit>{HostTask("t1v-n-8e41c2d0-w-1")});
  EXPECT_TRUE(Cites(fs[0], "logs/t1v-n-8e41c2d0-w-0/worker.log", 8,
                    "Potential culprit workers: t1v-n-8e41c2d0-w-1"));
}

TEST(HangFindings, FingerprintMismatchFromProgramFingerprints) {
  Bundle b = FourHostsWithDigest(
      {"Megascale detects a hang that is likely caused by inconsistent TPU programs.",
       "Full error digest:", "  Potential cause: INCONSISTENT_TPU_PROGRAM",
       "  TPU program fingerprints:", "    t1v-n-8e41c2d0-w-0: f5ff62a84676ff5b",
       "    t1v-n-8e41c2d0-w-1: f5ff62a84676ff5b", "    t1v-n-8e41c2d0-w-2: 5fa3ba844e7d8872",
       "    t1v-n-8e41c2d0-w-3: f5ff62a84676ff5b"});
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "hang.fingerprint_mismatch");
  EXPECT_EQ(fs[0].culprits, std::vector<Culprit>{HostTask("t1v-n-8e41c2d0-w-2")});
  EXPECT_TRUE(Cites(fs[0], "logs/t1v-n-8e41c2d0-w-0/worker.log", 10, "w-2: 5fa3ba844e7d8872"));
}

TEST(HangFindings, InputStall) {
  Bundle b;
  std::string log = WorkerLog("11:29:16.732426", std::make_pair(3244, 100));
  log += Glog('E', "11:29:18.832426", 3468, "megascale_hang_handler.cc:276",
              {"Megascale detects a hang that is likely caused by data input stall on the"});
  log += "following hosts. Please check the workers to make sure the data input pipeline\n";
  log += "is working properly.\n";
  log += "  The host that have data input stalls are: t1v-n-71c9ab30-w-2\n";
  b.Add("logs/t1v-n-71c9ab30-w-0/worker.log", "t1v-n-71c9ab30-w-0", log);
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "hang.input_stall");
  EXPECT_EQ(fs[0].culprits, std::vector<Culprit>{HostTask("t1v-n-71c9ab30-w-2")});
  EXPECT_TRUE(Cites(fs[0], "logs/t1v-n-71c9ab30-w-0/worker.log", 4, "data input stall on the"));
  EXPECT_TRUE(Cites(fs[0], "logs/t1v-n-71c9ab30-w-0/worker.log", 7,
                    "The host that have data input stalls are: t1v-n-71c9ab30-w-2"));
  EXPECT_TRUE(Cites(fs[0], "logs/t1v-n-71c9ab30-w-0/worker.log", 3, "launch_id 3244"));
}

TEST(HangFindings, UnrecoverableQuotesEachError) {
  Bundle b = FourHostsWithDigest(
      {"Some workers have halted with an unrecoverable error:",
       "  jax_worker/3:t1v-n-3d5f0e96-w-3 : INTERNAL: TPU to host DMA failed on TPU_1",
       "  jax_worker/6:t1v-n-9a1c27b4-w-2 : Check failed: launch_id == expected_launch_id",
       "  Please inspect the error log of these workers:", "  t1v-n-3d5f0e96-w-3",
       "  t1v-n-9a1c27b4-w-2"});
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  const Finding& f = fs[0];
  EXPECT_EQ(f.code, "hang.unrecoverable");
  EXPECT_EQ(f.culprits, Sorted({HostTask("t1v-n-3d5f0e96-w-3", "jax_worker/3"),
                                HostTask("t1v-n-9a1c27b4-w-2", "jax_worker/6")}));
  EXPECT_NE(
      f.summary.find("jax_worker/3:t1v-n-3d5f0e96-w-3: INTERNAL: TPU to host DMA failed on TPU_1"),
      std::string::npos)
      << f.summary;
  EXPECT_NE(f.summary.find("Check failed: launch_id == expected_launch_id"), std::string::npos);
  const std::string coord = "logs/t1v-n-8e41c2d0-w-0/worker.log";
  EXPECT_TRUE(Cites(f, coord, 4, "Some workers have halted with an unrecoverable error:"));
  EXPECT_TRUE(Cites(f, coord, 5, "INTERNAL: TPU to host DMA failed"));
  EXPECT_TRUE(Cites(f, coord, 6, "Check failed"));
}

TEST(HangFindings, UnknownDigestHasNoCulprits) {
  Bundle b = FourHostsWithDigest(
      {"Megascale detects a hang but cannot determine the root cause. Please inspect the",
       "full digest below.", "  Full error digest:", "    TPU stats:",
       "      t1v-n-8e41c2d0-w-0: 0x0000247f", "      t1v-n-8e41c2d0-w-1: 0x000021ea"});
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "hang.unknown");
  EXPECT_TRUE(fs[0].culprits.empty());
  EXPECT_TRUE(
      Cites(fs[0], "logs/t1v-n-8e41c2d0-w-0/worker.log", 4, "cannot determine the root cause"));
}

TEST(HangFindings, ANamedCauseSupersedesAnUnknownDigest) {
  Bundle b = FourHostsWithDigest(
      {"Megascale detects a hang but cannot determine the root cause.", "  Full error digest:",
       "Megascale detects a hang that is likely caused by bad TPU chips on the following hosts.",
       "  The host that have bad TPUs are: t1v-n-8e41c2d0-w-2"});
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "hang.bad_chip");
}

TEST(HangFindings, DistinctCausesGiveOneFindingEach) {
  Bundle b = FourHostsWithDigest(
      {"Megascale detects a hang that is likely caused by bad TPU chips on the following hosts.",
       "  The host that have bad TPUs are: t1v-n-8e41c2d0-w-2",
       "Some workers have halted with an unrecoverable error:",
       "  jax_worker/1:t1v-n-8e41c2d0-w-1 : UNAVAILABLE: Socket closed",
       "Megascale detects a hang that is likely caused by bad TPU chips on the following hosts.",
       "  The host that have bad TPUs are: t1v-n-8e41c2d0-w-3"});
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 2u);
  std::map<std::string, const Finding*> by_code;
  for (const auto& f : fs) by_code[f.code] = &f;
  ASSERT_TRUE(by_code.count("hang.bad_chip"));
  ASSERT_TRUE(by_code.count("hang.unrecoverable"));
  EXPECT_EQ(by_code["hang.bad_chip"]->culprits,
            Sorted({HostTask("t1v-n-8e41c2d0-w-2"), HostTask("t1v-n-8e41c2d0-w-3")}));
  const std::string& summary = by_code["hang.bad_chip"]->summary;
  EXPECT_EQ(
      summary.find("2 Megascale coordinator digests (at logs/t1v-n-8e41c2d0-w-0/worker.log:4, "
                   "logs/t1v-n-8e41c2d0-w-0/worker.log:8), one cut short by the end of its "
                   "file, attribute the hang to bad TPU chips on t1v-n-8e41c2d0-w-2, "
                   "t1v-n-8e41c2d0-w-3."),
      0u)
      << summary;
}

TEST(HangFindings, TruncatedDigestStillFinds) {
  Bundle b;
  std::string log = WorkerLog("09:19:28.900000", std::make_pair(13650, 100));
  log += Glog('E', "09:19:31.246147", 4213, kHandler,
              {"Megascale detects a hang that is likely caused by bad TPU chips on the following "
               "hosts.",
               "  The host that have bad TPUs are: t1v-n-8e41c2d0-w-5"});
  log += "  Full error dig";
  b.Add("logs/t1v-n-8e41c2d0-w-0/worker.log", "t1v-n-8e41c2d0-w-0", log);
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "hang.bad_chip");
  EXPECT_EQ(fs[0].culprits, std::vector<Culprit>{HostTask("t1v-n-8e41c2d0-w-5")});
  EXPECT_NE(fs[0].summary.find("cut short by the end of its file"), std::string::npos)
      << fs[0].summary;
}

// ---- Without a digest ------------------------------------------------------

TEST(HangFindings, StragglerBehindTheOthers) {
  Bundle b;
  const std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> hosts = {
      {"t1v-n-21f4a9d6-w-0", {28061, 100}},
      {"t1v-n-21f4a9d6-w-1", {28061, 100}},
      {"t1v-n-8c60b1e3-w-0", {28060, 97}},
      {"t1v-n-8c60b1e3-w-1", {28061, 100}},
  };
  for (const auto& [host, pos] : hosts) {
    b.Add("logs/" + host + "/worker.log", host, WorkerLog("07:43:45.000000", pos));
  }
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  const Finding& f = fs[0];
  EXPECT_EQ(f.code, "hang.straggler");
  EXPECT_EQ(f.severity, Severity::kError);
  // Reports do not name tasks, so the culprit has none.
  EXPECT_EQ(f.culprits, std::vector<Culprit>{HostTask("t1v-n-8c60b1e3-w-0")});
  EXPECT_TRUE(Cites(f, "logs/t1v-n-8c60b1e3-w-0/worker.log", 3,
                    "at launch_id 28060. Already completed: 97."));
  EXPECT_TRUE(Cites(f, "logs/t1v-n-21f4a9d6-w-0/worker.log", 3,
                    "at launch_id 28061. Already completed: 100."));
  EXPECT_NE(f.summary.find("t1v-n-8c60b1e3-w-0 is at launch_id 28060 with 97 completed"),
            std::string::npos)
      << f.summary;
}

TEST(HangFindings, StragglerThatStoppedLogging) {
  Bundle b;
  for (int i = 0; i < 3; ++i) {
    const std::string host = "tpu-host-" + std::to_string(i);
    b.Add("logs/" + host + "/worker.log", host,
          WorkerLog("09:30:00.000000", std::make_pair(500, 100)));
  }
  // w-3 logs nothing after 09:18:10, twelve minutes before the reports.
  b.Add("logs/tpu-host-3/worker.log", "tpu-host-3", WorkerLog("", std::nullopt));
  // The launcher's log ends early too, but it is not a worker log.
  b.Add("logs/launcher/xpk.log", "launcher",
        Glog('I', "09:00:00.000000", 77, "xpk.py:10", {"workload submitted"}));
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  const Finding& f = fs[0];
  EXPECT_EQ(f.code, "hang.straggler");
  EXPECT_EQ(f.culprits, std::vector<Culprit>{HostTask("tpu-host-3")});
  EXPECT_TRUE(Cites(f, "logs/tpu-host-3/worker.log", 2, "Heartbeat"));
  EXPECT_NE(f.summary.find(
                "tpu-host-3 never reports and its log ends 710 s before the first hang report"),
            std::string::npos)
      << f.summary;
}

TEST(HangFindings, ReportsWithNothingSingledOutAreUnknown) {
  Bundle b;
  for (int i = 0; i < 3; ++i) {
    const std::string host = "tpu-host-" + std::to_string(i);
    b.Add("logs/" + host + "/worker.log", host,
          WorkerLog("09:30:00.000000", std::make_pair(500, 100)));
  }
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "hang.unknown");
  EXPECT_TRUE(fs[0].culprits.empty());
  EXPECT_EQ(fs[0].evidence.size(), 3u);
  EXPECT_NE(fs[0].summary.find("3 workers reported"), std::string::npos);
}

TEST(HangFindings, ReportEvidenceIsBounded) {
  Bundle b;
  for (int i = 0; i < 12; ++i) {
    const std::string host = "tpu-host-" + std::to_string(i);
    b.Add("logs/" + host + "/worker.log", host,
          WorkerLog("09:30:00.000000", std::make_pair(500, 100)));
  }
  auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].evidence.size(), kMaxReportEvidence);
  EXPECT_NE(fs[0].summary.find("12 workers reported"), std::string::npos);
}

TEST(HangFindings, HealthyLogsGiveNothing) {
  Bundle b;
  for (int i = 0; i < 2; ++i) {
    const std::string host = "tpu-host-" + std::to_string(i);
    std::string log = Glog('I', "09:02:16.798343", 4046, "megascale_hang_detector.cc:75",
                           {"Megascale hang detection enabled, timeout 1m"});
    log += WorkerLog("", std::nullopt);
    b.Add("logs/" + host + "/worker.log", host, log);
  }
  EXPECT_TRUE(b.Run().empty());
}

}  // namespace
}  // namespace casefile::hang
