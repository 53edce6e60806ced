#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "bundle/bundle_reader.h"
#include "common/error.h"
#include "test_util.h"

namespace casefile::test {
namespace {

namespace fs = std::filesystem;

void SetMtime(const std::string& path, long sec, long nsec) {
  struct timespec times[2] = {{sec, nsec}, {sec, nsec}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW), 0) << path;
}

TEST(IdentityTest, ArchiveIdentityIsPathSizeAndMtime) {
  TempDir tmp;
  std::string path = tmp.Join("host-3.tar.zst");
  WriteFile(path, "0123456789");
  SetMtime(path, 1764408000, 123456789);
  EXPECT_EQ(BundleIdentity(path), "archive:" + path + ":10:1764408000123456789");
  // A relative spelling of the same file has the same identity.
  fs::path cwd = fs::current_path();
  fs::current_path(tmp.path());
  std::string relative = BundleIdentity("./host-3.tar.zst");
  fs::current_path(cwd);
  EXPECT_EQ(relative, BundleIdentity(path));
  SetMtime(path, 1764408000, 123456790);
  EXPECT_EQ(BundleIdentity(path), "archive:" + path + ":10:1764408000123456790");
}

TEST(IdentityTest, DirectoryIdentityFollowsEveryEntry) {
  TempDir tmp;
  std::string dir = tmp.Join("bundle");
  WriteFile(dir + "/logs/a.log", "a\n");
  WriteFile(dir + "/b.log", "b\n");
  SetMtime(dir + "/logs/a.log", 1764408000, 0);
  SetMtime(dir + "/b.log", 1764408000, 0);
  SetMtime(dir + "/logs", 1764408000, 0);
  std::string first = BundleIdentity(dir);
  EXPECT_EQ(first.rfind("directory:", 0), 0u) << first;
  EXPECT_EQ(first.size(), std::string("directory:").size() + 16);
  EXPECT_EQ(BundleIdentity(dir + "/"), first);

  SetMtime(dir + "/logs/a.log", 1764408001, 0);
  std::string touched = BundleIdentity(dir);
  EXPECT_NE(touched, first);
  SetMtime(dir + "/logs/a.log", 1764408000, 0);
  EXPECT_EQ(BundleIdentity(dir), first);

  WriteFile(dir + "/b.log", "b changed\n");
  SetMtime(dir + "/b.log", 1764408000, 0);
  std::string resized = BundleIdentity(dir);
  EXPECT_NE(resized, first);

  WriteFile(dir + "/b.log", "b\n");
  SetMtime(dir + "/b.log", 1764408000, 0);
  EXPECT_EQ(BundleIdentity(dir), first);
  fs::create_symlink("/etc/passwd", dir + "/link");
  EXPECT_NE(BundleIdentity(dir), first);
}

TEST(IdentityTest, MissingInputIsNotFound) {
  TempDir tmp;
  try {
    BundleIdentity(tmp.Join("gone"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  }
}

TEST(DisplayNameTest, BaseNameWithoutTrailingSlash) {
  EXPECT_EQ(BundleDisplayName("/data/run-7/host-3.tar.zst"), "host-3.tar.zst");
  EXPECT_EQ(BundleDisplayName("/data/run-7/bundle/"), "bundle");
  EXPECT_EQ(BundleDisplayName("bundle//"), "bundle");
  EXPECT_EQ(BundleDisplayName("host-3.tar.zst"), "host-3.tar.zst");
  EXPECT_EQ(BundleDisplayName("."), fs::current_path().filename().string());
}

}  // namespace
}  // namespace casefile::test
