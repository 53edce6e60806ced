// A directory bundle deeper than PATH_MAX: the walk goes through directory
// descriptors, so every level whose path fits the 4096-byte entry path limit
// is read, the first one past it is skipped with path_invalid, and nothing
// fails for want of a full path.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "bundle/bundle_reader.h"
#include "bundle_test_visitor.h"
#include "test_util.h"

namespace casefile::test {
namespace {

constexpr int kDepth = 2100;  // "d/" * 2100: 4200 bytes, past PATH_MAX
constexpr int kFileAt = 1000;

// Builds root/d/d/.../d (kDepth levels) with x.log at level kFileAt, working
// through descriptors as no full path of the bottom levels is usable.
void MakeDeepTree(const std::string& root) {
  int fd = open(root.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  for (int level = 1; level <= kDepth; ++level) {
    ASSERT_EQ(mkdirat(fd, "d", 0755), 0) << level;
    int child = openat(fd, "d", O_RDONLY | O_DIRECTORY);
    ASSERT_GE(child, 0) << level;
    close(fd);
    fd = child;
    if (level == kFileAt) {
      int file = openat(fd, "x.log", O_WRONLY | O_CREAT, 0644);
      ASSERT_GE(file, 0);
      ASSERT_EQ(write(file, "deep\n", 5), 5);
      close(file);
    }
  }
  close(fd);
}

// TempDir's remove_all works through full paths: clear the chain first.
void RemoveDeepTree(const std::string& root) {
  int fd = open(root.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  for (int level = 1; level <= kDepth; ++level) {
    int child = openat(fd, "d", O_RDONLY | O_DIRECTORY);
    ASSERT_GE(child, 0);
    close(fd);
    fd = child;
    if (level == kFileAt) unlinkat(fd, "x.log", 0);
  }
  for (int level = kDepth; level >= 1; --level) {
    int up = openat(fd, "..", O_RDONLY | O_DIRECTORY);
    ASSERT_GE(up, 0);
    close(fd);
    fd = up;
    ASSERT_EQ(unlinkat(fd, "d", AT_REMOVEDIR), 0) << level;
  }
  close(fd);
}

std::string Chain(int levels) {
  std::string out;
  for (int i = 0; i < levels; ++i) out += i ? "/d" : "d";
  return out;
}

TEST(DeepTreeTest, EveryLevelWithinThePathLimitIsReadThroughDescriptors) {
  TempDir tmp;
  const std::string root = tmp.Join("bundle");
  WriteFile(root + "/top.log", "top\n");
  MakeDeepTree(root);
  if (HasFatalFailure()) return;

  RecordingVisitor v;
  ReadBudget budget;
  BundleReadResult r = ReadBundle(root, Limits{}, budget, v);
  EXPECT_FALSE(r.partial);
  // Levels 1..2048 have paths of at most 4095 bytes; level 2049's is 4097.
  const SeenEntry* deepest = v.Find(Chain(2048));
  ASSERT_NE(deepest, nullptr);
  EXPECT_EQ(deepest->info.type, EntryType::kDirectory);
  EXPECT_EQ(v.Find(Chain(2049)), nullptr);
  const SeenEntry* file = v.Find(Chain(kFileAt) + "/x.log");
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->bytes, "deep\n");
  EXPECT_EQ(v.Find("top.log")->bytes, "top\n");
  // One issue: the first directory past the limit, neither entered nor
  // failing as unreadable.
  ASSERT_EQ(v.issues.size(), 1u);
  EXPECT_EQ(v.issues[0].kind, "path_invalid");
  EXPECT_EQ(v.issues[0].path.substr(0, 8), "d/d/d/d/");
  EXPECT_EQ(v.entries.size(), 2048u + 2u);
  // The identity walk reads the same tree (and so does not throw).
  EXPECT_FALSE(BundleIdentity(root).empty());

  RemoveDeepTree(root);
}

}  // namespace
}  // namespace casefile::test
