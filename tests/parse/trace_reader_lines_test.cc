// TraceReader's evidence fields: every row carries the byte offset and the
// 1-based line where its object starts, and, during the callback, the
// object's text in `raw` (empty for a B/E pair). Checked on the layouts
// traces are written in (TSL's single line, one event per line, Kineto's
// indented lines, pretty-printed multi-line objects, CRLF), fed whole and
// in pieces of every size.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parse/trace/trace_reader.h"

namespace casefile {
namespace {

struct Seen {
  std::string name;
  std::string phase;
  uint64_t offset;
  int64_t line_no;
  std::string raw;  // copied during the callback
};

std::vector<Seen> Read(const std::string& text, size_t chunk = 0) {
  std::vector<Seen> out;
  TraceReader reader(
      1 << 20,
      {[&](TraceEventRow&& row) {
         out.push_back({row.name, row.phase, row.offset, row.line_no, std::string(row.raw)});
       },
       nullptr});
  if (chunk == 0) {
    reader.Feed(text);
  } else {
    for (size_t i = 0; i < text.size(); i += chunk) reader.Feed(text.substr(i, chunk));
  }
  reader.Finish();
  return out;
}

// The 1-based line of byte `offset` in `text`.
int64_t LineAt(const std::string& text, size_t offset) {
  int64_t line = 1;
  for (size_t i = 0; i < offset; ++i) line += text[i] == '\n';
  return line;
}

// Every row's offset points at its own object, its line is the line of that
// offset, and raw is the object, for every way of cutting the input.
void ExpectEvidence(const std::string& text, const std::vector<std::string>& objects) {
  for (size_t chunk : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{17}, size_t{64}}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    std::vector<Seen> rows = Read(text, chunk);
    ASSERT_EQ(rows.size(), objects.size());
    size_t from = 0;
    for (size_t i = 0; i < objects.size(); ++i) {
      const size_t at = text.find(objects[i], from);
      ASSERT_NE(at, std::string::npos);
      from = at + objects[i].size();
      EXPECT_EQ(rows[i].offset, at) << i;
      EXPECT_EQ(rows[i].line_no, LineAt(text, at)) << i;
      EXPECT_EQ(rows[i].raw, objects[i]) << i;
    }
  }
}

const std::string kA =
    R"({"ph":"X","pid":1,"tid":3,"ts":10.5,"dur":2,"name":"all-reduce-start.3","args":{"long_name":"x"}})";
const std::string kB =
    R"({"ph":"X","pid":1,"tid":3,"ts":13,"dur":1e-06,"name":"all-reduce-done.3","args":{}})";
const std::string kC =
    R"({"ph":"X","pid":9,"tid":1,"ts":20,"dur":5,"name":"Megascale: Memory Copy","args":{"bytes":"4096"}})";
const std::string kMeta =
    R"({"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"name":"XLA Ops"}})";

TEST(TraceReaderLines, TslSingleLineGivesLineOneAndExactOffsets) {
  const std::string text =
      R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[)" + kMeta + "," +
      kA + "," + kB + "," + kC + ",{}]}";
  ExpectEvidence(text, {kA, kB, kC});
  for (const Seen& s : Read(text)) EXPECT_EQ(s.line_no, 1);
}

TEST(TraceReaderLines, OneEventPerLine) {
  const std::string text =
      "{\"traceEvents\":[\n" + kMeta + ",\n" + kA + ",\n" + kB + ",\n" + kC + ",\n{}\n]}\n";
  ExpectEvidence(text, {kA, kB, kC});
  std::vector<Seen> rows = Read(text);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].line_no, 3);  // the M event holds line 2
  EXPECT_EQ(rows[2].line_no, 5);
}

TEST(TraceReaderLines, CrlfLineEnds) {
  const std::string text = "{\"traceEvents\":[\r\n" + kA + ",\r\n" + kB + "\r\n]}\r\n";
  ExpectEvidence(text, {kA, kB});
  EXPECT_EQ(Read(text)[1].line_no, 3);
}

TEST(TraceReaderLines, KinetoIndentedEventsAfterLargeHeader) {
  // Kineto: top-level keys (deviceProperties...) over several lines first,
  // then "\n  {" before each event.
  const std::string k1 =
      R"J({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 20, "ts": 1234.567, "dur": 5.120, "args": {"stream": 20}})J";
  const std::string k2 =
      R"({"ph": "i", "cat": "", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 1300.000})";
  const std::string text =
      "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\"id\": 0, \"name\": "
      "\"NVIDIA H100 80GB HBM3\"}\n  ],\n  \"displayTimeUnit\": \"ms\",\n  \"traceEvents\": [\n  " +
      k1 + ",\n  " + k2 + "\n  ],\n  \"traceName\": \"x\"\n}\n";
  ExpectEvidence(text, {k1, k2});
  EXPECT_EQ(Read(text)[0].line_no, 8);
}

TEST(TraceReaderLines, MultiLineObjectGivesTheLineOfItsBrace) {
  const std::string pretty =
      "{\n    \"ph\": \"X\",\n    \"pid\": 1,\n    \"tid\": 2,\n    \"ts\": 5,\n    \"dur\": 1,\n"
      "    \"name\": \"recv-done.6\"\n  }";
  const std::string text = "{\"traceEvents\": [\n  " + pretty + ",\n  " + kC + "\n]}";
  ExpectEvidence(text, {pretty, kC});
  std::vector<Seen> rows = Read(text);
  EXPECT_EQ(rows[0].line_no, 2);
  EXPECT_EQ(rows[1].line_no, 10);  // pretty spans lines 2-9
}

TEST(TraceReaderLines, BareArrayForm) {
  const std::string text = "[\n" + kA + ",\n" + kC + "\n]";
  ExpectEvidence(text, {kA, kC});
}

TEST(TraceReaderLines, InvalidEventsDoNotShiftLaterLines) {
  const std::string bad = R"({"ph":"X","ts":"soon","name":"bad"})";
  const std::string text = "{\"traceEvents\":[\n" + bad + ",\n" + kA + ",\n" + kC + "\n]}";
  ExpectEvidence(text, {kA, kC});
  EXPECT_EQ(Read(text)[0].line_no, 3);
}

TEST(TraceReaderLines, BeginEndPairCarriesTheBeginWithoutRaw) {
  const std::string b = R"({"ph":"B","pid":9,"tid":3,"ts":100,"name":"MapDmaBuffer"})";
  const std::string e = R"({"ph":"E","pid":9,"tid":3,"ts":160})";
  const std::string text =
      "{\"traceEvents\":[\n" + kA + ",\n" + b + ",\n" + kC + ",\n" + e + "\n]}";
  for (size_t chunk : {size_t{0}, size_t{1}, size_t{5}}) {
    std::vector<Seen> rows = Read(text, chunk);
    ASSERT_EQ(rows.size(), 3u);
    // Rows come in emission order: kA, kC, then the pair when E closes it.
    EXPECT_EQ(rows[2].name, "MapDmaBuffer");
    EXPECT_EQ(rows[2].phase, "X");
    EXPECT_EQ(rows[2].offset, text.find(b));
    EXPECT_EQ(rows[2].line_no, 3);
    EXPECT_EQ(rows[2].raw, "");
    EXPECT_EQ(rows[1].raw, kC);
    EXPECT_EQ(rows[1].line_no, 4);
  }
}

TEST(TraceReaderLines, BeginNeverEndedKeepsItsLine) {
  const std::string b = R"({"ph":"B","pid":9,"tid":3,"ts":100,"name":"step"})";
  const std::string text = "{\"traceEvents\":[\n" + kA + ",\n" + b + "\n]}";
  std::vector<Seen> rows = Read(text);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].phase, "B");
  EXPECT_EQ(rows[1].line_no, 3);
  EXPECT_EQ(rows[1].offset, text.find(b));
}

}  // namespace
}  // namespace casefile
