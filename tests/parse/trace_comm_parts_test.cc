// The pieces of the comm aggregator: event-family classification by name
// (formats.md 2.4 and the Megascale names of the seed), transfer args, the
// streaming histogram, the doubling time cells and the bounded union.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "parse/trace/comm_event_family.h"
#include "parse/trace/comm_histogram.h"
#include "parse/trace/comm_interval_union.h"
#include "parse/trace/comm_marks.h"
#include "parse/trace/comm_time_bins.h"
#include "parse/trace/comm_trace_limits.h"

namespace casefile::trace_comm {
namespace {

TEST(CommFamily, AsyncOpNamesPairByOpAndSuffix) {
  struct Case {
    const char* name;
    const char* op;
    const char* suffix;
    bool start;
  };
  const Case cases[] = {
      {"all-reduce-start.3", "all-reduce", ".3", true},
      {"all-reduce-done.3", "all-reduce", ".3", false},
      {"all-gather-start", "all-gather", "", true},
      {"reduce-scatter-done.12", "reduce-scatter", ".12", false},
      {"collective-permute-start.1.2", "collective-permute", ".1.2", true},
      {"all-to-all-done.4", "all-to-all", ".4", false},
      {"async-start.7", "async", ".7", true},
      {"send.5", "send", ".5", true},
      {"send-done.5", "send", ".5", false},
      {"recv.6", "recv", ".6", true},
      {"recv-done.6", "recv", ".6", false},
      {"recv-done", "recv", "", false},
  };
  for (const Case& c : cases) {
    auto op = ParseAsyncOp(c.name);
    ASSERT_TRUE(op.has_value()) << c.name;
    EXPECT_EQ(op->op, c.op) << c.name;
    EXPECT_EQ(op->suffix, c.suffix) << c.name;
    EXPECT_EQ(op->start, c.start) << c.name;
  }
}

TEST(CommFamily, LookalikesAreNotAsyncCollectives) {
  for (const char* name :
       {"copy-start.2", "copy-done.2", "all-reduce.3", "fusion.3", "send-start.2", "recvfrom",
        "sender.1", "all-reduce-starter.1", "all-reduce-start.3.remat", "custom-call-start.1", "",
        "recv-done.6 ", "Recv-Done.6"}) {
    EXPECT_FALSE(ParseAsyncOp(name).has_value()) << name;
  }
}

TEST(CommFamily, NamesOfEachFamily) {
  EXPECT_TRUE(ClassifyEvent("MapDmaBuffer", "").map_dma);
  EXPECT_TRUE(ClassifyEvent("MegaScale: MapDmaBuffer", "").map_dma);
  EXPECT_TRUE(ClassifyEvent("Megascale: Memory Copy", "").memory_copy);
  EXPECT_FALSE(ClassifyEvent("MemoryCopy", "").memory_copy);
  EXPECT_TRUE(ClassifyEvent("HostToDevice START", "").receive);
  EXPECT_FALSE(ClassifyEvent("DeviceToHost START", "").receive);
  EXPECT_TRUE(ClassifyEvent("Megascale: Transfer Receive", "").receive);
  EXPECT_TRUE(ClassifyEvent("RecvTensor", "").receive);
  EXPECT_TRUE(ClassifyEvent("recv.6", "").receive);
  EXPECT_FALSE(ClassifyEvent("recv.6", "").recv_done);
  EXPECT_TRUE(ClassifyEvent("recv-done.6", "").recv_done);
  EXPECT_FALSE(ClassifyEvent("send-done.5", "").recv_done);
  EXPECT_TRUE(ClassifyEvent("Megascale: RPC SendTensor", "").rpc);
  EXPECT_TRUE(ClassifyEvent("RpcCall", "").rpc);
  EXPECT_TRUE(ClassifyEvent("grpc.server.Handle", "").rpc);
  EXPECT_FALSE(ClassifyEvent("rpcs", "").rpc);  // only the documented spellings
  EXPECT_TRUE(
      ClassifyEvent("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "")
          .nccl_kernel);
  EXPECT_TRUE(ClassifyEvent("ncclKernel_AllReduce_RING_LL_Sum_float", "").nccl_kernel);
  EXPECT_FALSE(ClassifyEvent("my_ncclKernel_x", "").nccl_kernel);
  EXPECT_FALSE(ClassifyEvent("nccl:all_reduce", "").nccl_kernel);
  EXPECT_TRUE(ClassifyEvent("1042", "Steps").step);
  EXPECT_FALSE(ClassifyEvent("1042", "XLA Ops").step);
  EXPECT_TRUE(ClassifyEvent("ProfilerStep#12", "").step);
  EXPECT_FALSE(ClassifyEvent("ProfilerStep", "").step);
  EXPECT_FALSE(ClassifyEvent("fusion.3", "XLA Ops").receive);
}

TEST(CommFamily, TransferArgsInEveryWritersForm) {
  // TSL: every value a string, keys sorted.
  TransferArgs t =
      ScanTransferArgs(R"({"bytes":"1048576","dst":"w-1","graph_key":"g","src":"w-0"})");
  EXPECT_EQ(t.src, "w-0");
  EXPECT_EQ(t.dst, "w-1");
  ASSERT_TRUE(t.bytes);
  EXPECT_EQ(*t.bytes, 1048576);
  // Numbers, spaces, other key spellings.
  t = ScanTransferArgs(R"({ "from" : 3 , "to" : 5, "size_bytes" : 2.5e3 })");
  EXPECT_EQ(t.src, "3");
  EXPECT_EQ(t.dst, "5");
  EXPECT_EQ(*t.bytes, 2500);
  t = ScanTransferArgs(R"({"source":"a","destination":"b","num_bytes":"x"})");
  EXPECT_TRUE(t.has_endpoints());
  EXPECT_FALSE(t.bytes);  // not a number
  t = ScanTransferArgs(R"({"src_host":"a","peer":"b","bytes_transferred":7})");
  EXPECT_EQ(t.dst, "b");
  EXPECT_EQ(*t.bytes, 7);
  t = ScanTransferArgs(R"({"src":"a\"q","dst_host":"b"})");
  EXPECT_EQ(t.src, R"(a\"q)");
}

TEST(CommFamily, ArgsThatOnlyLookLikeEndpoints) {
  // A key inside a value, nested objects, arrays, null.
  EXPECT_FALSE(ScanTransferArgs(R"({"long_name":"\"src\":\"a\"","dst":"b"})").has_endpoints());
  EXPECT_FALSE(ScanTransferArgs(R"({"meta":{"src":"a"},"dst":"b"})").has_endpoints());
  EXPECT_FALSE(ScanTransferArgs(R"({"list":["src","a"],"dst":"b"})").has_endpoints());
  EXPECT_FALSE(ScanTransferArgs(R"({"src":null,"dst":"b"})").has_endpoints());
  EXPECT_FALSE(ScanTransferArgs(R"({"src":"a")").has_endpoints());
  EXPECT_FALSE(ScanTransferArgs("{}").has_endpoints());
  EXPECT_FALSE(ScanTransferArgs("").has_endpoints());
  // After a nested object the top level goes on.
  EXPECT_TRUE(
      ScanTransferArgs(R"({"meta":{"x":[1,{"y":2}]},"src":"a","dst":"b"})").has_endpoints());
}

TEST(CommHistogram, QuantilesWithinTheBucketError) {
  LogHistogram h;
  for (int i = 1; i <= 1000; ++i) h.Add(i);
  EXPECT_EQ(h.count(), 1000u);
  EXPECT_EQ(h.min(), 1);
  EXPECT_EQ(h.max(), 1000);
  EXPECT_DOUBLE_EQ(h.mean(), 500.5);
  for (double q : {0.01, 0.1, 0.5, 0.9, 0.99}) {
    const double exact = std::ceil(q * 1000);
    EXPECT_NEAR(h.Quantile(q), exact, exact * 0.0625) << q;
  }
  EXPECT_EQ(h.Quantile(1.0), 1000);
  EXPECT_EQ(h.Quantile(0.0), 1);
}

TEST(CommHistogram, ExtremesAndMerge) {
  LogHistogram a, b;
  a.Add(0);
  a.Add(1e-9);  // under the range
  b.Add(3e20);  // over the range
  b.Add(250);
  a.Merge(b);
  EXPECT_EQ(a.count(), 4u);
  EXPECT_EQ(a.min(), 0);
  EXPECT_EQ(a.max(), 3e20);
  EXPECT_EQ(a.Quantile(1.0), 3e20);
  EXPECT_NEAR(a.Quantile(0.75), 250, 250 * 0.0625);
  EXPECT_EQ(a.CountAtLeast(1000), 1u);
  EXPECT_EQ(LogHistogram().Quantile(0.5), 0);
}

TEST(CommHistogram, SizeBucketsArePowersOfFour) {
  EXPECT_EQ(SizeBuckets::BucketOf(0), 0);
  EXPECT_EQ(SizeBuckets::BucketOf(0.5), 0);
  EXPECT_EQ(SizeBuckets::BucketOf(1), 1);
  EXPECT_EQ(SizeBuckets::BucketOf(3.99), 1);
  EXPECT_EQ(SizeBuckets::BucketOf(4), 2);
  EXPECT_EQ(SizeBuckets::BucketOf(15), 2);
  EXPECT_EQ(SizeBuckets::BucketOf(16), 3);
  for (int b = 0; b < SizeBuckets::kBuckets - 1; ++b) {
    EXPECT_EQ(SizeBuckets::HighOf(b), SizeBuckets::LowOf(b + 1));
    EXPECT_EQ(SizeBuckets::BucketOf(SizeBuckets::LowOf(b)), b);
  }
  EXPECT_EQ(SizeBuckets::LowOf(11), 1048576);  // 4^10
  EXPECT_EQ(SizeBuckets::BucketOf(1e30), SizeBuckets::kBuckets - 1);
}

struct Count {
  int n = 0;
  void Merge(const Count& o) { n += o.n; }
};

TEST(CommTimeBins, GrowsBothWaysKeepingEveryCount) {
  TimeBins<Count> bins(8, 1.0);
  bins.At(100).n += 1;
  bins.At(103.5).n += 1;
  bins.At(5000).n += 1;   // far right: cells merge
  bins.At(-7000).n += 1;  // far left
  bins.At(100).n += 1;
  int total = 0;
  for (size_t i = 0; i < bins.size(); ++i) total += bins.cell(i).n;
  EXPECT_EQ(total, 5);
  EXPECT_LE(bins.lo(), -7000);
  EXPECT_GT(bins.StartOf(bins.size() - 1) + bins.width(), 5000);
  // Each count sits in the cell covering its time.
  auto cell_of = [&](double t) { return static_cast<size_t>((t - bins.lo()) / bins.width()); };
  EXPECT_GE(bins.cell(cell_of(-7000)).n, 1);
  EXPECT_GE(bins.cell(cell_of(5000)).n, 1);
  EXPECT_GE(bins.cell(cell_of(100)).n, 3);
}

TEST(CommTimeBins, SlidesOverUnusedCellsBeforeMerging) {
  // The first time seen is not the earliest: a time a little before it
  // moves the cells instead of doubling their width.
  TimeBins<Count> bins(8, 1.0);
  bins.At(100).n += 1;
  bins.At(102).n += 1;
  bins.At(97.5).n += 1;
  EXPECT_EQ(bins.width(), 1.0);
  EXPECT_LE(bins.lo(), 97.5);
  bins.At(104.2).n += 1;  // still fits after the slide
  EXPECT_EQ(bins.width(), 1.0);
  int total = 0;
  for (size_t i = 0; i < bins.size(); ++i) total += bins.cell(i).n;
  EXPECT_EQ(total, 4);
  auto cell_of = [&](double t) { return static_cast<size_t>((t - bins.lo()) / bins.width()); };
  EXPECT_EQ(bins.cell(cell_of(100)).n, 1);
  EXPECT_EQ(bins.cell(cell_of(97.5)).n, 1);
  EXPECT_EQ(bins.cell(cell_of(104.2)).n, 1);
  // Past what sliding can reach: the width doubles, nothing is lost.
  bins.At(120).n += 1;
  EXPECT_EQ(bins.width(), 4.0);
  total = 0;
  for (size_t i = 0; i < bins.size(); ++i) total += bins.cell(i).n;
  EXPECT_EQ(total, 5);
}

TEST(CommTimeBins, SlidesRightWhenTheEarlyCellsAreUnused) {
  TimeBins<Count> bins(8, 1.0);
  bins.At(100).n += 1;
  bins.At(95).n += 1;   // slides: 95 is now in the range
  bins.At(107).n += 1;  // needs cells on the right: too far, merges
  int total = 0;
  for (size_t i = 0; i < bins.size(); ++i) total += bins.cell(i).n;
  EXPECT_EQ(total, 3);
  EXPECT_LE(bins.lo(), 95);
  EXPECT_GT(bins.StartOf(7) + bins.width(), 107);
}

// Counts the cells built and merged, to see what growth costs.
struct CountedCell {
  static inline int built = 0;
  static inline int merges = 0;
  int n = 0;
  CountedCell() { ++built; }
  void Merge(const CountedCell& o) {
    ++merges;
    n += o.n;
  }
};

TEST(CommTimeBins, CostsNothingUntilUsedAndLittleForAFarTime) {
  CountedCell::built = CountedCell::merges = 0;
  TimeBins<CountedCell> bins(1024, 1.0);
  // A trace with no event of this kind allocates no cells.
  EXPECT_EQ(CountedCell::built, 0);
  EXPECT_EQ(bins.size(), 1024u);
  EXPECT_FALSE(bins.started());
  bins.At(0).n += 1;
  // 1e300 us away: about 990 doublings each way. Merging every pair of
  // every doubling would be ~1e6 merges; only the used cells need one.
  bins.At(1e300).n += 1;
  bins.At(-1e300).n += 1;
  EXPECT_LT(CountedCell::merges, 20000);
  int total = 0;
  for (size_t i = 0; i < bins.size(); ++i) total += bins.cell(i).n;
  EXPECT_EQ(total, 3);
  EXPECT_LE(bins.lo(), -1e300);
  EXPECT_GT(bins.StartOf(bins.size() - 1) + bins.width(), 1e300);
}

TEST(CommTimeBins, GrowingKeepsCountsWhereverTheUsedCellsAre) {
  // Used cells at both ends, odd and even indexes, then growth both ways:
  // every count survives and sits in the cell covering its time.
  TimeBins<Count> bins(8, 1.0);
  const double times[] = {0, 1, 6.5, 7.9, 3};
  for (double t : times) bins.At(t).n += 1;
  bins.At(40).n += 1;    // right: width 8
  bins.At(-100).n += 1;  // left: width 16 and more
  bins.At(37).n += 1;
  int total = 0;
  for (size_t i = 0; i < bins.size(); ++i) total += bins.cell(i).n;
  EXPECT_EQ(total, 8);
  auto cell_of = [&](double t) { return static_cast<size_t>((t - bins.lo()) / bins.width()); };
  EXPECT_GE(bins.cell(cell_of(-100)).n, 1);
  EXPECT_GE(bins.cell(cell_of(40)).n, 2);
  int early = 0;
  for (size_t i = cell_of(0); i <= cell_of(7.9); ++i) early += bins.cell(i).n;
  EXPECT_EQ(early, 5);
}

MarkCandidate Candidate(double when, double score, int64_t offset) {
  MarkCandidate c;
  c.score = score;
  c.when = when;
  c.row.ts_us = when;
  c.row.offset = offset;
  return c;
}

// 300 early candidates all score above every late one; the late ones are
// at 10000 + 10 i (i < 40) scoring i % 8 * 100 + i, so the best 16 are
// i = 7, 15, 23, 31, 39 (score 7xx), then 6, 14, 22, 30, 38 (6xx), then
// 5, 13, 21, 29, 37 (5xx), then 36 (4xx, the highest i of the 4s).
TEST(CommMarks, SegmentedPoolKeepsTheBestAfterALateStart) {
  std::vector<MarkCandidate> early, late;
  for (int j = 0; j < 300; ++j) early.push_back(Candidate(3 * j, 5000 + j, 1000 + j));
  for (int i = 0; i < 40; ++i) late.push_back(Candidate(10000 + 10 * i, i % 8 * 100 + i, i));
  const std::vector<int> best = {5, 6, 7, 13, 14, 15, 21, 22, 23, 29, 30, 31, 36, 37, 38, 39};
  for (bool early_first : {true, false}) {
    SCOPED_TRACE(early_first ? "early first" : "late first");
    SegmentedMarkPool pool;
    auto add = [&](const std::vector<MarkCandidate>& v) {
      for (const MarkCandidate& c : v) {
        MarkPool& segment = pool.At(c.when);
        if (segment.WouldKeep(c.score, c.row.offset)) segment.Add(c);
      }
    };
    add(early_first ? early : late);
    add(early_first ? late : early);
    std::vector<MarkCandidate> got = pool.Take(10000, kMarksPerKind);
    ASSERT_EQ(got.size(), best.size());
    for (size_t k = 0; k < best.size(); ++k) EXPECT_EQ(got[k].when, 10000 + 10 * best[k]) << k;
  }
}

TEST(CommMarks, SegmentedPoolHasNothingAfterTheLastTime) {
  SegmentedMarkPool pool;
  pool.At(5).Add(Candidate(5, 1, 0));
  EXPECT_TRUE(pool.Take(6, kMarksPerKind).empty());
}

TEST(CommIntervalUnion, OverlapsCountOnce) {
  IntervalUnion u(16);
  u.Add(10, 20);
  u.Add(15, 30);
  u.Add(40, 50);
  u.Add(50, 55);  // touching
  u.Add(5, 5);    // empty
  EXPECT_DOUBLE_EQ(u.CoveredIn(0, 100), 35);
  EXPECT_DOUBLE_EQ(u.CoveredIn(25, 45), 10);
  EXPECT_TRUE(u.Overlaps(29, 39));
  EXPECT_FALSE(u.Overlaps(31, 39));
  EXPECT_EQ(u.Merged().size(), 2u);
  EXPECT_EQ(u.gap_joined_us(), 0);
}

TEST(CommIntervalUnion, OverTheCapTheTotalStaysExactForOneThread) {
  IntervalUnion u(64);
  // 10,000 disjoint intervals of 1 µs every 3 µs, in time order as one
  // thread writes them: 10,000 µs covered.
  for (int k = 0; k < 10000; ++k) u.Add(3.0 * k, 3.0 * k + 1);
  EXPECT_LE(u.Merged().size(), 32u);
  EXPECT_GT(u.gap_joined_us(), 0);
  EXPECT_NEAR(u.CoveredIn(0, 30000), 10000, 1e-6);
  // A window over half of the span gets about half (the even-spread estimate
  // errs by at most one piece's extent).
  EXPECT_NEAR(u.CoveredIn(0, 15000), 5000, 30000.0 / 32);
}

TEST(CommIntervalUnion, UnsortedIntervalsStayNearTheTotal) {
  // The same intervals in scrambled order: later ones land inside joined
  // pieces and their overlap is estimated as if independent, so the total
  // is approximate (within 20% here), never above the span.
  IntervalUnion u(64);
  for (int i = 0; i < 10000; ++i) {
    const int k = (i * 7919) % 10000;
    u.Add(3.0 * k, 3.0 * k + 1);
  }
  const double covered = u.CoveredIn(0, 30000);
  EXPECT_NEAR(covered, 10000, 2000);
}

TEST(CommIntervalUnion, OverlapWithJoinedPiecesIsEstimated) {
  IntervalUnion u(8);
  // Thread A: 1 µs of every 2 µs over [0, 200) -> joined, density 0.5.
  for (int i = 0; i < 100; ++i) u.Add(2.0 * i, 2.0 * i + 1);
  ASSERT_GT(u.gap_joined_us(), 0);
  // Thread B busy over the whole [0, 200): the union is all of it.
  u.Add(0, 200);
  EXPECT_NEAR(u.CoveredIn(0, 200), 200, 1e-6);
  // Over an empty stretch nothing is added.
  IntervalUnion v(8);
  for (int i = 0; i < 100; ++i) v.Add(2.0 * i, 2.0 * i + 1);
  v.Add(300, 310);
  EXPECT_NEAR(v.CoveredIn(0, 400), 110, 1e-6);
}

}  // namespace
}  // namespace casefile::trace_comm
