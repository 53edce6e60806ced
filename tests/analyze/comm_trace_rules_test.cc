// The trace half of the comm analyzer on hand-built indexes: the rows of
// trace_comm_stats, net_links, net_timeline and trace_marks written with the
// IndexWriter as the ingest-side aggregator writes them
// (lib/parse/trace/comm_trace.h), so these tests depend only on the table
// contract. Thresholds and expected texts come from docs/FINDINGS.md
// ("comm") and comm_trace_thresholds.h; each rule is checked on both sides
// of its threshold.
#include "analyze/analyzers/comm/comm_trace_rules.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "analyze/analyzer.h"
#include "analyze/analyzers/comm/comm_trace_common.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "parse/trace/comm_trace_keys.h"
#include "test_util.h"

namespace casefile {
namespace {

namespace tc = trace_comm;

class TraceIndex {
 public:
  explicit TraceIndex(const test::TempDir& tmp) : db_(tmp.Join("t.db")), w_(db_) {
    BundleRow b;
    b.name = "bundle";
    b.path = "/in/bundle";
    b.format = "directory";
    b.status = "complete";
    bundle_ = w_.AddBundle(b);
  }
  int64_t Trace(const std::string& host, const std::string& path = "") {
    FileRow f;
    f.bundle_id = bundle_;
    f.path = path.empty() ? "plugins/profile/2025_03_04_10_11_12/" + host + ".trace.json.gz" : path;
    f.kind = "trace";
    f.entry_type = "file";
    if (!host.empty()) f.host = host;
    return w_.AddFile(f);
  }
  void Stat(int64_t file, const std::string& key, double value, const std::string& detail = "") {
    w_.AddTraceStat({file, key, value, detail});
  }
  // A kept event on line `line`; its text is a TSL event object.
  void Mark(int64_t file, const std::string& kind, int64_t line, const std::string& name, double ts,
            double dur, const std::string& detail = "") {
    TraceMarkRow m;
    m.file_id = file;
    m.kind = kind;
    m.line_no = line;
    m.offset = line * 180;
    m.ts_us = ts;
    m.dur_us = dur;
    m.pid = "5";
    m.text = Event(name, ts, dur);
    m.detail = detail;
    w_.AddTraceMark(m);
  }
  void Link(int64_t file, const std::string& src, const std::string& dst, int64_t n, double p50) {
    w_.AddNetLink({file, src, dst, n, 1048576.0 * n, p50, p50 * 1.5, p50 * 3, p50 * 1.1});
  }
  void Bucket(int64_t file, double t0, double t1, double busy) {
    w_.AddNetTimeline({file, t0, t1, 1e6, 10, 3, busy, 0});
  }
  void Config(const std::string& key, const std::string& value) {
    FileRow f;
    f.bundle_id = bundle_;
    f.path = "config/train_config.yaml";
    f.kind = "config";
    f.entry_type = "file";
    const int64_t id = w_.AddFile(f);
    w_.AddConfig({id, key, value, 3});
  }
  static std::string Event(const std::string& name, double ts, double dur) {
    return "{\"ph\":\"X\",\"pid\":5,\"tid\":3,\"ts\":" + Number(ts) + ",\"dur\":" + Number(dur) +
           ",\"name\":\"" + name + "\",\"args\":{\"name\":\"not this\"}}";
  }
  std::unique_ptr<IndexReader> Open() {
    w_.Commit();
    return IndexReader::Open(db_);
  }

 private:
  static std::string Number(double v) { return comm::Number(v); }
  std::string db_;
  IndexWriter w_;
  int64_t bundle_ = 0;
};

std::vector<Finding> RunComm(const IndexReader& index) {
  AnalysisContext ctx(index);
  return comm::RunTraceRules(ctx);
}

const Finding* Code(const std::vector<Finding>& fs, const std::string& code) {
  for (const Finding& f : fs) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

std::string Codes(const std::vector<Finding>& fs) {
  std::string s;
  for (const Finding& f : fs) s += f.code + ": " + f.summary + "\n";
  return s;
}

std::set<std::string> Hosts(const Finding& f) {
  std::set<std::string> out;
  for (const Culprit& c : f.culprits) out.insert(c.host.value_or(""));
  return out;
}

std::set<int64_t> Lines(const Finding& f) {
  std::set<int64_t> out;
  for (const Evidence& e : f.evidence) out.insert(e.line);
  return out;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// What a healthy XProf trace of 20 steps gives: warm-up MapDmaBuffer calls
// only, no copies, slack everywhere, short recv-done waits, RPCs of 300 us.
void HealthyStats(TraceIndex& ix, int64_t f) {
  ix.Stat(f, tc::kSource, 0, "xprof");
  ix.Stat(f, tc::kEvents, 120000);
  ix.Stat(f, tc::kSteps, 20);
  ix.Stat(f, tc::kSteadyStartUs, 250000, "steps");
  ix.Stat(f, tc::kStepMedianUs, 50000);
  ix.Stat(f, tc::kCommShare, 0.7);  // collectives open most of the step: overlapped
  ix.Stat(f, tc::kMapDmaTotal, 24);
  ix.Stat(f, tc::kMapDmaSteady, 0);
  ix.Stat(f, tc::kMemoryCopyTotal, 0);
  ix.Stat(f, tc::kMemoryCopyInRecv, 0);
  ix.Stat(f, tc::kRecvDoneCount, 400);
  ix.Stat(f, tc::kRecvDoneShare, 0.01);
  ix.Stat(f, tc::kCollectives, 2400);
  ix.Stat(f, tc::kLowSlack, 3);
  ix.Stat(f, tc::kSlackP50Us, 300);
  ix.Stat(f, tc::kRpcCount, 500);
  ix.Stat(f, tc::kRpcP50Us, 320);
  ix.Stat(f, tc::kRpcP99Us, 720);
  ix.Stat(f, tc::kRpcSpikes, 0);
  for (int b = 0; b < 10; ++b) ix.Bucket(f, 250000 + b * 50000, 300000 + b * 50000, 15000);
}

TEST(CommTraceRules, HealthyTracesFireNothing) {
  test::TempDir tmp;
  TraceIndex ix(tmp);
  for (int w = 0; w < 4; ++w) {
    const std::string host = "t1v-n-0a1b2c3d-w-" + std::to_string(w);
    const int64_t f = ix.Trace(host);
    HealthyStats(ix, f);
    for (int p = 0; p < 4; ++p) {
      if (p == w) continue;
      const std::string peer = "t1v-n-0a1b2c3d-w-" + std::to_string(p);
      ix.Link(f, host, peer, 200, 400 + 10 * p + w);
      ix.Link(f, peer, host, 200, 410 + 10 * p + w);
    }
  }
  const auto index = ix.Open();
  const std::vector<Finding> fs = RunComm(*index);
  EXPECT_TRUE(fs.empty()) << Codes(fs);
}

TEST(CommTraceRules, DmaPremapExhaustedNamesTheHostAndTheSetting) {
  test::TempDir tmp;
  TraceIndex ix(tmp);
  const int64_t bad = ix.Trace("t1v-n-0a1b2c3d-w-1");
  HealthyStats(ix, bad);
  ix.Stat(bad, tc::kMapDmaTotal, 60);
  ix.Stat(bad, tc::kMapDmaSteady, 36, "5");
  for (int i = 0; i < 5; ++i)
    ix.Mark(bad, tc::kMarkMapDmaSteady, 90000 + i * 100, "MapDmaBuffer", 260000 + i * 1000, 210);
  // Two late registrations on another host: under the minimum of 3.
  const int64_t ok = ix.Trace("t1v-n-0a1b2c3d-w-0");
  HealthyStats(ix, ok);
  ix.Stat(ok, tc::kMapDmaSteady, 2);
  ix.Mark(ok, tc::kMarkMapDmaSteady, 777, "MapDmaBuffer", 270000, 150);
  ix.Config("megascale.grpc_premap_memory_bytes", "17179869184");
  const auto index = ix.Open();
  const std::vector<Finding> fs = RunComm(*index);
  const Finding* f = Code(fs, "comm.dma_premap_exhausted");
  ASSERT_NE(f, nullptr) << Codes(fs);
  EXPECT_EQ(fs.size(), 1u) << Codes(fs);
  EXPECT_EQ(Hosts(*f), std::set<std::string>{"t1v-n-0a1b2c3d-w-1"});
  // The first three kept calls, with the event as written.
  EXPECT_EQ(Lines(*f), (std::set<int64_t>{90000, 90100, 90200}));
  EXPECT_EQ(f->evidence[0].path,
            "plugins/profile/2025_03_04_10_11_12/t1v-n-0a1b2c3d-w-1.trace.json.gz");
  EXPECT_EQ(f->evidence[0].text, TraceIndex::Event("MapDmaBuffer", 260000, 210));
  EXPECT_TRUE(Has(f->summary, "36 MapDmaBuffer call(s) in the steady state (60 in the trace)"))
      << f->summary;
  EXPECT_TRUE(Has(f->summary, "--megascale_grpc_premap_memory_bytes=17179869184 (16 GiB)"));
  EXPECT_TRUE(Has(f->recommendation, "now 17179869184; try 34359738368"));
}

TEST(CommTraceRules, PremapSettingFromAFlagInsideAValue) {
  test::TempDir tmp;
  TraceIndex ix(tmp);
  const int64_t bad = ix.Trace("w-1");
  ix.Stat(bad, tc::kMapDmaSteady, 3);
  ix.Mark(bad, tc::kMarkMapDmaSteady, 12, "MapDmaBuffer", 1, 2);
  ix.Config("libtpu_init_args.[2]", "--megascale_grpc_premap_memory_bytes=8589934592");
  const auto index = ix.Open();
  const std::vector<Finding> findings = RunComm(*index);
  const Finding* f = Code(findings, "comm.dma_premap_exhausted");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->summary, "=8589934592 (8 GiB)")) << f->summary;
}

TEST(CommTraceRules, NoFindingWithoutAKeptEvent) {
  // A finding needs evidence: counts without marks say too little to cite.
  test::TempDir tmp;
  TraceIndex ix(tmp);
  const int64_t f = ix.Trace("w-1");
  ix.Stat(f, tc::kMapDmaSteady, 40);
  ix.Stat(f, tc::kMemoryCopyInRecv, 9);
  const auto index = ix.Open();
  const std::vector<Finding> fs = RunComm(*index);
  EXPECT_TRUE(fs.empty()) << Codes(fs);
}

TEST(CommTraceRules, MemoryCopyOnlyInsideReceives) {
  test::TempDir tmp;
  TraceIndex ix(tmp);
  const int64_t bad = ix.Trace("t1v-n-0a1b2c3d-w-2");
  HealthyStats(ix, bad);
  ix.Stat(bad, tc::kMemoryCopyTotal, 14);
  ix.Stat(bad, tc::kMemoryCopyInRecv, 12);
  ix.Mark(bad, tc::kMarkMemoryCopy, 5001, "Megascale: Memory Copy", 300000, 40,
          "Megascale: Transfer Receive");
  // Copies outside receives (host-side staging) are not the zero-copy path.
  const int64_t ok = ix.Trace("t1v-n-0a1b2c3d-w-3");
  HealthyStats(ix, ok);
  ix.Stat(ok, tc::kMemoryCopyTotal, 30);
  const auto index = ix.Open();
  const std::vector<Finding> fs = RunComm(*index);
  const Finding* f = Code(fs, "comm.memory_copy");
  ASSERT_NE(f, nullptr) << Codes(fs);
  EXPECT_EQ(fs.size(), 1u) << Codes(fs);
  EXPECT_EQ(Hosts(*f), std::set<std::string>{"t1v-n-0a1b2c3d-w-2"});
  EXPECT_EQ(Lines(*f), std::set<int64_t>{5001});
  EXPECT_TRUE(Has(f->summary, "12 memory copies inside network receives (14 in the trace)"))
      << f->summary;
  EXPECT_TRUE(Has(f->summary, "zero-copy"));
  EXPECT_TRUE(Has(f->recommendation, "--megascale_grpc_premap_memory_bytes"));
}

TEST(CommTraceRules, LowCollectiveSlackShareAndWorstOps) {
  test::TempDir tmp;
  TraceIndex ix(tmp);
  const int64_t bad = ix.Trace("t1v-n-0a1b2c3d-w-0");
  HealthyStats(ix, bad);
  ix.Stat(bad, tc::kCollectives, 1000);
  ix.Stat(bad, tc::kLowSlack, 400);
  ix.Stat(bad, tc::kSlackP50Us, 3.5);
  // Kept in time order; the tightest (slack 0.2 us) is the second.
  ix.Mark(bad, tc::kMarkLowSlack, 301, "all-gather-done.7", 260000, 900, "4.5");
  ix.Mark(bad, tc::kMarkLowSlack, 302, "all-reduce-done.12", 261000, 1500, "0.2");
  ix.Mark(bad, tc::kMarkLowSlack, 303, "reduce-scatter-done.3", 262000, 700, "2");
  ix.Mark(bad, tc::kMarkLowSlack, 304, "all-reduce-done.13", 263000, 700, "8");
  // 24% is under the 25% share.
  const int64_t near = ix.Trace("t1v-n-0a1b2c3d-w-1");
  HealthyStats(ix, near);
  ix.Stat(near, tc::kCollectives, 1000);
  ix.Stat(near, tc::kLowSlack, 240);
  ix.Mark(near, tc::kMarkLowSlack, 10, "all-reduce-done.1", 1, 1, "1");
  // All 12 low, but 12 collectives are too few to judge.
  const int64_t few = ix.Trace("t1v-n-0a1b2c3d-w-2");
  HealthyStats(ix, few);
  ix.Stat(few, tc::kCollectives, 12);
  ix.Stat(few, tc::kLowSlack, 12);
  ix.Mark(few, tc::kMarkLowSlack, 10, "all-reduce-done.1", 1, 1, "1");
  const auto index = ix.Open();
  const std::vector<Finding> fs = RunComm(*index);
  const Finding* f = Code(fs, "comm.low_collective_slack");
  ASSERT_NE(f, nullptr) << Codes(fs);
  EXPECT_EQ(fs.size(), 1u) << Codes(fs);
  EXPECT_EQ(Hosts(*f), std::set<std::string>{"t1v-n-0a1b2c3d-w-0"});
  EXPECT_EQ(Lines(*f), (std::set<int64_t>{301, 302, 303}));
  EXPECT_TRUE(Has(f->summary,
                  "40% of 1000 steady-state collectives (400) had near-zero slack, "
                  "median slack 3.5 us"))
      << f->summary;
  EXPECT_TRUE(Has(f->summary,
                  "the tightest: all-reduce-done.12 (slack 0.2 us), "
                  "reduce-scatter-done.3 (slack 2.0 us), all-gather-done.7 (slack "
                  "4.5 us)"))
      << f->summary;
}

TEST(CommTraceRules, LongWaitsOnAnIdleNetworkAreNoBandwidthBound) {
  test::TempDir tmp;
  TraceIndex ix(tmp);
  // Waits for 40% of the step, but the timeline is 30% busy (HealthyStats'
  // buckets); collectives open most of the step (comm_share 0.7) do not
  // count as a busy network when the timeline says otherwise.
  const int64_t f = ix.Trace("t1v-n-0a1b2c3d-w-2");
  HealthyStats(ix, f);
  ix.Stat(f, tc::kRecvDoneShare, 0.4);
  ix.Mark(f, tc::kMarkRecvDoneLong, 10, "recv-done.2", 300000, 2600);
  const auto index = ix.Open();
  const std::vector<Finding> fs = RunComm(*index);
  EXPECT_EQ(Code(fs, "comm.bandwidth_bound"), nullptr) << Codes(fs);
}

TEST(CommTraceRules, BandwidthBoundFiresWithABusyTimeline) {
  test::TempDir tmp;
  TraceIndex ix(tmp);
  const int64_t bad = ix.Trace("t1v-n-0a1b2c3d-w-3");
  ix.Stat(bad, tc::kSource, 0, "xprof");
  ix.Stat(bad, tc::kSteadyStartUs, 250000, "steps");
  ix.Stat(bad, tc::kStepMedianUs, 50000);
  ix.Stat(bad, tc::kCommShare, 0.95);
  ix.Stat(bad, tc::kRecvDoneCount, 380);
  ix.Stat(bad, tc::kRecvDoneShare, 0.31);
  ix.Stat(bad, tc::kRecvDoneP50Us, 1800);
  ix.Stat(bad, tc::kRecvDoneP90Us, 2400);
  ix.Stat(bad, tc::kRecvDoneMaxUs, 2600);
  ix.Bucket(bad, 200000, 250000, 0);  // warm-up: not counted
  for (int b = 0; b < 9; ++b) ix.Bucket(bad, 250000 + b * 50000, 300000 + b * 50000, 45000);
  ix.Bucket(bad, 700000, 750000, 25000);
  ix.Mark(bad, tc::kMarkRecvDoneLong, 4400, "recv-done.31", 300000, 2600);
  ix.Mark(bad, tc::kMarkRecvDoneLong, 4410, "recv-done.33", 301000, 2500);
  ix.Link(bad, "t1v-n-0a1b2c3d-w-3", "t1v-n-0a1b2c3d-w-0", 300, 900);
  ix.Link(bad, "t1v-n-0a1b2c3d-w-1", "t1v-n-0a1b2c3d-w-3", 500, 950);
  // Under the recv-done share (19%): not bound.
  const int64_t ok = ix.Trace("t1v-n-0a1b2c3d-w-1");
  ix.Stat(ok, tc::kSteadyStartUs, 250000, "steps");
  ix.Stat(ok, tc::kRecvDoneCount, 380);
  ix.Stat(ok, tc::kRecvDoneShare, 0.19);
  for (int b = 0; b < 10; ++b) ix.Bucket(ok, 250000 + b * 50000, 300000 + b * 50000, 49000);
  ix.Mark(ok, tc::kMarkRecvDoneLong, 10, "recv-done.2", 300000, 2600);
  const auto index = ix.Open();
  const std::vector<Finding> fs = RunComm(*index);
  const Finding* f = Code(fs, "comm.bandwidth_bound");
  ASSERT_NE(f, nullptr) << Codes(fs);
  EXPECT_EQ(Hosts(*f), std::set<std::string>{"t1v-n-0a1b2c3d-w-3"});
  EXPECT_EQ(Lines(*f), (std::set<int64_t>{4400, 4410}));
  // 9 x 45000 + 25000 over 500000: 86%; the timeline is preferred to comm_share.
  EXPECT_TRUE(Has(f->summary,
                  "waiting in recv-done 31% of the steady state (380 recv-done ops, "
                  "p50 1.8 ms, p90 2.4 ms, longest 2.6 ms), network busy 86% (9 of "
                  "10 timeline buckets over 80% busy)"))
      << f->summary;
  // The busiest link first.
  EXPECT_TRUE(Has(f->summary, "busiest links t1v-n-0a1b2c3d-w-1 -> t1v-n-0a1b2c3d-w-3 (500 MiB"))
      << f->summary;
  EXPECT_TRUE(Has(f->recommendation, "per-replica batch"));
}

TEST(CommTraceRules, BandwidthBoundFromNcclKernelsOfATorchTrace) {
  test::TempDir tmp;
  TraceIndex ix(tmp);
  const int64_t bad =
      ix.Trace("gpu-node-07", "traces/gpu-node-07_90017.1718900000123456789.pt.trace.json.gz");
  ix.Stat(bad, tc::kSource, 0, "kineto");
  ix.Stat(bad, tc::kSteadyStartUs, 300000, "steps");
  ix.Stat(bad, tc::kNcclKernels, 240);
  ix.Stat(bad, tc::kNcclKernelUs, 720000);
  ix.Stat(bad, tc::kNcclKernelShare, 0.6);
  ix.Stat(bad, tc::kRank, 3);
  ix.Mark(bad, tc::kMarkSteadyStart, 2210, "ProfilerStep#7", 300000, 120000);
  // 40% of the step in NCCL kernels: under the bound.
  const int64_t ok =
      ix.Trace("gpu-node-08", "traces/gpu-node-08_90018.1718900000123456789.pt.trace.json.gz");
  ix.Stat(ok, tc::kNcclKernels, 240);
  ix.Stat(ok, tc::kNcclKernelShare, 0.4);
  ix.Mark(ok, tc::kMarkSteadyStart, 2210, "ProfilerStep#7", 300000, 120000);
  const auto index = ix.Open();
  const std::vector<Finding> fs = RunComm(*index);
  const Finding* f = Code(fs, "comm.bandwidth_bound");
  ASSERT_NE(f, nullptr) << Codes(fs);
  EXPECT_EQ(Hosts(*f), std::set<std::string>{"gpu-node-07"});
  EXPECT_EQ(Lines(*f), std::set<int64_t>{2210});
  EXPECT_TRUE(Has(f->summary,
                  "gpu-node-07 (gpu-node-07_90017.1718900000123456789.pt.trace.json.gz): NCCL "
                  "kernels ran 60% of the steady state (240 kernels, "
                  "720 ms), rank 3"))
      << f->summary;
}

TEST(CommTraceRules, RpcLatencySpikesAndConstantlyHigh) {
  test::TempDir tmp;
  TraceIndex ix(tmp);
  const int64_t spiky = ix.Trace("t1v-n-0a1b2c3d-w-0");
  HealthyStats(ix, spiky);
  ix.Stat(spiky, tc::kRpcSpikes, 6);
  ix.Stat(spiky, tc::kRpcP99Us, 199000);
  ix.Stat(spiky, tc::kRpcSpikePeriodUs, 150000);
  ix.Mark(spiky, tc::kMarkRpcSpike, 7001, "Megascale: RPC ReadyToSend", 300000, 201000);
  ix.Mark(spiky, tc::kMarkRpcSpike, 7301, "Megascale: RPC ReadyToSend", 450000, 198000);
  const int64_t slow = ix.Trace("t1v-n-0a1b2c3d-w-1");
  HealthyStats(ix, slow);
  ix.Stat(slow, tc::kRpcP50Us, 25000);
  ix.Stat(slow, tc::kRpcP99Us, 31000);
  ix.Mark(slow, tc::kMarkSteadyStart, 40, "1002", 250000, 50000);
  // Three spikes are under the minimum of 4; ten RPCs are too few.
  const int64_t calm = ix.Trace("t1v-n-0a1b2c3d-w-2");
  HealthyStats(ix, calm);
  ix.Stat(calm, tc::kRpcSpikes, 3);
  ix.Mark(calm, tc::kMarkRpcSpike, 10, "Megascale: RPC Barrier", 300000, 200000);
  const int64_t few = ix.Trace("t1v-n-0a1b2c3d-w-3");
  HealthyStats(ix, few);
  ix.Stat(few, tc::kRpcCount, 10);
  ix.Stat(few, tc::kRpcP50Us, 90000);
  ix.Mark(few, tc::kMarkSteadyStart, 40, "1002", 250000, 50000);
  const auto index = ix.Open();
  const std::vector<Finding> fs = RunComm(*index);
  const Finding* f = Code(fs, "comm.rpc_latency");
  ASSERT_NE(f, nullptr) << Codes(fs);
  EXPECT_EQ(fs.size(), 1u) << Codes(fs);
  EXPECT_EQ(Hosts(*f), (std::set<std::string>{"t1v-n-0a1b2c3d-w-0", "t1v-n-0a1b2c3d-w-1"}));
  EXPECT_EQ(Lines(*f), (std::set<int64_t>{7001, 7301, 40}));
  EXPECT_TRUE(Has(f->summary,
                  "t1v-n-0a1b2c3d-w-0: 500 RPCs, median 320 us, p99 199 ms; 6 spikes "
                  "up to 201 ms, periodic: every 150 ms"))
      << f->summary;
  EXPECT_TRUE(Has(f->summary,
                  "t1v-n-0a1b2c3d-w-1: 500 RPCs, median 25.0 ms, p99 31.0 ms "
                  "(constantly high: over 10.0 ms)"))
      << f->summary;
  EXPECT_TRUE(Has(f->summary, "TCP configuration inside the container"));
}

// Six hosts, every directed pair with 200 transfers at ~400 us, except
// those of `slow` (7x).
void Fabric(TraceIndex& ix, const std::vector<std::pair<int, int>>& slow, bool trace_all = true) {
  auto name = [](int w) { return "t1v-n-77aa01b2-w-" + std::to_string(w); };
  for (int w = 0; w < 6; ++w) {
    if (!trace_all && w == 4) continue;
    const int64_t f = ix.Trace(name(w));
    for (int p = 0; p < 6; ++p) {
      if (p == w) continue;
      for (const auto& [src, dst] : {std::pair{w, p}, std::pair{p, w}}) {
        bool is_slow = false;
        for (const auto& s : slow) is_slow |= s == std::pair{src, dst};
        const double p50 = (is_slow ? 2800.0 : 400.0) + 7 * src + 3 * dst;
        ix.Link(f, name(src), name(dst), 200, p50);
        const std::string link = name(src) + " -> " + name(dst);
        ix.Mark(f, tc::kMarkLinkSlowest, 1000 + 10 * src + dst + 100 * w,
                "Megascale: Transfer Send", 300000, p50 * 4, link);
      }
    }
  }
}

TEST(CommTraceRules, SlowLinkNamesTheHostCommonToTheSlowPairs) {
  test::TempDir tmp;
  TraceIndex ix(tmp);
  // w-4's NIC: both directions of each of its pairs are slow, seen from
  // the traces of its peers (w-4's own trace was not captured).
  std::vector<std::pair<int, int>> slow;
  for (int p : {0, 1, 2, 3, 5}) {
    slow.push_back({4, p});
    slow.push_back({p, 4});
  }
  Fabric(ix, slow, /*trace_all=*/false);
  const auto index = ix.Open();
  const std::vector<Finding> fs = RunComm(*index);
  const Finding* f = Code(fs, "comm.slow_link");
  ASSERT_NE(f, nullptr) << Codes(fs);
  EXPECT_EQ(Hosts(*f), std::set<std::string>{"t1v-n-77aa01b2-w-4"});
  EXPECT_TRUE(Has(f->summary,
                  "Of 30 (source, destination) pairs with 20 transfers or more, 10 "
                  "are outliers"))
      << f->summary;
  EXPECT_TRUE(Has(f->summary, "t1v-n-77aa01b2-w-4 is one end of 10 of the 10 slow pairs"))
      << f->summary;
  // The five slowest pairs quoted and cited (from each trace that kept them).
  EXPECT_TRUE(Has(f->summary, "and 5 more"));
  for (const Evidence& e : f->evidence) EXPECT_TRUE(Has(e.text, "Megascale: Transfer Send"));
  EXPECT_GE(f->evidence.size(), 5u);
}

TEST(CommTraceRules, SlowLinkOfOnePairNamesBothEnds) {
  test::TempDir tmp;
  TraceIndex ix(tmp);
  Fabric(ix, {{1, 3}});
  const auto index = ix.Open();
  const std::vector<Finding> fs = RunComm(*index);
  const Finding* f = Code(fs, "comm.slow_link");
  ASSERT_NE(f, nullptr) << Codes(fs);
  EXPECT_EQ(Hosts(*f), (std::set<std::string>{"t1v-n-77aa01b2-w-1", "t1v-n-77aa01b2-w-3"}));
  EXPECT_TRUE(Has(f->summary, "t1v-n-77aa01b2-w-1 -> t1v-n-77aa01b2-w-3 p50 2.8 ms")) << f->summary;
  EXPECT_TRUE(Has(f->summary, "suspect the links themselves"));
  // Cited from both traces that hold the pair (w-1's and w-3's).
  EXPECT_EQ(f->evidence.size(), 2u);
}

TEST(CommTraceRules, SlowLinkNeedsAnOutlier) {
  {
    // A uniform fabric: the slowest pair is 10% over the others.
    test::TempDir tmp;
    TraceIndex ix(tmp);
    Fabric(ix, {});
    const auto index = ix.Open();
    EXPECT_EQ(Code(RunComm(*index), "comm.slow_link"), nullptr);
  }
  {
    // 2.5x is under the ratio of 3, however tight the others are.
    test::TempDir tmp;
    TraceIndex ix(tmp);
    const int64_t f = ix.Trace("a");
    for (int i = 0; i < 8; ++i) ix.Link(f, "a", "p" + std::to_string(i), 100, i == 0 ? 1000 : 400);
    ix.Mark(f, tc::kMarkLinkSlowest, 5, "x", 1, 1, "a -> p0");
    const auto index = ix.Open();
    EXPECT_EQ(Code(RunComm(*index), "comm.slow_link"), nullptr);
  }
  {
    // Too few transfers on the slow pair, and too few pairs.
    test::TempDir tmp;
    TraceIndex ix(tmp);
    const int64_t f = ix.Trace("a");
    ix.Link(f, "a", "p0", 5, 9000);
    for (int i = 1; i < 4; ++i) ix.Link(f, "a", "p" + std::to_string(i), 100, 400);
    ix.Mark(f, tc::kMarkLinkSlowest, 5, "x", 1, 1, "a -> p0");
    const auto index = ix.Open();
    EXPECT_EQ(Code(RunComm(*index), "comm.slow_link"), nullptr);
  }
}

TEST(CommTraceText, EventNameIsTheEventsOwn) {
  EXPECT_EQ(comm::EventName(TraceIndex::Event("all-reduce-done.3", 1, 2)), "all-reduce-done.3");
  // args sorted before name (TSL), holding a "name" of their own.
  EXPECT_EQ(comm::EventName(R"({"args":{"name":"inner"},"name":"recv-done.1","ph":"X"})"),
            "recv-done.1");
  // A value "name" is not the key.
  EXPECT_EQ(comm::EventName(R"({"cat":"name","name":"MapDmaBuffer"})"), "MapDmaBuffer");
  EXPECT_EQ(comm::EventName(R"({"name" : "a \"quoted\" op"})"), "a \"quoted\" op");
  EXPECT_EQ(comm::EventName(R"({"ph":"X","ts":1})"), "");
  // A text cut at 512 bytes inside the name.
  EXPECT_EQ(comm::EventName("{\"ph\":\"X\",\"name\":\"all-reduce-do"), "all-reduce-do");
}

TEST(CommTraceText, HostCountCountsHostsNotTraces) {
  EXPECT_EQ(comm::HostCount({"w-0"}), "1 host");
  EXPECT_EQ(comm::HostCount({"w-0", "w-1"}), "2 hosts");
  // torch.profiler: one trace per rank, four ranks per host.
  EXPECT_EQ(comm::HostCount({"a", "a", "a", "a", "b", "b", "b", "b"}), "2 hosts (8 traces)");
}

TEST(CommTraceText, Numbers) {
  EXPECT_EQ(comm::Micros(3.5), "3.5 us");
  EXPECT_EQ(comm::Micros(850), "850 us");
  EXPECT_EQ(comm::Micros(12345), "12.3 ms");
  EXPECT_EQ(comm::Micros(200000), "200 ms");
  EXPECT_EQ(comm::Micros(1200000), "1.20 s");
  EXPECT_EQ(comm::Percent(0.375), "38%");
  EXPECT_EQ(comm::Percent(0.025), "2.5%");
  EXPECT_EQ(comm::Bytes(17179869184.0), "16 GiB");
  EXPECT_EQ(comm::Bytes(212992), "208 KiB");
  EXPECT_EQ(comm::Bytes(6291456), "6 MiB");
  EXPECT_EQ(comm::Bytes(1536), "1.5 KiB");
  EXPECT_EQ(comm::Bytes(512), "512 bytes");
}

}  // namespace
}  // namespace casefile
