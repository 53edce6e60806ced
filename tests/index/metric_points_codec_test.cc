// metric_chunks.points is stored as one zstd frame and read back through
// casefile_points() (index/metric_points_codec.h): the text round-trips
// through the writer, the `metrics` view and a direct query; a damaged
// frame is an error that names the column, never a crash or a wrong value.
#include "index/metric_points_codec.h"

#include <gtest/gtest.h>

#include <string>

#include "common/error.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index_fixture.h"
#include "test_util.h"

namespace casefile {
namespace {

using test::QueryAll;
using test::QueryOne;
using test::Row;

TEST(MetricPointsCodec, CompressedFramesDecompressToTheText) {
  MetricPointsCompressor c;
  std::string text = "[";
  for (int i = 0; i < 1024; ++i) {
    text += std::string(i ? "," : "") + "[" + std::to_string(i % 7) + ",1,\"2." +
            std::to_string(4000 + i) + "\"]";
  }
  text += "]";
  const std::string frame(c.Compress(text));
  EXPECT_LT(frame.size() * 3, text.size());  // what the column is for
  EXPECT_EQ(DecompressMetricPoints(frame.data(), frame.size()), text);
  // The compressor is reused: a second, short text.
  const std::string second(c.Compress("[[0,null,\"nan\"]]"));
  EXPECT_EQ(DecompressMetricPoints(second.data(), second.size()), "[[0,null,\"nan\"]]");

  std::string cut = frame.substr(0, frame.size() / 2);
  EXPECT_THROW(DecompressMetricPoints(cut.data(), cut.size()), Error);
  const std::string junk = "[[0,1,\"2.5\"]]";  // text, not a frame
  try {
    DecompressMetricPoints(junk.data(), junk.size());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorrupt);
    EXPECT_NE(std::string(e.what()).find("metric_chunks.points"), std::string::npos);
  }
}

TEST(MetricPointsCodec, StoredAsABlobAndReadThroughTheFunctionAndTheView) {
  test::TempDir dir;
  const std::string path = dir.Join("index.db");
  {
    IndexWriter w(path);
    const int64_t b = w.AddBundle(test::MakeBundle("b"));
    const int64_t f = w.AddFile(test::MakeFile(b, "logs/train.log"));
    MetricChunkRow row;
    row.file_id = f;
    row.name = "loss";
    row.form = "key_value";
    row.first_line = 10;
    row.last_line = 30;
    row.point_count = 3;
    row.points = "[[0,100,\"2.5\"],[10,1,\"inf\"],[10,null,\"2.25\"]]";
    w.AddMetricChunk(row);
    w.Commit();
  }
  auto r = IndexReader::Open(path);
  EXPECT_EQ(QueryOne(*r, "SELECT typeof(points) FROM metric_chunks"), "blob");
  EXPECT_EQ(QueryOne(*r, "SELECT casefile_points(points) FROM metric_chunks"),
            "[[0,100,\"2.5\"],[10,1,\"inf\"],[10,null,\"2.25\"]]");
  EXPECT_EQ(
      QueryAll(*r, "SELECT line_no, step, value_text FROM metrics ORDER BY line_no"),
      (std::vector<Row>{{"10", "100", "2.5"}, {"20", "101", "inf"}, {"30", std::nullopt, "2.25"}}));
  // Text and NULL pass through; a blob that is not a frame is an SQL error.
  EXPECT_EQ(QueryOne(*r, "SELECT casefile_points('[[0,1,\"3\"]]')"), "[[0,1,\"3\"]]");
  EXPECT_EQ(QueryOne(*r, "SELECT casefile_points(NULL)"), std::nullopt);
  try {
    QueryAll(*r, "SELECT casefile_points(x'00112233')");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("metric_chunks.points"), std::string::npos) << e.what();
  }
}

std::string Hex(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

TEST(MetricPointsCodec, TheFunctionReadsManyFramesAndRejectsACutOne) {
  // One query over many frames (the function reuses one decompression
  // context per thread and hands SQLite its own buffer): each row gives its
  // own text. An empty text round-trips as ''. A cut frame is an error that
  // names the column, for the row it is in.
  test::TempDir dir;
  const std::string path = dir.Join("index.db");
  { IndexWriter(path).Commit(); }
  auto r = IndexReader::Open(path);
  MetricPointsCompressor c;
  std::string values;
  std::vector<Row> want;
  for (int i = 0; i < 300; ++i) {
    const std::string text = "[[0," + std::to_string(i) + ",\"" + std::to_string(i * 0.5) + "\"]]";
    values +=
        std::string(i ? "," : "") + "(" + std::to_string(i) + ", x'" + Hex(c.Compress(text)) + "')";
    want.push_back({std::to_string(i), text});
  }
  EXPECT_EQ(QueryAll(*r, "WITH t(n, b) AS (VALUES " + values +
                             ") SELECT n, casefile_points(b) FROM t ORDER BY n"),
            want);
  EXPECT_EQ(QueryOne(*r, "SELECT casefile_points(x'" + Hex(c.Compress("")) + "')"), "");
  const std::string frame(c.Compress(std::string(5000, '7')));
  try {
    QueryAll(*r, "SELECT casefile_points(x'" + Hex(frame.substr(0, frame.size() - 3)) + "')");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("metric_chunks.points"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace casefile
