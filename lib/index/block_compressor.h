// Turns a Block into the row stored in line_blocks: encoded (line_block.h)
// and compressed into one zstd frame. Both the storage thread and, when the
// storage thread falls behind, the caller's thread compress blocks, each
// with its own compressor.
#pragma once

#include <cstdint>

#include "index/line_block.h"

struct ZSTD_CCtx_s;

namespace casefile {

// One line_blocks row, ready to insert.
struct StoredBlock {
  int64_t file_id = 0;
  int64_t block_no = 0;
  int64_t first_line = 0;
  int64_t line_count = 0;
  int64_t first_offset = 0;
  int64_t min_ts = kNoTimestamp;  // kNoTimestamp: NULL
  int64_t max_ts = kNoTimestamp;
  uint32_t scan_marks = 0;
  int64_t raw_bytes = 0;
  ByteBuffer data;  // the zstd frame
};

class BlockCompressor {
 public:
  BlockCompressor();
  ~BlockCompressor();
  BlockCompressor(const BlockCompressor&) = delete;
  BlockCompressor& operator=(const BlockCompressor&) = delete;

  // Fills `out` from `block` (which must hold at least one line).
  void Compress(const Block& block, StoredBlock& out);

 private:
  ZSTD_CCtx_s* cctx_;
  ByteBuffer encoded_;  // reused across blocks
};

}  // namespace casefile
