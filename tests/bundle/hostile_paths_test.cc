// Member names that would climb out of the bundle or name absolute files are
// normalised, flagged and reported; names with nothing left are skipped.
#include <gtest/gtest.h>

#include <string>

#include "bundle/bundle_reader.h"
#include "bundle_test_visitor.h"
#include "test_util.h"

namespace casefile::test {
namespace {

TEST(HostilePathsTest, ArchiveNamesAreNormalisedAndFlagged) {
  TempDir tmp;
  for (const std::string format : {"tar", "tar.zst", "zip"}) {
    std::string path = tmp.Join("b." + format);
    WriteArchive(path, format,
                 {File("/etc/passwd", "p\n"), File("../../x", "x\n"), File("a/./b//c", "c\n"),
                  File("./ok.txt", "ok\n"), Dir("./"), Dir("dir/"), File("../..", "gone\n")});
    RecordingVisitor v;
    ReadBudget budget;
    BundleReadResult r = ReadBundle(path, Limits{}, budget, v);
    ASSERT_EQ(v.Paths(), (std::vector<std::string>{"etc/passwd", "x", "a/b/c", "ok.txt", "dir"}))
        << format;
    EXPECT_EQ(v.entries[0].info.raw_path, "/etc/passwd");
    EXPECT_TRUE(v.entries[0].info.path_rewritten);
    EXPECT_EQ(v.entries[0].bytes, "p\n");
    EXPECT_EQ(v.entries[1].info.raw_path, "../../x");
    EXPECT_TRUE(v.entries[1].info.path_rewritten);
    EXPECT_TRUE(v.entries[2].info.path_rewritten);
    // "./" prefixes and a directory's trailing '/' are routine, not hostile.
    EXPECT_FALSE(v.entries[3].info.path_rewritten);
    EXPECT_FALSE(v.entries[4].info.path_rewritten);

    std::vector<IngestIssue> rewritten = v.IssuesOf("path_rewritten");
    ASSERT_EQ(rewritten.size(), 3u) << format;
    EXPECT_EQ(rewritten[0].path, "etc/passwd");
    EXPECT_NE(rewritten[0].message.find("'/etc/passwd'"), std::string::npos);
    EXPECT_NE(rewritten[0].message.find("'etc/passwd'"), std::string::npos);
    EXPECT_EQ(rewritten[1].path, "x");
    EXPECT_NE(rewritten[1].message.find("'../../x'"), std::string::npos);
    EXPECT_EQ(rewritten[2].path, "a/b/c");

    std::vector<IngestIssue> invalid = v.IssuesOf("path_invalid");
    ASSERT_EQ(invalid.size(), 1u) << format;
    EXPECT_EQ(invalid[0].path, "../..");
    EXPECT_EQ(v.issues.size(), 4u);
    EXPECT_EQ(r.entries, 5u);
    EXPECT_EQ(r.bytes, 9u);  // "p\n" "x\n" "c\n" "ok\n"
    EXPECT_FALSE(r.partial);
  }
}

TEST(HostilePathsTest, BackslashesAreSeparators) {
  TempDir tmp;
  WriteArchive(tmp.Join("b.tar"), "tar", {File("logs\\host-0.log", "h\n")});
  RecordingVisitor v;
  ReadBudget budget;
  ReadBundle(tmp.Join("b.tar"), Limits{}, budget, v);
  ASSERT_EQ(v.Paths(), (std::vector<std::string>{"logs/host-0.log"}));
  EXPECT_TRUE(v.entries[0].info.path_rewritten);
  EXPECT_EQ(v.IssuesOf("path_rewritten").size(), 1u);
}

TEST(HostilePathsTest, DirectoryNamesWithBackslashesAreFlagged) {
  TempDir tmp;
  WriteFile(tmp.Join("d/a\\b.log"), "x");
  RecordingVisitor v;
  ReadBudget budget;
  ReadBundle(tmp.Join("d"), Limits{}, budget, v);
  ASSERT_EQ(v.entries.size(), 1u);
  EXPECT_EQ(v.entries[0].info.path, "a/b.log");
  EXPECT_EQ(v.entries[0].info.raw_path, "a\\b.log");
  EXPECT_TRUE(v.entries[0].info.path_rewritten);
  EXPECT_EQ(v.entries[0].bytes, "x");
}

}  // namespace
}  // namespace casefile::test
