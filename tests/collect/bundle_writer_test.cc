// collect/bundle_writer.h: entries go out in the order given, with the
// declared sizes and metadata, NUL-padded when short, as one zstd stream.
#include "collect/bundle_writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "collect_fixture.h"
#include "common/error.h"
#include "test_util.h"

namespace casefile::collect {
namespace {

using casefile::test::ReadFile;
using casefile::test::TempDir;

class BundleWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.Join("b.tar.zst");
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
  }
  TempDir dir_;
  std::string path_;
  int fd_ = -1;
};

TEST_F(BundleWriterTest, EntriesInOrderWithTheirMetadata) {
  uint64_t compressed;
  {
    BundleWriter w(fd_, {});
    w.BeginFile("casefile.json", 2, EntryMeta::Fixed());
    EXPECT_EQ(w.Write("{}"), 2u);
    EXPECT_EQ(w.EndFile(), 0u);
    w.BeginFile("hosts/h/logs/a.log", 6, {1764408000, 0600, 1000, 100});
    w.Write("abc");
    w.Write("def");
    w.EndFile();
    // A path past the 100 bytes of a ustar name field, and non-ASCII.
    const std::string long_path = "hosts/h/hlo/" + std::string(120, 'm') + "/caf\xC3\xA9.txt";
    w.BeginFile(long_path, 1, EntryMeta::Fixed());
    w.Write("x");
    compressed = w.Close();
  }
  EXPECT_EQ(compressed, ReadFile(path_).size());
  std::vector<test::BundleEntry> e = test::ReadBundle(path_);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].path, "casefile.json");
  EXPECT_EQ(e[0].content, "{}");
  EXPECT_EQ(e[0].mtime, 0);
  EXPECT_EQ(e[0].mode, 0644u);
  EXPECT_EQ(e[1].path, "hosts/h/logs/a.log");
  EXPECT_EQ(e[1].content, "abcdef");
  EXPECT_EQ(e[1].mtime, 1764408000);
  EXPECT_EQ(e[1].mode, 0600u);
  EXPECT_EQ(e[1].uid, 1000);
  EXPECT_EQ(e[1].gid, 100);
  EXPECT_EQ(e[2].path.size(), 12u + 120u + 10u);
  EXPECT_EQ(e[2].content, "x");
  // zstd magic: the stream is zstd, not a tar.
  EXPECT_EQ(ReadFile(path_).substr(0, 4), "\x28\xb5\x2f\xfd");
}

TEST_F(BundleWriterTest, BytesPastTheDeclaredSizeAreNotWrittenAndShortFilesArePadded) {
  {
    BundleWriter w(fd_, {});
    w.BeginFile("a", 3, EntryMeta::Fixed());
    EXPECT_EQ(w.Write("abcdef"), 3u);
    EXPECT_EQ(w.Write("more"), 0u);
    EXPECT_EQ(w.EndFile(), 0u);
    w.BeginFile("b", 5, EntryMeta::Fixed());
    w.Write("xy");
    EXPECT_EQ(w.EndFile(), 3u);
    w.Close();
  }
  std::vector<test::BundleEntry> e = test::ReadBundle(path_);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].content, "abc");
  EXPECT_EQ(e[1].content, std::string("xy\0\0\0", 5));
}

TEST_F(BundleWriterTest, TheSameEntriesGiveTheSameBytesWhateverTheThreads) {
  auto write = [&](const std::string& path, unsigned threads) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    BundleWriterOptions options;
    options.threads = threads;
    {
      BundleWriter w(fd, options);
      std::string data;
      for (int i = 0; i < 200000; ++i) data += "line " + std::to_string(i * 7919 % 100003) + "\n";
      w.BeginFile("x.log", data.size(), EntryMeta::Fixed());
      w.Write(data);
      w.Close();
    }
    ::close(fd);
    return ReadFile(path);
  };
  std::string one = write(dir_.Join("one"), 1);
  EXPECT_EQ(one, write(dir_.Join("two"), 2));
  EXPECT_EQ(one, write(dir_.Join("four"), 4));
}

TEST_F(BundleWriterTest, AnUnwritableOutputThrows) {
  int ro = ::open(path_.c_str(), O_RDONLY);
  ASSERT_GE(ro, 0);
  EXPECT_THROW(
      {
        BundleWriter w(ro, {});
        w.BeginFile("a", 100000, EntryMeta::Fixed());
        w.Write(std::string(100000, 'a'));
        w.Close();
      },
      Error);
  ::close(ro);
}

}  // namespace
}  // namespace casefile::collect
