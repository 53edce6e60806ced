// The same path twice in one archive: every copy is delivered, in archive
// order, and each repeat is reported as duplicate_entry before its OnEntry.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bundle/bundle_reader.h"
#include "bundle/duplicate_paths.h"
#include "bundle_test_visitor.h"
#include "test_util.h"

namespace casefile::test {
namespace {

BundleReadResult Read(const std::string& path, RecordingVisitor& v) {
  ReadBudget budget;
  return ReadBundle(path, Limits{}, budget, v);
}

TEST(DuplicateEntryTest, EveryCopyIsDeliveredAndEachRepeatReported) {
  // tar -r appends a newer copy of a file that is already in the archive;
  // "./a/x.log" normalises to the same path as "a/x.log" (a routine leading
  // "./", not a path_rewritten).
  TempDir tmp;
  const std::vector<ArchiveMember> members = {
      Dir("a/"), File("a/x.log", "first\n"), File("b.log", "b\n"), File("./a/x.log", "second\n"),
      Dir("a/"), File("a/x.log", "third\n"),
  };
  for (const std::string format : {"tar", "tar.zst", "zip"}) {
    const std::string path = tmp.Join("b." + format);
    WriteArchive(path, format, members);
    RecordingVisitor v;
    BundleReadResult r = Read(path, v);
    EXPECT_FALSE(r.partial) << format;
    ASSERT_EQ(v.Paths(),
              (std::vector<std::string>{"a", "a/x.log", "b.log", "a/x.log", "a", "a/x.log"}))
        << format;
    EXPECT_EQ(v.entries[1].bytes, "first\n");
    EXPECT_EQ(v.entries[3].bytes, "second\n");
    EXPECT_EQ(v.entries[5].bytes, "third\n");
    EXPECT_EQ(r.entries, 6u);

    // A repeated directory is harmless and not reported.
    std::vector<IngestIssue> dups = v.IssuesOf("duplicate_entry");
    ASSERT_EQ(dups.size(), 2u) << format;
    EXPECT_EQ(dups[0].path, "a/x.log");
    EXPECT_EQ(dups[0].offset, 0u);
    EXPECT_NE(dups[0].message.find("'a/x.log' (raw path './a/x.log') is the 2nd occurrence"),
              std::string::npos)
        << dups[0].message;
    EXPECT_NE(dups[1].message.find("'a/x.log' (raw path 'a/x.log') is the 3rd occurrence"),
              std::string::npos)
        << dups[1].message;
    // Path issues come before the entry they are about.
    EXPECT_EQ(v.events,
              (std::vector<std::string>{"entry a", "entry a/x.log", "entry b.log",
                                        "issue duplicate_entry a/x.log", "entry a/x.log", "entry a",
                                        "issue duplicate_entry a/x.log", "entry a/x.log"}))
        << format;
  }
}

TEST(DuplicateEntryTest, ALinkReplacingAFileIsADuplicateToo) {
  TempDir tmp;
  WriteArchive(tmp.Join("b.tar"), "tar",
               {File("logs/rank0.log", "x\n"), Symlink("logs/rank0.log", "/dev/null")});
  RecordingVisitor v;
  Read(tmp.Join("b.tar"), v);
  ASSERT_EQ(v.entries.size(), 2u);
  EXPECT_EQ(v.entries[1].info.type, EntryType::kSymlink);
  std::vector<IngestIssue> dups = v.IssuesOf("duplicate_entry");
  ASSERT_EQ(dups.size(), 1u);
  EXPECT_EQ(dups[0].path, "logs/rank0.log");
}

TEST(DuplicateEntryTest, DistinctPathsAreNotReported) {
  TempDir tmp;
  // Paths that differ only in case or in one byte of their high bits.
  WriteArchive(tmp.Join("b.tar"), "tar",
               {File("a/X.log", "1"), File("a/x.log", "2"), File("a/p.log", "3"),
                File("a/0.log", "4"), File("a/x.log.gz", "5")});
  RecordingVisitor v;
  Read(tmp.Join("b.tar"), v);
  EXPECT_EQ(v.entries.size(), 5u);
  EXPECT_TRUE(v.IssuesOf("duplicate_entry").empty());
}

TEST(DuplicatePathsTest, CountsOccurrencesAcrossGrowth) {
  bundle::DuplicatePaths seen;
  constexpr int kPaths = 100000;  // many growths of the table
  for (int i = 0; i < kPaths; ++i) {
    ASSERT_EQ(seen.Add("host-" + std::to_string(i % 97) + "/rank" + std::to_string(i) + ".log"), 1u)
        << i;
  }
  for (int i = 0; i < kPaths; i += 7) {
    ASSERT_EQ(seen.Add("host-" + std::to_string(i % 97) + "/rank" + std::to_string(i) + ".log"), 2u)
        << i;
  }
  EXPECT_EQ(seen.Add("host-0/rank0.log"), 3u);
  EXPECT_EQ(seen.Add("host-0/rank0.log"), 4u);
  EXPECT_EQ(seen.Add("host-1/rank1.log"), 2u);  // 1 % 7 != 0: only in the first loop
  EXPECT_EQ(seen.Add("host-1/rank100000.log"), 1u);
  EXPECT_EQ(seen.Add(""), 1u);
  EXPECT_EQ(seen.Add(""), 2u);
}

}  // namespace
}  // namespace casefile::test
