// The template tables and the per-line signature column: rows written
// through IndexWriter come back through Templates(), TemplateSignatures(),
// ScanLines (LineRecord::signature) and the `lines` virtual table
// (signature_id, template_id), across block boundaries.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// Two signatures (ids 1, 2) in template 1, one (id 3) in template 2. File 1
// has more lines than a block holds; every third line has no signature.
std::string BuildIndex(const test::TempDir& dir, int64_t lines) {
  std::string db = dir.Join("t.db");
  IndexWriter w(db);
  int64_t b = w.AddBundle(test::MakeBundle("b"));
  int64_t f = w.AddFile(test::MakeFile(b, "logs/w.log"));
  std::vector<std::string> texts;
  uint64_t offset = 0;
  for (int64_t i = 1; i <= lines; ++i) {
    std::string text = "INFO step " + std::to_string(i);
    LineRecord l = PlainLine(f, i, text, offset);
    l.msg_start = 5;
    l.signature = i % 3 == 0 ? 0 : static_cast<uint32_t>(1 + i % 3);  // 2, 3, 0, 2, 3, 0...
    if (i == 1) l.signature = 1;
    w.AddLine(l);
    offset += text.size() + 1;
  }
  w.EndFileLines(f);
  w.AddTemplateSignature({1, 1, "info", "step <NUM>", 1, f, 1});
  w.AddTemplateSignature({2, 1, "info", "step <NUM>!", 10, f, 2});
  w.AddTemplateSignature({3, 2, "", "other <HEX>", 5, f, 4});
  w.AddTemplate({1, "info", "step <*>", 11, 2, f, 1, "step 1"});
  w.AddTemplate({2, "", "other <HEX>", 5, 1, f, 4, "other 0xdeadbeef01"});
  w.Commit();
  return db;
}

uint32_t ExpectedSignature(int64_t i) {
  if (i == 1) return 1;
  return i % 3 == 0 ? 0 : static_cast<uint32_t>(1 + i % 3);
}

TEST(TemplateRoundTrip, TablesComeBackInIdOrder) {
  test::TempDir dir;
  auto r = IndexReader::Open(BuildIndex(dir, 10));
  std::vector<TemplateRow> t = r->Templates();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].id, 1);
  EXPECT_EQ(t[0].level, "info");
  EXPECT_EQ(t[0].pattern, "step <*>");
  EXPECT_EQ(t[0].count, 11);
  EXPECT_EQ(t[0].signatures, 2);
  EXPECT_EQ(t[0].first_file_id, 1);
  EXPECT_EQ(t[0].first_line_no, 1);
  EXPECT_EQ(t[0].example, "step 1");
  EXPECT_EQ(t[1].level, "");
  EXPECT_EQ(t[1].example, "other 0xdeadbeef01");
  std::vector<TemplateSignatureRow> s = r->TemplateSignatures();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[1].id, 2);
  EXPECT_EQ(s[1].template_id, 1);
  EXPECT_EQ(s[1].pattern, "step <NUM>!");
  EXPECT_EQ(s[1].count, 10);
  EXPECT_EQ(s[1].first_line_no, 2);
  EXPECT_EQ(s[2].template_id, 2);
  EXPECT_EQ(s[2].level, "");
  EXPECT_EQ(QueryOne(*r, "SELECT count(*) FROM template_signatures WHERE template_id = 1"), "2");
}

TEST(TemplateRoundTrip, ScanLinesCarriesSignaturesAcrossBlocks) {
  test::TempDir dir;
  const int64_t n = static_cast<int64_t>(kMaxBlockLines) + 50;
  auto r = IndexReader::Open(BuildIndex(dir, n));
  int64_t seen = 0;
  r->ScanLines(1, [&](const LineRecord& l) {
    ++seen;
    EXPECT_EQ(l.signature, ExpectedSignature(l.line_no)) << "line " << l.line_no;
    return true;
  });
  EXPECT_EQ(seen, n);
}

TEST(TemplateRoundTrip, LinesTableJoinsSignaturesAndTemplates) {
  test::TempDir dir;
  const int64_t n = static_cast<int64_t>(kMaxBlockLines) + 50;
  auto r = IndexReader::Open(BuildIndex(dir, n));
  // Line 1: signature 1 -> template 1; 2: 3 -> 2; 3: none; 4: 2 -> 1.
  auto rows = QueryAll(*r,
                       "SELECT line_no, signature_id, template_id FROM lines "
                       "WHERE file_id = 1 AND line_no <= 4 ORDER BY line_no");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0][1], "1");
  EXPECT_EQ(rows[0][2], "1");
  EXPECT_EQ(rows[1][1], "3");
  EXPECT_EQ(rows[1][2], "2");
  EXPECT_EQ(rows[2][1], std::nullopt);
  EXPECT_EQ(rows[2][2], std::nullopt);
  EXPECT_EQ(rows[3][1], "2");
  EXPECT_EQ(rows[3][2], "1");
  // A line in the second block.
  const std::string last = std::to_string(n - 1);  // n - 1 = 4145: 4145 % 3 = 2 -> signature 3
  EXPECT_EQ(QueryOne(*r, "SELECT template_id FROM lines WHERE file_id = 1 AND line_no = " + last),
            "2");
  // Counts per template over the whole table, through a join.
  auto per = QueryAll(*r,
                      "SELECT t.pattern, count(*) FROM lines AS l JOIN templates AS t "
                      "ON t.id = l.template_id GROUP BY t.id ORDER BY t.id");
  ASSERT_EQ(per.size(), 2u);
  int64_t none = 0, two = 0, three = 0;
  for (int64_t i = 1; i <= n; ++i) {
    uint32_t s = ExpectedSignature(i);
    none += s == 0;
    two += s == 1 || s == 2;
    three += s == 3;
  }
  EXPECT_EQ(per[0][0], "step <*>");
  EXPECT_EQ(per[0][1], std::to_string(two));
  EXPECT_EQ(per[1][1], std::to_string(three));
  EXPECT_EQ(QueryOne(*r, "SELECT count(*) FROM lines WHERE signature_id IS NULL"),
            std::to_string(none));
}

TEST(TemplateRoundTrip, AnIndexWithoutTemplatesHasNullTemplateIds) {
  test::TempDir dir;
  std::string db = dir.Join("plain.db");
  {
    IndexWriter w(db);
    int64_t b = w.AddBundle(test::MakeBundle("b"));
    int64_t f = w.AddFile(test::MakeFile(b, "x.log"));
    LineRecord l = PlainLine(f, 1, "hello", 0);
    l.signature = 7;  // names a signature the tables do not hold
    w.AddLine(l);
    w.Commit();
  }
  auto r = IndexReader::Open(db);
  EXPECT_TRUE(r->Templates().empty());
  auto rows = QueryAll(*r, "SELECT signature_id, template_id FROM lines");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "7");
  EXPECT_EQ(rows[0][1], std::nullopt);
}

}  // namespace
}  // namespace casefile
