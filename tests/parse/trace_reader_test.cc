// TraceReader: the trace layouts of formats.md section 2 (TSL 2.1, Kineto
// 2.2, the generic Chrome form 2.3), written by hand, fed whole, in every
// two-piece split and byte by byte.
#include "parse/trace/trace_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"

namespace casefile {
namespace {

struct Issue {
  uint64_t offset;
  std::string kind;
  std::string message;
};

struct Result {
  std::vector<TraceEventRow> rows;
  std::vector<Issue> issues;
  std::map<std::string, std::string> process_names;
  std::map<std::pair<std::string, std::string>, std::string> thread_names;

  size_t IssuesOf(std::string_view kind) const {
    size_t n = 0;
    for (const Issue& i : issues) n += i.kind == kind;
    return n;
  }
};

// Feeds `text` cut at each position in `cuts` (ascending).
Result ReadCut(std::string_view text, const std::vector<size_t>& cuts,
               uint32_t max_event_bytes = 1 << 20) {
  Result r;
  TraceReader reader(max_event_bytes,
                     {[&](TraceEventRow&& row) { r.rows.push_back(std::move(row)); },
                      [&](uint64_t offset, std::string kind, std::string message) {
                        r.issues.push_back({offset, std::move(kind), std::move(message)});
                      }});
  size_t pos = 0;
  for (size_t cut : cuts) {
    reader.Feed(text.substr(pos, cut - pos));
    pos = cut;
  }
  reader.Feed(text.substr(pos));
  reader.Finish();
  r.process_names = reader.process_names();
  r.thread_names = reader.thread_names();
  return r;
}

Result Read(std::string_view text, uint32_t max_event_bytes = 1 << 20) {
  return ReadCut(text, {}, max_event_bytes);
}

Result ReadByteByByte(std::string_view text) {
  std::vector<size_t> cuts;
  for (size_t i = 1; i < text.size(); ++i) cuts.push_back(i);
  return ReadCut(text, cuts);
}

// One line per row, every field, to compare whole results.
std::string Describe(const TraceEventRow& r) {
  std::string s = r.phase + "|" + r.pid + "|" + r.tid + "|" + r.name + "|" + r.category + "|" +
                  std::to_string(r.ts_us) + "|" + (r.dur_us ? std::to_string(*r.dur_us) : "-") +
                  "|" + r.args_json + "|" + r.process_name.value_or("-") + "|" +
                  r.thread_name.value_or("-");
  return s;
}

std::vector<std::string> DescribeAll(const Result& r) {
  std::vector<std::string> out;
  for (const TraceEventRow& row : r.rows) out.push_back(Describe(row));
  return out;
}

// TSL's TraceContainerToJson layout: metadata first, M events, X events with
// string args, and the empty {} closing the array.
constexpr std::string_view kTslTrace =
    R"j({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[
{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},
{"ph":"M","pid":1,"name":"process_sort_index","args":{"sort_index":1}},
{"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"XLA Ops"}},
{"ph":"X","pid":1,"tid":2,"ts":0.1,"dur":1e-6,"name":"fusion.3","args":{"long_name":"fusion.3 = f32[8]{0} fusion(p0)","program_id":"17"}},
{"ph":"X","pid":1,"tid":3,"ts":5,"dur":2.5,"name":"all-reduce-start.1"},
{}]})j";

TEST(TraceReaderTest, TslForm) {
  Result r = Read(kTslTrace);
  EXPECT_TRUE(r.issues.empty()) << r.issues[0].kind << ": " << r.issues[0].message;
  ASSERT_EQ(r.rows.size(), 2u);
  const TraceEventRow& a = r.rows[0];
  EXPECT_EQ(a.phase, "X");
  EXPECT_EQ(a.pid, "1");
  EXPECT_EQ(a.tid, "2");
  EXPECT_EQ(a.name, "fusion.3");
  EXPECT_EQ(a.category, "");
  EXPECT_DOUBLE_EQ(a.ts_us, 0.1);
  ASSERT_TRUE(a.dur_us.has_value());
  EXPECT_DOUBLE_EQ(*a.dur_us, 1e-6);
  EXPECT_EQ(a.args_json, R"j({"long_name":"fusion.3 = f32[8]{0} fusion(p0)","program_id":"17"})j");
  EXPECT_EQ(a.process_name, "/device:GPU:0");
  EXPECT_EQ(a.thread_name, "XLA Ops");
  const TraceEventRow& b = r.rows[1];
  EXPECT_EQ(b.tid, "3");
  EXPECT_DOUBLE_EQ(b.ts_us, 5);
  EXPECT_DOUBLE_EQ(*b.dur_us, 2.5);
  EXPECT_EQ(b.args_json, "{}");
  EXPECT_EQ(b.process_name, "/device:GPU:0");
  EXPECT_FALSE(b.thread_name.has_value());
  EXPECT_EQ(r.process_names, (std::map<std::string, std::string>{{"1", "/device:GPU:0"}}));
  EXPECT_EQ(r.thread_names,
            (std::map<std::pair<std::string, std::string>, std::string>{{{"1", "2"}, "XLA Ops"}}));
}

// Kineto: deviceProperties and other metadata before traceEvents,
// distributedInfo after it, brackets and a quoted "traceEvents" inside
// strings and nested objects, string pids, "pid": "", ts/dur as strings.
constexpr std::string_view kKinetoTrace = R"j({
  "schemaVersion": 1,
  "deviceProperties": [
    {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912, "computeMajor": 9, "computeMinor": 0}
  ],
  "note": {"traceEvents": [{"ph": "X", "name": "decoy"}], "text": "not \"traceEvents\": [ here ]}"},
  "cuda_runtime_version": 12040,
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1700000000000000000,
  "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 4242, "tid": 4242, "ts": 120.500, "dur": 30.250, "args": {"Collective name": "allreduce", "Group size": 8, "Process Group Name": "0"}},
  {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 7, "ts": 140.000, "dur": 5000.125, "args": {"device": 0, "stream": 7}},
  {"ph": "s", "id": 12, "pid": 4242, "tid": 4242, "ts": 121.000, "cat": "ac2g", "name": "ac2g"},
  {"ph": "f", "id": 12, "pid": 0, "tid": 7, "ts": 140.000, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": "stream 8", "ts": "150.125", "dur": "2.000"},
  {"ph": "i", "cat": "user_annotation", "s": "t", "name": "marker \"q\" \\ \u00e9", "pid": 4242, "tid": "4242", "ts": 200.000},
  {"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 9000.000}
  ],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8, "pg_count": 2, "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 8, "ranks": "[0, 1, 2, 3, 4, 5, 6, 7]"}], "nccl_version": "2.21.5"},
  "traceName": "/tmp/prof/host_4242.1700000000000000000.pt.trace.json"
})j";

const std::vector<std::string>& KinetoExpected() {
  static const std::vector<std::string> kRows = {
      "X|4242|4242|record_param_comms|cpu_op|120.500000|30.250000|{\"Collective name\": "
      "\"allreduce\", \"Group size\": 8, \"Process Group Name\": \"0\"}|-|-",
      "X|0|7|ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)|kernel|"
      "140.000000|5000.125000|{\"device\": 0, \"stream\": 7}|-|-",
      "s|4242|4242|ac2g|ac2g|121.000000|-|{}|-|-",
      "f|0|7|ac2g|ac2g|140.000000|-|{}|-|-",
      "X|0|stream 8|Memcpy HtoD (Pageable -> Device)|gpu_memcpy|150.125000|2.000000|{}|-|-",
      "i|4242|4242|marker \"q\" \\ \xC3\xA9|user_annotation|200.000000|-|{}|-|-",
      "i|||Record Window End||9000.000000|-|{}|-|-",
  };
  return kRows;
}

TEST(TraceReaderTest, KinetoForm) {
  Result r = Read(kKinetoTrace);
  EXPECT_TRUE(r.issues.empty()) << r.issues[0].kind << ": " << r.issues[0].message;
  EXPECT_EQ(DescribeAll(r), KinetoExpected());
}

TEST(TraceReaderTest, KinetoSplitAtEveryBytePosition) {
  for (size_t cut = 0; cut <= kKinetoTrace.size(); ++cut) {
    Result r = ReadCut(kKinetoTrace, {cut});
    ASSERT_TRUE(r.issues.empty()) << "cut at " << cut << ": " << r.issues[0].message;
    ASSERT_EQ(DescribeAll(r), KinetoExpected()) << "cut at " << cut;
  }
}

TEST(TraceReaderTest, ByteByByte) {
  Result kineto = ReadByteByByte(kKinetoTrace);
  EXPECT_TRUE(kineto.issues.empty());
  EXPECT_EQ(DescribeAll(kineto), KinetoExpected());
  Result tsl = ReadByteByByte(kTslTrace);
  EXPECT_TRUE(tsl.issues.empty());
  EXPECT_EQ(DescribeAll(tsl), DescribeAll(Read(kTslTrace)));
  EXPECT_EQ(tsl.rows.size(), 2u);
}

TEST(TraceReaderTest, TslEventSplitAtEveryBytePosition) {
  for (size_t cut = 0; cut <= kTslTrace.size(); ++cut) {
    Result r = ReadCut(kTslTrace, {cut});
    ASSERT_TRUE(r.issues.empty()) << "cut at " << cut;
    ASSERT_EQ(r.rows.size(), 2u) << "cut at " << cut;
    ASSERT_EQ(r.rows[0].args_json,
              R"j({"long_name":"fusion.3 = f32[8]{0} fusion(p0)","program_id":"17"})j");
    ASSERT_EQ(r.rows[0].thread_name, "XLA Ops");
  }
}

TEST(TraceReaderTest, BareArrayWithCounterAndInstant) {
  Result r = Read(
      "\xEF\xBB\xBF[\n"
      "{\"name\": \"mem\", \"ph\": \"C\", \"pid\": 1, \"ts\": 5, \"args\": {\"bytes\": 1024}},\n"
      "{\"name\": \"ckpt\", \"ph\": \"I\", \"s\": \"p\", \"pid\": 1, \"tid\": 1, \"ts\": 6},\n"
      "{\"name\": \"step\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": 7, \"dur\": 3}\n"
      "]\n");
  EXPECT_TRUE(r.issues.empty());
  EXPECT_EQ(DescribeAll(r), (std::vector<std::string>{
                                "C|1||mem||5.000000|-|{\"bytes\": 1024}|-|-",
                                "I|1|1|ckpt||6.000000|-|{}|-|-",
                                "X|1|1|step||7.000000|3.000000|{}|-|-",
                            }));
}

TEST(TraceReaderTest, BeginEndNestingPairsLifoPerThread) {
  Result r = Read(R"j([
    {"ph": "B", "name": "outer", "pid": 1, "tid": 1, "ts": 0, "args": {"a": 1}},
    {"ph": "B", "name": "other thread", "pid": 1, "tid": 2, "ts": 1},
    {"ph": "B", "name": "inner", "pid": 1, "tid": 1, "ts": 2},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 5, "args": {"r": 2}},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 10, "args": {"b": 2}},
    {"ph": "E", "name": "stray", "pid": 1, "tid": 9, "ts": 11}
  ])j");
  // inner closes first, then outer; the B on tid 2 never ends and comes at
  // Finish without a duration; the stray E is an issue and no row.
  EXPECT_EQ(DescribeAll(r), (std::vector<std::string>{
                                "X|1|1|inner||2.000000|3.000000|{\"r\": 2}|-|-",
                                "X|1|1|outer||0.000000|10.000000|{\"a\": 1,\"b\": 2}|-|-",
                                "B|1|2|other thread||1.000000|-|{}|-|-",
                            }));
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].kind, "trace_unmatched_end");
  EXPECT_NE(r.issues[0].message.find("stray"), std::string::npos);
  EXPECT_EQ(r.issues[0].offset, std::string_view(R"j([
    {"ph": "B", "name": "outer", "pid": 1, "tid": 1, "ts": 0, "args": {"a": 1}},
    {"ph": "B", "name": "other thread", "pid": 1, "tid": 2, "ts": 1},
    {"ph": "B", "name": "inner", "pid": 1, "tid": 1, "ts": 2},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 5, "args": {"r": 2}},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 10, "args": {"b": 2}},
    )j")
                                    .size());
}

TEST(TraceReaderTest, NestingCapKeepsPairingAfterOverflow) {
  const size_t depth = TraceReader::kMaxOpenPerThread + 5;
  std::string text = "[";
  for (size_t i = 0; i < depth; ++i) {
    text += "{\"ph\":\"B\",\"name\":\"b" + std::to_string(i) +
            "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(i) + "},";
  }
  for (size_t i = 0; i < depth; ++i) {
    text += "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(10000 + i) + "},";
  }
  text += "{}]";
  Result r = Read(text);
  EXPECT_EQ(r.IssuesOf("trace_nesting_too_deep"), 5u);
  EXPECT_EQ(r.IssuesOf("trace_unmatched_end"), 0u);
  ASSERT_EQ(r.rows.size(), depth);
  // The five B events over the cap come first, without duration.
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(r.rows[i].phase, "B");
    EXPECT_EQ(r.rows[i].name, "b" + std::to_string(TraceReader::kMaxOpenPerThread + i));
    EXPECT_FALSE(r.rows[i].dur_us.has_value());
  }
  // Then the deepest kept B closes with the sixth E (ts 10005).
  EXPECT_EQ(r.rows[5].phase, "X");
  EXPECT_EQ(r.rows[5].name, "b" + std::to_string(TraceReader::kMaxOpenPerThread - 1));
  EXPECT_DOUBLE_EQ(*r.rows[5].dur_us, 10005.0 - (TraceReader::kMaxOpenPerThread - 1));
  EXPECT_EQ(r.rows.back().name, "b0");
  EXPECT_DOUBLE_EQ(*r.rows.back().dur_us, 10000.0 + depth - 1);
}

TEST(TraceReaderTest, TruncatedInsideAnEvent) {
  std::string_view full = kTslTrace;
  size_t second_x = full.find("{\"ph\":\"X\",\"pid\":1,\"tid\":3");
  ASSERT_NE(second_x, std::string_view::npos);
  Result r = Read(full.substr(0, second_x + 20));
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].name, "fusion.3");
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].kind, "trace_truncated");
  EXPECT_EQ(r.issues[0].offset, second_x);
  EXPECT_NE(r.issues[0].message.find("inside an event"), std::string::npos);
}

TEST(TraceReaderTest, TruncatedBetweenEvents) {
  std::string_view full = kTslTrace;
  size_t cut = full.find("{\"ph\":\"X\",\"pid\":1,\"tid\":3");
  Result r = Read(full.substr(0, cut));
  ASSERT_EQ(r.rows.size(), 1u);
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].kind, "trace_truncated");
  EXPECT_EQ(r.issues[0].offset, cut);
  EXPECT_NE(r.issues[0].message.find("inside the traceEvents array after 4 events"),
            std::string::npos)
      << r.issues[0].message;
}

TEST(TraceReaderTest, TruncatedAfterTheEventsArray) {
  std::string_view full = kKinetoTrace;
  size_t cut = full.find("\"pg_config\"");
  Result r = Read(full.substr(0, cut));
  EXPECT_EQ(DescribeAll(r), KinetoExpected());
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].kind, "trace_truncated");
  EXPECT_EQ(r.issues[0].offset, cut);
}

TEST(TraceReaderTest, TruncatedBeforeAnyEvents) {
  Result r = Read("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0");
  EXPECT_TRUE(r.rows.empty());
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].kind, "trace_truncated");
  EXPECT_NE(r.issues[0].message.find("before any traceEvents"), std::string::npos);
}

TEST(TraceReaderTest, HugeNonEventKeysAreSkippedNotBuffered) {
  // A 4 MiB metadata value (strings with escaped quotes and brackets, deep
  // nesting) before the events, read with a 1 KiB event limit: nothing of it
  // is buffered as an event, so nothing is reported too large.
  std::string blob;
  while (blob.size() < (4u << 20)) blob += "x\\\"[{\\\\ ";
  std::string nested(1000, '[');
  nested += std::string(1000, ']');
  std::string text = "{\"metadata\": {\"blob\": \"" + blob + "\", \"nested\": " + nested +
                     "}, \"stackFrames\": {}, \"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", "
                     "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}], \"systemTraceEvents\": \"" +
                     blob + "\"}";
  std::vector<size_t> cuts;
  for (size_t c = 4096; c < text.size(); c += 4096) cuts.push_back(c);
  Result r = ReadCut(text, cuts, 1024);
  EXPECT_TRUE(r.issues.empty()) << r.issues[0].message;
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].name, "a");
}

TEST(TraceReaderTest, OversizedEventIsSkippedAndReported) {
  std::string big(500, 'y');
  std::string text = "[{\"ph\":\"X\",\"name\":\"small\",\"ts\":1,\"dur\":1},";
  size_t big_offset = text.size();
  text += "{\"ph\":\"X\",\"name\":\"big\",\"ts\":2,\"dur\":1,\"args\":{\"s\":\"" + big + "\"}},";
  text += "{\"ph\":\"X\",\"name\":\"after\",\"ts\":3,\"dur\":1}]";
  Result r = Read(text, 200);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].name, "small");
  EXPECT_EQ(r.rows[1].name, "after");
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].kind, "trace_event_too_large");
  EXPECT_EQ(r.issues[0].offset, big_offset);
}

TEST(TraceReaderTest, InvalidEventsAreSkippedAndReadingGoesOn) {
  std::string text = "[{\"ph\":\"X\",\"name\":\"ok1\",\"ts\":1},\n";
  size_t bad_value = text.size();
  text += "{\"ph\":\"X\",\"name\": ,\"ts\":2},\n";
  size_t no_phase = text.size();
  text += "{\"name\":\"no phase\",\"ts\":3},\n";
  size_t bad_ts = text.size();
  text += "{\"ph\":\"X\",\"name\":\"bad ts\",\"ts\":\"soon\"},\n";
  size_t not_object = text.size();
  text += "42,\n";
  size_t missing_comma = text.size();
  text += "{\"ph\":\"X\" \"name\":\"x\"},\n";
  text += "{\"ph\":\"X\",\"name\":\"ok2\",\"ts\":4}]";
  Result r = Read(text);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].name, "ok1");
  EXPECT_EQ(r.rows[1].name, "ok2");
  ASSERT_EQ(r.issues.size(), 5u);
  for (const Issue& i : r.issues) EXPECT_EQ(i.kind, "trace_event_invalid") << i.message;
  EXPECT_EQ(r.issues[0].offset, bad_value);
  EXPECT_EQ(r.issues[1].offset, no_phase);
  EXPECT_NE(r.issues[1].message.find("no \"ph\""), std::string::npos);
  EXPECT_EQ(r.issues[2].offset, bad_ts);
  EXPECT_NE(r.issues[2].message.find("\"ts\""), std::string::npos);
  EXPECT_EQ(r.issues[3].offset, not_object);
  EXPECT_EQ(r.issues[4].offset, missing_comma);
}

TEST(TraceReaderTest, IssuesOfOneKindAreCapped) {
  std::string text = "[";
  for (int i = 0; i < 150; ++i) text += "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":1},";
  text += "{}]";
  Result r = Read(text);
  ASSERT_EQ(r.issues.size(), TraceReader::kMaxIssuesPerKind + 1);
  EXPECT_EQ(r.issues.back().kind, "trace_unmatched_end");
  EXPECT_NE(r.issues.back().message.find("50 more"), std::string::npos) << r.issues.back().message;
  EXPECT_EQ(r.issues.back().offset, text.size());
}

TEST(TraceReaderTest, DocumentsWithoutEvents) {
  Result empty = Read("  \n");
  ASSERT_EQ(empty.issues.size(), 1u);
  EXPECT_EQ(empty.issues[0].kind, "trace_empty");

  Result garbage = Read("hello");
  ASSERT_EQ(garbage.issues.size(), 1u);
  EXPECT_EQ(garbage.issues[0].kind, "trace_syntax");
  EXPECT_EQ(garbage.issues[0].offset, 0u);

  Result none = Read("{\"schemaVersion\": 1, \"traceName\": \"x\"}");
  ASSERT_EQ(none.issues.size(), 1u);
  EXPECT_EQ(none.issues[0].kind, "trace_no_events");

  const std::string broken_text = "{\"traceEvents\": [{\"ph\":\"X\",\"name\":\"a\"}], \"x\" 1}";
  Result broken = Read(broken_text);
  ASSERT_EQ(broken.rows.size(), 1u);
  ASSERT_EQ(broken.issues.size(), 1u);
  EXPECT_EQ(broken.issues[0].kind, "trace_syntax");
  EXPECT_EQ(broken.issues[0].offset, broken_text.find(" 1}") + 1);

  const std::string trailing_text = "[{\"ph\":\"X\",\"name\":\"a\"}] junk";
  Result trailing = Read(trailing_text);
  ASSERT_EQ(trailing.rows.size(), 1u);
  ASSERT_EQ(trailing.issues.size(), 1u);
  EXPECT_EQ(trailing.issues[0].kind, "trace_trailing_data");
  EXPECT_EQ(trailing.issues[0].offset, trailing_text.find("junk"));
}

TEST(TraceReaderTest, FeedAfterFinishIsMisuse) {
  TraceReader reader(1024, {});
  reader.Feed("[]");
  reader.Finish();
  reader.Finish();
  try {
    reader.Feed("[]");
    FAIL() << "Feed after Finish did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kMisuse);
  }
}

}  // namespace
}  // namespace casefile
