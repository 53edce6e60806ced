// collect/path_glob.h: files, directories and glob patterns into the files
// to collect, with what was not collected said.
#include "collect/path_glob.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

namespace casefile::collect {
namespace {

using casefile::test::TempDir;
using casefile::test::WriteFile;

std::vector<std::string> Relatives(const ExpandResult& r) {
  std::vector<std::string> out;
  for (const auto& f : r.files) out.push_back(f.relative);
  return out;
}

TEST(PathGlob, AFileIsItselfNamedByItsBaseName) {
  TempDir dir;
  WriteFile(dir.Join("logs/train.log"), "x\n");
  ExpandResult r;
  ExpandPathArgument(dir.Join("logs/train.log"), r);
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].path, dir.Join("logs/train.log"));
  EXPECT_EQ(r.files[0].relative, "train.log");
  EXPECT_TRUE(r.files[0].named);
  EXPECT_TRUE(r.errors.empty());
}

TEST(PathGlob, ADirectoryIsWalkedInNameOrder) {
  TempDir dir;
  WriteFile(dir.Join("run/b.log"), "b\n");
  WriteFile(dir.Join("run/a/z.log"), "z\n");
  WriteFile(dir.Join("run/a/y/x.log"), "x\n");
  ExpandResult r;
  // A trailing slash and a "." component name the same directory.
  ExpandPathArgument(dir.Join("run/./"), r);
  EXPECT_EQ(Relatives(r), (std::vector<std::string>{"run/a/y/x.log", "run/a/z.log", "run/b.log"}));
  for (const auto& f : r.files) EXPECT_FALSE(f.named);
}

TEST(PathGlob, GlobMatchesAreFilesOrDirectories) {
  TempDir dir;
  WriteFile(dir.Join("node1.log"), "1\n");
  WriteFile(dir.Join("node2.log"), "2\n");
  WriteFile(dir.Join("other.txt"), "o\n");
  WriteFile(dir.Join("nodes_dir/inner.log"), "i\n");
  ExpandResult r;
  ExpandPathArgument(dir.Join("node*"), r);
  EXPECT_EQ(Relatives(r),
            (std::vector<std::string>{"node1.log", "node2.log", "nodes_dir/inner.log"}));
  EXPECT_FALSE(r.files[0].named) << "a glob match is subject to --since";
  ExpandResult none;
  ExpandPathArgument(dir.Join("nomatch-*.log"), none);
  ASSERT_EQ(none.errors.size(), 1u);
  EXPECT_EQ(none.errors[0].message, "no file matches the pattern");
  EXPECT_TRUE(IsGlobPattern("a/*.log"));
  EXPECT_TRUE(IsGlobPattern("rank[0-3].log"));
  EXPECT_FALSE(IsGlobPattern("/var/log/syslog"));
}

TEST(PathGlob, LinksInsideADirectoryAreNotFollowedButANamedLinkIs) {
  TempDir dir;
  WriteFile(dir.Join("real/data.log"), "d\n");
  WriteFile(dir.Join("logs/a.log"), "a\n");
  ASSERT_EQ(::symlink(dir.Join("real/data.log").c_str(), dir.Join("logs/link.log").c_str()), 0);
  ASSERT_EQ(::symlink("/", dir.Join("logs/root").c_str()), 0);
  ExpandResult r;
  ExpandPathArgument(dir.Join("logs"), r);
  EXPECT_EQ(Relatives(r), (std::vector<std::string>{"logs/a.log"}));
  ASSERT_EQ(r.skipped.size(), 2u);
  EXPECT_EQ(r.skipped[0].source, dir.Join("logs/link.log"));
  EXPECT_EQ(r.skipped[0].reason, "symbolic link inside a directory, not followed");
  ExpandResult named;
  ExpandPathArgument(dir.Join("logs/link.log"), named);
  ASSERT_EQ(named.files.size(), 1u);
  EXPECT_EQ(named.files[0].relative, "link.log");
}

TEST(PathGlob, MissingPathsAndSpecialFilesAreErrors) {
  TempDir dir;
  ExpandResult r;
  ExpandPathArgument(dir.Join("missing.log"), r);
  ExpandPathArgument("", r);
  ASSERT_EQ(::mkfifo(dir.Join("fifo").c_str(), 0600), 0);
  ExpandPathArgument(dir.Join("fifo"), r);
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_EQ(r.errors[0].message, "not found");
  EXPECT_EQ(r.errors[1].message, "empty path");
  EXPECT_EQ(r.errors[2].message, "a FIFO, not read");
  EXPECT_TRUE(r.files.empty());
}

// A mode-000 directory: an error for an ordinary user; root may read it
// (and the walk then does), so the assertion follows who runs the test.
TEST(PathGlob, AModeZeroDirectoryIsAnErrorUnlessRootCanReadIt) {
  TempDir dir;
  WriteFile(dir.Join("d/a.log"), "a\n");
  ASSERT_EQ(::chmod(dir.Join("d").c_str(), 0), 0);
  ExpandResult r;
  ExpandPathArgument(dir.Join("d"), r);
  ::chmod(dir.Join("d").c_str(), 0700);
  if (::geteuid() == 0) {
    EXPECT_TRUE(r.errors.empty());
    EXPECT_EQ(Relatives(r), (std::vector<std::string>{"d/a.log"}));
  } else {
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].message, "cannot read directory: Permission denied");
    EXPECT_TRUE(r.files.empty());
  }
}

}  // namespace
}  // namespace casefile::collect
