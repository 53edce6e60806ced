#include "bundle/entry_path.h"

#include <gtest/gtest.h>

#include <string>

namespace casefile::bundle {
namespace {

struct Case {
  const char* raw;
  const char* path;
  bool rewritten;
};

TEST(EntryPathTest, NormalisesAndFlagsHostileSpellings) {
  const Case cases[] = {
      {"logs/host-0.log", "logs/host-0.log", false},
      {"/etc/passwd", "etc/passwd", true},
      {"../../etc/passwd", "etc/passwd", true},
      {"../../x", "x", true},
      {"a/./b//c", "a/b/c", true},
      {"a/b/../c", "a/c", true},
      {"a/../../../b", "b", true},
      {"a\\b\\c.log", "a/b/c.log", true},
      {"//server/share", "server/share", true},
      {"./logs/host-0.log", "logs/host-0.log", false},
      {"././x", "x", false},
      {"dir/", "dir", false},
      {"./dir/", "dir", false},
      {"..", "", true},
      {"../..", "", true},
      {"/", "", true},
  };
  for (const auto& c : cases) {
    NormalizedPath n = NormalizeEntryPath(c.raw);
    EXPECT_EQ(n.path, c.path) << c.raw;
    EXPECT_EQ(n.rewritten, c.rewritten) << c.raw;
  }
}

TEST(EntryPathTest, RefusesOverlongPaths) {
  std::string raw(kMaxEntryPathBytes + 1, 'a');
  NormalizedPath n = NormalizeEntryPath(raw);
  EXPECT_EQ(n.path, "");
  std::string fits(kMaxEntryPathBytes, 'a');
  EXPECT_EQ(NormalizeEntryPath(fits).path, fits);
}

TEST(EntryPathTest, RootSpellings) {
  EXPECT_TRUE(IsRootPath("."));
  EXPECT_TRUE(IsRootPath("./"));
  EXPECT_FALSE(IsRootPath(".."));
  EXPECT_FALSE(IsRootPath("../"));
  EXPECT_FALSE(IsRootPath("a"));
  EXPECT_FALSE(IsRootPath(""));
}

TEST(EntryPathTest, GzipSuffix) {
  EXPECT_TRUE(HasGzipSuffix("rank0.log.gz"));
  EXPECT_TRUE(HasGzipSuffix("trace.json.gz"));
  EXPECT_TRUE(HasGzipSuffix("X.GZ"));
  EXPECT_FALSE(HasGzipSuffix("rank0.log"));
  EXPECT_FALSE(HasGzipSuffix("bundle.tgz"));
  EXPECT_FALSE(HasGzipSuffix("gz"));
  EXPECT_FALSE(HasGzipSuffix("a.gzip"));
}

}  // namespace
}  // namespace casefile::bundle
