// Each limit cuts input at the right place, says so with its issue, and sets
// the partial state it implies.
#include <gtest/gtest.h>

#include <string>

#include "bundle/bundle_reader.h"
#include "bundle_test_visitor.h"
#include "test_util.h"

namespace casefile::test {
namespace {

TEST(LimitsTest, EntryLimitStopsTheInputAndMakesItPartial) {
  TempDir tmp;
  std::vector<ArchiveMember> five = {File("1", "a"), File("2", "b"), File("3", "c"), File("4", "d"),
                                     File("5", "e")};
  WriteArchive(tmp.Join("five.tar.zst"), "tar.zst", five);
  for (const std::string& name :
       {std::string("1"), std::string("2"), std::string("3"), std::string("4"), std::string("5")}) {
    WriteFile(tmp.Join("dir/" + name), "x");
  }
  Limits limits;
  limits.max_entries = 3;
  for (const std::string input : {"five.tar.zst", "dir"}) {
    RecordingVisitor v;
    ReadBudget budget;
    BundleReadResult r = ReadBundle(tmp.Join(input), limits, budget, v);
    EXPECT_EQ(v.Paths(), (std::vector<std::string>{"1", "2", "3"})) << input;
    EXPECT_EQ(r.entries, 3u);
    EXPECT_TRUE(r.partial);
    EXPECT_NE(r.error.find("'4'"), std::string::npos) << r.error;
    ASSERT_EQ(v.IssuesOf("entry_limit").size(), 1u) << input;
    EXPECT_EQ(v.issues.size(), 1u);
  }
  limits.max_entries = 5;
  RecordingVisitor v;
  ReadBudget budget;
  BundleReadResult r = ReadBundle(tmp.Join("five.tar.zst"), limits, budget, v);
  EXPECT_EQ(r.entries, 5u);
  EXPECT_FALSE(r.partial);
  EXPECT_TRUE(v.issues.empty());
}

TEST(LimitsTest, EntryByteCapTruncatesOneEntryAndGoesOn) {
  TempDir tmp;
  const std::string big = "0123456789ABCDEFGHIJKLMNO";
  WriteArchive(tmp.Join("b.tar"), "tar",
               {File("big.log", big), File("fits.log", "0123456789"), File("small.log", "tiny"),
                File("big.log.gz", Gzip(big))});
  WriteFile(tmp.Join("d/big.log"), big);
  WriteFile(tmp.Join("d/big.log.gz"), Gzip(big));
  WriteFile(tmp.Join("d/fits.log"), "0123456789");
  WriteFile(tmp.Join("d/small.log"), "tiny");
  Limits limits;
  limits.max_entry_bytes = 10;
  for (size_t chunk : {size_t{1}, size_t{4}, size_t{1} << 20}) {
    for (const std::string input : {"b.tar", "d"}) {
      RecordingVisitor v;
      ReadBudget budget;
      ReadTuning tuning;
      tuning.file_chunk_bytes = chunk;
      BundleReadResult r = ReadBundle(tmp.Join(input), limits, budget, v, tuning);
      std::string label = input + " chunk " + std::to_string(chunk);
      ASSERT_EQ(v.entries.size(), 4u) << label;
      EXPECT_EQ(v.Find("big.log")->bytes, "0123456789") << label;
      // The cap applies to the decompressed bytes of a .gz member.
      EXPECT_EQ(v.Find("big.log.gz")->bytes, "0123456789") << label;
      EXPECT_EQ(v.Find("fits.log")->bytes, "0123456789") << label;
      EXPECT_EQ(v.Find("small.log")->bytes, "tiny") << label;
      std::vector<IngestIssue> cut = v.IssuesOf("entry_truncated");
      ASSERT_EQ(cut.size(), 2u) << label;
      EXPECT_EQ(cut[0].path, "big.log");
      EXPECT_EQ(cut[0].offset, 10u);
      EXPECT_EQ(cut[1].path, "big.log.gz");
      EXPECT_EQ(cut[1].offset, 10u);
      EXPECT_EQ(v.issues.size(), 2u) << label;
      EXPECT_FALSE(r.partial) << label;
      EXPECT_EQ(r.bytes, 34u) << label;
    }
  }
}

TEST(LimitsTest, TotalLimitSpansInputsAndStopsAtTheCap) {
  TempDir tmp;
  WriteFile(tmp.Join("first/a.log"), std::string(20, 'a'));
  WriteFile(tmp.Join("first/b.log"), std::string(5, 'b'));
  WriteArchive(tmp.Join("second.tar.zst"), "tar.zst",
               {File("c.log", "cccccccc"), File("d.log", "ddd")});
  Limits limits;
  limits.max_total_bytes = 30;
  ReadBudget budget;

  RecordingVisitor first;
  BundleReadResult r1 = ReadBundle(tmp.Join("first"), limits, budget, first);
  EXPECT_FALSE(r1.partial);
  EXPECT_TRUE(first.issues.empty());
  EXPECT_EQ(budget.total_bytes, 25u);

  RecordingVisitor second;
  BundleReadResult r2 = ReadBundle(tmp.Join("second.tar.zst"), limits, budget, second);
  ASSERT_EQ(second.Paths(), (std::vector<std::string>{"c.log"}));
  EXPECT_EQ(second.entries[0].bytes, "ccccc");
  EXPECT_TRUE(r2.partial);
  EXPECT_NE(r2.error.find("'c.log'"), std::string::npos) << r2.error;
  std::vector<IngestIssue> total = second.IssuesOf("total_limit");
  ASSERT_EQ(total.size(), 1u);
  EXPECT_EQ(total[0].path, "c.log");
  EXPECT_EQ(total[0].offset, 5u);
  EXPECT_EQ(budget.total_bytes, 30u);
  EXPECT_EQ(r2.bytes, 5u);
}

TEST(LimitsTest, ReachingTheTotalExactlyIsNotACut) {
  TempDir tmp;
  WriteArchive(tmp.Join("b.tar"), "tar", {File("a", "12345"), File("empty", ""), Dir("d")});
  Limits limits;
  limits.max_total_bytes = 5;
  RecordingVisitor v;
  ReadBudget budget;
  BundleReadResult r = ReadBundle(tmp.Join("b.tar"), limits, budget, v);
  EXPECT_EQ(v.entries.size(), 3u);
  EXPECT_FALSE(r.partial);
  EXPECT_TRUE(v.issues.empty());
}

}  // namespace
}  // namespace casefile::test
