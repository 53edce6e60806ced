// ZstdReadAhead: the decompressed stream whole and in order whatever the read
// size and the frames, what decoded before damage delivered before the
// error, the error naming the compressed byte, and a reader that stops early
// stopping the thread.
#include "bundle/zstd_read_ahead.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zstd.h>

#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bundle/bundle_reader.h"
#include "bundle_test_visitor.h"
#include "test_util.h"

namespace casefile::test {
namespace {

using bundle::ZstdReadAhead;

// Log-like text: compressible, not trivially.
std::string Text(size_t bytes, unsigned seed) {
  std::mt19937 rng(seed);
  const char* words[] = {"step", "loss", "NCCL", "INFO", "rank", "allreduce", "bucket", "0.412"};
  std::string s;
  while (s.size() < bytes) {
    s += words[rng() % 8];
    s += (rng() % 9 == 0) ? '\n' : ' ';
  }
  s.resize(bytes);
  return s;
}

std::string Frame(const std::string& data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

struct Read {
  std::string bytes;
  bool failed = false;
  std::string error;
  uint64_t compressed = 0;
};

Read ReadAll(const std::string& path, size_t read_bytes) {
  Read r;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0) << path;
  {
    ZstdReadAhead ahead(fd, read_bytes);
    std::string_view chunk;
    for (;;) {
      if (!ahead.Next(&chunk)) {
        r.failed = true;
        r.error = ahead.error();
        break;
      }
      if (chunk.empty()) break;
      EXPECT_LE(chunk.size(), ZstdReadAhead::kBufferBytes);
      r.bytes.append(chunk);
    }
    r.compressed = ahead.compressed_bytes();
    // Failing again, without blocking, once failed.
    if (r.failed) {
      EXPECT_FALSE(ahead.Next(&chunk));
    }
  }
  close(fd);
  return r;
}

TEST(ZstdReadAhead, SeveralFramesWholeAndInOrderAtAnyReadSize) {
  TempDir tmp;
  // A first frame of exactly one buffer, an empty frame, frames across
  // buffer boundaries.
  const std::vector<std::string> parts = {Text(ZstdReadAhead::kBufferBytes, 1), "",
                                          Text(1500000, 2), Text(10, 3), Text(700000, 4)};
  std::string data, compressed;
  for (const std::string& p : parts) {
    data += p;
    compressed += Frame(p);
  }
  const std::string path = tmp.Join("s.zst");
  WriteFile(path, compressed);
  for (size_t read_bytes : {size_t{1000}, size_t{4096}, size_t{1} << 20}) {
    const Read r = ReadAll(path, read_bytes);
    EXPECT_FALSE(r.failed) << r.error;
    EXPECT_TRUE(r.bytes == data) << "read size " << read_bytes << ": " << r.bytes.size()
                                 << " bytes of " << data.size();
    EXPECT_EQ(r.compressed, compressed.size());
  }
}

TEST(ZstdReadAhead, ACutStreamGivesItsDecodedPrefixThenTheError) {
  TempDir tmp;
  const std::string data = Text(3000000, 5);
  const std::string whole = Frame(data);
  const std::string path = tmp.Join("cut.zst");
  const size_t cut = whole.size() / 2;
  WriteFile(path, whole.substr(0, cut));
  const Read r = ReadAll(path, 4096);
  ASSERT_TRUE(r.failed);
  EXPECT_GT(r.bytes.size(), 0u);
  EXPECT_LT(r.bytes.size(), data.size());
  EXPECT_TRUE(r.bytes == data.substr(0, r.bytes.size()));
  EXPECT_EQ(r.error, "zstd: the stream ends inside a frame (truncated) at compressed byte " +
                         std::to_string(cut));
  EXPECT_EQ(r.compressed, cut);
}

TEST(ZstdReadAhead, DamageBetweenFramesIsNamedAtItsByte) {
  TempDir tmp;
  const std::string first = Text(2500000, 6);
  std::string compressed = Frame(first);
  const size_t damaged_at = compressed.size();
  std::string second = Frame(Text(1000, 7));
  second[0] = 'X';  // not a frame's magic number
  compressed += second;
  const std::string path = tmp.Join("bad.zst");
  WriteFile(path, compressed);
  const Read r = ReadAll(path, 65536);
  ASSERT_TRUE(r.failed);
  EXPECT_TRUE(r.bytes == first);
  EXPECT_EQ(r.error.rfind("zstd: ", 0), 0u) << r.error;
  EXPECT_NE(r.error.find(" at compressed byte " + std::to_string(damaged_at)), std::string::npos)
      << r.error;
}

TEST(ZstdReadAhead, AReaderThatStopsEarlyStopsTheThread) {
  // 1 GiB of zeros in 2 MB of frames: the thread fills its buffers and
  // waits; destroying the reader after one buffer must not wait for the
  // rest (the test would run for seconds, or hang, if it did).
  TempDir tmp;
  const std::string frame = Frame(std::string(64u << 20, '\0'));
  std::string compressed;
  for (int i = 0; i < 16; ++i) compressed += frame;
  const std::string path = tmp.Join("zeros.zst");
  WriteFile(path, compressed);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  {
    ZstdReadAhead ahead(fd, 65536);
    std::string_view chunk;
    ASSERT_TRUE(ahead.Next(&chunk));
    EXPECT_EQ(chunk.size(), ZstdReadAhead::kBufferBytes);
    // Bounded: given time, the thread fills the buffers it may and waits
    // (zeros decode at GB/s: without the bound it would have made hundreds).
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_GE(ahead.buffers_made(), 2u);
    EXPECT_LE(ahead.buffers_made(), ZstdReadAhead::kAheadBuffers + 2);
  }
  close(fd);
}

TEST(ZstdReadAhead, OnlyAZstdFrameAtTheStartIsTaken) {
  TempDir tmp;
  auto starts = [&](const std::string& name, const std::string& content) {
    const std::string path = tmp.Join(name);
    WriteFile(path, content);
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    EXPECT_GE(fd, 0);
    const bool yes = ZstdReadAhead::StartsWithZstdFrame(fd);
    // The file offset is left where it was.
    EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 0);
    close(fd);
    return yes;
  };
  EXPECT_TRUE(starts("a.zst", Frame("hello\n")));
  EXPECT_FALSE(starts("empty", ""));
  EXPECT_FALSE(starts("short", "\x28\xb5\x2f"));
  EXPECT_FALSE(starts("text.log", "I1129 09:20:00.0 1 a.cc:1] hello\n"));
  WriteArchive(tmp.Join("b.tar.gz"), "tar.gz", {File("a.log", "a\n")});
  EXPECT_FALSE(starts("b2.tar.gz", ReadFile(tmp.Join("b.tar.gz"))));
}

TEST(ZstdReadAhead, ATarSplitIntoFramesReadsAsOneBundle) {
  // zstd -T, pzstd and appending writers make tars of several frames.
  TempDir tmp;
  const std::string log = Text(900000, 8);
  WriteArchive(tmp.Join("plain.tar"), "tar", {File("a.log", log), File("b.log", "b\n")});
  const std::string tar = ReadFile(tmp.Join("plain.tar"));
  const size_t half = tar.size() / 2;
  WriteFile(tmp.Join("frames.tar.zst"), Frame(tar.substr(0, half)) + Frame(tar.substr(half)));
  RecordingVisitor v;
  ReadBudget budget;
  const BundleReadResult r = ReadBundle(tmp.Join("frames.tar.zst"), Limits{}, budget, v);
  EXPECT_FALSE(r.partial) << r.error;
  ASSERT_EQ(v.Paths(), (std::vector<std::string>{"a.log", "b.log"}));
  EXPECT_TRUE(v.entries[0].bytes == log);
  EXPECT_EQ(v.entries[1].bytes, "b\n");
  EXPECT_NE(r.format.find(" + zstd"), std::string::npos) << r.format;
}

}  // namespace
}  // namespace casefile::test
