// ClassifyFile rule 1b (classify.h): flight-recorder dumps by name and by
// content (formats.md 3.3), and what must stay what it was.
#include <gtest/gtest.h>

#include <string>

#include "parse/classify/classify.h"

namespace casefile {
namespace {

// The head of a torch pickle dump: PROTO 2, EMPTY_DICT, BINPUT 0, MARK, then
// BINUNICODE "version" "2.5" and "pg_config".
const std::string kPickleHead(
    "\x80\x02}q\x00(X\x07\x00\x00\x00versionq\x01X\x03\x00\x00\x00"
    "2.5q\x02X\x09\x00\x00\x00pg_configq\x03}q\x04(",
    50);

TEST(FlightClassifyTest, KindName) {
  EXPECT_STREQ(FileKindName(FileKind::kFlightRecorder), "flight_recorder");
  EXPECT_EQ(FileKindFromName("flight_recorder"), FileKind::kFlightRecorder);
  // The kinds before it keep their names.
  EXPECT_STREQ(FileKindName(FileKind::kManifest), "manifest");
  EXPECT_STREQ(FileKindName(FileKind::kOther), "other");
}

TEST(FlightClassifyTest, PickleByContentWhateverTheName) {
  EXPECT_EQ(ClassifyFile("tmp/nccl_trace_rank_0", kPickleHead), FileKind::kFlightRecorder);
  EXPECT_EQ(ClassifyFile("debug/fr_dump.pkl", kPickleHead), FileKind::kFlightRecorder);
  EXPECT_EQ(ClassifyFile("host-1/trace_out", kPickleHead), FileKind::kFlightRecorder);
  // Entries before pg_config (a dump without it): entries plus an entry key.
  EXPECT_EQ(ClassifyFile("x", std::string("\x80\x04\x95\x20\x00\x00\x00\x00\x00\x00\x00}\x94("
                                          "\x8c\x07"
                                          "entries\x94]\x94(}\x94(\x8c\x11"
                                          "collective_seq_id",
                                          49)),
            FileKind::kFlightRecorder);
}

TEST(FlightClassifyTest, OtherPicklesStayBinary) {
  // torch.save of a state dict: a pickle without any dump key.
  EXPECT_EQ(
      ClassifyFile("ckpt/model.pkl", std::string("\x80\x02}q\x00X\x05\x00\x00\x00modelq\x01", 17)),
      FileKind::kBinary);
  // A dump's name does not make a pickle without the keys a dump.
  EXPECT_EQ(ClassifyFile("nccl_trace_rank_3", "\x80\x02}q"), FileKind::kBinary);
}

TEST(FlightClassifyTest, JsonByContent) {
  // json.dumps of a loaded dump: version, pg_config, pg_status, entries.
  EXPECT_EQ(ClassifyFile("out/dump_rank0.json",
                         "{\"version\": \"2.5\", \"pg_config\": {\"0\": {\"name\": \"0\"}}}"),
            FileKind::kFlightRecorder);
  // Any extension, or none.
  EXPECT_EQ(ClassifyFile("out/fr.txt", "\n  {\"pg_status\": {}, \"entries\": []}"),
            FileKind::kFlightRecorder);
  // The key-sorted form of _dump_nccl_trace_json: entries first.
  EXPECT_EQ(ClassifyFile("out/a.json",
                         "{\"comm_lib_version\":\"2.21.5\",\"entries\":[{\"collective_seq_id\":1,"),
            FileKind::kFlightRecorder);
  EXPECT_EQ(ClassifyFile("out/a.json", "{\"entries\":[{\"profiling_name\":\"nccl:all_reduce\""),
            FileKind::kFlightRecorder);
}

TEST(FlightClassifyTest, JsonThatIsNotADump) {
  // "version" and "entries" alone are common: a config.
  EXPECT_EQ(ClassifyFile("cfg/index.json", "{\"version\": 1, \"entries\": [{\"name\": \"a\"}]}"),
            FileKind::kConfig);
  // A Kineto trace whose distributedInfo carries a pg_config stays a trace.
  EXPECT_EQ(ClassifyFile("tb/host_1.pt.trace.json",
                         "{\"schemaVersion\": 1, \"deviceProperties\": [], \"distributedInfo\": "
                         "{\"pg_config\": [], \"pg_status\": {}}, \"traceEvents\": []}"),
            FileKind::kTrace);
  // The keys as words of a log line, not as JSON keys.
  EXPECT_EQ(ClassifyFile("train.log", "{rank0} dumping pg_config and pg_status\n"), FileKind::kLog);
}

TEST(FlightClassifyTest, DumpNamesWithJsonContent) {
  // A JSON object under a dump's name is a dump, whatever its first keys.
  EXPECT_EQ(ClassifyFile("tmp/nccl_trace_rank_12", "{\"version\": \"2.10\", \"comm_lib_"),
            FileKind::kFlightRecorder);
  EXPECT_EQ(ClassifyFile("tmp/nccl_trace_rank_12.json", "{}"), FileKind::kFlightRecorder);
  EXPECT_EQ(ClassifyFile("job/comm_traces/rank_3", "{\"version\""), FileKind::kFlightRecorder);
  EXPECT_EQ(ClassifyFile("job/flight_recorder/rank_3.json", "{"), FileKind::kFlightRecorder);
  EXPECT_EQ(ClassifyFile("job/FR/rank_15", " {"), FileKind::kFlightRecorder);
  // rank_<N> elsewhere is not a dump's name.
  EXPECT_EQ(ClassifyFile("job/checkpoints/rank_3", "{\"step\": 10}"), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("job/comm_traces/rank_3.yaml", "{a: 1}"), FileKind::kConfig);
  // Text that is not JSON under a dump's name keeps the ordinary rules,
  // and an empty file is not a dump.
  EXPECT_EQ(ClassifyFile("tmp/nccl_trace_rank_0", "Finished writing NCCLPG debug info\n"),
            FileKind::kLog);
  EXPECT_EQ(ClassifyFile("tmp/nccl_trace_rank_0", ""), FileKind::kLog);
}

}  // namespace
}  // namespace casefile
