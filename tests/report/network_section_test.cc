// The report's network section: read from the trace tables of an index
// (links slowest first and capped, sizes summed over traces, per-trace
// statistics), rendered in the JSON report after "warnings" and as a text
// section only when there is something to show.
#include <gtest/gtest.h>

#include "common/json_writer.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "report/report.h"
#include "test_util.h"

namespace casefile {
namespace {

std::unique_ptr<IndexReader> TraceIndex(const test::TempDir& tmp, int links) {
  const std::string db = tmp.Join("net.db");
  IndexWriter w(db);
  BundleRow b;
  b.name = "run";
  b.path = "/run";
  b.status = "complete";
  const int64_t bundle = w.AddBundle(b);
  for (int i = 0; i < 2; ++i) {
    FileRow f;
    f.bundle_id = bundle;
    f.path = "plugins/profile/r/w-" + std::to_string(i) + ".trace.json.gz";
    f.kind = "trace";
    f.entry_type = "file";
    f.host = "w-" + std::to_string(i);
    const int64_t id = w.AddFile(f);
    w.AddTraceStat({id, "source", 0, "xprof"});
    w.AddTraceStat({id, "comm_share", 0.25 + 0.5 * i, ""});
    w.AddTraceStat({id, "rpc_p50_us", 1500, ""});
    w.AddNetSize({id, 0, 4, 3, 9});
    w.AddNetSize({id, 4, 16, 1, 10});
    w.AddNetTimeline({id, 0, 1000, 10, 1, 2 + i, 500, 0});
    w.AddNetTimeline({id, 1000, 2000, 10, 1, 7, 900, 0});
    for (int l = 0; l < links; ++l) {
      w.AddNetLink({id, "w-" + std::to_string(i), "w-" + std::to_string(l), 10, 100,
                    100.0 * (l + 1) + i, 200.0 * (l + 1), 300.0 * (l + 1), 150});
    }
  }
  // A trace with nothing but its event count is not listed.
  FileRow quiet;
  quiet.bundle_id = bundle;
  quiet.path = "t/quiet.trace.json";
  quiet.kind = "trace";
  quiet.entry_type = "file";
  const int64_t q = w.AddFile(quiet);
  w.AddTraceStat({q, "events", 12, ""});
  w.Commit();
  return IndexReader::Open(db);
}

TEST(NetworkSection, ReadsTablesSlowestLinksFirstAndCapped) {
  test::TempDir tmp;
  auto index = TraceIndex(tmp, 15);  // 30 links in all
  const NetworkSection s = LoadNetworkSection(*index);
  ASSERT_EQ(s.traces.size(), 2u);
  EXPECT_EQ(s.trace_count, 2);
  EXPECT_EQ(s.traces[0].host, "w-0");
  EXPECT_EQ(s.traces[0].source, "xprof");
  EXPECT_DOUBLE_EQ(s.traces[1].stats.at("comm_share"), 0.75);
  EXPECT_EQ(s.traces[0].max_collectives_in_flight, 7);
  EXPECT_EQ(s.traces[0].timeline_buckets, 2);
  EXPECT_DOUBLE_EQ(s.traces[0].max_busy_share, 0.9);
  EXPECT_EQ(s.link_count, 30);
  ASSERT_EQ(s.links.size(), kNetworkLinks);
  // p50 1501 (w-1 -> w-14) is the slowest, then 1500 (w-0 -> w-14).
  EXPECT_EQ(s.links[0].src, "w-1");
  EXPECT_EQ(s.links[0].dst, "w-14");
  EXPECT_DOUBLE_EQ(s.links[0].lat_p50_us, 1501);
  EXPECT_EQ(s.links[1].src, "w-0");
  for (size_t i = 1; i < s.links.size(); ++i) {
    EXPECT_GE(s.links[i - 1].lat_p50_us, s.links[i].lat_p50_us);
  }
  ASSERT_EQ(s.sizes.size(), 2u);
  EXPECT_EQ(s.sizes[0].transfers, 6);  // 3 per trace
  EXPECT_DOUBLE_EQ(s.sizes[1].bytes, 20);
}

TEST(NetworkSection, RenderedInJsonAndText) {
  test::TempDir tmp;
  auto index = TraceIndex(tmp, 2);
  Report r;
  r.network = LoadNetworkSection(*index);
  const std::string json = RenderJson(r);
  const size_t warnings = json.find("\"warnings\"");
  const size_t network = json.find("\"network\": {");
  ASSERT_NE(network, std::string::npos) << json;
  EXPECT_LT(warnings, network);
  EXPECT_NE(json.find("\"comm_share\": 0.75"), std::string::npos) << json;
  EXPECT_NE(json.find("\"link_count\": 4"), std::string::npos) << json;
  const std::string text = RenderText(r, false);
  EXPECT_NE(text.find("Network (profiler traces)"), std::string::npos) << text;
  EXPECT_NE(text.find("comm_share=75.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("rpc_p50_us=1.50 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("w-1 -> w-1  p50 0.20 ms"), std::string::npos) << text;
}

TEST(NetworkSection, EmptyIndexGivesEmptySectionAndNoText) {
  Report r;
  EXPECT_TRUE(r.network.empty());
  EXPECT_EQ(RenderText(r, false).find("Network"), std::string::npos);
  const std::string json = RenderJson(r);
  EXPECT_NE(json.find("\"network\": {\n    \"traces\": [],"), std::string::npos) << json;
}

}  // namespace
}  // namespace casefile
