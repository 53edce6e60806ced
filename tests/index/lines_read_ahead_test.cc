// Scans of the `lines` table long enough to decode ahead on a second thread
// (block_read_ahead.h): every line once and in order, the same answers as
// the reader's own ScanLines, scans restarted and abandoned midway, and a
// damaged block in the middle of a scan.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "index/block_read_ahead.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index/line_block.h"
#include "index_fixture.h"
#include "test_util.h"

namespace casefile {
namespace {

using test::QueryAll;
using test::QueryOne;
using test::Row;

// Three files of kLines lines each; lines of ~1 KiB close a block every
// ~250 lines, so each file is a few dozen blocks. Every 97th line of file f
// reads "needle f:N".
constexpr int kFiles = 3;
constexpr int kLines = 6000;

std::string LineText(int file, int line) {
  if (line % 97 == 0) return "needle " + std::to_string(file) + ":" + std::to_string(line);
  return "line " + std::to_string(line) + " of file " + std::to_string(file) + " " +
         std::string(1000, static_cast<char>('a' + line % 26));
}

class LinesReadAhead : public ::testing::Test {
 protected:
  void SetUp() override {
    IndexWriter w(path_);
    const int64_t b = w.AddBundle(test::MakeBundle("run"));
    for (int f = 1; f <= kFiles; ++f) {
      const int64_t id = w.AddFile(test::MakeFile(b, "f" + std::to_string(f) + ".log"));
      for (int i = 1; i <= kLines; ++i) {
        const std::string text = LineText(f, i);
        w.AddLine(test::PlainLine(id, i, text, 0));
      }
      w.EndFileLines(id);
    }
    w.Commit();
    reader_ = IndexReader::Open(path_);
  }

  void Damage(const char* sql) {
    reader_.reset();
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    reader_ = IndexReader::Open(path_);
  }

  test::TempDir dir_;
  std::string path_ = dir_.Join("index.db");
  std::unique_ptr<IndexReader> reader_;
};

TEST_F(LinesReadAhead, ManyBlocksPerFile) {
  // The premise: a full scan reads far more blocks than it decodes alone.
  EXPECT_GT(std::stoi(*QueryOne(*reader_, "SELECT count(*) FROM line_blocks")), 40);
}

TEST_F(LinesReadAhead, EveryLineOnceAndInOrder) {
  const uint64_t ahead = BlocksReadAhead();
  const uint64_t blocks = std::stoull(*QueryOne(*reader_, "SELECT count(*) FROM line_blocks"));
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines"), std::to_string(kFiles * kLines));
  // All but the first blocks were decoded ahead (where there is a second
  // core to decode on).
  if (std::thread::hardware_concurrency() > 1) {
    EXPECT_GE(BlocksReadAhead() - ahead, blocks - 2);
  }
  // Rows come in (file, line) order with no gap or repeat.
  EXPECT_EQ(QueryOne(*reader_,
                     "SELECT count(*) FROM (SELECT file_id, line_no, "
                     "lag(file_id) OVER () AS pf, lag(line_no) OVER () AS pl FROM lines) "
                     "WHERE pf IS NOT NULL AND NOT ((file_id = pf AND line_no = pl + 1) OR "
                     "(file_id = pf + 1 AND line_no = 1))"),
            "0");
  // The text of every line is the one written (its length, and a sample).
  EXPECT_EQ(QueryOne(*reader_, "SELECT sum(length(text)) FROM lines"), [] {
    int64_t total = 0;
    for (int f = 1; f <= kFiles; ++f) {
      for (int i = 1; i <= kLines; ++i) total += static_cast<int64_t>(LineText(f, i).size());
    }
    return std::to_string(total);
  }());
  EXPECT_EQ(QueryOne(*reader_, "SELECT text FROM lines WHERE file_id = 2 AND line_no = 4321"),
            LineText(2, 4321));
}

TEST_F(LinesReadAhead, SubstringScanMatchesTheReader) {
  std::vector<Row> want;
  for (int f = 1; f <= kFiles; ++f) {
    reader_->ScanLines(f, [&](const LineRecord& r) {
      if (r.text.find("needle") != std::string_view::npos) {
        want.push_back({std::to_string(f), std::to_string(r.line_no), std::string(r.text)});
      }
      return true;
    });
  }
  ASSERT_EQ(want.size(), static_cast<size_t>(kFiles * (kLines / 97)));
  EXPECT_EQ(
      QueryAll(*reader_, "SELECT file_id, line_no, text FROM lines WHERE text LIKE '%needle%'"),
      want);
}

TEST_F(LinesReadAhead, ScansRestartedAndAbandoned) {
  // The inner scan is filtered again for each file while blocks of the last
  // scan are still being decoded ahead: each restart sees only its own.
  EXPECT_EQ(QueryAll(*reader_,
                     "SELECT f.id, (SELECT count(*) FROM lines AS l WHERE l.file_id >= f.id AND "
                     "l.text LIKE 'needle%') FROM files AS f ORDER BY f.id"),
            (std::vector<Row>{{"1", std::to_string(3 * (kLines / 97))},
                              {"2", std::to_string(2 * (kLines / 97))},
                              {"3", std::to_string(kLines / 97)}}));
  // A LIMIT stops the scan with blocks in flight.
  EXPECT_EQ(QueryAll(*reader_,
                     "SELECT line_no FROM lines WHERE file_id >= 1 AND line_no >= 2000 "
                     "AND text LIKE 'needle%' LIMIT 2"),
            (std::vector<Row>{{"2037"}, {"2134"}}));
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE text LIKE 'needle 3:%'"),
            std::to_string(kLines / 97));
}

TEST_F(LinesReadAhead, DamagedBlockMidScanIsAnError) {
  // A block far into the first file: the scan is decoding ahead by then.
  Damage(
      "UPDATE line_blocks SET data = x'28b52ffd0000' WHERE file_id = 1 AND first_line = "
      "(SELECT first_line FROM line_blocks WHERE file_id = 1 ORDER BY first_line LIMIT 1 OFFSET "
      "10)");
  try {
    QueryAll(*reader_, "SELECT count(*) FROM lines WHERE text LIKE '%needle%'");
    FAIL() << "scanned over a damaged block";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kQuery);
    EXPECT_NE(std::string(e.what()).find("corrupt line block"), std::string::npos) << e.what();
  }
  // The other files still read.
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM lines WHERE file_id >= 2"),
            std::to_string(2 * kLines));
}

}  // namespace
}  // namespace casefile
