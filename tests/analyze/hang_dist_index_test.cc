// The cross-rank half of the hang analyzer through a real index: rows of
// dist_events, fr_entries, fr_groups and hlo_modules written with the
// IndexWriter as ingest writes them (so these tests do not depend on the
// parsers), then the analyzer run by the runner. Checks what only the whole
// path shows: the SQL that loads the tables, the rank->host map built from
// them, evidence that is the stored line, and that a bundle of flight-
// recorder dumps alone is enough to run.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "analyze/analyzers/hang/hang_analyzer.h"
#include "analyze/rank_map.h"
#include "analyze/runner.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "parse/dist/step_series.h"
#include "test_util.h"

namespace casefile {
namespace {

// One bundle written row by row.
class IndexBuilder {
 public:
  explicit IndexBuilder(const std::string& path) : w_(path) {
    BundleRow b;
    b.name = "bundle";
    b.path = "/in/bundle";
    b.format = "directory";
    b.status = "complete";
    bundle_ = w_.AddBundle(b);
  }
  // A file with `lines` as its text; line i (1-based) is lines[i - 1].
  int64_t File(const std::string& path, const std::string& kind, std::optional<std::string> host,
               std::optional<int64_t> rank, const std::vector<std::string>& lines,
               int64_t first_ts_us = kNoTimestamp) {
    FileRow f;
    f.bundle_id = bundle_;
    f.path = path;
    f.kind = kind;
    f.entry_type = "file";
    f.host = std::move(host);
    f.rank = rank;
    f.line_count = static_cast<int64_t>(lines.size());
    const int64_t id = w_.AddFile(f);
    for (size_t i = 0; i < lines.size(); ++i) {
      LineRecord r;
      r.file_id = id;
      r.line_no = static_cast<int64_t>(i) + 1;
      r.text = lines[i];
      if (first_ts_us != kNoTimestamp) r.ts_us = first_ts_us + static_cast<int64_t>(i) * 1'000'000;
      w_.AddLine(r);
    }
    w_.EndFileLines(id);
    return id;
  }
  IndexWriter& writer() { return w_; }

 private:
  IndexWriter w_;
  int64_t bundle_ = 0;
};

AnalysisResult RunHang(const IndexReader& index) {
  std::vector<std::unique_ptr<Analyzer>> list;
  list.push_back(MakeHangAnalyzer());
  return RunAnalyzers(index, {}, list);
}

const Evidence* Cited(const Finding& f, const std::string& path, int64_t line) {
  for (const Evidence& e : f.evidence) {
    if (e.path == path && e.line == line) return &e;
  }
  return nullptr;
}

std::string TimeoutText(int64_t rank, int64_t seq) {
  return "[rank" + std::to_string(rank) +
         "]:[E1218 20:27:21.486305774 ProcessGroupNCCL.cpp:632] [Rank " + std::to_string(rank) +
         "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" + std::to_string(seq) +
         ", OpType=ALLREDUCE, NumelIn=4194304, NumelOut=4194304, Timeout(ms)=600000) ran for "
         "600081 milliseconds before timing out.";
}

// 2024-03-04 12:00:00 UTC.
constexpr int64_t kT0 = 1'709'553'600'000'000;

// 16 ranks on two nodes; each node's log holds its ranks' lines: line 1 is
// training, lines 2-9 NCCL's "comm ... rank R nranks 16" of its ranks, lines
// 10-17 their watchdog timeouts. Rank 11 (line 13 of node-1) never times out;
// its own log stops ten minutes before the others' timeouts.
TEST(HangDistIndex, SilentRankWithItsHostFromNcclLines) {
  test::TempDir tmp;
  const std::string db = tmp.Join("i.db");
  {
    IndexBuilder b(db);
    for (int node = 0; node < 2; ++node) {
      std::vector<std::string> lines = {"[rank0]: step 1200 loss 2.31"};
      for (int k = 0; k < 8; ++k) {
        const int r = node * 8 + k;
        lines.push_back("node-" + std::to_string(node) + ":4107:4190 [" + std::to_string(k) +
                        "] NCCL INFO comm 0x55d0 rank " + std::to_string(r) +
                        " nranks 16 cudaDev " + std::to_string(k) + " - Init COMPLETE");
      }
      for (int k = 0; k < 8; ++k) {
        const int r = node * 8 + k;
        lines.push_back(r == 11 ? "[rank11]: loading shard 7" : TimeoutText(r, 1042));
      }
      // No host on the file row: the host comes from the NCCL lines' rows.
      const int64_t fid = b.File("node-" + std::to_string(node) + "/train.log", "log", std::nullopt,
                                 std::nullopt, lines);
      for (int k = 0; k < 8; ++k) {
        const int r = node * 8 + k;
        DistEventRow comm;
        comm.file_id = fid;
        comm.line_no = 2 + k;
        comm.host = "node-" + std::to_string(node);
        comm.rank = r;
        comm.kind = "rank_host";
        comm.value = 16;
        b.writer().AddDistEvent(comm);
        if (r == 11) continue;
        DistEventRow t;
        t.file_id = fid;
        t.line_no = 10 + k;
        t.rank = r;
        t.kind = "watchdog_timeout";
        t.seq = 1042;
        t.op = "ALLREDUCE";
        t.numel_in = 4194304;
        t.numel_out = 4194304;
        t.timeout_ms = 600000;
        t.elapsed_ms = 600081;
        t.ts_us = kT0 + 600'000'000 + r;
        b.writer().AddDistEvent(t);
      }
    }
    // Rank 11's own log (torchrun --log-dir), three lines a second apart.
    b.File("node-1/rank_11/stdout.log", "log", std::nullopt, 11,
           {"step 1199", "step 1200", "loading shard 7"}, kT0);
    b.writer().Commit();
  }
  auto index = IndexReader::Open(db);
  const AnalysisResult r = RunHang(*index);
  ASSERT_EQ(r.analyzers.size(), 1u);
  EXPECT_EQ(r.analyzers[0].status, "ran") << r.analyzers[0].reason;
  EXPECT_EQ(r.analyzers[0].version, "4");
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, "hang.collective_timeout");
  ASSERT_EQ(f.culprits.size(), 1u);
  EXPECT_EQ(f.culprits[0].rank, 11);
  EXPECT_EQ(f.culprits[0].host, "node-1");
  EXPECT_NE(f.summary.find("rank 11 (host node-1) never reached SeqNum 1042: 15 ranks wait at "
                           "SeqNum 1042"),
            std::string::npos)
      << f.summary;
  const Evidence* e = Cited(f, "node-0/train.log", 10);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->bundle, "bundle");
  EXPECT_EQ(e->text, TimeoutText(0, 1042));
  // The last line of the silent rank's own log, 598 s before the first timeout.
  const Evidence* last = Cited(f, "node-1/rank_11/stdout.log", 3);
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->text, "loading shard 7");
  EXPECT_NE(f.summary.find("Rank 11's log, node-1/rank_11/stdout.log, ends at 2024-03-04 12:00:02 "
                           "UTC, 9 min 58 s before the first timeout."),
            std::string::npos)
      << f.summary;
}

// Dumps alone (files of kind "other", no log): the analyzer runs on the
// fr_entries rows and names the rank missing from the last collective.
TEST(HangDistIndex, FlightRecorderDumpsAloneAreEnough) {
  test::TempDir tmp;
  const std::string db = tmp.Join("i.db");
  {
    IndexBuilder b(db);
    for (int r = 0; r < 4; ++r) {
      std::vector<std::string> lines = {"{\"version\": \"2.5\", \"entries\": ["};
      const int last = r == 1 ? 6 : 7;
      for (int s = 1; s <= last; ++s)
        lines.push_back("  {\"record_id\": " + std::to_string(s) + ", \"collective_seq_id\": " +
                        std::to_string(s) + ", \"profiling_name\": \"nccl:all_reduce\"},");
      const int64_t fid =
          b.File("dumps/nccl_trace_rank_" + std::to_string(r), "other", std::nullopt, r, lines);
      FrGroupRow g;
      g.file_id = fid;
      g.rank = r;
      g.pg_id = "0";
      g.desc = "default_pg";
      g.ranks = "[0, 1, 2, 3]";
      b.writer().AddFrGroup(g);
      for (int s = 1; s <= last; ++s) {
        FrEntryRow e;
        e.file_id = fid;
        e.line_no = 1 + s;
        e.rank = r;
        e.pg_id = "0";
        e.pg_desc = "default_pg";
        e.record_id = s;
        e.collective_seq_id = s;
        e.op = "nccl:all_reduce";
        e.state = s == last ? "started" : "completed";
        e.input_sizes = "[[3, 4]]";
        e.output_sizes = "[[3, 4]]";
        e.input_dtypes = "[\"Float\"]";
        e.output_dtypes = "[\"Float\"]";
        b.writer().AddFrEntry(e);
      }
    }
    b.writer().Commit();
  }
  auto index = IndexReader::Open(db);
  const AnalysisResult r = RunHang(*index);
  ASSERT_EQ(r.analyzers.size(), 1u);
  EXPECT_EQ(r.analyzers[0].status, "ran") << r.analyzers[0].reason;
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "hang.collective_timeout");
  ASSERT_EQ(r.findings[0].culprits.size(), 1u);
  EXPECT_EQ(r.findings[0].culprits[0].rank, 1);
  const Evidence* e = Cited(r.findings[0], "dumps/nccl_trace_rank_1", 7);
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->text.find("\"collective_seq_id\": 6"), std::string::npos) << e->text;
  EXPECT_NE(Cited(r.findings[0], "dumps/nccl_trace_rank_0", 8), nullptr);
}

TEST(HangDistIndex, HloFingerprintsAcrossHostsWithoutADigest) {
  test::TempDir tmp;
  const std::string db = tmp.Join("i.db");
  const std::string header =
      "HloModule jit_train_step, entry_computation_layout={(f32[8]{0})->f32[8]{0}}";
  {
    IndexBuilder b(db);
    for (int h = 0; h < 3; ++h) {
      const std::string host = "host-" + std::to_string(h);
      const std::string path = "xla_dump/" + host + "/module_0001.jit_train_step.txt";
      const int64_t fid = b.File(path, "hlo", host, std::nullopt, {header, "", "ENTRY %main {"});
      HloModuleRow m;
      m.file_id = fid;
      m.module_name = "jit_train_step";
      m.stage = "before_optimizations";
      m.host = host;
      m.fingerprint = h == 2 ? "b71c" : "a09f";
      m.instruction_count = 3;
      m.computation_count = 1;
      b.writer().AddHloModule(m);
    }
    b.writer().Commit();
  }
  auto index = IndexReader::Open(db);
  const AnalysisResult r = RunHang(*index);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "hang.fingerprint_mismatch");
  ASSERT_EQ(r.findings[0].culprits.size(), 1u);
  EXPECT_EQ(r.findings[0].culprits[0].host, "host-2");
  const Evidence* e = Cited(r.findings[0], "xla_dump/host-2/module_0001.jit_train_step.txt", 1);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->text, header);
}

// Two nodes of 4 GPUs under torchrun --tee: rank 6 (local rank 2 of node-1)
// runs out of memory, its traceback under "[default2]:" (a crash row with
// local_rank 2 and no rank), and the other seven ranks time out. NCCL's world
// lines give node-1 the block 4-7, so the crash is rank 6's.
TEST(HangDistIndex, CrashUnderALocalRankPrefixNamesItsGlobalRank) {
  test::TempDir tmp;
  const std::string db = tmp.Join("i.db");
  const std::string oom_text =
      "[default2]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.";
  {
    IndexBuilder b(db);
    for (int node = 0; node < 2; ++node) {
      const std::string host = "node-" + std::to_string(node);
      std::vector<std::string> lines(12, "line");
      if (node == 1) lines[10] = oom_text;
      const int64_t fid = b.File(host + "/train.log", "log", host, std::nullopt, lines);
      for (int k = 0; k < 4; ++k) {
        const int r = node * 4 + k;
        DistEventRow comm;
        comm.file_id = fid;
        comm.line_no = 1 + k;
        comm.host = host;
        comm.rank = r;
        comm.kind = "rank_host";
        comm.value = 8;
        b.writer().AddDistEvent(comm);
        if (r == 6) continue;
        DistEventRow t;
        t.file_id = fid;
        t.line_no = 5 + k;
        t.rank = r;
        t.kind = "watchdog_timeout";
        t.seq = 77;
        t.op = "ALLREDUCE";
        t.timeout_ms = 600000;
        t.ts_us = kT0 + 600'000'000;
        b.writer().AddDistEvent(t);
      }
      if (node == 1) {
        DistEventRow crash;
        crash.file_id = fid;
        crash.line_no = 11;
        crash.local_rank = 2;
        crash.kind = "crash";
        crash.detail = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.";
        crash.ts_us = kT0;
        b.writer().AddDistEvent(crash);
      }
    }
    b.writer().Commit();
  }
  auto index = IndexReader::Open(db);
  // The column is stored as written.
  int64_t stored = -1;
  index->Query("SELECT local_rank FROM dist_events WHERE kind = 'crash'", [&](const QueryRow& r) {
    stored = r.values[0] ? std::stoll(*r.values[0]) : -2;
    return true;
  });
  EXPECT_EQ(stored, 2);
  const AnalysisResult r = RunHang(*index);
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, "hang.collective_timeout");
  ASSERT_EQ(f.culprits.size(), 1u);
  EXPECT_EQ(f.culprits[0].rank, 6);
  EXPECT_EQ(f.culprits[0].host, "node-1");
  EXPECT_NE(f.summary.find("rank 6 (host node-1) failed first: torch.OutOfMemoryError: CUDA out of "
                           "memory."),
            std::string::npos)
      << f.summary;
  const Evidence* e = Cited(f, "node-1/train.log", 11);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->text, oom_text);
}

// NCCL's lines of the world communicator are lost (the logs start after
// init); what is left are the splits torch made for two tensor-parallel
// groups of 4 (ncclCommSplit: ranks 0-3 inside each group, on node-1 for
// global ranks 4-7). Read as communicator lines they would put ranks 0-3 on
// node-1 and make the job 4 ranks; split rows are left out of the map.
TEST(HangDistIndex, SplitCommunicatorsDoNotPassForTheWorld) {
  test::TempDir tmp;
  const std::string db = tmp.Join("i.db");
  {
    IndexBuilder b(db);
    const int64_t fid = b.File("node-1/train.log", "log", std::nullopt, std::nullopt,
                               std::vector<std::string>(8, "line"));
    for (int k = 0; k < 4; ++k) {
      DistEventRow split;
      split.file_id = fid;
      split.line_no = 1 + k;
      split.host = "node-1";
      split.rank = k;
      split.kind = "rank_host";
      split.value = 4;
      split.detail = "split";
      b.writer().AddDistEvent(split);
    }
    // One line whose wrappers name a global rank and its host.
    DistEventRow pair;
    pair.file_id = fid;
    pair.line_no = 6;
    pair.host = "node-0";
    pair.rank = 2;
    pair.kind = "rank_host";
    b.writer().AddDistEvent(pair);
    b.writer().Commit();
  }
  auto index = IndexReader::Open(db);
  const RankHostMap map = RankHostMap::Load(*index, index->Files());
  EXPECT_EQ(map.world_size(), 0);
  ASSERT_NE(map.HostOf(2), nullptr);
  EXPECT_EQ(*map.HostOf(2), "node-0");
  EXPECT_EQ(map.HostOf(0), nullptr);
  EXPECT_EQ(map.HostOf(1), nullptr);
  EXPECT_EQ(map.HostOf(3), nullptr);
  EXPECT_EQ(map.hosts().size(), 1u);
}

// A 1,024-rank job (128 nodes of 8), every rank's timeout, progress and 50
// step times in its node's log, rank 777 behind: the analysis stays fast.
TEST(HangDistIndex, ThousandRanks) {
  constexpr int kRanks = 1024, kPerNode = 8, kSteps = 50;
  test::TempDir tmp;
  const std::string db = tmp.Join("i.db");
  {
    IndexBuilder b(db);
    for (int node = 0; node < kRanks / kPerNode; ++node) {
      const std::string host = "gpu-" + std::to_string(node);
      std::vector<std::string> lines(kPerNode * (kSteps + 3), "line");
      const int64_t fid = b.File(host + "/train.log", "log", host, std::nullopt, lines);
      int64_t line = 1;
      // Step times go in as ingest stores them: series (step_series.h).
      dist::StepSeriesWriter steps(
          fid, [&](const MetricChunkRow& c) { b.writer().AddMetricChunk(c); }, nullptr);
      for (int k = 0; k < kPerNode; ++k) {
        const int r = node * kPerNode + k;
        DistEventRow comm;
        comm.file_id = fid;
        comm.line_no = line++;
        comm.host = host;
        comm.rank = r;
        comm.kind = "rank_host";
        comm.value = kRanks;
        b.writer().AddDistEvent(comm);
        for (int s = 1; s <= kSteps; ++s) {
          DistEventRow st;
          st.file_id = fid;
          st.line_no = line++;
          st.rank = r;
          st.kind = "step_time";
          st.seq = s;
          st.value = 1.0 + 0.001 * ((r + s) % 5);
          steps.Add(st);
        }
        DistEventRow p;
        p.file_id = fid;
        p.line_no = line++;
        p.rank = r;
        p.kind = "work_progress";
        p.pg = "0";
        p.seq = r == 777 ? std::optional<int64_t>() : 5000;
        p.last_enqueued = r == 777 ? 4999 : 5000;
        p.last_completed = 4999;
        b.writer().AddDistEvent(p);
        if (r == 777) continue;
        DistEventRow t;
        t.file_id = fid;
        t.line_no = line++;
        t.rank = r;
        t.kind = "watchdog_timeout";
        t.pg = "0";
        t.seq = 5000;
        t.op = "ALLREDUCE";
        t.numel_in = 1048576;
        t.numel_out = 1048576;
        t.timeout_ms = 1800000;
        b.writer().AddDistEvent(t);
      }
      steps.Finish();
    }
    b.writer().Commit();
  }
  auto index = IndexReader::Open(db);
  const auto start = std::chrono::steady_clock::now();
  const AnalysisResult r = RunHang(*index);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ perf ] hang analysis of 1024 ranks: " << seconds << " s\n";
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "hang.collective_timeout");
  ASSERT_EQ(r.findings[0].culprits.size(), 1u);
  EXPECT_EQ(r.findings[0].culprits[0].rank, 777);
  EXPECT_EQ(r.findings[0].culprits[0].host, "gpu-97");
  EXPECT_NE(r.findings[0].summary.find("rank 777 (host gpu-97) last enqueued SeqNum 4999; 1023 "
                                       "ranks wait at SeqNum 5000"),
            std::string::npos)
      << r.findings[0].summary;
}

}  // namespace
}  // namespace casefile
