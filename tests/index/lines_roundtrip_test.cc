// Lines written through IndexWriter come back unchanged through ScanLines,
// LineText and the `lines` virtual table: every metadata field, the NULL
// conventions, odd bytes, and lines on both sides of block boundaries.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/error.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index/line_block.h"
#include "index_fixture.h"
#include "test_util.h"

namespace casefile {
namespace {

using test::PlainLine;
using test::QueryAll;
using test::QueryOne;
using test::Row;

// A copy of a LineRecord that owns its strings.
struct OwnedLine {
  int64_t file_id, line_no;
  uint64_t offset;
  int64_t ts_us;
  Level level;
  int32_t rank;
  std::string host;
  int64_t pid;
  uint32_t msg_start, flags;
  std::string text;
};

OwnedLine Own(const LineRecord& l) {
  return {l.file_id,
          l.line_no,
          l.offset,
          l.ts_us,
          l.level,
          l.rank,
          std::string(l.host),
          l.pid,
          l.msg_start,
          l.flags,
          std::string(l.text)};
}

std::vector<OwnedLine> ScanAll(const IndexReader& r, int64_t file_id) {
  std::vector<OwnedLine> out;
  r.ScanLines(file_id, [&](const LineRecord& l) {
    out.push_back(Own(l));
    return true;
  });
  return out;
}

class LinesRoundTrip : public ::testing::Test {
 protected:
  test::TempDir dir_;
  std::string path_ = dir_.Join("index.db");
};

TEST_F(LinesRoundTrip, EveryFieldAndTheNullConventions) {
  static const char kBad[] = "bad \xff\xfe utf8 and a NUL \0 inside";
  const std::string bad_bytes(kBad, sizeof kBad - 1);
  {
    IndexWriter w(path_);
    int64_t b = w.AddBundle(test::MakeBundle("run1"));
    int64_t f = w.AddFile(test::MakeFile(b, "logs/worker_3.log"));
    ASSERT_EQ(f, 1);

    LineRecord l1;
    l1.file_id = f;
    l1.line_no = 1;
    l1.offset = 0;
    l1.ts_us = 1714564800500000;  // 2024-05-01T12:00:00.5Z
    l1.level = Level::kError;
    l1.rank = 3;
    l1.host = "host-a";
    l1.pid = 4242;
    l1.msg_start = 9;
    l1.flags = kLineHadAnsi;
    l1.text = "[rank 3] NCCL error: unhandled system error";
    w.AddLine(l1);

    w.AddLine(PlainLine(f, 2, "no metadata at all", 60));

    LineRecord l3;
    l3.file_id = f;
    l3.line_no = 3;
    l3.offset = 5000000000000ull;  // beyond 32 bits
    l3.ts_us = -1000;              // before the epoch, and earlier than line 1
    l3.level = Level::kFatal;
    l3.rank = 0;
    l3.host = "host-b";
    l3.pid = 0;
    l3.msg_start = 1000;  // past the end of the text: message is empty
    l3.flags = kLineInvalidUtf8 | kLineNoNewline;
    l3.text = bad_bytes;
    w.AddLine(l3);

    LineRecord l4;
    l4.file_id = f;
    l4.line_no = 4;
    l4.offset = 10;  // offsets need not grow
    l4.ts_us = std::numeric_limits<int64_t>::max();
    l4.level = Level::kTrace;
    l4.rank = std::numeric_limits<int32_t>::max();
    l4.host = "host-a";
    l4.pid = std::numeric_limits<int64_t>::max();
    l4.text = "";
    w.AddLine(l4);
    w.EndFileLines(f);
    w.Commit();
  }
  auto r = IndexReader::Open(path_);
  std::vector<OwnedLine> lines = ScanAll(*r, 1);
  ASSERT_EQ(lines.size(), 4u);

  EXPECT_EQ(lines[0].line_no, 1);
  EXPECT_EQ(lines[0].offset, 0u);
  EXPECT_EQ(lines[0].ts_us, 1714564800500000);
  EXPECT_EQ(lines[0].level, Level::kError);
  EXPECT_EQ(lines[0].rank, 3);
  EXPECT_EQ(lines[0].host, "host-a");
  EXPECT_EQ(lines[0].pid, 4242);
  EXPECT_EQ(lines[0].msg_start, 9u);
  EXPECT_EQ(lines[0].flags, kLineHadAnsi);
  EXPECT_EQ(lines[0].text, "[rank 3] NCCL error: unhandled system error");

  EXPECT_EQ(lines[1].line_no, 2);
  EXPECT_EQ(lines[1].offset, 60u);
  EXPECT_EQ(lines[1].ts_us, kNoTimestamp);
  EXPECT_EQ(lines[1].level, Level::kUnknown);
  EXPECT_EQ(lines[1].rank, -1);
  EXPECT_EQ(lines[1].host, "");
  EXPECT_EQ(lines[1].pid, -1);
  EXPECT_EQ(lines[1].msg_start, 0u);
  EXPECT_EQ(lines[1].flags, 0u);
  EXPECT_EQ(lines[1].text, "no metadata at all");

  EXPECT_EQ(lines[2].offset, 5000000000000ull);
  EXPECT_EQ(lines[2].ts_us, -1000);
  EXPECT_EQ(lines[2].level, Level::kFatal);
  EXPECT_EQ(lines[2].rank, 0);
  EXPECT_EQ(lines[2].host, "host-b");
  EXPECT_EQ(lines[2].pid, 0);
  EXPECT_EQ(lines[2].msg_start, 1000u);
  EXPECT_EQ(lines[2].flags, kLineInvalidUtf8 | kLineNoNewline);
  EXPECT_EQ(lines[2].text, bad_bytes);
  EXPECT_EQ(lines[2].text.size(), 30u);

  EXPECT_EQ(lines[3].offset, 10u);
  EXPECT_EQ(lines[3].ts_us, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(lines[3].level, Level::kTrace);
  EXPECT_EQ(lines[3].rank, std::numeric_limits<int32_t>::max());
  EXPECT_EQ(lines[3].pid, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(lines[3].text, "");

  EXPECT_EQ(r->LineText(1, 1), "[rank 3] NCCL error: unhandled system error");
  EXPECT_EQ(r->LineText(1, 3), bad_bytes);
  EXPECT_EQ(r->LineText(1, 4), "");
  EXPECT_EQ(r->LineText(1, 5), std::nullopt);
  EXPECT_EQ(r->LineText(1, 0), std::nullopt);
  EXPECT_EQ(r->LineText(2, 1), std::nullopt);

  // The same through SQL: unknown values are NULL, not sentinels.
  std::vector<Row> rows = QueryAll(
      *r,
      "SELECT file_id, line_no, offset, ts_us, level, host, rank, pid, flags, text, message "
      "FROM lines ORDER BY line_no");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], (Row{"1", "1", "0", "1714564800500000", "error", "host-a", "3", "4242", "4",
                          "[rank 3] NCCL error: unhandled system error",
                          "NCCL error: unhandled system error"}));
  EXPECT_EQ(rows[1], (Row{"1", "2", "60", std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                          std::nullopt, "0", "no metadata at all", "no metadata at all"}));
  EXPECT_EQ(rows[2], (Row{"1", "3", "5000000000000", "-1000", "fatal", "host-b", "0", "0", "24",
                          bad_bytes, ""}));
  EXPECT_EQ(rows[3], (Row{"1", "4", "10", "9223372036854775807", "trace", "host-a", "2147483647",
                          "9223372036854775807", "0", "", ""}));
}

TEST_F(LinesRoundTrip, EmptyLinesAndFilesWithoutLines) {
  {
    IndexWriter w(path_);
    int64_t b = w.AddBundle(test::MakeBundle("run1"));
    int64_t a = w.AddFile(test::MakeFile(b, "a.log"));
    int64_t empty = w.AddFile(test::MakeFile(b, "empty.log"));
    int64_t c = w.AddFile(test::MakeFile(b, "c.log"));
    w.AddLine(PlainLine(a, 1, "", 0));
    w.AddLine(PlainLine(a, 2, "", 1));
    w.AddLine(PlainLine(a, 3, "x", 2));
    w.AddLine(PlainLine(a, 4, "", 4));
    w.EndFileLines(a);
    w.EndFileLines(empty);  // a file with no lines
    w.AddLine(PlainLine(c, 1, "only line", 0));
    w.Commit();  // c is ended by Commit
  }
  auto r = IndexReader::Open(path_);
  std::vector<OwnedLine> a = ScanAll(*r, 1);
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0].text, "");
  EXPECT_EQ(a[2].text, "x");
  EXPECT_EQ(a[3].text, "");
  EXPECT_EQ(a[3].offset, 4u);
  EXPECT_TRUE(ScanAll(*r, 2).empty());
  EXPECT_EQ(r->LineText(2, 1), std::nullopt);
  EXPECT_EQ(r->LineText(3, 1), "only line");
  EXPECT_EQ(QueryOne(*r, "SELECT count(*) FROM lines WHERE file_id = 2"), "0");
  EXPECT_EQ(QueryOne(*r, "SELECT count(*) FROM line_blocks WHERE file_id = 2"), "0");
  EXPECT_EQ(QueryAll(*r, "SELECT file_id, count(*) FROM lines GROUP BY file_id"),
            (std::vector<Row>{{"1", "4"}, {"3", "1"}}));
}

TEST_F(LinesRoundTrip, LineCountLimitClosesBlocks) {
  // kMaxBlockLines is 4096: 8193 short lines make blocks of 4096, 4096, 1.
  const int kLines = 8193;
  std::vector<std::string> texts;
  for (int i = 1; i <= kLines; ++i) texts.push_back("line " + std::to_string(i));
  {
    IndexWriter w(path_);
    int64_t f = w.AddFile(test::MakeFile(w.AddBundle(test::MakeBundle("b")), "big.log"));
    uint64_t offset = 0;
    for (int i = 1; i <= kLines; ++i) {
      LineRecord l = PlainLine(f, i, texts[i - 1], offset);
      l.ts_us = 1000 * i;
      w.AddLine(l);
      offset += texts[i - 1].size() + 1;
    }
    w.Commit();
  }
  auto r = IndexReader::Open(path_);
  EXPECT_EQ(
      QueryAll(*r,
               "SELECT block_no, first_line, line_count, first_offset, min_ts, max_ts "
               "FROM line_blocks ORDER BY block_no"),
      (std::vector<Row>{{"0", "1", "4096", "0", "1000", "4096000"},
                        // "line 1".."line 9": 7 bytes each with the newline,
                        // "line 10".."line 99": 8, "line 100".."line 999": 9,
                        // "line 1000".."line 4096": 10.
                        {"1", "4097", "4096", std::to_string(9 * 7 + 90 * 8 + 900 * 9 + 3097 * 10),
                         "4097000", "8192000"},
                        {"2", "8193", "1", std::to_string(9 * 7 + 90 * 8 + 900 * 9 + 7193 * 10),
                         "8193000", "8193000"}}));
  for (int n : {1, 4095, 4096, 4097, 8192, 8193}) {
    EXPECT_EQ(r->LineText(1, n), "line " + std::to_string(n)) << n;
  }
  EXPECT_EQ(r->LineText(1, 8194), std::nullopt);
  std::vector<OwnedLine> all = ScanAll(*r, 1);
  ASSERT_EQ(all.size(), static_cast<size_t>(kLines));
  for (int i = 0; i < kLines; ++i) {
    ASSERT_EQ(all[i].line_no, i + 1);
    ASSERT_EQ(all[i].text, texts[i]);
    ASSERT_EQ(all[i].ts_us, 1000 * (i + 1));
  }
}

TEST_F(LinesRoundTrip, TextSizeLimitClosesBlocks) {
  // kMaxBlockTextBytes is 256 KiB = 262144, counting each line's newline: a
  // block closes once it holds at least that much, so with 1000-byte lines
  // (1001 bytes each) after 262 lines: 262 * 1001 = 262262.
  std::string text(1000, 'q');
  {
    IndexWriter w(path_);
    int64_t f = w.AddFile(test::MakeFile(w.AddBundle(test::MakeBundle("b")), "wide.log"));
    for (int i = 1; i <= 600; ++i) w.AddLine(PlainLine(f, i, text, (i - 1) * 1001ull));
    w.Commit();
  }
  auto r = IndexReader::Open(path_);
  EXPECT_EQ(QueryAll(*r, "SELECT first_line, line_count FROM line_blocks ORDER BY first_line"),
            (std::vector<Row>{{"1", "262"}, {"263", "262"}, {"525", "76"}}));
  EXPECT_EQ(r->LineText(1, 262), text);
  EXPECT_EQ(r->LineText(1, 263), text);
  EXPECT_EQ(QueryOne(*r, "SELECT offset FROM lines WHERE file_id = 1 AND line_no = 264"), "263263");
}

TEST_F(LinesRoundTrip, HostTableLimitClosesBlocks) {
  // kMaxBlockHosts is 255: the 256th distinct host starts a new block.
  std::vector<std::string> hosts;
  for (int i = 0; i < 300; ++i) hosts.push_back("node-" + std::to_string(i));
  {
    IndexWriter w(path_);
    int64_t f = w.AddFile(test::MakeFile(w.AddBundle(test::MakeBundle("b")), "merged.log"));
    for (int i = 0; i < 300; ++i) {
      LineRecord l = PlainLine(f, i + 1, "x", i * 2ull);
      l.host = hosts[i];
      w.AddLine(l);
    }
    w.Commit();
  }
  auto r = IndexReader::Open(path_);
  EXPECT_EQ(QueryAll(*r, "SELECT first_line, line_count FROM line_blocks ORDER BY first_line"),
            (std::vector<Row>{{"1", "255"}, {"256", "45"}}));
  std::vector<OwnedLine> all = ScanAll(*r, 1);
  ASSERT_EQ(all.size(), 300u);
  for (int i = 0; i < 300; ++i) EXPECT_EQ(all[i].host, hosts[i]);
}

TEST_F(LinesRoundTrip, ManyFiles) {
  const int kFiles = 500;
  int total = 0;
  {
    IndexWriter w(path_);
    int64_t b = w.AddBundle(test::MakeBundle("b"));
    for (int i = 1; i <= kFiles; ++i) {
      int64_t f = w.AddFile(test::MakeFile(b, "f" + std::to_string(i) + ".log"));
      ASSERT_EQ(f, i);
      for (int j = 1; j <= i % 7; ++j) {
        std::string t = "file " + std::to_string(i) + " line " + std::to_string(j);
        w.AddLine(PlainLine(f, j, t, 0));
        ++total;
      }
      w.EndFileLines(f);
    }
    w.Commit();
  }
  auto r = IndexReader::Open(path_);
  EXPECT_EQ(QueryOne(*r, "SELECT count(*) FROM lines"), std::to_string(total));
  EXPECT_EQ(QueryOne(*r, "SELECT count(*) FROM files"), "500");
  // File 250: 250 % 7 = 5 lines.
  std::vector<OwnedLine> f250 = ScanAll(*r, 250);
  ASSERT_EQ(f250.size(), 5u);
  EXPECT_EQ(f250[4].text, "file 250 line 5");
  EXPECT_TRUE(ScanAll(*r, 252).empty());  // 252 % 7 = 0
  EXPECT_EQ(r->LineText(499, 2), "file 499 line 2");
}

TEST_F(LinesRoundTrip, TextsHoldingNewlines) {
  // The parse stage never passes a newline inside a line, but the writer
  // must keep any bytes it is given: such a block stores text lengths.
  {
    IndexWriter w(path_);
    int64_t b = w.AddBundle(test::MakeBundle("b"));
    int64_t f = w.AddFile(test::MakeFile(b, "odd.log"));
    w.AddLine(PlainLine(f, 1, "plain", 0));
    w.AddLine(PlainLine(f, 2, "two\nparts", 6));
    w.AddLine(PlainLine(f, 3, "\n", 16));
    w.AddLine(PlainLine(f, 4, "", 18));
    int64_t g = w.AddFile(test::MakeFile(b, "plain.log"));
    w.AddLine(PlainLine(g, 1, "no newline here", 0));
    w.Commit();
  }
  auto r = IndexReader::Open(path_);
  std::vector<OwnedLine> odd = ScanAll(*r, 1);
  ASSERT_EQ(odd.size(), 4u);
  EXPECT_EQ(odd[0].text, "plain");
  EXPECT_EQ(odd[1].text, "two\nparts");
  EXPECT_EQ(odd[2].text, "\n");
  EXPECT_EQ(odd[3].text, "");
  EXPECT_EQ(odd[3].offset, 18u);
  EXPECT_EQ(r->LineText(2, 1), "no newline here");
  EXPECT_EQ(QueryOne(*r, "SELECT text FROM lines WHERE file_id = 1 AND line_no = 2"), "two\nparts");
}

TEST_F(LinesRoundTrip, ScanStopsWhenTheCallbackSaysSo) {
  {
    IndexWriter w(path_);
    int64_t f = w.AddFile(test::MakeFile(w.AddBundle(test::MakeBundle("b")), "a.log"));
    for (int i = 1; i <= 10; ++i) w.AddLine(PlainLine(f, i, "t", 0));
    w.Commit();
  }
  auto r = IndexReader::Open(path_);
  int seen = 0;
  r->ScanLines(1, [&](const LineRecord&) { return ++seen < 3; });
  EXPECT_EQ(seen, 3);
}

TEST_F(LinesRoundTrip, MisuseIsRefusedAndLeavesTheWriterUsable) {
  IndexWriter w(path_);
  int64_t b = w.AddBundle(test::MakeBundle("b"));
  int64_t f1 = w.AddFile(test::MakeFile(b, "1.log"));
  int64_t f2 = w.AddFile(test::MakeFile(b, "2.log"));
  try {
    w.AddLine(PlainLine(f1, 2, "starts at 2", 0));
    FAIL() << "a first line numbered 2 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kMisuse);
  }
  w.AddLine(PlainLine(f1, 1, "one", 0));
  try {
    w.AddLine(PlainLine(f1, 3, "gap", 0));
    FAIL() << "a gap in line numbers was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kMisuse);
  }
  w.AddLine(PlainLine(f2, 1, "two", 0));  // switching file ends f1
  try {
    w.AddLine(PlainLine(f1, 2, "late", 0));
    FAIL() << "a line of an ended file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kMisuse);
  }
  try {
    w.AddLine(PlainLine(99, 1, "unknown file", 0));
    FAIL() << "a line of an unknown file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kArgument);
  }
  try {
    w.AddFile(test::MakeFile(7, "x"));
    FAIL() << "a file of an unknown bundle was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kArgument);
  }
  w.Commit();
  try {
    w.AddLine(PlainLine(f2, 2, "after commit", 0));
    FAIL() << "a line after Commit was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kMisuse);
  }
  auto r = IndexReader::Open(path_);
  EXPECT_EQ(r->LineText(1, 1), "one");
  EXPECT_EQ(r->LineText(2, 1), "two");
  EXPECT_EQ(QueryOne(*r, "SELECT count(*) FROM lines"), "2");
}

TEST_F(LinesRoundTrip, OverlongLineIsCutAndFlagged) {
  std::string huge(kMaxStoredLineBytes + 10, 'z');
  {
    IndexWriter w(path_);
    int64_t f = w.AddFile(test::MakeFile(w.AddBundle(test::MakeBundle("b")), "a.log"));
    w.AddLine(PlainLine(f, 1, huge, 0));
    LineRecord after = PlainLine(f, 2, "after", huge.size() + 1);
    std::string long_host(2000, 'h');  // kMaxHostBytes is 1024
    after.host = long_host;
    w.AddLine(after);
    w.Commit();
  }
  auto r = IndexReader::Open(path_);
  std::vector<OwnedLine> all = ScanAll(*r, 1);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].text.size(), kMaxStoredLineBytes);
  EXPECT_EQ(all[0].flags, kLineTruncated);
  EXPECT_EQ(all[1].text, "after");
  EXPECT_EQ(all[1].host, std::string(1024, 'h'));
  EXPECT_EQ(all[1].offset, huge.size() + 1);
}

}  // namespace
}  // namespace casefile
