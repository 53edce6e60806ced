// End to end: a gzipped TSL trace (formats.md 2.1, written here event by
// event) in a bundle goes through ingest; the comm tables it fills
// (trace_comm_stats, net_links, net_sizes, net_timeline, trace_marks) must
// agree with what was written, and every mark must point at its event in
// the decompressed file (offset, line, text).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "index/index_reader.h"
#include "index/index_writer.h"
#include "ingest/ingest.h"
#include "parse/trace/comm_trace_keys.h"
#include "sql_rows.h"
#include "test_util.h"

namespace casefile {
namespace {

using test::Rows;
using test::Sql;

std::string X(int pid, int tid, double ts, double dur, const std::string& name,
              const std::string& args = "{}") {
  char buf[128];
  std::snprintf(buf, sizeof buf, R"({"ph":"X","pid":%d,"tid":%d,"ts":%.3f,"dur":%.3f,"name":")",
                pid, tid, ts, dur);
  return buf + name + R"(","args":)" + args + "}";
}

// One host's trace: 10 steps of 10 ms on /device:TPU:0, each with an
// all-reduce (slack 2 ms) and a recv/recv-done, the host plane with one
// transfer per step to each of two peers (the one to w-2 ten times slower),
// MapDmaBuffer at start-up and, as the anomaly, once in every step from the
// fourth on. One event per line, as a re-exported trace.
struct Written {
  std::string text;
  std::vector<std::string> steady_map_dma;  // the objects, in order
  int events = 0;
};

Written WriteTrace() {
  std::vector<std::string> ev = {
      R"({"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:TPU:0"}})",
      R"({"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"Steps"}})",
      R"({"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"name":"XLA Ops"}})",
      R"({"ph":"M","pid":2,"name":"process_name","args":{"name":"/host:CPU"}})",
      R"({"ph":"M","pid":2,"tid":1,"name":"thread_name","args":{"name":"Megascale: Communication Transport"}})",
      R"({"ph":"M","pid":2,"tid":3,"name":"thread_name","args":{"name":"Megascale: DMA"}})"};
  Written w;
  for (int i = 0; i < 10; ++i) ev.push_back(X(1, 1, 10000.0 * i, 9900, std::to_string(500 + i)));
  for (int i = 0; i < 10; ++i) {
    const double s = 10000.0 * i;
    ev.push_back(X(1, 3, s + 100, 3, "all-reduce-start.4"));
    ev.push_back(X(1, 3, s + 200, 1500, "fusion.1"));
    ev.push_back(X(1, 3, s + 2103, 10, "all-reduce-done.4"));
    ev.push_back(X(1, 3, s + 3000, 2, "recv.6"));
    ev.push_back(X(1, 3, s + 6000, 500, "recv-done.6"));
  }
  for (int i = 0; i < 10; ++i) {
    const double s = 10000.0 * i;
    ev.push_back(X(2, 1, s + 500, 200, "Megascale: Transfer Send",
                   R"({"bytes":"1048576","dst":"t1v-n-3f2a1b0c-w-1","src":"t1v-n-3f2a1b0c-w-0"})"));
    ev.push_back(X(2, 1, s + 800, 2000, "Megascale: Transfer Send",
                   R"({"bytes":"1048576","dst":"t1v-n-3f2a1b0c-w-2","src":"t1v-n-3f2a1b0c-w-0"})"));
  }
  for (int k = 0; k < 4; ++k) ev.push_back(X(2, 3, 50.0 + 100 * k, 60, "MapDmaBuffer"));
  for (int i = 3; i < 10; ++i) {
    ev.push_back(X(2, 3, 10000.0 * i + 4000, 80, "MapDmaBuffer"));
    w.steady_map_dma.push_back(ev.back());
  }
  w.text = R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[)";
  w.text += "\n";
  for (const auto& e : ev) w.text += e + ",\n";
  w.text += "{}]}\n";
  w.events = static_cast<int>(ev.size()) - 6;  // M events are no rows
  return w;
}

TEST(TraceCommIngest, TablesOfAGzippedTrace) {
  test::TempDir tmp;
  const Written w = WriteTrace();
  const std::string rel = "plugins/profile/2024_05_02_11_30_07/t1v-n-3f2a1b0c-w-0.trace.json.gz";
  test::WriteFile(tmp.Join("bundle/" + rel), test::Gzip(w.text));
  const std::string db = tmp.Join("i.db");
  {
    IndexWriter writer(db);
    IngestInputs({tmp.Join("bundle")}, Limits{}, nullptr, writer);
    writer.Commit();
  }
  auto index = IndexReader::Open(db);
  Rows file = Sql(*index, "SELECT id, kind FROM files WHERE path LIKE '%trace.json.gz'");
  ASSERT_EQ(file.size(), 1u);
  EXPECT_EQ(file[0][1], "trace");
  const std::string id = file[0][0];

  std::map<std::string, std::pair<double, std::string>> stats;
  for (const auto& r :
       Sql(*index, "SELECT key, value, detail FROM trace_comm_stats WHERE file_id = " + id)) {
    stats[r[0]] = {std::stod(r[1]), r[2]};
  }
  using namespace trace_comm;
  EXPECT_EQ(stats[kSource].second, "xprof");
  EXPECT_EQ(stats[kEvents].first, w.events);
  EXPECT_EQ(Sql(*index, "SELECT count(*) FROM trace_events WHERE file_id = " + id)[0][0],
            std::to_string(w.events));
  EXPECT_EQ(stats[kSteps].first, 10);
  EXPECT_EQ(stats[kSteadyStartUs].first, 19900);  // end of the second step
  EXPECT_EQ(stats[kMapDmaTotal].first, 11);
  EXPECT_EQ(stats[kMapDmaSteady].first, 7);
  EXPECT_EQ(stats[kMapDmaSteady].second, "2");
  // Steps 3..10 hold 8 all-reduces (slack 2000 µs) and 8 recv/recv-done
  // pairs (slack 2998 µs); none is low.
  EXPECT_EQ(stats[kCollectives].first, 16);
  EXPECT_EQ(stats[kLowSlack].first, 0);
  EXPECT_EQ(stats[kRecvDoneCount].first, 8);
  EXPECT_EQ(stats[kRecvDoneMaxUs].first, 500);
  EXPECT_EQ(stats[kTransfers].first, 20);
  EXPECT_EQ(stats[kTransferBytes].first, 20 * 1048576.0);

  Rows links = Sql(*index,
                   "SELECT src, dst, transfers, lat_max_us, lat_mean_us FROM net_links WHERE "
                   "file_id = " +
                       id + " ORDER BY dst");
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0][1], "t1v-n-3f2a1b0c-w-1");
  EXPECT_EQ(links[1][1], "t1v-n-3f2a1b0c-w-2");
  EXPECT_EQ(links[1][2], "10");
  EXPECT_EQ(std::stod(links[1][3]), 2000);
  EXPECT_EQ(std::stod(links[0][4]), 200);
  Rows sizes =
      Sql(*index, "SELECT lo_bytes, hi_bytes, transfers FROM net_sizes WHERE file_id = " + id);
  ASSERT_EQ(sizes.size(), 1u);
  EXPECT_EQ(std::stod(sizes[0][0]), 1048576);
  EXPECT_EQ(sizes[0][2], "20");
  Rows timeline = Sql(*index,
                      "SELECT count(*), sum(transfers), min(t0_us), max(t1_us) FROM "
                      "net_timeline WHERE file_id = " +
                          id);
  EXPECT_LE(std::stoi(timeline[0][0]), 256);
  EXPECT_EQ(timeline[0][1], "20");
  EXPECT_EQ(std::stod(timeline[0][2]), 0);      // the first step
  EXPECT_EQ(std::stod(timeline[0][3]), 99900);  // the last step's end

  // Marks point at their objects in the decompressed trace.
  Rows marks =
      Sql(*index, "SELECT line_no, offset, text, pid FROM trace_marks WHERE file_id = " + id +
                      " AND kind = 'map_dma_steady' ORDER BY ts_us");
  ASSERT_EQ(marks.size(), w.steady_map_dma.size());
  for (size_t i = 0; i < marks.size(); ++i) {
    const size_t at = w.text.find(w.steady_map_dma[i]);
    EXPECT_EQ(marks[i][1], std::to_string(at));
    EXPECT_EQ(marks[i][2], w.steady_map_dma[i]);
    EXPECT_EQ(marks[i][3], "2");
    int64_t line = 1;
    for (size_t k = 0; k < at; ++k) line += w.text[k] == '\n';
    EXPECT_EQ(marks[i][0], std::to_string(line));
    // The same event in trace_events, by its offset.
    Rows ev = Sql(*index, "SELECT name, line_no FROM trace_events WHERE file_id = " + id +
                              " AND offset = " + marks[i][1]);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0][0], "MapDmaBuffer");
    EXPECT_EQ(ev[0][1], marks[i][0]);
  }
  Rows slow = Sql(*index, "SELECT detail, text FROM trace_marks WHERE file_id = " + id +
                              " AND kind = 'link_slowest' ORDER BY detail");
  ASSERT_EQ(slow.size(), 2u);
  EXPECT_EQ(slow[1][0], "t1v-n-3f2a1b0c-w-0 -> t1v-n-3f2a1b0c-w-2");
  Rows start = Sql(
      *index, "SELECT text FROM trace_marks WHERE file_id = " + id + " AND kind = 'steady_start'");
  ASSERT_EQ(start.size(), 1u);
  EXPECT_EQ(start[0][0], X(1, 1, 20000, 9900, "502"));
}

TEST(TraceCommIngest, TraceWithoutCommunicationHasOnlySourceAndEvents) {
  test::TempDir tmp;
  test::WriteFile(tmp.Join("bundle/prof/host_1.1718900000123456789.pt.trace.json"),
                  R"({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 1.000, "dur": 5.000, "args": {}}
  ]})");
  const std::string db = tmp.Join("i.db");
  {
    IndexWriter writer(db);
    IngestInputs({tmp.Join("bundle")}, Limits{}, nullptr, writer);
    writer.Commit();
  }
  auto index = IndexReader::Open(db);
  Rows rows = Sql(*index, "SELECT key, value, detail FROM trace_comm_stats ORDER BY key");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], "events");
  EXPECT_EQ(rows[0][1], "1.0");
  EXPECT_EQ(rows[1][0], "source");
  EXPECT_EQ(rows[1][2], "kineto");
  EXPECT_EQ(Sql(*index, "SELECT count(*) FROM trace_marks")[0][0], "0");
  EXPECT_EQ(Sql(*index, "SELECT count(*) FROM net_timeline")[0][0], "0");
}

}  // namespace
}  // namespace casefile
