// Line blocks: the storage of log lines. Lines are not one SQLite row each
// (row inserts cap the build at ~80 MB/s and make the database larger than the
// logs); up to kMaxBlockLines consecutive lines of one file form a block,
// encoded column by column and compressed with zstd into one row of
// line_blocks. docs/SCHEMA.md describes the byte format (rendered from
// schema.cc); this file is its only reader and writer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "index/index_types.h"

namespace casefile {

// A block is closed when either limit is reached. 4096 lines / 256 KiB keeps
// one decode cheap for point lookups while giving zstd enough context.
inline constexpr size_t kMaxBlockLines = 4096;
inline constexpr size_t kMaxBlockTextBytes = 256 * 1024;
// Distinct hosts per block (the per-block string table); one more closes it.
inline constexpr size_t kMaxBlockHosts = 255;
// A longer host name is stored cut to this many bytes (DNS names are at most
// 253); it bounds the host table of a block.
inline constexpr size_t kMaxHostBytes = 1024;
// A line longer than this is cut and flagged kLineTruncated. The parse stage
// cuts far earlier (Limits::max_line_bytes); this only bounds memory against
// a caller that does not.
inline constexpr size_t kMaxStoredLineBytes = 16u << 20;
// A decoder refuses blocks claiming more than this (untrusted index files).
// The largest block the writer makes is one overlong line plus a full block
// of text and columns, well under it.
inline constexpr uint64_t kMaxBlockRawBytes = 32u << 20;
static_assert(kMaxStoredLineBytes + kMaxBlockTextBytes + kMaxBlockLines * 96 +
                      kMaxBlockHosts * (kMaxHostBytes + 10) <
                  kMaxBlockRawBytes,
              "the writer's largest block must decode");
// zstd level: measured on log text here, level 1 is fast enough on the
// storage thread (see tests/index/index_bench.cpp), and negative levels cost
// 30-50% more space for little gain in overall throughput.
inline constexpr int kBlockZstdLevel = 1;
// First byte of every encoded block.
// 2: a signature column (template mining) after the flags.
inline constexpr uint8_t kBlockFormatVersion = 2;

// Per-line fields as the writer collects them; text lives in Block::text.
struct BlockLine {
  uint64_t offset = 0;
  int64_t ts_us = kNoTimestamp;
  int64_t pid = -1;
  uint32_t text_len = 0;
  uint32_t msg_start = 0;
  uint32_t flags = 0;
  uint32_t signature = 0;  // template_signatures.id, 0 = none
  int32_t rank = -1;
  uint8_t level = 0;
  uint8_t host = 0;  // 0 = none, else hosts[host - 1]
};

// One block being filled (caller thread) or stored (storage thread).
struct Block {
  int64_t file_id = 0;
  int64_t block_no = 0;
  int64_t first_line = 0;
  std::vector<BlockLine> lines;
  std::string text;               // all texts, each followed by '\n'
  bool text_has_newline = false;  // some text holds a '\n' of its own
  std::vector<std::string> hosts;
  int64_t min_ts = kNoTimestamp;  // kNoTimestamp when no line has one
  int64_t max_ts = kNoTimestamp;
  // What ingest's line tests found in the block (index/line_marker.h); set
  // by the block preparer.
  uint32_t scan_marks = 0;

  void Reset(int64_t file, int64_t number, int64_t first);
  // Index of `host` in the table (1-based), 0 for empty; -1 when the table is
  // full and the block must be closed first.
  int HostIndex(std::string_view host);
  bool Full() const { return lines.size() >= kMaxBlockLines || text.size() >= kMaxBlockTextBytes; }

 private:
  int last_host_ = 0;
};

// Appends `line` (already checked by the writer) to `block`.
void AppendLine(Block& block, const LineRecord& line, int host_index);

// A growable byte buffer that, unlike std::string::resize, does not zero
// what it adds: encoding and compression write worst-case bounds of a few
// hundred KiB per block, and clearing them each time cost measurable time.
class ByteBuffer {
 public:
  // Makes room for `n` bytes, discarding the content; returns the start.
  uint8_t* Reset(size_t n) {
    if (n > capacity_) {
      data_.reset(new uint8_t[n]);
      capacity_ = n;
    }
    size_ = 0;
    return data_.get();
  }
  void set_size(size_t n) { size_ = n; }
  const uint8_t* data() const { return data_.get(); }
  uint8_t* data() { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  void Release() {
    data_.reset();
    size_ = capacity_ = 0;
  }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Encodes `block` into `out` (replacing its content), uncompressed.
void EncodeBlock(const Block& block, ByteBuffer& out);

// One decoded line; text_off/text_len point into DecodedBlock::payload.
struct DecodedLine {
  uint64_t offset = 0;
  int64_t ts_us = kNoTimestamp;
  int64_t pid = -1;
  uint32_t text_off = 0;
  uint32_t text_len = 0;
  uint32_t msg_start = 0;
  uint32_t flags = 0;
  uint32_t signature = 0;
  int32_t rank = -1;
  Level level = Level::kUnknown;
  uint16_t host = 0;
};

// A decoded block. Buffers are reused across Decode calls, so a scan keeps
// one block in memory whatever the file size.
class DecodedBlock {
 public:
  DecodedBlock();
  ~DecodedBlock();
  DecodedBlock(const DecodedBlock&) = delete;
  DecodedBlock& operator=(const DecodedBlock&) = delete;

  // Decompresses and decodes a line_blocks.data blob. Throws Error(kCorrupt)
  // on any inconsistency: the bytes come from a file and are not trusted.
  void Decode(const void* blob, size_t blob_size, int64_t raw_bytes);
  // Decodes an already decompressed block (what EncodeBlock wrote); the
  // bytes are copied. Same checks as Decode.
  void DecodePayload(const uint8_t* data, size_t size);

  size_t size() const { return lines_.size(); }
  const DecodedLine& line(size_t i) const { return lines_[i]; }
  std::string_view Text(size_t i) const {
    return std::string_view(reinterpret_cast<const char*>(payload_.data()) + lines_[i].text_off,
                            lines_[i].text_len);
  }
  std::string_view Host(size_t i) const {
    return lines_[i].host == 0 ? std::string_view() : hosts_[lines_[i].host - 1];
  }
  LineRecord Record(size_t i, int64_t file_id, int64_t first_line) const;

 private:
  void Parse();  // decodes payload_ into lines_ and hosts_
  void ParseColumns();

  ByteBuffer payload_;
  std::vector<DecodedLine> lines_;
  std::vector<std::string_view> hosts_;
};

// Blocks decoded by this process so far (all threads). Tests use it to check
// that a point lookup decodes only the block it needs.
uint64_t LineBlocksDecoded();

}  // namespace casefile
