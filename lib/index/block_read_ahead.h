// Decodes line blocks on a second thread while the caller uses the one
// before. A full scan of the `lines` table (a substring query over every
// line) spent over half its time in zstd on the thread SQLite runs on; with
// this the caller hands over the compressed bytes of the next blocks as it
// steps through line_blocks, and takes them back decoded, in the same order.
// Decoding is most of the work, so the caller does not wait idle for a
// block the worker has not started: it decodes that one itself, and the two
// threads share the decoding.
//
// One producer and one consumer: the thread that owns the cursor both
// submits and takes. Memory is bounded: kReadAheadBlocks blocks in flight
// plus the one in use, their buffers recycled rather than freed (each at
// most kMaxBlockRawBytes, in practice ~300 KiB). A decode error
// comes back with its block, to be thrown where a synchronous decode would
// have thrown it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "index/line_block.h"

namespace casefile {

// Blocks decoded ahead of the one in use: enough to keep the decoder busy
// while the caller filters a block, few enough to stay small.
inline constexpr size_t kReadAheadBlocks = 3;

// Blocks handed to any BlockReadAhead since the process started (tests check
// that a long scan reads ahead, as LineBlocksDecoded counts decodes).
uint64_t BlocksReadAhead();

class BlockReadAhead {
 public:
  // A block taken back: its place in the file and the decoded lines, or the
  // error its decode threw.
  struct Decoded {
    int64_t file_id = 0;
    int64_t first_line = 0;
    int64_t line_count = 0;  // as line_blocks says; the caller checks it
    std::unique_ptr<DecodedBlock> block;
    std::exception_ptr error;
  };

  // `with_worker` false: no thread is started and Take decodes every block
  // itself (what happens anyway when a thread cannot be created).
  explicit BlockReadAhead(bool with_worker = true) : no_worker_(!with_worker) {}
  ~BlockReadAhead();
  BlockReadAhead(const BlockReadAhead&) = delete;
  BlockReadAhead& operator=(const BlockReadAhead&) = delete;

  // Whether another block may be submitted now (fewer than kReadAheadBlocks
  // in flight).
  bool HasRoom() const { return in_flight_ < kReadAheadBlocks; }
  size_t in_flight() const { return in_flight_; }
  // Queues one line_blocks row for decoding; the blob is copied, so the
  // statement may step on. The worker thread starts on the first call.
  void Submit(int64_t file_id, int64_t first_line, int64_t line_count, int64_t raw_bytes,
              const void* blob, size_t blob_size);
  // The oldest submitted block, decoded (waits for it). Only when
  // in_flight() > 0.
  Decoded Take();
  // Gives a block back for reuse once its lines are no longer read.
  void Recycle(std::unique_ptr<DecodedBlock> block);
  // Waits for what is in flight and drops it (a new scan starts).
  void Drain();

 private:
  struct Job {
    Decoded out;
    int64_t raw_bytes = 0;
    std::vector<uint8_t> blob;
    bool claimed = false;  // a thread is decoding it or has
    bool done = false;
  };
  static void Decode(Job& job);
  // The oldest job no thread has started; null when none. Under mu_.
  std::shared_ptr<Job> Unclaimed() const;
  void Work();

  std::mutex mu_;
  std::condition_variable wake_worker_;
  std::condition_variable job_done_;
  std::deque<std::shared_ptr<Job>> jobs_;  // in submission order, until taken
  bool stop_ = false;
  bool no_worker_ = false;
  std::thread worker_;
  size_t in_flight_ = 0;  // owner thread only
  std::vector<std::unique_ptr<DecodedBlock>> spare_;
  std::vector<std::vector<uint8_t>> spare_blobs_;
};

}  // namespace casefile
