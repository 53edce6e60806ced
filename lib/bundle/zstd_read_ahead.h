// Decompresses a zstd stream (a .tar.zst bundle, as the collector writes) on
// a thread of its own, ahead of the reader. libarchive decompresses on the
// thread that reads the entries, which at ingest is the parsing thread, the
// busiest of the pipeline: on the 1 GiB benchmark bundle its zstd filter was
// an eighth of that thread's time. Here libarchive reads plain tar from the
// buffers this thread fills, and the parsing thread only parses.
//
// Memory is bounded: at most kAheadBuffers buffers of kBufferBytes wait to be
// read, plus the one being read and the one being filled; a reader slower
// than the decompression makes the thread wait, and one that stops early
// (limits, damage) stops it on destruction.
//
// Damage: what decompressed before the damage is delivered first, then Next
// fails with a message naming the compressed byte where decoding stopped.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace casefile::bundle {

class ZstdReadAhead {
 public:
  static constexpr size_t kBufferBytes = 1 << 20;
  static constexpr size_t kAheadBuffers = 3;

  // True when the file starts with a zstd frame's magic number. Reads the
  // first four bytes with pread (the file offset is left alone).
  static bool StartsWithZstdFrame(int fd);

  // Starts decompressing `fd` from its current offset (the start), reading
  // `read_bytes` at a time. `fd` is not owned and must stay open until this
  // object is destroyed. Throws std::system_error when the thread cannot
  // start, std::bad_alloc when the context cannot be made.
  ZstdReadAhead(int fd, size_t read_bytes);
  ~ZstdReadAhead();  // stops and joins the thread
  ZstdReadAhead(const ZstdReadAhead&) = delete;
  ZstdReadAhead& operator=(const ZstdReadAhead&) = delete;

  // The next decompressed bytes in *out, valid until the next call; empty at
  // the end of the stream. False once the stream is damaged, truncated or
  // unreadable, after everything decoded before that was returned: error()
  // then says why and where.
  bool Next(std::string_view* out);
  const std::string& error() const { return error_; }

  // How far the compressed file had been decoded when the bytes returned so
  // far were produced: the archive byte to name in messages about them.
  uint64_t compressed_bytes() const { return compressed_bytes_; }

  // Buffers made so far: at most kAheadBuffers + 2 (for tests).
  size_t buffers_made();

 private:
  struct Buffer {
    std::unique_ptr<char[]> data;
    size_t size = 0;
    uint64_t compressed_end = 0;  // compressed bytes consumed when it was filled
  };

  void Run();
  // Producer side: waits for a free buffer; false once stopping.
  bool TakeFree(Buffer* out);
  void Deliver(Buffer buffer);
  void Finish(std::string error);

  const int fd_;
  const size_t read_bytes_;

  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Buffer> filled_;  // in stream order
  std::vector<Buffer> free_;
  bool stopping_ = false;       // the reader is gone
  bool finished_ = false;       // the thread delivered its last buffer
  bool thread_failed_ = false;  // ... and then failed: thread_error_ says why, if it could
  std::string thread_error_;
  size_t allocated_ = 0;  // buffers made, for tests

  // Reader side only.
  Buffer current_;
  bool has_current_ = false;
  std::string error_;
  uint64_t compressed_bytes_ = 0;

  std::thread thread_;  // last: started once the rest is built
};

}  // namespace casefile::bundle
