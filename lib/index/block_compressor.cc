#include "index/block_compressor.h"

#include <zstd.h>

#include <new>

#include "common/error.h"

namespace casefile {

BlockCompressor::BlockCompressor() : cctx_(ZSTD_createCCtx()) {
  if (!cctx_) throw std::bad_alloc();
}

BlockCompressor::~BlockCompressor() { ZSTD_freeCCtx(cctx_); }

void BlockCompressor::Compress(const Block& block, StoredBlock& out) {
  EncodeBlock(block, encoded_);
  size_t bound = ZSTD_compressBound(encoded_.size());
  uint8_t* dst = out.data.Reset(bound);
  size_t n =
      ZSTD_compressCCtx(cctx_, dst, bound, encoded_.data(), encoded_.size(), kBlockZstdLevel);
  if (ZSTD_isError(n)) {
    throw Error(ErrorCode::kInternal,
                std::string("zstd cannot compress a line block: ") + ZSTD_getErrorName(n));
  }
  out.data.set_size(n);
  out.file_id = block.file_id;
  out.block_no = block.block_no;
  out.first_line = block.first_line;
  out.line_count = static_cast<int64_t>(block.lines.size());
  out.first_offset = static_cast<int64_t>(block.lines.front().offset);
  out.min_ts = block.min_ts;
  out.max_ts = block.max_ts;
  out.scan_marks = block.scan_marks;
  out.raw_bytes = static_cast<int64_t>(encoded_.size());
}

}  // namespace casefile
