// Flight-recorder dumps end to end: a bundle of per-rank dumps written by
// hand from formats.md 3.3 (the JSON form on one line as json.dumps writes
// it, indented, the key-sorted compact form of _dump_nccl_trace_json, and a
// torch-style pickle) is ingested; fr_entries, fr_groups, the files' kind,
// their lines and the ingest issues must be what the dumps say.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "index/index_reader.h"
#include "index/index_writer.h"
#include "ingest/ingest.h"
#include "sql_rows.h"
#include "test_util.h"

namespace casefile {
namespace {

using Row = std::vector<std::string>;
using test::Rows;
using test::Sql;

std::unique_ptr<IndexReader> Build(const std::string& input, const std::string& db) {
  {
    IndexWriter w(db);
    IngestInputs({input}, Limits{}, nullptr, w);
    w.Commit();
  }
  return IndexReader::Open(db);
}

const char* const kEntryColumns =
    "SELECT e.rank, e.pg_id, e.pg_desc, e.record_id, e.collective_seq_id, e.p2p_seq_id, e.op, "
    "e.state, e.input_sizes, e.output_sizes, e.input_dtypes, e.output_dtypes, e.timeout_ms, "
    "e.time_created_ns, e.is_p2p, e.retired, e.frame, e.line_no FROM fr_entries e JOIN files f "
    "ON f.id = e.file_id WHERE f.path = ";

Rows Entries(const IndexReader& r, const std::string& path) {
  return Sql(r, kEntryColumns + ("'" + path + "' ORDER BY e.record_id"));
}

Rows Groups(const IndexReader& r, const std::string& path) {
  return Sql(r,
             "SELECT g.rank, g.pg_id, g.name, g.desc, g.ranks, g.last_enqueued, g.last_started, "
             "g.last_completed FROM fr_groups g JOIN files f ON f.id = g.file_id WHERE f.path = '" +
                 path + "' ORDER BY g.rowid");
}

Rows Issues(const IndexReader& r, const std::string& path) {
  return Sql(r, "SELECT kind, offset FROM ingest_issues WHERE path = '" + path +
                    "' AND kind LIKE 'flight_recorder%' ORDER BY kind");
}

// Rank 0, json.dumps on one line (no newline at the end): two groups, the
// "ranks" of pg_config as the string torch writes, two all_reduces and a
// send, frames innermost first.
const std::string kRank0 =
    R"({"version": "2.5", "pg_config": {"0": {"name": "0", "desc": "default_pg", )"
    R"("ranks": "[0, 1, 2, 3]"}, "1": {"name": "1", "desc": "dp_shard", "ranks": "[0, 2]"}}, )"
    R"("pg_status": {"0": {"last_enqueued_collective": 2, "last_started_collective": 2, )"
    R"("last_completed_collective": 1}, "1": {"last_enqueued_collective": 0, )"
    R"("last_started_collective": -1, "last_completed_collective": 0}}, "entries": [)"
    R"({"record_id": 0, "pg_id": 0, "process_group": ["0", "default_pg"], )"
    R"("collective_seq_id": 1, "p2p_seq_id": 0, "op_id": 1, "profiling_name": "nccl:all_reduce", )"
    R"("time_created_ns": 1724779239936775119, "input_sizes": [[3, 4]], "input_dtypes": ["Float"], )"
    R"("output_sizes": [[3, 4]], "output_dtypes": ["Float"], "state": "completed", )"
    R"("time_discovered_started_ns": null, "time_discovered_completed_ns": 1724779239975811724, )"
    R"("retired": true, "timeout_ms": 600000, "is_p2p": false, "frames": [)"
    R"({"name": "all_reduce", "filename": "/usr/lib/python3/dist-packages/torch/distributed/)"
    R"(distributed_c10d.py", "line": 2501}, {"name": "wrapper", "filename": )"
    R"("/usr/lib/python3/dist-packages/torch/distributed/c10d_logger.py", "line": 83}, )"
    R"({"name": "train_step", "filename": "/workspace/train.py", "line": 42}]}, )"
    R"({"record_id": 1, "pg_id": 0, "process_group": ["0", "default_pg"], )"
    R"("collective_seq_id": 2, "p2p_seq_id": 0, "op_id": 2, "profiling_name": "nccl:all_reduce", )"
    R"("time_created_ns": 1724779240000000000, "input_sizes": [[1024], [16, 16]], )"
    R"("input_dtypes": ["BFloat16", "BFloat16"], "output_sizes": [[1024], [16, 16]], )"
    R"("output_dtypes": ["BFloat16", "BFloat16"], "state": "started", "retired": false, )"
    R"("timeout_ms": 600000, "is_p2p": false, "frames": []}, )"
    R"({"record_id": 2, "pg_id": 0, "process_group": ["0", "default_pg"], )"
    R"("collective_seq_id": 2, "p2p_seq_id": 1, "op_id": 3, "profiling_name": "nccl:send 0->1", )"
    R"("time_created_ns": 1724779240100000000, "input_sizes": [[8]], "input_dtypes": ["Int"], )"
    R"("output_sizes": [[8]], "output_dtypes": ["Int"], "state": "scheduled", "retired": false, )"
    R"("timeout_ms": 600000, "is_p2p": true, "frames": [{"name": "send", "filename": )"
    R"("/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py", "line": 2100}]}]})";

// Rank 1, indented as json.dumps(indent=2) writes it. The tensor-parallel
// group has a hashed name: pg_config keys it by name, pg_status by the
// numeric id 1, and the entries tie the two. Older entries without is_p2p.
const std::vector<std::string> kRank1Lines = {
    /*  1 */ "{",
    /*  2 */ "  \"version\": \"2.4\",",
    /*  3 */ "  \"pg_config\": {",
    /*  4 */ "    \"0\": {",
    /*  5 */ "      \"name\": \"0\",",
    /*  6 */ "      \"desc\": \"default_pg\",",
    /*  7 */ "      \"ranks\": \"[0, 1, 2, 3]\"",
    /*  8 */ "    },",
    /*  9 */ "    \"9a1b\": {",
    /* 10 */ "      \"name\": \"9a1b\",",
    /* 11 */ "      \"desc\": \"tp\",",
    /* 12 */ "      \"ranks\": [",
    /* 13 */ "        1,",
    /* 14 */ "        3",
    /* 15 */ "      ]",
    /* 16 */ "    }",
    /* 17 */ "  },",
    /* 18 */ "  \"pg_status\": {",
    /* 19 */ "    \"0\": {",
    /* 20 */ "      \"last_enqueued_collective\": 1,",
    /* 21 */ "      \"last_started_collective\": 1,",
    /* 22 */ "      \"last_completed_collective\": 1",
    /* 23 */ "    },",
    /* 24 */ "    \"1\": {",
    /* 25 */ "      \"last_enqueued_collective\": 5,",
    /* 26 */ "      \"last_started_collective\": 5,",
    /* 27 */ "      \"last_completed_collective\": 4",
    /* 28 */ "    }",
    /* 29 */ "  },",
    /* 30 */ "  \"entries\": [",
    /* 31 */ "    {",
    /* 32 */ "      \"record_id\": 0,",
    /* 33 */ "      \"pg_id\": 0,",
    /* 34 */ "      \"process_group\": [",
    /* 35 */ "        \"0\",",
    /* 36 */ "        \"default_pg\"",
    /* 37 */ "      ],",
    /* 38 */ "      \"collective_seq_id\": 1,",
    /* 39 */ "      \"p2p_seq_id\": 0,",
    /* 40 */ "      \"profiling_name\": \"nccl:all_reduce\",",
    /* 41 */ "      \"input_sizes\": [",
    /* 42 */ "        [",
    /* 43 */ "          3,",
    /* 44 */ "          4",
    /* 45 */ "        ]",
    /* 46 */ "      ],",
    /* 47 */ "      \"input_dtypes\": [",
    /* 48 */ "        \"Float\"",
    /* 49 */ "      ],",
    /* 50 */ "      \"state\": \"completed\"",
    /* 51 */ "    },",
    /* 52 */ "    {",
    /* 53 */ "      \"record_id\": 1,",
    /* 54 */ "      \"pg_id\": 1,",
    /* 55 */ "      \"process_group\": [\"9a1b\", \"tp\"],",
    /* 56 */ "      \"collective_seq_id\": 5,",
    /* 57 */ "      \"profiling_name\": \"nccl:all_gather\",",
    /* 58 */ "      \"input_sizes\": [[2, 8]],",
    /* 59 */ "      \"output_sizes\": [[4, 8]],",
    /* 60 */ "      \"state\": \"started\"",
    /* 61 */ "    },",
    /* 62 */ "    {",
    /* 63 */ "      \"record_id\": 2, \"pg_id\": 0, \"process_group\": [\"0\", \"default_pg\"],",
    /* 64 */ "      \"collective_seq_id\": 1, \"p2p_seq_id\": 1,",
    /* 65 */ "      \"profiling_name\": \"nccl:recv 1<-0\", \"state\": \"completed\"",
    /* 66 */ "    }",
    /* 67 */ "  ]",
    /* 68 */ "}",
};

std::string Join(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  return text;
}

// The compact form of _dump_nccl_trace_json (nlohmann: keys sorted, the
// pg_status numbers as strings, no frames), under torchtitan's layout.
const std::string kRank3 =
    R"({"comm_lib_version":"2.21.5","entries":[{"collective_seq_id":7,"input_dtypes":["Float"],)"
    R"("input_sizes":[[4194304]],"is_p2p":false,"op_id":7,"output_dtypes":["Float"],)"
    R"("output_sizes":[[4194304]],"p2p_seq_id":0,"pg_id":0,"process_group":["0","default_pg"],)"
    R"("profiling_name":"nccl:all_reduce","record_id":6,"retired":false,"state":"scheduled",)"
    R"("thread_id":"140245","thread_name":"pt_main_thread","time_created_ns":1724779250000000000,)"
    R"("time_discovered_completed_ns":0,"time_discovered_started_ns":0,"timeout_ms":600000}],)"
    R"("pg_config":{"0":{"desc":"default_pg","name":"0","ranks":"[0, 1, 2, 3]"}},)"
    R"("pg_status":{"0":{"last_completed_collective":"6","last_enqueued_collective":"7",)"
    R"("last_started_collective":"6"}},"version":"2.10"})";

// Rank 2's dump was cut inside its third entry.
const std::string kRank2Full =
    R"({"version": "2.5", "pg_config": {"0": {"name": "0", "desc": "default_pg", )"
    R"("ranks": "[0, 1, 2, 3]"}}, "entries": [)"
    R"({"record_id": 0, "pg_id": 0, "collective_seq_id": 1, )"
    R"("profiling_name": "nccl:all_reduce", "state": "completed"}, )"
    R"({"record_id": 1, "pg_id": 0, "collective_seq_id": 2, )"
    R"("profiling_name": "nccl:all_reduce", "state": "completed"}, )"
    R"({"record_id": 2, "pg_id": 0, "collective_seq_id": 3, )"
    R"("profiling_name": "nccl:all_reduce", "state": "sched)";

// Wrong types everywhere; the first entry is not an object.
const std::string kRank4 =
    R"({"version": 2.5, "pg_config": ["0"], "entries": [5, {"record_id": "5", "pg_id": "0", )"
    R"("process_group": "0", "collective_seq_id": null, "profiling_name": "nccl:broadcast", )"
    R"("input_sizes": "[[1, 2]]", "output_sizes": null, "input_dtypes": "Float", "state": 7, )"
    R"("is_p2p": "true", "retired": 1, "timeout_ms": "600000", "time_created_ns": "soon", )"
    R"("frames": "none"}, {"pg_id": 0}]})";

// A dump found by its content alone, naming its rank inside.
const std::string kRank7 =
    R"({"rank": 7, "version": "2.5", "pg_config": {"0": {"name": "0", "desc": "default_pg", )"
    R"("ranks": [4, 5, 6, 7]}}, "pg_status": {}, "entries": [{"record_id": 11, "pg_id": 0, )"
    R"("process_group": ["0", "default_pg"], "collective_seq_id": 12, )"
    R"("profiling_name": "nccl:reduce_scatter", "input_sizes": [[16]], "output_sizes": [[4]], )"
    R"("state": "completed", "retired": true}]})";

// No rank anywhere.
const std::string kNoRank =
    R"({"pg_config": {}, "pg_status": {}, "entries": [{"record_id": 0, "collective_seq_id": 1, )"
    R"("profiling_name": "nccl:barrier"}]})";

// A torch-style pickle (protocol 2, BINUNICODE strings memoized with
// BINPUT and reused with BINGET, as torch's pickler writes them).
class Pickle {
 public:
  Pickle& Op(char c) {
    s_ += c;
    return *this;
  }
  Pickle& Str(const std::string& v) {
    s_ += 'X';
    for (int i = 0; i < 4; ++i) s_ += static_cast<char>((v.size() >> (8 * i)) & 0xff);
    s_ += v;
    return *this;
  }
  Pickle& Int(int64_t v) {  // torch: BININT1, BININT2, BININT, else LONG1 of 8 bytes
    if (v >= 0 && v < 256) return Raw('K', v, 1);
    if (v >= 0 && v < 65536) return Raw('M', v, 2);
    if (v >= INT32_MIN && v <= INT32_MAX) return Raw('J', v, 4);
    s_ += '\x8a';
    return Raw('\x08', v, 8);
  }
  Pickle& Put(int n) { return Raw('q', n, 1); }
  Pickle& Get(int n) { return Raw('h', n, 1); }
  size_t size() const { return s_.size(); }
  const std::string& str() const { return s_; }

 private:
  Pickle& Raw(char op, int64_t v, int bytes) {
    s_ += op;
    for (int i = 0; i < bytes; ++i)
      s_ += static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
    return *this;
  }
  std::string s_;
};

// Rank 5 as a pickle: pg "0" of ranks [4, 5], two entries sharing their
// keys and a frame through the memo. Returns the offsets of the entries.
std::string Rank5Pickle(size_t* entry0, size_t* entry1) {
  Pickle p;
  p.Op('\x80').Op('\x02').Op('}').Put(0).Op('(');
  p.Str("version").Put(1).Str("2.5").Put(2);
  p.Str("pg_config").Put(3).Op('}').Put(4).Op('(');
  p.Str("0").Put(5).Op('}').Put(6).Op('(');
  p.Str("name").Put(7).Get(5).Str("desc").Put(8).Str("default_pg").Put(9);
  p.Str("ranks").Put(10).Str("[4, 5]").Put(11).Op('u').Op('u');
  p.Str("pg_status").Put(12).Op('}').Put(13).Op('(').Get(5).Op('}').Op('(');
  p.Str("last_enqueued_collective").Put(14).Int(3);
  p.Str("last_started_collective").Put(15).Int(3);
  p.Str("last_completed_collective").Put(16).Int(2).Op('u').Op('u');
  p.Str("entries").Put(17).Op(']').Op('(');
  *entry0 = p.size();
  p.Op('}').Op('(');
  p.Str("record_id").Put(20).Int(0).Str("pg_id").Put(21).Int(0);
  p.Str("process_group").Put(22).Get(5).Get(9).Op('\x86');
  p.Str("collective_seq_id").Put(23).Int(3).Str("profiling_name").Put(24);
  p.Str("nccl:all_reduce").Put(25);
  p.Str("time_created_ns").Put(26).Int(1724779260000000000);
  p.Str("input_sizes").Put(27).Op(']').Op('(').Op(']').Op('(').Int(1000).Int(3).Op('e').Op('e');
  p.Str("input_dtypes").Put(28).Op(']').Op('(').Str("Float").Put(29).Op('e');
  p.Str("state").Put(30).Str("started").Put(31);
  p.Str("retired").Put(32).Op('\x89').Str("is_p2p").Put(33).Op('\x89');
  p.Str("timeout_ms").Put(34).Int(1800000);
  p.Str("frames").Put(35).Op(']').Op('(');
  p.Op('}').Put(36).Op('(').Str("name").Str("forward").Str("filename").Str("/srv/model.py");
  p.Str("line").Int(310).Op('u').Op('e').Op('u');
  *entry1 = p.size();
  p.Op('}').Op('(');
  p.Get(20).Int(1).Get(21).Int(0).Get(22).Get(5).Get(9).Op('\x86');
  p.Get(23).Int(4).Get(24).Get(25).Get(30).Str("scheduled");
  p.Get(35).Op(']').Op('(').Get(36).Op('e').Op('u');
  p.Op('e').Op('u').Op('.');
  return p.str();
}

int64_t LineOf(const std::string& bytes, size_t offset) {
  return 1 + std::count(bytes.begin(), bytes.begin() + static_cast<long>(offset), '\n');
}

class FlightIngest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.Join("bundle");
    test::WriteFile(root_ + "/fr/nccl_trace_rank_0", kRank0);
    test::WriteFile(root_ + "/fr/nccl_trace_rank_1", Join(kRank1Lines));
    test::WriteFile(root_ + "/fr/nccl_trace_rank_2", kRank2Full);
    test::WriteFile(root_ + "/out/comm_traces/rank_3", kRank3);
    test::WriteFile(root_ + "/fr/nccl_trace_rank_4", kRank4);
    pickle_ = Rank5Pickle(&entry0_, &entry1_);
    test::WriteFile(root_ + "/fr/nccl_trace_rank_5", pickle_);
    test::WriteFile(root_ + "/dumps/host-b/debug_info.json", kRank7);
    test::WriteFile(root_ + "/misc/dump.json", kNoRank);
    r_ = Build(root_, tmp_.Join("i.db"));
  }

  test::TempDir tmp_;
  std::string root_;
  std::string pickle_;
  size_t entry0_ = 0, entry1_ = 0;
  std::unique_ptr<IndexReader> r_;
};

TEST_F(FlightIngest, DumpsAreClassifiedAndKeptAsLines) {
  const Rows files =
      Sql(*r_, "SELECT path, kind, line_count FROM files WHERE entry_type='file' ORDER BY path");
  const Rows expected = {
      {"dumps/host-b/debug_info.json", "flight_recorder", "1"},
      {"fr/nccl_trace_rank_0", "flight_recorder", "1"},
      {"fr/nccl_trace_rank_1", "flight_recorder", "68"},
      {"fr/nccl_trace_rank_2", "flight_recorder", "1"},
      {"fr/nccl_trace_rank_4", "flight_recorder", "1"},
      {"misc/dump.json", "flight_recorder", "1"},
      {"out/comm_traces/rank_3", "flight_recorder", "1"},
  };
  ASSERT_GE(files.size(), expected.size() + 1);
  Rows without_pickle;
  for (const Row& f : files) {
    if (f[0] == "fr/nccl_trace_rank_5") {
      EXPECT_EQ(f[1], "flight_recorder");
    } else {
      without_pickle.push_back(f);
    }
  }
  EXPECT_EQ(without_pickle, expected);
  // An entry's line is the evidence: line 52 of rank 1 is where its second
  // entry opens.
  const Rows line = Sql(*r_,
                        "SELECT l.text FROM lines l JOIN files f ON f.id = l.file_id WHERE "
                        "f.path = 'fr/nccl_trace_rank_1' AND l.line_no = 52");
  ASSERT_EQ(line.size(), 1u);
  EXPECT_EQ(line[0][0], "    {");
}

TEST_F(FlightIngest, OneLineDumpRowsAndGroups) {
  const std::string all_reduce = "nccl:all_reduce";
  EXPECT_EQ(Entries(*r_, "fr/nccl_trace_rank_0"),
            (Rows{{"0", "0", "default_pg", "0", "1", "0", all_reduce, "completed", "[[3,4]]",
                   "[[3,4]]", "[\"Float\"]", "[\"Float\"]", "600000", "1724779239936775119", "0",
                   "1", "train_step at /workspace/train.py:42", "1"},
                  {"0", "0", "default_pg", "1", "2", "0", all_reduce, "started", "[[1024],[16,16]]",
                   "[[1024],[16,16]]", "[\"BFloat16\",\"BFloat16\"]", "[\"BFloat16\",\"BFloat16\"]",
                   "600000", "1724779240000000000", "0", "0", "NULL", "1"},
                  {"0", "0", "default_pg", "2", "2", "1", "nccl:send 0->1", "scheduled", "[[8]]",
                   "[[8]]", "[\"Int\"]", "[\"Int\"]", "600000", "1724779240100000000", "1", "0",
                   "send at /usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py:"
                   "2100",
                   "1"}}));
  EXPECT_EQ(Groups(*r_, "fr/nccl_trace_rank_0"),
            (Rows{{"0", "0", "0", "default_pg", "[0,1,2,3]", "2", "2", "1"},
                  {"0", "1", "1", "dp_shard", "[0,2]", "0", "-1", "0"}}));
  EXPECT_TRUE(Issues(*r_, "fr/nccl_trace_rank_0").empty());
}

TEST_F(FlightIngest, IndentedDumpGivesTheLineWhereEachEntryOpens) {
  EXPECT_EQ(Entries(*r_, "fr/nccl_trace_rank_1"),
            (Rows{{"1", "0", "default_pg", "0", "1", "0", "nccl:all_reduce", "completed", "[[3,4]]",
                   "[]", "[\"Float\"]", "[]", "NULL", "NULL", "0", "0", "NULL", "31"},
                  {"1", "9a1b", "tp", "1", "5", "NULL", "nccl:all_gather", "started", "[[2,8]]",
                   "[[4,8]]", "[]", "[]", "NULL", "NULL", "0", "0", "NULL", "52"},
                  {"1", "0", "default_pg", "2", "1", "1", "nccl:recv 1<-0", "completed", "[]", "[]",
                   "[]", "[]", "NULL", "NULL", "1", "0", "NULL", "62"}}));
  // pg_status "1" is the group named "9a1b" (entry 1: pg_id 1, process_group
  // ["9a1b", "tp"]); the list form of "ranks" reads like the string form.
  EXPECT_EQ(Groups(*r_, "fr/nccl_trace_rank_1"),
            (Rows{{"1", "0", "0", "default_pg", "[0,1,2,3]", "1", "1", "1"},
                  {"1", "9a1b", "9a1b", "tp", "[1,3]", "5", "5", "4"}}));
}

TEST_F(FlightIngest, SortedCompactFormUnderTorchtitanLayout) {
  EXPECT_EQ(Entries(*r_, "out/comm_traces/rank_3"),
            (Rows{{"3", "0", "default_pg", "6", "7", "0", "nccl:all_reduce", "scheduled",
                   "[[4194304]]", "[[4194304]]", "[\"Float\"]", "[\"Float\"]", "600000",
                   "1724779250000000000", "0", "0", "NULL", "1"}}));
  // pg_status numbers written as strings.
  EXPECT_EQ(Groups(*r_, "out/comm_traces/rank_3"),
            (Rows{{"3", "0", "0", "default_pg", "[0,1,2,3]", "7", "6", "6"}}));
}

TEST_F(FlightIngest, TruncatedDumpKeepsTheCompleteEntries) {
  const Rows rows = Entries(*r_, "fr/nccl_trace_rank_2");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][3], "0");
  EXPECT_EQ(rows[1][3], "1");
  EXPECT_EQ(rows[1][4], "2");
  EXPECT_EQ(rows[1][2], "default_pg");  // from pg_config, the entry names only the group
  EXPECT_EQ(Issues(*r_, "fr/nccl_trace_rank_2"),
            (Rows{{"flight_recorder_truncated", std::to_string(kRank2Full.size())}}));
  const Rows message = Sql(*r_,
                           "SELECT message FROM ingest_issues WHERE kind = "
                           "'flight_recorder_truncated'");
  ASSERT_EQ(message.size(), 1u);
  EXPECT_NE(message[0][0].find("fr/nccl_trace_rank_2"), std::string::npos);
  EXPECT_NE(message[0][0].find("byte " + std::to_string(kRank2Full.size())), std::string::npos);
}

TEST_F(FlightIngest, WrongTypesAreReadLenientlyOrSkippedWithAnIssue) {
  EXPECT_EQ(Entries(*r_, "fr/nccl_trace_rank_4"),
            (Rows{{"4", "0", "NULL", "2", "NULL", "NULL", "", "", "[]", "[]", "[]", "[]", "NULL",
                   "NULL", "0", "0", "NULL", "1"},
                  {"4", "0", "NULL", "5", "NULL", "NULL", "nccl:broadcast", "7", "[[1,2]]", "[]",
                   "\"Float\"", "[]", "600000", "NULL", "1", "1", "NULL", "1"}}));
  EXPECT_TRUE(Groups(*r_, "fr/nccl_trace_rank_4").empty());
  const size_t five = kRank4.find("[5,") + 1;
  const size_t pg_config = kRank4.find("[\"0\"]");
  EXPECT_EQ(Issues(*r_, "fr/nccl_trace_rank_4"),
            (Rows{{"flight_recorder_entry_invalid", std::to_string(five)},
                  {"flight_recorder_invalid", std::to_string(pg_config)}}));
}

TEST_F(FlightIngest, PickleDumpGivesTheSameRows) {
  EXPECT_EQ(Entries(*r_, "fr/nccl_trace_rank_5"),
            (Rows{{"5", "0", "default_pg", "0", "3", "NULL", "nccl:all_reduce", "started",
                   "[[1000,3]]", "[]", "[\"Float\"]", "[]", "1800000", "1724779260000000000", "0",
                   "0", "forward at /srv/model.py:310", std::to_string(LineOf(pickle_, entry0_))},
                  {"5", "0", "default_pg", "1", "4", "NULL", "nccl:all_reduce", "scheduled", "[]",
                   "[]", "[]", "[]", "NULL", "NULL", "0", "0", "forward at /srv/model.py:310",
                   std::to_string(LineOf(pickle_, entry1_))}}));
  EXPECT_EQ(Groups(*r_, "fr/nccl_trace_rank_5"),
            (Rows{{"5", "0", "0", "default_pg", "[4,5]", "3", "3", "2"}}));
  EXPECT_TRUE(Issues(*r_, "fr/nccl_trace_rank_5").empty());
}

TEST_F(FlightIngest, RankFromTheContentOrNoneWithAnIssue) {
  EXPECT_EQ(Entries(*r_, "dumps/host-b/debug_info.json"),
            (Rows{{"7", "0", "default_pg", "11", "12", "NULL", "nccl:reduce_scatter", "completed",
                   "[[16]]", "[[4]]", "[]", "[]", "NULL", "NULL", "0", "1", "NULL", "1"}}));
  EXPECT_EQ(Groups(*r_, "dumps/host-b/debug_info.json"),
            (Rows{{"7", "0", "0", "default_pg", "[4,5,6,7]", "NULL", "NULL", "NULL"}}));
  const Rows none = Entries(*r_, "misc/dump.json");
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0][0], "-1");
  EXPECT_EQ(none[0][6], "nccl:barrier");
  EXPECT_EQ(Issues(*r_, "misc/dump.json"), (Rows{{"flight_recorder_no_rank", "0"}}));
}

TEST(FlightIngestLimits, DumpBeyondTheCapIsReadUpToIt) {
  // The second entry runs past 64 MiB: the first is read, the rest is only
  // lines, and both the cap and the cut are recorded.
  test::TempDir tmp;
  const std::string head = R"({"entries": [{"record_id": 0}, {"record_id": 1, "pad": ")";
  std::string dump = head + std::string((64u << 20) + 1000, 'x') + "\"}]}";
  test::WriteFile(tmp.Join("bundle/fr/nccl_trace_rank_9"), dump);
  auto r = Build(tmp.Join("bundle"), tmp.Join("i.db"));
  const Rows rows = Entries(*r, "fr/nccl_trace_rank_9");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "9");
  EXPECT_EQ(rows[0][3], "0");
  const std::string cap = std::to_string(64u << 20);
  EXPECT_EQ(Issues(*r, "fr/nccl_trace_rank_9"),
            (Rows{{"flight_recorder_too_large", cap}, {"flight_recorder_truncated", cap}}));
  EXPECT_EQ(Sql(*r, "SELECT size FROM files WHERE path = 'fr/nccl_trace_rank_9'")[0][0],
            std::to_string(dump.size()));
}

}  // namespace
}  // namespace casefile
