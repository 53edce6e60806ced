// SQL over the `lines` virtual table: counts, constraints that pick blocks
// (checked with the decode counter), LIKE, ORDER BY, joins and the view.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index/line_block.h"
#include "index/schema.h"
#include "index_fixture.h"
#include "test_util.h"

namespace casefile {
namespace {

using test::QueryAll;
using test::QueryOne;
using test::Row;

// One bundle "run" with three files:
//   1 "big.log":   10000 lines "big N", ts_us = N * 1000, level info; the
//                  line 7777 reads "needle in big"; blocks hold lines
//                  1-4096, 4097-8192, 8193-10000.
//   2 "small.log": 3 lines "s1", "s2", "needle in small", host "h2", rank 2.
//   3 "none.log":  no lines.
class LinesVtab : public ::testing::Test {
 protected:
  void SetUp() override {
    IndexWriter w(path_);
    int64_t b = w.AddBundle(test::MakeBundle("run"));
    int64_t big = w.AddFile(test::MakeFile(b, "big.log"));
    for (int i = 1; i <= 10000; ++i) {
      std::string text = i == 7777 ? "needle in big" : "big " + std::to_string(i);
      LineRecord l = test::PlainLine(big, i, text, 0);
      l.ts_us = i * 1000;
      l.level = Level::kInfo;
      w.AddLine(l);
    }
    w.EndFileLines(big);
    int64_t small = w.AddFile(test::MakeFile(b, "small.log"));
    const char* texts[] = {"s1", "s2", "needle in small"};
    for (int i = 1; i <= 3; ++i) {
      LineRecord l = test::PlainLine(small, i, texts[i - 1], 0);
      l.host = "h2";
      l.rank = 2;
      w.AddLine(l);
    }
    w.EndFileLines(small);
    w.AddFile(test::MakeFile(b, "none.log"));
    w.Commit();
    reader_ = IndexReader::Open(path_);
  }

  // Blocks decoded while running `sql`.
  uint64_t DecodesFor(const std::string& sql) {
    uint64_t before = LineBlocksDecoded();
    QueryAll(*reader_, sql);
    return LineBlocksDecoded() - before;
  }

  test::TempDir dir_;
  std::string path_ = dir_.Join("index.db");
  std::unique_ptr<IndexReader> reader_;
};

TEST_F(LinesVtab, ColumnsAreDeclaredInSchemaOrder) {
  std::vector<Row> rows = QueryAll(*reader_, "SELECT name FROM pragma_table_info('lines')");
  const auto& spec = LinesVtabColumns();
  ASSERT_EQ(rows.size(), spec.size());
  const char* expected[] = {"file_id", "line_no",      "offset",     "ts_us", "level",
                            "host",    "rank",         "pid",        "flags", "text",
                            "message", "signature_id", "template_id"};
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][0], expected[i]);
    EXPECT_STREQ(spec[i].name, expected[i]);
  }
}

TEST_F(LinesVtab, CountsEveryLine) {
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines"), "10003");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id = 2"), "3");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id = 3"), "0");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id = 4"), "0");
  // A full scan decodes each of the four blocks once.
  EXPECT_EQ(DecodesFor("SELECT count(*) FROM lines"), 4u);
}

TEST_F(LinesVtab, LineRangeDecodesOnlyTheBlocksItNeeds) {
  EXPECT_EQ(QueryAll(*reader_,
                     "SELECT line_no, text FROM lines WHERE file_id = 1 AND line_no BETWEEN 10 "
                     "AND 12"),
            (std::vector<Row>{{"10", "big 10"}, {"11", "big 11"}, {"12", "big 12"}}));
  EXPECT_EQ(DecodesFor("SELECT * FROM lines WHERE file_id = 1 AND line_no BETWEEN 10 AND 20"), 1u);
  EXPECT_EQ(DecodesFor("SELECT * FROM lines WHERE file_id = 1 AND line_no = 5000"), 1u);
  EXPECT_EQ(DecodesFor("SELECT * FROM lines WHERE file_id = 1 AND line_no = 8193"), 1u);
  // 4090..4100 straddles the first two blocks.
  EXPECT_EQ(DecodesFor("SELECT * FROM lines WHERE file_id = 1 AND line_no BETWEEN 4090 AND 4100"),
            2u);
  EXPECT_EQ(QueryOne(*reader_,
                     "SELECT count(*) FROM lines WHERE file_id = 1 AND line_no BETWEEN 4090 AND "
                     "4100"),
            "11");
  EXPECT_EQ(DecodesFor("SELECT * FROM lines WHERE file_id = 1 AND line_no > 9000"), 1u);
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id = 1 AND line_no > 9000"),
            "1000");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id = 1 AND line_no < 3"),
            "2");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id = 1 AND line_no <= 3"),
            "3");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id = 1 AND line_no >= 9999"),
            "2");
  // Without file_id the line range still skips blocks: line 2 of every file.
  EXPECT_EQ(QueryAll(*reader_, "SELECT file_id, text FROM lines WHERE line_no = 2"),
            (std::vector<Row>{{"1", "big 2"}, {"2", "s2"}}));
  EXPECT_EQ(DecodesFor("SELECT * FROM lines WHERE line_no = 2"), 2u);
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id = 1 AND line_no = 10001"),
            "0");
}

TEST_F(LinesVtab, ConstraintValuesOfOtherTypes) {
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id = 1 AND line_no = 2.5"),
            "0");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id = 1 AND line_no > 9998.5"),
            "2");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id = 1 AND line_no < 2.5"),
            "2");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id = 2.0"), "3");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id = '2'"), "3");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id = NULL"), "0");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id IN (2, 3)"), "3");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id > 1"), "3");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE line_no > 9223372036854775807"),
            "0");
}

TEST_F(LinesVtab, TimeRangeSkipsBlocks) {
  // ts_us = line * 1000; lines 5000..5002 are all in the second block.
  EXPECT_EQ(QueryAll(*reader_, "SELECT line_no FROM lines WHERE ts_us BETWEEN 5000000 AND 5002000"),
            (std::vector<Row>{{"5000"}, {"5001"}, {"5002"}}));
  EXPECT_EQ(DecodesFor("SELECT line_no FROM lines WHERE ts_us BETWEEN 5000000 AND 5002000"), 1u);
  // Lines without a timestamp never match a time constraint.
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE ts_us >= 0"), "10000");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE ts_us IS NULL"), "3");
}

TEST_F(LinesVtab, TextSearchOrderingAndNulls) {
  EXPECT_EQ(QueryAll(*reader_,
                     "SELECT file_id, line_no, text FROM lines WHERE text LIKE '%needle%' "
                     "ORDER BY file_id, line_no"),
            (std::vector<Row>{{"1", "7777", "needle in big"}, {"2", "3", "needle in small"}}));
  EXPECT_EQ(QueryAll(*reader_,
                     "SELECT line_no FROM lines WHERE file_id = 1 ORDER BY line_no DESC LIMIT 3"),
            (std::vector<Row>{{"10000"}, {"9999"}, {"9998"}}));
  EXPECT_EQ(QueryAll(*reader_, "SELECT text FROM lines WHERE file_id = 2 ORDER BY text DESC"),
            (std::vector<Row>{{"s2"}, {"s1"}, {"needle in small"}}));
  EXPECT_EQ(QueryAll(*reader_,
                     "SELECT level, host, rank, pid, ts_us FROM lines WHERE file_id = 2 AND "
                     "line_no = 1"),
            (std::vector<Row>{{std::nullopt, "h2", "2", std::nullopt, std::nullopt}}));
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE level = 'info'"), "10000");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE host IS NULL"), "10000");
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE rank IS NULL"), "10000");
}

TEST_F(LinesVtab, JoinsWithFilesAndTheView) {
  EXPECT_EQ(QueryAll(*reader_,
                     "SELECT f.path, l.line_no FROM files AS f JOIN lines AS l ON l.file_id = f.id "
                     "WHERE l.text LIKE 'needle%' ORDER BY f.path"),
            (std::vector<Row>{{"big.log", "7777"}, {"small.log", "3"}}));
  EXPECT_EQ(QueryAll(*reader_,
                     "SELECT f.path, count(l.line_no) FROM files AS f LEFT JOIN lines AS l "
                     "ON l.file_id = f.id GROUP BY f.id ORDER BY f.id"),
            (std::vector<Row>{{"big.log", "10000"}, {"small.log", "3"}, {"none.log", "0"}}));
  EXPECT_EQ(QueryAll(*reader_,
                     "SELECT bundle, path, line_no, text FROM lines_with_path "
                     "WHERE path = 'small.log' AND line_no = 2"),
            (std::vector<Row>{{"run", "small.log", "2", "s2"}}));
  // Driven from files, the join decodes only small.log's block.
  EXPECT_EQ(DecodesFor("SELECT l.text FROM files AS f JOIN lines AS l ON l.file_id = f.id "
                       "WHERE f.path = 'small.log'"),
            1u);
}

TEST_F(LinesVtab, LinesCannotBeWritten) {
  try {
    reader_->Query("INSERT INTO lines (file_id, line_no, text) VALUES (1, 1, 'x')",
                   [](const QueryRow&) { return true; });
    FAIL() << "INSERT INTO lines was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kReadOnly);
  }
}

}  // namespace
}  // namespace casefile
