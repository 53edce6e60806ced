// The hang analyzer end to end: a bundle written here goes through ingest
// into an index, and the analyzer reads it back. Checks what only the whole
// path shows: hosts from the bundle layout, evidence that is the stored line
// with its bundle and path, and the not-applicable status.
#include "analyze/analyzers/hang/hang_analyzer.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "analyze/runner.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "ingest/ingest.h"
#include "test_util.h"

namespace casefile {
namespace {

std::unique_ptr<IndexReader> Index(const test::TempDir& tmp, const std::string& root) {
  const std::string db = tmp.Join("i.db");
  {
    IndexWriter w(db);
    IngestInputs({root}, Limits{}, nullptr, w);
    w.Commit();
  }
  return IndexReader::Open(db);
}

AnalysisResult RunHang(const IndexReader& index) {
  std::vector<std::unique_ptr<Analyzer>> list;
  list.push_back(MakeHangAnalyzer());
  return RunAnalyzers(index, {}, list);
}

std::string Report(const std::string& clock, int tid, int64_t launch_id, int64_t completed) {
  return "E1129 " + clock + "  " + std::to_string(tid) +
         " megascale_hang_detector.cc:131] Megascale hang detected: Timed out waiting for 4 graphs "
         "to complete at launch_id " +
         std::to_string(launch_id) + ". Already completed: " + std::to_string(completed) +
         ". StepGloballyInProgress: true. Timeout: 1m\n";
}

std::string Training(const std::string& clock) {
  return "I1129 " + clock + "  3190 train.py:212] step 13218, loss=2.3114, step_time=1.21s\n" +
         "I1129 " + clock +
         "  4140 coordination_service_agent.cc:512] Heartbeat to coordination "
         "service ok (seq 71)\n";
}

TEST(HangAnalyzer, BadChipThroughTheIndex) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  for (int i = 1; i < 4; ++i) {
    test::WriteFile(root + "/logs/t1v-n-8e41c2d0-w-" + std::to_string(i) + "/worker.log",
                    Training("09:18:00.000000") + Report("09:19:28.963927", 3455, 13650, 100));
  }
  const std::string coordinator =
      Training("09:18:00.000000") + Report("09:19:28.946147", 4213, 13650, 100) +
      "E1129 09:19:31.246147  4213 megascale_hang_handler.cc:214] Megascale detects a hang that is "
      "likely caused by bad TPU chips on the following hosts. Please remove the hosts from the "
      "fleet and restart the workload.\n"
      "E1129 09:19:31.246161  4213 megascale_hang_handler.cc:214]   The host that have bad TPUs "
      "are: t1v-n-8e41c2d0-w-2\n"
      "I1129 09:19:31.246170  3427 megascale_coordinator.cc:388] Received hang report from "
      "jax_worker/1 (t1v-n-8e41c2d0-w-1)\n"
      "E1129 09:19:31.246201  4213 megascale_hang_handler.cc:214]   Full error digest:\n"
      "E1129 09:19:31.246228  4213 megascale_hang_handler.cc:214]     Potential cause: Bad TPU "
      "chips\n"
      "E1129 09:19:31.246239  4213 megascale_hang_handler.cc:214]     Potential culprit workers: "
      "jax_worker/2:t1v-n-8e41c2d0-w-2\n"
      "W1129 09:20:00.000000  3190 train.py:630] SIGTERM received, shutting down\n";
  test::WriteFile(root + "/logs/t1v-n-8e41c2d0-w-0/worker.log", coordinator);

  auto index = Index(tmp, root);
  AnalysisResult r = RunHang(*index);
  ASSERT_EQ(r.analyzers.size(), 1u);
  EXPECT_EQ(r.analyzers[0].name, "hang");
  EXPECT_EQ(r.analyzers[0].status, "ran") << r.analyzers[0].reason;
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, "hang.bad_chip");
  ASSERT_EQ(f.culprits.size(), 1u);
  EXPECT_EQ(f.culprits[0].host, "t1v-n-8e41c2d0-w-2");
  EXPECT_EQ(f.culprits[0].task, "jax_worker/2");
  EXPECT_FALSE(f.culprits[0].rank);

  auto cited = [&](const std::string& path, int64_t line) -> const Evidence* {
    for (const auto& e : f.evidence) {
      if (e.path == path && e.line == line) return &e;
    }
    return nullptr;
  };
  const std::string coord_path = "logs/t1v-n-8e41c2d0-w-0/worker.log";
  const Evidence* header = cited(coord_path, 4);
  ASSERT_NE(header, nullptr);
  EXPECT_EQ(header->bundle, "bundle");
  EXPECT_EQ(header->text.substr(0, 60),
            "E1129 09:19:31.246147  4213 megascale_hang_handler.cc:214] M");
  ASSERT_NE(cited(coord_path, 5), nullptr);
  EXPECT_EQ(cited(coord_path, 6), nullptr);  // the other thread's line
  ASSERT_NE(cited(coord_path, 8), nullptr);
  const Evidence* culprits = cited(coord_path, 9);
  ASSERT_NE(culprits, nullptr);
  EXPECT_EQ(culprits->text,
            "E1129 09:19:31.246239  4213 megascale_hang_handler.cc:214]     Potential culprit "
            "workers: jax_worker/2:t1v-n-8e41c2d0-w-2");
  for (int i = 0; i < 4; ++i) {
    EXPECT_NE(cited("logs/t1v-n-8e41c2d0-w-" + std::to_string(i) + "/worker.log", 3), nullptr) << i;
  }
  EXPECT_NE(f.summary.find("4 workers reported"), std::string::npos) << f.summary;
}

TEST(HangAnalyzer, SilentHostFromTheBundleLayout) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  for (int i = 0; i < 3; ++i) {
    test::WriteFile(root + "/logs/t1v-n-21f4a9d6-w-" + std::to_string(i) + "/worker.log",
                    Training("07:30:00.000000") + Training("07:42:40.000000") +
                        Report("07:43:45.223180", 4017, 28061, 100));
  }
  // The fourth host stops logging at 07:30 and never reports.
  test::WriteFile(root + "/logs/t1v-n-21f4a9d6-w-3/worker.log", Training("07:30:00.000000"));
  auto index = Index(tmp, root);
  AnalysisResult r = RunHang(*index);
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, "hang.straggler");
  ASSERT_EQ(f.culprits.size(), 1u);
  EXPECT_EQ(f.culprits[0].host, "t1v-n-21f4a9d6-w-3");
  EXPECT_FALSE(f.culprits[0].task);
  EXPECT_TRUE(std::any_of(f.evidence.begin(), f.evidence.end(), [](const Evidence& e) {
    return e.path == "logs/t1v-n-21f4a9d6-w-3/worker.log" && e.line == 2;
  }));
}

TEST(HangAnalyzer, HealthyLogsRunWithoutFindings) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  test::WriteFile(root + "/logs/t1v-n-5f93c18a-w-0/worker.log",
                  "I1129 09:02:16.798343  4046 megascale_hang_detector.cc:75] Megascale hang "
                  "detection enabled, timeout 1m\n" +
                      Training("09:03:00.000000"));
  auto index = Index(tmp, root);
  AnalysisResult r = RunHang(*index);
  ASSERT_EQ(r.analyzers.size(), 1u);
  EXPECT_EQ(r.analyzers[0].status, "ran");
  EXPECT_TRUE(r.findings.empty());
}

TEST(HangAnalyzer, NotApplicableWithoutLogs) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  test::WriteFile(root + "/config/ds_config.json", "{\"train_batch_size\": 64}\n");
  auto index = Index(tmp, root);
  AnalysisResult r = RunHang(*index);
  ASSERT_EQ(r.analyzers.size(), 1u);
  EXPECT_EQ(r.analyzers[0].status, "not_applicable");
  EXPECT_FALSE(r.analyzers[0].reason.empty());
}

TEST(HangAnalyzer, DescribesItsCodes) {
  auto a = MakeHangAnalyzer();
  const AnalyzerInfo& info = a->info();
  EXPECT_EQ(info.name, "hang");
  EXPECT_EQ(info.codes, (std::vector<std::string>{
                            "hang.bad_chip", "hang.network", "hang.different_module",
                            "hang.fingerprint_mismatch", "hang.input_stall", "hang.unrecoverable",
                            "hang.unknown", "hang.straggler", "hang.collective_timeout",
                            "hang.collective_mismatch", "hang.task_lost"}));
  EXPECT_EQ(info.needed_kinds, (std::vector<std::string>{"log", "hlo"}));
}

}  // namespace
}  // namespace casefile
