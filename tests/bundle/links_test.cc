// Links and special files are recorded, never followed or opened.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <string>

#include "bundle/bundle_reader.h"
#include "bundle_test_visitor.h"
#include "test_util.h"

namespace casefile::test {
namespace {

namespace fs = std::filesystem;

TEST(LinksTest, DirectorySymlinksAreRecordedNotFollowed) {
  TempDir tmp;
  WriteFile(tmp.Join("outside/secret.txt"), "must not be read\n");
  WriteFile(tmp.Join("d/a.log"), "a\n");
  fs::create_symlink("/etc/passwd", tmp.Join("d/passwd"));
  fs::create_symlink(tmp.Join("outside"), tmp.Join("d/outside-link"));
  fs::create_symlink("a.log", tmp.Join("d/relative-link"));
  fs::create_symlink("missing-target", tmp.Join("d/dangling"));

  RecordingVisitor v;
  ReadBudget budget;
  BundleReadResult r = ReadBundle(tmp.Join("d"), Limits{}, budget, v);
  ASSERT_EQ(v.Paths(), (std::vector<std::string>{"a.log", "dangling", "outside-link", "passwd",
                                                 "relative-link"}));
  const SeenEntry* passwd = v.Find("passwd");
  EXPECT_EQ(passwd->info.type, EntryType::kSymlink);
  EXPECT_EQ(passwd->info.link_target, "/etc/passwd");
  EXPECT_FALSE(passwd->has_data);
  EXPECT_EQ(passwd->bytes, "");
  EXPECT_EQ(v.Find("outside-link")->info.type, EntryType::kSymlink);
  EXPECT_EQ(v.Find("outside-link")->info.link_target, tmp.Join("outside"));
  EXPECT_EQ(v.Find("relative-link")->info.link_target, "a.log");
  EXPECT_EQ(v.Find("dangling")->info.type, EntryType::kSymlink);
  // Only a.log's two bytes were delivered: nothing behind any link.
  EXPECT_EQ(r.bytes, 2u);
  EXPECT_TRUE(v.issues.empty());
}

TEST(LinksTest, ArchiveSymlinksAndHardlinksAreRecordedWithoutData) {
  TempDir tmp;
  for (const std::string format : {"tar", "tar.zst"}) {
    std::string path = tmp.Join("b." + format);
    WriteArchive(
        path, format,
        {File("a.txt", "content\n"), Hardlink("b.txt", "a.txt"), Hardlink("c.txt", "/a.txt"),
         Symlink("passwd", "/etc/passwd"), Symlink("up", "../../etc/shadow")});
    RecordingVisitor v;
    ReadBudget budget;
    BundleReadResult r = ReadBundle(path, Limits{}, budget, v);
    ASSERT_EQ(v.entries.size(), 5u) << format;
    EXPECT_EQ(v.entries[1].info.path, "b.txt");
    EXPECT_EQ(v.entries[1].info.type, EntryType::kHardlink);
    EXPECT_EQ(v.entries[1].info.link_target, "a.txt");
    EXPECT_FALSE(v.entries[1].has_data);
    // A hardlink names another member: its target is normalised like a path.
    EXPECT_EQ(v.entries[2].info.link_target, "a.txt");
    EXPECT_EQ(v.entries[3].info.type, EntryType::kSymlink);
    EXPECT_EQ(v.entries[3].info.link_target, "/etc/passwd");
    EXPECT_FALSE(v.entries[3].has_data);
    // A symlink target is kept as written: it is recorded, never resolved.
    EXPECT_EQ(v.entries[4].info.link_target, "../../etc/shadow");
    EXPECT_EQ(r.bytes, 8u);
    EXPECT_TRUE(v.issues.empty());
  }
}

TEST(LinksTest, FifoInADirectoryIsRecordedNotOpened) {
  TempDir tmp;
  WriteFile(tmp.Join("d/a.log"), "a\n");
  WriteFile(tmp.Join("d/z.log"), "z\n");
  ASSERT_EQ(mkfifo(tmp.Join("d/pipe").c_str(), 0600), 0);

  RecordingVisitor v;
  ReadBudget budget;
  // Opening the fifo for reading would block until a writer came: run the
  // read aside so that a regression fails the test instead of hanging it.
  auto read = std::async(std::launch::async,
                         [&] { return ReadBundle(tmp.Join("d"), Limits{}, budget, v); });
  if (read.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    int fd = open(tmp.Join("d/pipe").c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) close(fd);
    read.wait();
    FAIL() << "the reader blocked on the fifo";
  }
  BundleReadResult r = read.get();
  ASSERT_EQ(v.Paths(), (std::vector<std::string>{"a.log", "pipe", "z.log"}));
  EXPECT_EQ(v.entries[1].info.type, EntryType::kOther);
  EXPECT_FALSE(v.entries[1].has_data);
  EXPECT_EQ(v.entries[2].bytes, "z\n");
  EXPECT_FALSE(r.partial);
}

TEST(LinksTest, AFifoGivenAsTheInputIsRefusedWithoutBlocking) {
  TempDir tmp;
  ASSERT_EQ(mkfifo(tmp.Join("pipe").c_str(), 0600), 0);
  RecordingVisitor v;
  ReadBudget budget;
  auto read = std::async(std::launch::async, [&] {
    try {
      ReadBundle(tmp.Join("pipe"), Limits{}, budget, v);
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::kInternal;
  });
  if (read.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    int fd = open(tmp.Join("pipe").c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) close(fd);
    read.wait();
    FAIL() << "the reader blocked on the fifo";
  }
  EXPECT_EQ(read.get(), ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace casefile::test
