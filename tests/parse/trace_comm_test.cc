// CommTraceAggregator: hand-written TSL (formats.md 2.1) and Kineto (2.2)
// traces go through the TraceReader into the aggregator; the expected
// values follow from the event times written here and the rules of
// comm_trace.h (steady state after the second step, slack = done start -
// start end, memory copies inside receives on the same pid, ...).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "parse/trace/comm_trace.h"
#include "parse/trace/comm_trace_keys.h"
#include "parse/trace/comm_trace_limits.h"
#include "parse/trace/trace_reader.h"

namespace casefile::trace_comm {
namespace {

struct Out {
  std::map<std::string, TraceStatRow> stats;
  std::vector<NetLinkRow> links;
  std::vector<NetSizeRow> sizes;
  std::vector<NetTimelineRow> timeline;
  std::vector<TraceMarkRow> marks;

  bool Has(const std::string& key) const { return stats.count(key) > 0; }
  double V(const std::string& key) const {
    auto it = stats.find(key);
    EXPECT_NE(it, stats.end()) << key;
    return it == stats.end() ? -1 : it->second.value;
  }
  std::string D(const std::string& key) const {
    auto it = stats.find(key);
    return it == stats.end() ? "<absent>" : it->second.detail;
  }
  std::vector<TraceMarkRow> Marks(const std::string& kind) const {
    std::vector<TraceMarkRow> out;
    for (const auto& m : marks) {
      if (m.kind == kind) out.push_back(m);
    }
    return out;
  }
};

// Feeds the whole text, or cut in `chunk`-byte pieces.
Out Aggregate(const std::string& text, size_t chunk = 0, std::optional<int64_t> rank = std::nullopt,
              std::optional<std::string> nccl = std::nullopt) {
  CommTraceAggregator agg(7);
  TraceReader reader(1 << 20, {[&](TraceEventRow&& row) {
                                 row.file_id = 7;
                                 agg.Add(row);
                               },
                               nullptr});
  if (chunk == 0) {
    reader.Feed(text);
  } else {
    for (size_t i = 0; i < text.size(); i += chunk) reader.Feed(text.substr(i, chunk));
  }
  reader.Finish();
  if (rank || nccl) agg.SetDistributedInfo(rank, nccl);
  Out out;
  agg.Finish({[&](const TraceStatRow& r) {
                EXPECT_EQ(r.file_id, 7);
                EXPECT_EQ(out.stats.count(r.key), 0u) << "key twice: " << r.key;
                out.stats[r.key] = r;
              },
              [&](const NetLinkRow& r) { out.links.push_back(r); },
              [&](const NetSizeRow& r) { out.sizes.push_back(r); },
              [&](const NetTimelineRow& r) { out.timeline.push_back(r); },
              [&](const TraceMarkRow& r) {
                EXPECT_EQ(r.file_id, 7);
                out.marks.push_back(r);
              }});
  return out;
}

// A TSL document: one line, as TSL writes it, or one event per line.
std::string Tsl(const std::vector<std::string>& events, bool per_line = false) {
  std::string s = R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[)";
  if (per_line) s += "\n";
  for (const auto& e : events) s += e + (per_line ? ",\n" : ",");
  s += "{}]}";
  return s;
}

std::string X(int pid, int tid, double ts, double dur, const std::string& name,
              const std::string& args = "{}") {
  char buf[160];
  std::snprintf(buf, sizeof buf, R"({"ph":"X","pid":%d,"tid":%d,"ts":%.6g,"dur":%.6g,"name":")",
                pid, tid, ts, dur);
  return buf + name + R"(","args":)" + args + "}";
}

std::string Thread(int pid, int tid, const std::string& name) {
  return R"({"ph":"M","pid":)" + std::to_string(pid) + R"(,"tid":)" + std::to_string(tid) +
         R"(,"name":"thread_name","args":{"name":")" + name + R"("}})";
}
std::string Process(int pid, const std::string& name) {
  return R"({"ph":"M","pid":)" + std::to_string(pid) +
         R"(,"name":"process_name","args":{"name":")" + name + R"("}})";
}

// Device plane 1 with Steps (tid 1) and XLA Ops (tid 3); host plane 9 with
// the transport (tid 1), RPC (tid 2) and DMA (tid 3) threads.
std::vector<std::string> Planes() {
  return {Process(1, "/device:TPU:0"),
          Thread(1, 1, "Steps"),
          Thread(1, 3, "XLA Ops"),
          Process(9, "/host:CPU"),
          Thread(9, 1, "Megascale: Communication Transport"),
          Thread(9, 2, "Megascale: RPC"),
          Thread(9, 3, "Megascale: DMA")};
}

// Four steps of 1000 µs from t=0: the steady state starts at 2000.
std::vector<std::string> FourSteps() {
  return {X(1, 1, 0, 1000, "100"), X(1, 1, 1000, 1000, "101"), X(1, 1, 2000, 1000, "102"),
          X(1, 1, 3000, 1000, "103")};
}

std::vector<std::string> Join(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(CommTrace, NoCommunicationGivesOnlySourceAndEvents) {
  Out o = Aggregate(Tsl(Join(Planes(), Join(FourSteps(), {X(1, 3, 10, 5, "fusion.1")}))));
  EXPECT_EQ(o.D(kSource), "xprof");
  EXPECT_EQ(o.V(kEvents), 5);
  EXPECT_EQ(o.stats.size(), 2u);
  EXPECT_TRUE(o.links.empty());
  EXPECT_TRUE(o.timeline.empty());
  EXPECT_TRUE(o.marks.empty());
}

TEST(CommTrace, SteadyStateStartsAfterTheSecondStepWhateverTheOrder) {
  // MapDmaBuffer: two during warm-up, two after the end of step 101 (2000).
  std::vector<std::string> dma = {
      X(9, 3, 5, 100, "MapDmaBuffer"), X(9, 3, 1500, 100, "MapDmaBuffer"),
      X(9, 3, 2500, 100, "MapDmaBuffer"), X(9, 3, 3600, 100, "MapDmaBuffer")};
  // The DMA thread is written before the Steps thread (TSL writes line by
  // line): the steady start is only known at the end.
  Out o = Aggregate(Tsl(Join(Planes(), Join(dma, FourSteps()))));
  EXPECT_EQ(o.V(kSteps), 4);
  EXPECT_EQ(o.V(kSteadyStartUs), 2000);
  EXPECT_EQ(o.D(kSteadyStartUs), "steps");
  EXPECT_EQ(o.V(kSpanUs), 4000);
  EXPECT_EQ(o.V(kSteadySpanUs), 2000);
  EXPECT_EQ(o.V(kMapDmaTotal), 4);
  EXPECT_EQ(o.V(kMapDmaSteady), 2);
  EXPECT_EQ(o.D(kMapDmaSteady), "9");
  auto marks = o.Marks(kMarkMapDmaSteady);
  ASSERT_EQ(marks.size(), 2u);
  EXPECT_EQ(marks[0].ts_us, 2500);
  EXPECT_EQ(marks[0].text, X(9, 3, 2500, 100, "MapDmaBuffer"));
  EXPECT_EQ(marks[1].ts_us, 3600);
  auto start = o.Marks(kMarkSteadyStart);
  ASSERT_EQ(start.size(), 1u);
  EXPECT_EQ(start[0].text, X(1, 1, 2000, 1000, "102"));
}

TEST(CommTrace, MarksCarryLineAndOffsetOfTheirObject) {
  const std::string call = X(9, 3, 2500, 100, "MapDmaBuffer");
  for (bool per_line : {false, true}) {
    const std::string text = Tsl(Join(Planes(), Join(FourSteps(), {call})), per_line);
    for (size_t chunk : {size_t{0}, size_t{1}, size_t{7}}) {
      Out o = Aggregate(text, chunk);
      auto marks = o.Marks(kMarkMapDmaSteady);
      ASSERT_EQ(marks.size(), 1u);
      EXPECT_EQ(marks[0].offset, static_cast<int64_t>(text.find(call)));
      // Per line: line 1 is the header, then planes (7) and steps (4).
      EXPECT_EQ(marks[0].line_no, per_line ? 13 : 1);
      EXPECT_EQ(marks[0].pid, "9");
      EXPECT_EQ(marks[0].dur_us, 100);
    }
  }
}

TEST(CommTrace, WithoutThreeStepsTheSteadyStateIsAfterATenthOfTheSpan) {
  Out o = Aggregate(Tsl(Join(
      Planes(), {X(1, 1, 0, 1000, "1"), X(1, 1, 1000, 1000, "2"), X(9, 3, 150, 10, "MapDmaBuffer"),
                 X(9, 3, 250, 10, "MapDmaBuffer"), X(9, 3, 9000, 1000, "fusion.1")})));
  EXPECT_EQ(o.V(kSteps), 2);
  EXPECT_EQ(o.D(kSteadyStartUs), "span");
  EXPECT_EQ(o.V(kSteadyStartUs), 1000);  // 0 + 0.1 * 10000
  EXPECT_EQ(o.V(kMapDmaSteady), 0);
  EXPECT_TRUE(o.Marks(kMarkSteadyStart).empty());
}

TEST(CommTrace, SlackIsDoneStartMinusStartEnd) {
  std::vector<std::string> ops = {
      // Warm-up pair: not counted.
      X(1, 3, 100, 2, "all-reduce-start.1"), X(1, 3, 103, 50, "all-reduce-done.1"),
      // Steady: slack 0.5 (low), 138, 5 (low, send/recv), 900.
      X(1, 3, 2100, 2, "all-reduce-start.1"), X(1, 3, 2102.5, 300, "all-reduce-done.1"),
      X(1, 3, 2500, 2, "all-gather-start.2"), X(1, 3, 2640, 3, "all-gather-done.2"),
      X(1, 3, 2700, 1, "send.5"), X(1, 3, 2706, 1, "send-done.5"),
      X(1, 3, 2800, 4, "collective-permute-start"), X(1, 3, 3704, 4, "collective-permute-done"),
      // A local async copy is no collective.
      X(1, 3, 3800, 1, "copy-start.3"), X(1, 3, 3801, 1, "copy-done.3")};
  Out o = Aggregate(Tsl(Join(Planes(), Join(FourSteps(), ops))));
  EXPECT_EQ(o.V(kCollectives), 4);
  EXPECT_EQ(o.V(kLowSlack), 2);
  // Slacks 0.5, 5, 138, 900: the nearest-rank median is the 2nd, 5 (within
  // the histogram's 6.25%).
  EXPECT_NEAR(o.V(kSlackP50Us), 5, 5 * 0.0625);
  auto marks = o.Marks(kMarkLowSlack);
  ASSERT_EQ(marks.size(), 2u);
  EXPECT_EQ(marks[0].text, X(1, 3, 2102.5, 300, "all-reduce-done.1"));
  EXPECT_NE(marks[0].detail.find("slack 0.500 us"), std::string::npos) << marks[0].detail;
  EXPECT_EQ(marks[1].text, X(1, 3, 2706, 1, "send-done.5"));
}

TEST(CommTrace, DoneWrittenBeforeItsStartStillPairs) {
  // The dones sit on an "Async XLA Ops" thread written before the starts.
  std::vector<std::string> ops = {
      X(1, 4, 2102, 300, "all-reduce-done.7"), X(1, 4, 2600, 5, "all-reduce-done.7"),
      X(1, 3, 2100, 1, "all-reduce-start.7"), X(1, 3, 2400, 1, "all-reduce-start.7")};
  Out o = Aggregate(Tsl(Join(Planes(), Join(ops, FourSteps()))));
  EXPECT_EQ(o.V(kCollectives), 2);
  EXPECT_EQ(o.V(kLowSlack), 1);  // 2102 - 2101 = 1; 2600 - 2401 = 199
  auto marks = o.Marks(kMarkLowSlack);
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0].text, X(1, 4, 2102, 300, "all-reduce-done.7"));
}

TEST(CommTrace, PairsDoNotCrossProcesses) {
  std::vector<std::string> ops = {X(1, 3, 2100, 1, "all-reduce-start.1"),
                                  X(2, 3, 2102, 1, "all-reduce-done.1")};
  Out o = Aggregate(Tsl(Join(Planes(), Join(FourSteps(), ops))));
  EXPECT_EQ(o.V(kCollectives), 0);
}

TEST(CommTrace, RecvDoneWaitsInTheSteadyState) {
  std::vector<std::string> ops = {
      X(1, 3, 500, 1000, "recv-done.6"),  // warm-up: not counted
      X(1, 3, 2100, 100, "recv-done.6"), X(1, 3, 2300, 200, "recv-done.6"),
      X(1, 3, 2600, 300, "recv-done.6"), X(1, 3, 3000, 10, "send-done.5")};
  Out o = Aggregate(Tsl(Join(Planes(), Join(FourSteps(), ops))));
  EXPECT_EQ(o.V(kRecvDoneCount), 3);
  EXPECT_EQ(o.V(kRecvDoneUs), 600);
  EXPECT_EQ(o.V(kRecvDoneMaxUs), 300);
  EXPECT_NEAR(o.V(kRecvDoneP50Us), 200, 200 * 0.0625);
  EXPECT_NEAR(o.V(kRecvDoneP90Us), 300, 300 * 0.0625);
  // 600 µs of waiting in 2000 µs of steady state.
  EXPECT_DOUBLE_EQ(o.V(kRecvDoneShare), 0.3);
  auto marks = o.Marks(kMarkRecvDoneLong);
  ASSERT_EQ(marks.size(), 3u);
  EXPECT_EQ(marks[2].dur_us, 300);
}

// The first steps wait longest (compilation, warm-up): 100 warm-up waits
// of 50-149 µs, more than any pool of the longest overall holds, and all
// longer than every steady one. The stored marks are still the 16 longest
// of the steady state, whether the warm-up thread is written before or
// after the steady one (threads are not sorted against each other).
TEST(CommTrace, LongestSteadyWaitsAreKeptWhenWarmUpWaitsAreLonger) {
  std::vector<std::string> warmup;
  for (int j = 0; j < 100; ++j) warmup.push_back(X(1, 4, 10 + 19 * j, 50 + j, "recv-done.6"));
  // 48 steady waits every 40 µs from 2005: 20 µs, except every third one
  // (i = 0, 3, ..., 45: sixteen) which waits 30 + i µs.
  std::vector<std::string> steady;
  for (int i = 0; i < 48; ++i) {
    steady.push_back(X(1, 3, 2005 + 40 * i, i % 3 == 0 ? 30 + i : 20, "recv-done.6"));
  }
  for (bool warmup_first : {false, true}) {
    SCOPED_TRACE(warmup_first ? "warm-up thread first" : "steady thread first");
    auto ops = warmup_first ? Join(warmup, steady) : Join(steady, warmup);
    Out o = Aggregate(Tsl(Join(Planes(), Join(FourSteps(), ops)), /*per_line=*/true));
    EXPECT_EQ(o.V(kRecvDoneCount), 48);
    auto marks = o.Marks(kMarkRecvDoneLong);
    ASSERT_EQ(marks.size(), kMarksPerKind);
    for (size_t k = 0; k < marks.size(); ++k) {
      EXPECT_EQ(marks[k].ts_us, 2005 + 120 * static_cast<double>(k)) << k;
      EXPECT_EQ(marks[k].dur_us, 30 + 3 * static_cast<double>(k)) << k;
    }
  }
}

TEST(CommTrace, MemoryCopiesCountOnlyInsideAReceiveOfTheSameProcess) {
  std::vector<std::string> ev = {
      // Copies first (written before the receives they overlap).
      X(9, 1, 2150, 20, "Megascale: Memory Copy"),  // inside the receive below
      X(9, 1, 2900, 20, "Megascale: Memory Copy"),  // no receive then
      X(8, 1, 2150, 20, "Megascale: Memory Copy"),  // another process
      X(9, 1, 2100, 200, "Megascale: Transfer Receive",
        R"({"bytes":"4096","dst":"w-0","src":"w-1"})"),
      X(9, 1, 2850, 10, "Megascale: Transfer Send", R"({"bytes":"4096","dst":"w-1","src":"w-0"})")};
  Out o = Aggregate(Tsl(Join(Planes(), Join(ev, FourSteps()))));
  EXPECT_EQ(o.V(kMemoryCopyTotal), 3);
  EXPECT_EQ(o.V(kMemoryCopyInRecv), 1);
  auto marks = o.Marks(kMarkMemoryCopy);
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0].text, X(9, 1, 2150, 20, "Megascale: Memory Copy"));
}

TEST(CommTrace, HealthyXprofTraceReportsZeroCopiesAndSteadyMaps) {
  Out o = Aggregate(Tsl(Join(Planes(), Join(FourSteps(), {X(9, 3, 10, 100, "MapDmaBuffer")}))));
  EXPECT_EQ(o.V(kMapDmaTotal), 1);
  EXPECT_EQ(o.V(kMapDmaSteady), 0);
  EXPECT_EQ(o.V(kMemoryCopyTotal), 0);
  EXPECT_EQ(o.V(kMemoryCopyInRecv), 0);
}

TEST(CommTrace, TransfersPerLinkWithSizesAndSlowest) {
  std::vector<std::string> ev;
  // a->b: 4 transfers of 1 MiB, 100 µs each but one of 900 µs; b->a: one
  // small 100-byte transfer (numeric args as other writers put them).
  for (int i = 0; i < 4; ++i) {
    ev.push_back(X(9, 1, 2000 + 300 * i, i == 2 ? 900 : 100, "Megascale: Transfer Send",
                   R"({"bytes":"1048576","dst":"b","src":"a"})"));
  }
  ev.push_back(X(9, 1, 3500, 20, "xfer", R"({"from": 3, "size": 100, "to": "a"})"));
  Out o = Aggregate(Tsl(Join(Planes(), Join(FourSteps(), ev))));
  EXPECT_EQ(o.V(kTransfers), 5);
  EXPECT_EQ(o.V(kTransferBytes), 4 * 1048576.0 + 100);
  ASSERT_EQ(o.links.size(), 2u);
  EXPECT_EQ(o.links[0].src, "3");
  EXPECT_EQ(o.links[0].dst, "a");
  EXPECT_EQ(o.links[1].src, "a");
  EXPECT_EQ(o.links[1].dst, "b");
  EXPECT_EQ(o.links[1].transfers, 4);
  EXPECT_EQ(o.links[1].lat_max_us, 900);
  EXPECT_EQ(o.links[1].lat_mean_us, 300);
  EXPECT_NEAR(o.links[1].lat_p50_us, 100, 100 * 0.0625);
  // Size buckets: 100 in [64, 256); 1 MiB = 4^10 in [4^10, 4^11).
  ASSERT_EQ(o.sizes.size(), 2u);
  EXPECT_EQ(o.sizes[0].lo_bytes, 64);
  EXPECT_EQ(o.sizes[0].hi_bytes, 256);
  EXPECT_EQ(o.sizes[0].transfers, 1);
  EXPECT_EQ(o.sizes[1].lo_bytes, 1048576);
  EXPECT_EQ(o.sizes[1].hi_bytes, 4194304);
  EXPECT_EQ(o.sizes[1].bytes, 4 * 1048576.0);
  auto slow = o.Marks(kMarkLinkSlowest);
  ASSERT_EQ(slow.size(), 2u);
  EXPECT_EQ(slow[1].detail, "a -> b");
  EXPECT_EQ(slow[1].dur_us, 900);
  // Timeline: at most 256 rows, covering the span, holding every transfer.
  ASSERT_FALSE(o.timeline.empty());
  EXPECT_LE(o.timeline.size(), kTimelineRows);
  EXPECT_EQ(o.timeline.front().t0_us, 0);
  EXPECT_EQ(o.timeline.back().t1_us, 4000);
  int64_t n = 0;
  double bytes = 0, busy = 0;
  for (const auto& r : o.timeline) {
    n += r.transfers;
    bytes += r.bytes;
    busy += r.busy_us;
  }
  EXPECT_EQ(n, 5);
  EXPECT_EQ(bytes, 4 * 1048576.0 + 100);
  // Union: 2000-2100, 2300-2400, 2600-3520 (2900-3000 inside the slow one,
  // 3500-3520 touching it).
  EXPECT_NEAR(busy, 100 + 100 + 920, 1e-6);
}

TEST(CommTrace, ArgsThatAreNotEndpointsAreNoTransfer) {
  std::vector<std::string> ev = {
      X(9, 1, 2000, 10, "a", R"({"long_name":"src dst bytes","dst":"b"})"),
      X(9, 1, 2100, 10, "b", R"({"meta":{"src":"a","dst":"b"}})"),
      X(9, 1, 2200, 10, "Megascale: RPC SendTensor", R"({"method":"SendTensor","target":"b:1"})")};
  Out o = Aggregate(Tsl(Join(Planes(), Join(FourSteps(), ev))));
  EXPECT_FALSE(o.Has(kTransfers));
  EXPECT_EQ(o.V(kRpcCount), 1);
}

TEST(CommTrace, RegularRpcSpikesHaveAPeriod) {
  std::vector<std::string> ev;
  // 40 RPCs of ~300 µs, and four 200 ms spikes every 1 s.
  for (int i = 0; i < 40; ++i) {
    ev.push_back(X(9, 2, 100.0 * i, 290 + i % 3 * 10, "Megascale: RPC SendTensor"));
  }
  for (int i = 0; i < 4; ++i) {
    ev.push_back(X(9, 2, 500000 + 1e6 * i, 200000, "Megascale: RPC ReadyToSend"));
  }
  Out o = Aggregate(Tsl(Join(Planes(), ev)));
  EXPECT_EQ(o.V(kRpcCount), 44);
  EXPECT_NEAR(o.V(kRpcP50Us), 300, 300 * 0.0625);
  EXPECT_EQ(o.V(kRpcSpikes), 4);
  EXPECT_DOUBLE_EQ(o.V(kRpcSpikePeriodUs), 1e6);
  EXPECT_EQ(o.Marks(kMarkRpcSpike).size(), 4u);
}

TEST(CommTrace, IrregularOrSmallSpikesHaveNoPeriod) {
  std::vector<std::string> ev;
  for (int i = 0; i < 40; ++i) ev.push_back(X(9, 2, 100.0 * i, 300, "grpc.Call"));
  // Spikes at 0.5 s, 0.7 s, 3 s, 3.1 s: intervals vary far beyond 25%.
  for (double t : {5e5, 7e5, 3e6, 3.1e6}) ev.push_back(X(9, 2, t, 200000, "grpc.Call"));
  // 40 ms: over 10x the median but under the 50 ms floor: no spike.
  ev.push_back(X(9, 2, 4e6, 40000, "grpc.Call"));
  Out o = Aggregate(Tsl(Join(Planes(), ev)));
  EXPECT_EQ(o.V(kRpcSpikes), 4);
  EXPECT_FALSE(o.Has(kRpcSpikePeriodUs));
}

TEST(CommTrace, ConcurrentSpikesCountOnceForThePeriod) {
  std::vector<std::string> ev;
  for (int i = 0; i < 40; ++i) ev.push_back(X(9, 2, 100.0 * i, 300, "Megascale: RPC Barrier"));
  // Three moments 1 s apart, each stalling two RPCs at once.
  for (int i = 0; i < 3; ++i) {
    ev.push_back(X(9, 2, 1e6 * (i + 1), 200000, "Megascale: RPC Barrier"));
    ev.push_back(X(9, 2, 1e6 * (i + 1) + 50, 199000, "Megascale: RPC SendTensor"));
  }
  Out o = Aggregate(Tsl(Join(Planes(), ev)));
  EXPECT_EQ(o.V(kRpcSpikes), 6);
  EXPECT_DOUBLE_EQ(o.V(kRpcSpikePeriodUs), 1e6);
}

TEST(CommTrace, MarksAreCappedPerKind) {
  std::vector<std::string> ev;
  for (int i = 0; i < 200; ++i) ev.push_back(X(9, 3, 2000 + 9 * i, 5, "MapDmaBuffer"));
  Out o = Aggregate(Tsl(Join(Planes(), Join(FourSteps(), ev))));
  EXPECT_EQ(o.V(kMapDmaSteady), 200);
  EXPECT_EQ(o.Marks(kMarkMapDmaSteady).size(), kMarksPerKind);
}

TEST(CommTrace, CommBusyIsTheUnionOfCommunication) {
  // Two overlapping transfers (2000-2400, 2200-2600) and a recv-done
  // (3000-3100): 700 µs busy in a 2000 µs steady state.
  std::vector<std::string> ev = {X(9, 1, 2000, 400, "t", R"({"dst":"b","src":"a"})"),
                                 X(9, 1, 2200, 400, "t", R"({"dst":"b","src":"a"})"),
                                 X(1, 3, 3000, 100, "recv-done.1")};
  Out o = Aggregate(Tsl(Join(Planes(), Join(FourSteps(), ev))));
  EXPECT_DOUBLE_EQ(o.V(kCommBusyUs), 700);
  EXPECT_DOUBLE_EQ(o.V(kCommShare), 0.35);
}

TEST(CommTrace, BeginEndPairsGetAComposedText) {
  std::vector<std::string> ev = {R"({"ph":"B","pid":9,"tid":3,"ts":2500,"name":"MapDmaBuffer"})",
                                 R"({"ph":"E","pid":9,"tid":3,"ts":2600})"};
  Out o = Aggregate(Tsl(Join(Planes(), Join(FourSteps(), ev))));
  auto marks = o.Marks(kMarkMapDmaSteady);
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0].text,
            R"({"name":"MapDmaBuffer","ph":"X","ts":2500,"dur":100,"pid":"9","tid":"3",)"
            R"("composed_from":"B/E"})");
}

TEST(CommTrace, MarkTextIsCutAtTheLimit) {
  const std::string long_arg(2000, 'x');
  const std::string call =
      X(9, 3, 2500, 100, "MapDmaBuffer", R"({"long_name":")" + long_arg + "\"}");
  Out o = Aggregate(Tsl(Join(Planes(), Join(FourSteps(), {call}))));
  auto marks = o.Marks(kMarkMapDmaSteady);
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0].text, call.substr(0, kTraceMarkTextBytes));
}

TEST(CommTrace, KinetoNcclKernelsAndDistributedInfo) {
  // Kineto: ProfilerStep#N annotations on the CPU thread, kernels on the GPU
  // stream; steps of 1000 µs, the steady state from 2000. Steady NCCL:
  // 2100-2300 and 2200-2400 (overlapping, union 300) and 3500-3600.
  auto k = [](const std::string& cat, const std::string& name, int pid, int tid, double ts,
              double dur) {
    char buf[96];
    std::snprintf(buf, sizeof buf, R"(", "pid": %d, "tid": %d, "ts": %.3f, "dur": %.3f)", pid, tid,
                  ts, dur);
    return R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name + buf + R"(, "args": {}})";
  };
  std::string text = R"({"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": [)";
  std::vector<std::string> ev;
  for (int i = 0; i < 4; ++i) {
    ev.push_back(
        k("user_annotation", "ProfilerStep#" + std::to_string(i), 100, 100, 1000.0 * i, 1000));
  }
  ev.push_back(k("kernel",
                 "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 0, 20,
                 500, 100));
  ev.push_back(k("kernel",
                 "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 0, 20,
                 2100, 200));
  ev.push_back(
      k("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 0, 21, 2200, 200));
  ev.push_back(
      k("kernel", "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", 0, 20, 3500, 100));
  ev.push_back(k("kernel", "my_ncclKernel_lookalike", 0, 7, 3700, 100));
  for (size_t i = 0; i < ev.size(); ++i) text += (i ? ",\n  " : "\n  ") + ev[i];
  text += R"(], "distributedInfo": {"backend": "nccl", "rank": 3, "nccl_version": "2.21.5"}})";
  Out o = Aggregate(text, 0, 3, "2.21.5");
  EXPECT_EQ(o.D(kSource), "kineto");
  EXPECT_EQ(o.V(kSteps), 4);
  EXPECT_EQ(o.V(kSteadyStartUs), 2000);
  EXPECT_EQ(o.V(kNcclKernels), 3);
  EXPECT_EQ(o.V(kNcclKernelUs), 500);
  EXPECT_DOUBLE_EQ(o.V(kNcclKernelShare), 400.0 / 2000.0);
  EXPECT_EQ(o.V(kRank), 3);
  EXPECT_EQ(o.D(kNcclVersion), "2.21.5");
  EXPECT_FALSE(o.Has(kMapDmaTotal));  // XProf-only families stay absent
}

TEST(CommTrace, SameResultsWhenFedInPieces) {
  std::vector<std::string> ev = {X(9, 3, 2500, 100, "MapDmaBuffer"),
                                 X(1, 3, 2100, 2, "all-reduce-start.1"),
                                 X(1, 3, 2103, 30, "all-reduce-done.1"),
                                 X(9, 1, 2000, 50, "t", R"({"bytes":"10","dst":"b","src":"a"})")};
  const std::string text = Tsl(Join(Planes(), Join(FourSteps(), ev)), true);
  Out whole = Aggregate(text);
  Out bytes = Aggregate(text, 1);
  ASSERT_EQ(whole.stats.size(), bytes.stats.size());
  for (const auto& [key, row] : whole.stats) {
    EXPECT_EQ(row.value, bytes.V(key)) << key;
    EXPECT_EQ(row.detail, bytes.D(key)) << key;
  }
  ASSERT_EQ(whole.marks.size(), bytes.marks.size());
  for (size_t i = 0; i < whole.marks.size(); ++i) {
    EXPECT_EQ(whole.marks[i].text, bytes.marks[i].text);
    EXPECT_EQ(whole.marks[i].line_no, bytes.marks[i].line_no);
    EXPECT_EQ(whole.marks[i].offset, bytes.marks[i].offset);
  }
}

}  // namespace
}  // namespace casefile::trace_comm

namespace casefile::trace_comm {
namespace {

// Review findings: "inf"/"nan" in times, durations or sizes once hung the
// timeline (a bin width doubled to infinity), wrote a histogram bucket out
// of range, or stored NaN into a NOT NULL column. Such events are invalid
// (times) or their size is ignored; every statistic stays finite.
TEST(CommTrace, NonFiniteNumbersNeitherHangNorPoisonTheStatistics) {
  const std::string trace =
      R"({"traceEvents":[)"
      R"({"ph":"X","name":"RpcCall","pid":1,"tid":3,"ts":"inf","dur":5},)"
      R"({"ph":"X","name":"RpcCall","pid":1,"tid":3,"ts":100,"dur":"inf"},)"
      R"({"ph":"X","name":"RpcCall","pid":1,"tid":3,"ts":"nan","dur":5},)"
      R"({"ph":"X","name":"RpcCall","pid":1,"tid":3,"ts":120,"dur":"Infinity"},)"
      R"({"ph":"X","name":"Transfer","pid":1,"tid":3,"ts":100,"dur":5,)"
      R"("args":{"src":"node-0","dst":"node-1","bytes":"inf"}},)"
      R"({"ph":"X","name":"Transfer","pid":1,"tid":3,"ts":110,"dur":5,)"
      R"("args":{"src":"node-0","dst":"node-1","bytes":"nan"}},)"
      R"({"ph":"X","name":"RpcCall","pid":1,"tid":3,"ts":130,"dur":7}]})";
  const Out o = Aggregate(trace);
  for (const auto& [key, row] : o.stats) EXPECT_TRUE(std::isfinite(row.value)) << key;
  EXPECT_EQ(o.V(kRpcCount), 1);   // only the RPC with a finite time and duration
  EXPECT_EQ(o.V(kTransfers), 2);  // both transfers count, their sizes do not
  EXPECT_EQ(o.V(kTransferBytes), 0);
  ASSERT_EQ(o.links.size(), 1u);
  EXPECT_TRUE(std::isfinite(o.links[0].bytes));
  for (const auto& t : o.timeline) {
    EXPECT_TRUE(std::isfinite(t.t0_us) && std::isfinite(t.t1_us) && std::isfinite(t.bytes));
  }
}

}  // namespace
}  // namespace casefile::trace_comm
