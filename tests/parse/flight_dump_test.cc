// ParseFlightDump on the JSON form (flight_dump.h, formats.md 3.3): the
// rank, damage at any point, caps, lenient types, groups and frames. Dumps
// are written by hand; the end-to-end rows are in tests/ingest.
#include "parse/flight/flight_dump.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

namespace casefile::flight {
namespace {

using Issue = std::tuple<std::string, int64_t>;

struct Parsed {
  std::vector<FrEntryRow> entries;
  std::vector<FrGroupRow> groups;
  std::vector<Issue> issues;
  std::vector<std::string> messages;
  FlightDumpSummary summary;
};

Parsed Parse(std::string dump, const std::string& path = "fr/nccl_trace_rank_0",
             std::optional<int64_t> attributed = std::nullopt) {
  Parsed p;
  FlightSinks sinks{[&](const FrEntryRow& r) { p.entries.push_back(r); },
                    [&](const FrGroupRow& r) { p.groups.push_back(r); },
                    [&](const std::string& kind, int64_t offset, const std::string& message) {
                      p.issues.emplace_back(kind, offset);
                      p.messages.push_back(message);
                    }};
  p.summary = ParseFlightDump(dump, path, 9, attributed, sinks);
  return p;
}

std::vector<int64_t> RecordIds(const Parsed& p) {
  std::vector<int64_t> ids;
  for (const FrEntryRow& e : p.entries) ids.push_back(e.record_id);
  return ids;
}

TEST(FlightDumpTest, RankFromDumpName) {
  EXPECT_EQ(RankFromDumpName("tmp/nccl_trace_rank_12"), 12);
  EXPECT_EQ(RankFromDumpName("job/comm_traces/rank_3"), 3);
  EXPECT_EQ(RankFromDumpName("rank_3.json"), 3);
  EXPECT_EQ(RankFromDumpName("x/nccl_trace_rank_7.pkl"), 7);
  EXPECT_EQ(RankFromDumpName("x/nccl_trace_rank_0.gz"), 0);
  EXPECT_EQ(RankFromDumpName("x/dump.json"), std::nullopt);
  EXPECT_EQ(RankFromDumpName("rank_1234567890"), std::nullopt);  // a stamp, not a rank
  EXPECT_EQ(RankFromDumpName("rank_3/dump"), std::nullopt);      // the base name only
}

TEST(FlightDumpTest, RankFromContentThenNameThenAttribution) {
  const std::string with_rank = R"({"rank": 6, "entries": [{"record_id": 0}]})";
  const std::string without = R"({"entries": [{"record_id": 0}]})";
  EXPECT_EQ(Parse(with_rank, "nccl_trace_rank_2", 4).entries.at(0).rank, 6);
  EXPECT_EQ(Parse(without, "nccl_trace_rank_2", 4).entries.at(0).rank, 2);
  Parsed attributed = Parse(without, "rank3/dump.json", 3);
  EXPECT_EQ(attributed.entries.at(0).rank, 3);
  EXPECT_TRUE(attributed.issues.empty());
  // A rank written as a string is still read.
  EXPECT_EQ(Parse(R"({"rank": "5", "entries": []})", "x").summary.rank, 5);
  Parsed none = Parse(without, "x/dump.json");
  EXPECT_EQ(none.entries.at(0).rank, -1);
  EXPECT_EQ(none.issues, (std::vector<Issue>{{"flight_recorder_no_rank", 0}}));
}

TEST(FlightDumpTest, RowsCarryFileIdAndSummary) {
  Parsed p = Parse(R"({"version": "2.7", "entries": [{"record_id": 4}, {"record_id": 5}]})");
  ASSERT_EQ(p.entries.size(), 2u);
  EXPECT_EQ(p.entries[0].file_id, 9);
  EXPECT_EQ(p.summary.format, "json");
  EXPECT_EQ(p.summary.version, "2.7");
  EXPECT_EQ(p.summary.entries, 2u);
  EXPECT_EQ(p.summary.rank, 0);
}

TEST(FlightDumpTest, NotADump) {
  Parsed p = Parse("Finished writing NCCLPG debug info\n");
  EXPECT_TRUE(p.entries.empty());
  EXPECT_EQ(p.summary.format, "");
  EXPECT_EQ(p.issues, (std::vector<Issue>{{"flight_recorder_invalid", 0}}));
  Parsed list = Parse("[1, 2]");
  EXPECT_EQ(list.issues, (std::vector<Issue>{{"flight_recorder_invalid", 0}}));
}

TEST(FlightDumpTest, DamagedByteKeepsTheEntriesBeforeIt) {
  const std::string dump =
      R"({"entries": [{"record_id": 0}, {"record_id": 1} x {"record_id": 2}], "rank": 1})";
  Parsed p = Parse(dump);
  EXPECT_EQ(RecordIds(p), (std::vector<int64_t>{0, 1}));
  const int64_t x = static_cast<int64_t>(dump.find(" x ") + 1);
  EXPECT_EQ(p.issues, (std::vector<Issue>{{"flight_recorder_invalid", x}}));
  EXPECT_NE(p.messages[0].find("2 complete entries"), std::string::npos);
  // The "rank" after the damage is never reached: the name decides.
  EXPECT_EQ(p.entries[0].rank, 0);
}

TEST(FlightDumpTest, TruncationInsideTheHeaderKeepsNothingButSaysWhere) {
  const std::string dump = R"({"version": "2.5", "pg_config": {"0": {"name": "0", "desc": "def)";
  Parsed p = Parse(dump);
  EXPECT_TRUE(p.entries.empty());
  EXPECT_TRUE(p.groups.empty());
  EXPECT_EQ(p.issues,
            (std::vector<Issue>{{"flight_recorder_truncated", static_cast<int64_t>(dump.size())}}));
  EXPECT_NE(p.messages[0].find("\"pg_config\""), std::string::npos);
}

TEST(FlightDumpTest, TruncationRightAfterAnEntry) {
  // Cut after the comma that follows the second entry.
  const std::string dump = R"({"entries": [{"record_id": 0}, {"record_id": 1},)";
  Parsed p = Parse(dump);
  EXPECT_EQ(RecordIds(p), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(p.issues,
            (std::vector<Issue>{{"flight_recorder_truncated", static_cast<int64_t>(dump.size())}}));
}

TEST(FlightDumpTest, DataAfterTheDump) {
  const std::string dump = R"({"entries": [{"record_id": 0}]} {"entries": []})";
  Parsed p = Parse(dump);
  EXPECT_EQ(RecordIds(p), (std::vector<int64_t>{0}));
  EXPECT_EQ(
      p.issues,
      (std::vector<Issue>{{"flight_recorder_invalid", static_cast<int64_t>(dump.find(" {") + 1)}}));
}

TEST(FlightDumpTest, EntriesNotAList) {
  const std::string dump = R"({"entries": {"record_id": 0}})";
  Parsed p = Parse(dump);
  EXPECT_TRUE(p.entries.empty());
  EXPECT_EQ(p.issues, (std::vector<Issue>{{"flight_recorder_invalid", 12}}));
}

TEST(FlightDumpTest, NestingBeyondTheCapIsDamage) {
  // An element nested 300 deep: the 257th bracket is refused.
  const std::string prefix = R"({"entries": [{"record_id": 0}, )";
  const std::string dump = prefix + std::string(300, '[') + std::string(300, ']') + "]}";
  Parsed p = Parse(dump);
  EXPECT_EQ(RecordIds(p), (std::vector<int64_t>{0}));
  EXPECT_EQ(
      p.issues,
      (std::vector<Issue>{{"flight_recorder_invalid", static_cast<int64_t>(prefix.size() + 256)}}));
}

TEST(FlightDumpTest, UnreadableEntriesAreCountedOnce) {
  // Invalid UTF-8 inside an entry and a bare number: both skipped, one issue
  // naming the first.
  const std::string dump =
      "{\"entries\": [{\"record_id\": 0}, {\"record_id\": 1, \"state\": "
      "\"\xff\xfe\"}, 7, {\"record_id\": 3}]}";
  Parsed p = Parse(dump);
  EXPECT_EQ(RecordIds(p), (std::vector<int64_t>{0, 3}));
  const int64_t second = static_cast<int64_t>(dump.find("{\"record_id\": 1"));
  EXPECT_EQ(p.issues, (std::vector<Issue>{{"flight_recorder_entry_invalid", second}}));
  EXPECT_NE(p.messages[0].find("2 entries skipped"), std::string::npos);
}

TEST(FlightDumpTest, TheLastEntriesAreKeptBeyondTheCap) {
  std::string dump = "{\"entries\": [";
  size_t third = 0;
  for (size_t i = 0; i < kMaxEntries + 2; ++i) {
    if (i > 0) dump += ",";
    if (i == 2) third = dump.size();
    dump += "{\"record_id\": " + std::to_string(i) + "}";
  }
  dump += "]}";
  Parsed p = Parse(dump);
  ASSERT_EQ(p.entries.size(), kMaxEntries);
  EXPECT_EQ(p.entries.front().record_id, 2);
  EXPECT_EQ(p.entries.back().record_id, static_cast<int64_t>(kMaxEntries + 1));
  EXPECT_EQ(
      p.issues,
      (std::vector<Issue>{{"flight_recorder_too_many_entries", static_cast<int64_t>(third)}}));
}

TEST(FlightDumpTest, LinesCountFromTheBomAndCrlf) {
  const std::string dump =
      "\xEF\xBB\xBF{\r\n  \"entries\": [\r\n    {\"record_id\": 0},\r\n\r\n    "
      "{\"record_id\": 1}\r\n  ]\r\n}\r\n";
  Parsed p = Parse(dump);
  ASSERT_EQ(p.entries.size(), 2u);
  EXPECT_EQ(p.entries[0].line_no, 3);
  EXPECT_EQ(p.entries[1].line_no, 5);
}

TEST(FlightDumpTest, NumbersAndTextsOfAnyType) {
  Parsed p =
      Parse(R"({"entries": [{"record_id": 1.0, "collective_seq_id": 3.0, "p2p_seq_id": "4", )"
            R"("timeout_ms": 99999999999999999999, "time_created_ns": 1.7e18, "state": true, )"
            R"("profiling_name": 12, "pg_id": 2, "retired": "False", "is_p2p": 0, )"
            R"("output_dtypes": [ "Float" ,  "Half" ], "input_sizes": 5}]})");
  ASSERT_EQ(p.entries.size(), 1u);
  const FrEntryRow& e = p.entries[0];
  EXPECT_EQ(e.record_id, 1);
  EXPECT_EQ(e.collective_seq_id, 3);
  EXPECT_EQ(e.p2p_seq_id, 4);
  EXPECT_EQ(e.timeout_ms, std::nullopt);  // beyond int64
  EXPECT_EQ(e.time_created_ns, 1700000000000000000);
  EXPECT_EQ(e.state, "true");
  EXPECT_EQ(e.op, "12");
  EXPECT_EQ(e.pg_id, "2");
  EXPECT_FALSE(e.retired);
  EXPECT_FALSE(e.is_p2p);
  EXPECT_EQ(e.output_dtypes, "[\"Float\",\"Half\"]");
  EXPECT_EQ(e.input_sizes, "5");
  EXPECT_EQ(e.line_no, 1);
}

TEST(FlightDumpTest, FramesSkipTorchDistributedAndParallel) {
  Parsed p = Parse(
      R"({"entries": [)"
      R"({"record_id": 0, "frames": [)"
      R"({"name": "all_reduce", "filename": "C:\\py\\Lib\\torch\\distributed\\c10d.py", "line": 1},)"
      R"({"name": "_sync", "filename": "/opt/torch/nn/parallel/distributed.py", "line": 2},)"
      R"({"name": "step", "filename": "trainer.py"}]},)"
      R"({"record_id": 1, "frames": [{"filename": "/w/run.py", "line": "7"}]},)"
      R"({"record_id": 2, "frames": [{"line": 3}, "x", {"name": "main", "filename": "m.py",)"
      R"( "line": 9}]}]})");
  ASSERT_EQ(p.entries.size(), 3u);
  EXPECT_EQ(p.entries[0].frame, "step at trainer.py");
  EXPECT_EQ(p.entries[1].frame, "? at /w/run.py:7");
  EXPECT_EQ(p.entries[2].frame, "main at m.py:9");
}

TEST(FlightDumpTest, GroupsJoinConfigAndStatus) {
  Parsed p =
      Parse(R"j({"pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "(0, 1)"}, )j"
            R"("custom": {"name": "custom", "desc": "pp", "ranks": "0,1,"}, )"
            R"("bad": {"ranks": "all"}, "odd": 3}, )"
            R"("pg_status": {"0": {"last_enqueued_collective": 9}, )"
            R"("3": {"last_enqueued_collective": 2, "last_started_collective": "2", )"
            R"("last_completed_collective": 1}, "4": {}}, )"
            R"("entries": [{"record_id": 0, "pg_id": 3, "process_group": ["custom", "pp"]}]})");
  ASSERT_EQ(p.groups.size(), 5u);
  // pg_config order, then the status-only group "4".
  EXPECT_EQ(p.groups[0].pg_id, "0");
  EXPECT_EQ(p.groups[0].ranks, "[0,1]");
  EXPECT_EQ(p.groups[0].last_enqueued, 9);
  EXPECT_EQ(p.groups[0].last_started, std::nullopt);
  EXPECT_EQ(p.groups[1].pg_id, "custom");
  EXPECT_EQ(p.groups[1].desc, "pp");
  EXPECT_EQ(p.groups[1].ranks, "[0,1]");
  EXPECT_EQ(p.groups[1].last_enqueued, 2);  // pg_status "3" is "custom" by the entry
  EXPECT_EQ(p.groups[1].last_started, 2);
  EXPECT_EQ(p.groups[1].last_completed, 1);
  EXPECT_EQ(p.groups[2].pg_id, "bad");
  EXPECT_EQ(p.groups[2].ranks, "[]");
  EXPECT_EQ(p.groups[2].name, std::nullopt);
  EXPECT_EQ(p.groups[3].pg_id, "odd");
  EXPECT_EQ(p.groups[4].pg_id, "4");
  EXPECT_EQ(p.groups[4].ranks, "[]");
  EXPECT_EQ(p.groups[4].last_enqueued, std::nullopt);
  ASSERT_EQ(p.entries.size(), 1u);
  EXPECT_EQ(p.entries[0].pg_id, "custom");
  EXPECT_EQ(p.entries[0].pg_desc, "pp");
  EXPECT_EQ(p.summary.groups, 5u);
}

}  // namespace
}  // namespace casefile::flight
