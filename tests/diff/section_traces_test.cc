// The traces section of the diff: trace_events rows and the comm statistics
// (trace_comm_stats, trace_marks) as ingest writes them for an XProf trace
// (planes /device:TPU:N with threads Steps, XLA Modules, XLA Ops) and a
// Kineto trace (kernel, cpu_op categories).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "diff/sections.h"
#include "sections_b_index.h"

namespace casefile {
namespace {

using diff::DiffItem;
using test::SideIndex;

struct Op {
  std::string name;
  double dur_us;
};

struct TraceSpec {
  std::string host = "t1v-n-3f2a1b0c-w-0";
  int steps = 20;
  double step_us = 50000;
  std::vector<Op> ops = {
      {"fusion.12", 20000}, {"all-reduce-start.3", 8000}, {"convolution.7", 5000}};
  double comm_share = 0.20;
  std::string source = "xprof";
};

void Stat(SideIndex& idx, int64_t file, const char* key, double value,
          const std::string& detail = "") {
  TraceStatRow r;
  r.file_id = file;
  r.key = key;
  r.value = value;
  r.detail = detail;
  idx.w().AddTraceStat(r);
}

// One trace file: every step runs `ops` once on device 0; a module event
// covers each step (it must not count as an operation). The trace is one
// line, as TSL writes it, so every event is on line 1.
int64_t WriteTrace(SideIndex& idx, const TraceSpec& t) {
  const bool xprof = t.source == "xprof";
  const int64_t id = idx.File("hosts/" + t.host + "/plugins/profile/" + t.host + ".trace.json",
                              "trace", t.host, {});
  if (xprof) {
    idx.w().SetTraceProcessName(id, "1", "/device:TPU:0");
    idx.w().SetTraceThreadName(id, "1", "1", "Steps");
    idx.w().SetTraceThreadName(id, "1", "2", "XLA Modules");
    idx.w().SetTraceThreadName(id, "1", "3", "XLA Ops");
  }
  uint64_t offset = 100;
  auto event = [&](const std::string& tid, const std::string& name, const std::string& cat,
                   double ts, double dur) {
    TraceEventRow e;
    e.file_id = id;
    e.pid = "1";
    e.tid = tid;
    e.name = name;
    e.category = cat;
    e.phase = "X";
    e.ts_us = ts;
    e.dur_us = dur;
    e.args_json = "{}";
    e.offset = offset;
    e.line_no = 1;
    offset += 120;
    idx.w().AddTraceEvent(e);
  };
  for (int s = 0; s < t.steps; ++s) {
    const double t0 = 1000 + s * t.step_us;
    event("1", xprof ? std::to_string(s + 1) : "ProfilerStep#" + std::to_string(s + 1),
          xprof ? "" : "user_annotation", t0, t.step_us - 10);
    if (xprof) event("2", "jit_train_step(12345)", "", t0, t.step_us - 20);
    double ts = t0 + 5;
    for (const Op& op : t.ops) {
      // Make one event of each op longer in the middle step: the evidence.
      const double dur = s == t.steps / 2 ? op.dur_us * 1.1 : op.dur_us;
      event("3", op.name, xprof ? "" : "kernel", ts, dur);
      if (!xprof) event("4", "aten::" + op.name, "cpu_op", ts, dur * 3);  // host side: not counted
      ts += dur;
    }
  }
  const double span = t.steps * t.step_us;
  const double steady = span - 2 * t.step_us;
  Stat(idx, id, "source", 0, t.source);
  Stat(idx, id, "events", t.steps * (2.0 + t.ops.size()));
  Stat(idx, id, "span_us", span);
  Stat(idx, id, "steps", t.steps, "1 process(es) with steps");
  Stat(idx, id, "steady_start_us", 1000 + 2 * t.step_us, "steps");
  Stat(idx, id, "steady_span_us", steady);
  Stat(idx, id, "step_median_us", t.step_us - 10);
  Stat(idx, id, "comm_busy_us", t.comm_share * steady);
  Stat(idx, id, "comm_share", t.comm_share);
  TraceMarkRow m;
  m.file_id = id;
  m.kind = "steady_start";
  m.line_no = 1;
  m.offset = 340;
  m.ts_us = 1000 + 2 * t.step_us;
  m.dur_us = t.step_us - 10;
  m.pid = "1";
  char text[200];
  std::snprintf(
      text, sizeof text,
      "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%.1f,\"dur\":%.1f,\"name\":\"3\",\"args\":{}}",
      m.ts_us, *m.dur_us);
  m.text = text;
  idx.w().AddTraceMark(m);
  return id;
}

TEST(DiffTraces, SameProgramAtDifferentLengthsIsQuiet) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  TraceSpec g, b;
  g.steps = 40;
  b.steps = 12;
  WriteTrace(good, g);
  WriteTrace(bad, b);
  const auto items = diff::DiffTraces(good.Open("good"), bad.Open("bad"));
  EXPECT_LT(test::MaxScore(items), 40);
  // Side by side: the comm share and the three ops.
  ASSERT_EQ(items.size(), 4u);
  const DiffItem* share = test::ItemOf(items, "comm_share", "comm_share");
  ASSERT_NE(share, nullptr);
  EXPECT_EQ(*share->good, "20.0%");
  EXPECT_EQ(*share->bad, "20.0%");
  // The module and step events are not operations.
  EXPECT_EQ(test::ItemOf(items, "top_op", "jit_train_step(12345)"), nullptr);
}

TEST(DiffTraces, TopOperationSlowerPerStep) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  TraceSpec g, b;
  b.steps = 10;  // shorter, and its all-reduce takes 2x per step
  b.ops = {{"fusion.12", 20000}, {"all-reduce-start.3", 16000}, {"convolution.7", 5000}};
  WriteTrace(good, g);
  WriteTrace(bad, b);
  const auto items = diff::DiffTraces(good.Open("good"), bad.Open("bad"));
  const DiffItem* op = test::ItemOf(items, "top_op", "all-reduce-start.3");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->score, 40);
  // Per step: good (19 x 8000 + 8800) / 20 = 8040 us; bad (9 x 16000 + 17600) / 10 = 16160 us.
  EXPECT_NEAR(std::get<double>(*test::FieldOf(*op, "good_us_per_step")), 8040, 1e-6);
  EXPECT_NEAR(std::get<double>(*test::FieldOf(*op, "bad_us_per_step")), 16160, 1e-6);
  EXPECT_EQ(*op->good, "8.04 ms/step");
  EXPECT_EQ(*op->bad, "16.2 ms/step");
  EXPECT_EQ(std::get<int64_t>(*test::FieldOf(*op, "good_rank")), 2);
  EXPECT_EQ(std::get<int64_t>(*test::FieldOf(*op, "bad_rank")), 2);
  EXPECT_EQ(std::get<int64_t>(*test::FieldOf(*op, "bad_count")), 10);
  // Evidence: the op's longest event, composed from its columns.
  ASSERT_EQ(op->bad_evidence.size(), 1u);
  EXPECT_EQ(op->bad_evidence[0].line, 1);
  EXPECT_EQ(op->bad_evidence[0].path,
            "hosts/t1v-n-3f2a1b0c-w-0/plugins/profile/t1v-n-3f2a1b0c-w-0.trace.json");
  EXPECT_NE(op->bad_evidence[0].text.find("\"name\":\"all-reduce-start.3\""), std::string::npos);
  EXPECT_NE(op->bad_evidence[0].text.find("\"dur\":17600.000"), std::string::npos);
  // Unchanged ops stay low.
  EXPECT_EQ(test::ItemOf(items, "top_op", "fusion.12")->score, 5);
}

TEST(DiffTraces, CommShareMovedTenPoints) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  TraceSpec g, b;
  b.comm_share = 0.32;
  WriteTrace(good, g);
  WriteTrace(bad, b);
  // Two hosts in bad: the share is weighted by steady span.
  TraceSpec b2 = b;
  b2.host = "t1v-n-3f2a1b0c-w-1";
  b2.comm_share = 0.36;
  WriteTrace(bad, b2);
  const auto items = diff::DiffTraces(good.Open("good"), bad.Open("bad"));
  const DiffItem* share = test::ItemOf(items, "comm_share", "comm_share");
  ASSERT_NE(share, nullptr);
  EXPECT_EQ(share->score, 55);
  EXPECT_EQ(*share->good, "20.0%");
  EXPECT_EQ(*share->bad, "34.0%");
  EXPECT_NEAR(std::get<double>(*test::FieldOf(*share, "delta_points")), 14, 1e-9);
  ASSERT_EQ(share->bad_evidence.size(), 1u);
  EXPECT_EQ(share->bad_evidence[0].text.rfind("{\"ph\":\"X\",\"pid\":1,\"tid\":1,", 0), 0u);
  EXPECT_EQ(items.front().kind, "comm_share");
}

TEST(DiffTraces, CommShareUnderTenPointsIsLow) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  TraceSpec g, b;
  b.comm_share = 0.29;
  WriteTrace(good, g);
  WriteTrace(bad, b);
  const auto items = diff::DiffTraces(good.Open("good"), bad.Open("bad"));
  EXPECT_EQ(test::ItemOf(items, "comm_share", "comm_share")->score, 5);
}

TEST(DiffTraces, KinetoCountsGpuKernelsOnly) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  TraceSpec g, b;
  g.source = b.source = "kineto";
  g.ops = {{"ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 6000}, {"sm90_xmma_gemm_bf16", 30000}};
  b.ops = {{"ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 6000},
           {"sm90_xmma_gemm_bf16", 30000},
           {"elementwise_kernel", 4000}};
  WriteTrace(good, g);
  WriteTrace(bad, b);
  const auto items = diff::DiffTraces(good.Open("good"), bad.Open("bad"));
  for (const DiffItem& i : items) {
    EXPECT_EQ(i.key.rfind("aten::", 0), std::string::npos) << i.key;  // cpu_op: host side
    EXPECT_EQ(i.key.rfind("ProfilerStep#", 0), std::string::npos) << i.key;
  }
  const DiffItem* added = test::ItemOf(items, "top_op", "elementwise_kernel");
  ASSERT_NE(added, nullptr);
  EXPECT_FALSE(added->good.has_value());
  EXPECT_EQ(added->score, 40);  // ~10% of op time, only in bad
  EXPECT_TRUE(added->good_evidence.empty());
}

TEST(DiffTraces, NoTracesGiveNothing) {
  test::TempDir tmp;
  SideIndex good(tmp, "good"), bad(tmp, "bad");
  good.File("train.log", "log", "host-0", {"step 1 loss=2.0"});
  TraceSpec b;
  WriteTrace(bad, b);
  EXPECT_TRUE(diff::DiffTraces(good.Open("good"), bad.Open("bad")).empty());
}

}  // namespace
}  // namespace casefile
