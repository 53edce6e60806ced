// The LIKE prefilter of the lines table (index/like_filter.h): it keeps the
// longest literal run of the pattern, never rejects a line that LIKE
// accepts (checked against a reference LIKE on generated patterns and
// lines, and through SQL against the same LIKE on an expression SQLite
// cannot push down), and does reject most lines that lack the run.
#include "index/like_filter.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index_fixture.h"
#include "test_util.h"

namespace casefile {
namespace {

// SQLite's two-argument LIKE: '%' any run, '_' one byte here (the test's
// texts are ASCII), ASCII letters compared without case.
bool ReferenceLike(std::string_view p, std::string_view t) {
  if (p.empty()) return t.empty();
  if (p[0] == '%') {
    for (size_t i = 0; i <= t.size(); ++i) {
      if (ReferenceLike(p.substr(1), t.substr(i))) return true;
    }
    return false;
  }
  if (t.empty()) return false;
  const bool same = p[0] == '_' || std::tolower(static_cast<unsigned char>(p[0])) ==
                                       std::tolower(static_cast<unsigned char>(t[0]));
  return same && ReferenceLike(p.substr(1), t.substr(1));
}

TEST(LikeFilter, KeepsTheLongestLiteralRunFolded) {
  EXPECT_EQ(LikeFilter("%Watchdog caught%").needle(), "watchdog caught");
  EXPECT_EQ(LikeFilter("a_bcd%ef").needle(), "bcd");
  EXPECT_EQ(LikeFilter("NCCL WARN%").needle(), "nccl warn");
  EXPECT_FALSE(LikeFilter("%").filters());
  EXPECT_FALSE(LikeFilter("%_%__").filters());
  EXPECT_FALSE(LikeFilter("").filters());
  EXPECT_TRUE(LikeFilter("x").filters());
}

TEST(LikeFilter, NeverRejectsALineThatLikeAccepts) {
  uint32_t seed = 99;
  auto next = [&] {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) & 0x7fff;
  };
  // '[' and '{' fold together under the filter's bit 5, as do 'A' and 'a'.
  const std::string alphabet = "abAB[{ 1_%";
  size_t accepted = 0, rejected = 0;
  for (int p = 0; p < 400; ++p) {
    std::string pattern;
    const size_t plen = 1 + next() % 8;
    for (size_t k = 0; k < plen; ++k) pattern += alphabet[next() % alphabet.size()];
    const LikeFilter filter(pattern);
    for (int t = 0; t < 200; ++t) {
      std::string text;
      const size_t tlen = next() % 40;
      for (size_t k = 0; k < tlen; ++k) text += alphabet[next() % 7];  // no wildcards
      if (ReferenceLike(pattern, text)) {
        ++accepted;
        ASSERT_TRUE(filter.MayMatch(text)) << pattern << " / " << text;
      } else if (!filter.MayMatch(text)) {
        ++rejected;
      }
    }
  }
  // Both sides were exercised, and the filter rejects lines of its own.
  EXPECT_GT(accepted, 2000u);
  EXPECT_GT(rejected, 20000u);
}

TEST(LikeFilter, FindsTheRunAtEveryOffsetOfLongLines) {
  const LikeFilter f("%NCCL WARN%");
  for (size_t at = 0; at < 70; ++at) {
    std::string text(at, 'x');
    text += "nccl warn";
    text += std::string(at % 17, 'y');
    EXPECT_TRUE(f.MayMatch(text)) << at;
    text[at + 5] = 'X';  // "nccl Xarn"
    EXPECT_FALSE(f.MayMatch(text)) << at;
  }
}

// Through SQL: the pushed-down LIKE counts what a LIKE SQLite evaluates
// alone counts ((text || '') is not a column, so nothing is pushed down).
TEST(LikeFilter, PushedDownLikeAgreesWithSqlitesOwn) {
  test::TempDir dir;
  const std::string path = dir.Join("index.db");
  {
    IndexWriter w(path);
    const int64_t b = w.AddBundle(test::MakeBundle("run"));
    const int64_t f = w.AddFile(test::MakeFile(b, "logs/w.log"));
    const char* shapes[] = {
        "[rank%d]: step %d loss 2.5 took 0.41s",
        "host-%d:1234:1250 [%d] NCCL INFO Channel 00/02 : 0 1",
        "host-%d:1234:1250 [%d] NCCL WARN NET/IB : Got async event : port error",
        "[E ProcessGroupNCCL.cpp:%d] Watchdog caught collective operation timeout: %d",
        "W1202 12:00:00.%06d 77 program.cc:%d] {brace} [bracket] 100%% done_ok",
    };
    for (int i = 1; i <= 6000; ++i) {
      char buf[160];
      std::snprintf(buf, sizeof buf, shapes[i % 5], i % 97, i);
      LineRecord l = test::PlainLine(f, i, buf, 0);
      // The message starts after "host-N:pid:tid [d] " for the NCCL shapes.
      const std::string_view t(buf);
      const size_t bracket = t.find("] ");
      if (i % 5 == 1 || i % 5 == 2) l.msg_start = static_cast<uint32_t>(bracket + 2);
      w.AddLine(l);
    }
    w.EndFileLines(f);
    w.Commit();
  }
  auto r = IndexReader::Open(path);
  for (const char* pattern :
       {"%Watchdog caught%", "%watchdog CAUGHT%", "%nccl warn%", "NCCL%", "%port error",
        "[rank1]:%", "%{BRACE} [bracket]%", "%[brace]%", "%100_ done%", "%_ok", "%", "%rank_2]%",
        "[E%timeout: 4%", "%took 0.41s", "%nothing like this%"}) {
    for (const char* column : {"text", "message"}) {
      const std::string where = std::string(column) + " LIKE '" + pattern + "'";
      const std::string own = "(" + std::string(column) + " || '') LIKE '" + pattern + "'";
      EXPECT_EQ(test::QueryOne(*r, "SELECT count(*) FROM lines WHERE " + where),
                test::QueryOne(*r, "SELECT count(*) FROM lines WHERE " + own))
          << where;
    }
  }
  // And the pushed-down form did filter: the watchdog lines only.
  EXPECT_EQ(test::QueryOne(*r, "SELECT count(*) FROM lines WHERE text LIKE '%Watchdog caught%'"),
            "1200");
}

}  // namespace
}  // namespace casefile
