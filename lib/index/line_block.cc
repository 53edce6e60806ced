#include "index/line_block.h"

#include <zstd.h>

#include <atomic>
#include <cstring>
#include <limits>

#include "common/error.h"
#include "index/zstd_thread_dctx.h"

namespace casefile {
namespace {

std::atomic<uint64_t> g_blocks_decoded{0};

// Bits of the block's flag byte.
constexpr uint8_t kBlockHasLengths = 0x01;  // a text length column is present

// Bits of the per-line attribute byte.
constexpr uint8_t kAttrLevelMask = 0x07;
constexpr uint8_t kAttrHasTs = 0x08;

// Worst-case bytes of one varint (64-bit value).
constexpr size_t kMaxVarint = 10;

inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

inline uint8_t* PutVarint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

[[noreturn]] void Corrupt(const char* what) {
  throw Error(ErrorCode::kCorrupt, std::string("corrupt line block in index: ") + what);
}

// Bounds-checked reader over a decoded payload.
class Reader {
 public:
  Reader(const uint8_t* p, const uint8_t* end) : p_(p), end_(end) {}
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) Corrupt("varint runs past the end");
      uint8_t b = *p_++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
    Corrupt("varint longer than 10 bytes");
  }
  uint8_t Byte() {
    if (p_ == end_) Corrupt("column runs past the end");
    return *p_++;
  }
  const uint8_t* Take(uint64_t n) {
    if (n > static_cast<uint64_t>(end_ - p_)) Corrupt("length runs past the end");
    const uint8_t* at = p_;
    p_ += n;
    return at;
  }
  size_t Left() const { return static_cast<size_t>(end_ - p_); }
  const uint8_t* pos() const { return p_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace

void Block::Reset(int64_t file, int64_t number, int64_t first) {
  file_id = file;
  block_no = number;
  first_line = first;
  lines.clear();
  text.clear();
  text_has_newline = false;
  hosts.clear();
  min_ts = kNoTimestamp;
  max_ts = kNoTimestamp;
  scan_marks = 0;
  last_host_ = 0;
}

int Block::HostIndex(std::string_view host) {
  if (host.empty()) return 0;
  host = host.substr(0, kMaxHostBytes);
  // Consecutive lines almost always share a host: check the last one first.
  if (last_host_ != 0 && hosts[last_host_ - 1] == host) return last_host_;
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (hosts[i] == host) return last_host_ = static_cast<int>(i + 1);
  }
  if (hosts.size() >= kMaxBlockHosts) return -1;
  hosts.emplace_back(host);
  return last_host_ = static_cast<int>(hosts.size());
}

void AppendLine(Block& block, const LineRecord& line, int host_index) {
  std::string_view text = line.text;
  uint32_t flags = line.flags;
  if (text.size() > kMaxStoredLineBytes) {
    text = text.substr(0, kMaxStoredLineBytes);
    flags |= kLineTruncated;
  }
  BlockLine& out = block.lines.emplace_back();
  out.offset = line.offset;
  out.ts_us = line.ts_us;
  out.pid = line.pid;
  out.text_len = static_cast<uint32_t>(text.size());
  out.msg_start = line.msg_start;
  out.flags = flags;
  out.signature = line.signature;
  out.rank = line.rank;
  out.level = static_cast<uint8_t>(line.level) <= static_cast<uint8_t>(Level::kFatal)
                  ? static_cast<uint8_t>(line.level)
                  : 0;
  out.host = static_cast<uint8_t>(host_index);
  if (!block.text_has_newline && std::memchr(text.data(), '\n', text.size()) != nullptr) {
    block.text_has_newline = true;
  }
  block.text.append(text);
  block.text.push_back('\n');
  if (line.ts_us != kNoTimestamp) {
    if (block.min_ts == kNoTimestamp || line.ts_us < block.min_ts) block.min_ts = line.ts_us;
    if (block.max_ts == kNoTimestamp || line.ts_us > block.max_ts) block.max_ts = line.ts_us;
  }
}

void EncodeBlock(const Block& block, ByteBuffer& out) {
  size_t n = block.lines.size();
  size_t bound = 2 + 2 * kMaxVarint + block.text.size() + n * (8 * kMaxVarint + 2);
  for (const std::string& h : block.hosts) bound += kMaxVarint + h.size();
  uint8_t* const begin = out.Reset(bound);
  uint8_t* p = begin;
  *p++ = kBlockFormatVersion;
  // Texts are stored newline-terminated, as in the log: zstd finds more
  // and longer matches across line starts than in glued texts, and the
  // length column can then be left out (about 3% of the text smaller on
  // log-like data). A text that holds a newline itself needs the lengths.
  const bool with_lengths = block.text_has_newline;
  *p++ = with_lengths ? kBlockHasLengths : 0;
  p = PutVarint(p, n);
  p = PutVarint(p, block.hosts.size());
  for (const std::string& h : block.hosts) {
    p = PutVarint(p, h.size());
    std::memcpy(p, h.data(), h.size());
    p += h.size();
  }
  // Offsets as the gap to where the line would start if lines were stored
  // exactly as read: almost always 0, so the column compresses to nothing.
  uint64_t expected = 0;
  for (const BlockLine& l : block.lines) {
    p = PutVarint(p, ZigZag(static_cast<int64_t>(l.offset - expected)));
    expected = l.offset + l.text_len + 1;
  }
  for (const BlockLine& l : block.lines) {
    *p++ = static_cast<uint8_t>(l.level | (l.ts_us != kNoTimestamp ? kAttrHasTs : 0));
  }
  // Timestamps as deltas from the previous timestamp of the block; lines
  // without one have no entry here (the attribute byte says so).
  uint64_t prev_ts = 0;
  for (const BlockLine& l : block.lines) {
    if (l.ts_us == kNoTimestamp) continue;
    p = PutVarint(p, ZigZag(static_cast<int64_t>(static_cast<uint64_t>(l.ts_us) - prev_ts)));
    prev_ts = static_cast<uint64_t>(l.ts_us);
  }
  for (const BlockLine& l : block.lines) p = PutVarint(p, ZigZag(int64_t{l.rank} + 1));
  for (const BlockLine& l : block.lines) *p++ = l.host;
  for (const BlockLine& l : block.lines) {
    p = PutVarint(p, ZigZag(static_cast<int64_t>(static_cast<uint64_t>(l.pid) + 1)));
  }
  for (const BlockLine& l : block.lines) p = PutVarint(p, l.msg_start);
  for (const BlockLine& l : block.lines) p = PutVarint(p, l.flags);
  // Signature ids as they are: a few hot ids fill most blocks, and zstd
  // finds their repeats without help.
  for (const BlockLine& l : block.lines) p = PutVarint(p, l.signature);
  if (with_lengths) {
    for (const BlockLine& l : block.lines) p = PutVarint(p, l.text_len);
  }
  std::memcpy(p, block.text.data(), block.text.size());
  p += block.text.size();
  out.set_size(static_cast<size_t>(p - begin));
}

DecodedBlock::DecodedBlock() = default;
DecodedBlock::~DecodedBlock() = default;

void DecodedBlock::Decode(const void* blob, size_t blob_size, int64_t raw_bytes) {
  lines_.clear();
  hosts_.clear();
  if (raw_bytes <= 0 || static_cast<uint64_t>(raw_bytes) > kMaxBlockRawBytes) {
    Corrupt("implausible raw size");
  }
  unsigned long long content = ZSTD_getFrameContentSize(blob, blob_size);
  if (content != static_cast<unsigned long long>(raw_bytes)) Corrupt("size does not match frame");
  size_t want = static_cast<size_t>(raw_bytes);
  uint8_t* dst = payload_.Reset(want);
  size_t got = ZSTD_decompressDCtx(ThreadDecompressor(), dst, want, blob, blob_size);
  if (ZSTD_isError(got) || got != want) Corrupt("zstd frame does not decompress");
  payload_.set_size(want);
  Parse();
}

void DecodedBlock::DecodePayload(const uint8_t* data, size_t size) {
  lines_.clear();
  hosts_.clear();
  if (size == 0 || size > kMaxBlockRawBytes) Corrupt("implausible raw size");
  std::memcpy(payload_.Reset(size), data, size);
  payload_.set_size(size);
  Parse();
}

void DecodedBlock::Parse() {
  g_blocks_decoded.fetch_add(1, std::memory_order_relaxed);
  try {
    ParseColumns();
  } catch (...) {
    // Never leave half a block behind for a caller that catches and goes on.
    lines_.clear();
    hosts_.clear();
    throw;
  }
}

void DecodedBlock::ParseColumns() {
  const uint8_t* base = payload_.data();
  Reader r(base, base + payload_.size());
  if (r.Byte() != kBlockFormatVersion) Corrupt("unknown block format version");
  const uint8_t block_flags = r.Byte();
  if (block_flags & ~kBlockHasLengths) Corrupt("unknown block flags");
  const bool with_lengths = (block_flags & kBlockHasLengths) != 0;
  uint64_t n = r.Varint();
  // The writer never puts more lines in a block; the cap also bounds what a
  // damaged count can make this allocate.
  if (n == 0 || n > kMaxBlockLines) Corrupt("implausible line count");
  uint64_t host_count = r.Varint();
  if (host_count > kMaxBlockHosts) Corrupt("too many hosts");
  for (uint64_t i = 0; i < host_count; ++i) {
    uint64_t len = r.Varint();
    const uint8_t* at = r.Take(len);
    hosts_.emplace_back(reinterpret_cast<const char*>(at), len);
  }
  lines_.resize(n);
  uint64_t expected = 0;
  for (DecodedLine& l : lines_) l.offset = r.Varint();  // gaps; resolved with lengths below
  for (DecodedLine& l : lines_) {
    uint8_t attr = r.Byte();
    uint8_t level = attr & kAttrLevelMask;
    if (level > static_cast<uint8_t>(Level::kFatal) || (attr & ~(kAttrLevelMask | kAttrHasTs))) {
      Corrupt("bad attribute byte");
    }
    l.level = static_cast<Level>(level);
    l.ts_us = (attr & kAttrHasTs) ? 0 : kNoTimestamp;
  }
  uint64_t prev_ts = 0;
  for (DecodedLine& l : lines_) {
    if (l.ts_us == kNoTimestamp) continue;
    prev_ts += static_cast<uint64_t>(UnZigZag(r.Varint()));
    l.ts_us = static_cast<int64_t>(prev_ts);
    if (l.ts_us == kNoTimestamp) Corrupt("timestamp equals the no-timestamp marker");
  }
  for (DecodedLine& l : lines_) {
    int64_t rank = UnZigZag(r.Varint()) - 1;
    if (rank < std::numeric_limits<int32_t>::min() || rank > std::numeric_limits<int32_t>::max()) {
      Corrupt("rank out of range");
    }
    l.rank = static_cast<int32_t>(rank);
  }
  for (DecodedLine& l : lines_) {
    uint8_t h = r.Byte();
    if (h > host_count) Corrupt("host index out of range");
    l.host = h;
  }
  for (DecodedLine& l : lines_) {
    l.pid = static_cast<int64_t>(static_cast<uint64_t>(UnZigZag(r.Varint())) - 1);
  }
  for (DecodedLine& l : lines_) {
    uint64_t v = r.Varint();
    if (v > std::numeric_limits<uint32_t>::max()) Corrupt("message start out of range");
    l.msg_start = static_cast<uint32_t>(v);
  }
  for (DecodedLine& l : lines_) {
    uint64_t v = r.Varint();
    if (v > std::numeric_limits<uint32_t>::max()) Corrupt("flags out of range");
    l.flags = static_cast<uint32_t>(v);
  }
  for (DecodedLine& l : lines_) {
    uint64_t v = r.Varint();
    if (v > std::numeric_limits<uint32_t>::max()) Corrupt("signature out of range");
    l.signature = static_cast<uint32_t>(v);
  }
  const uint64_t text_start = static_cast<uint64_t>(r.pos() - base);
  if (with_lengths) {
    uint64_t text_total = 0;
    for (DecodedLine& l : lines_) {
      uint64_t v = r.Varint();
      if (v > kMaxBlockRawBytes) Corrupt("text length out of range");
      l.text_len = static_cast<uint32_t>(v);
      text_total += v + 1;  // and its newline
    }
    if (text_total != r.Left()) Corrupt("texts do not fill the block");
  } else {
    // Each text runs to the next newline.
    const char* at = reinterpret_cast<const char*>(r.pos());
    const char* end = reinterpret_cast<const char*>(base) + payload_.size();
    for (DecodedLine& l : lines_) {
      const char* nl =
          static_cast<const char*>(std::memchr(at, '\n', static_cast<size_t>(end - at)));
      if (!nl) Corrupt("texts end before the last line");
      l.text_len = static_cast<uint32_t>(nl - at);
      at = nl + 1;
    }
    if (at != end) Corrupt("bytes after the last text");
  }
  uint64_t text_off = with_lengths ? static_cast<uint64_t>(r.pos() - base) : text_start;
  for (DecodedLine& l : lines_) {
    l.text_off = static_cast<uint32_t>(text_off);
    if (base[text_off + l.text_len] != '\n') Corrupt("a text is not followed by its newline");
    text_off += l.text_len + 1;
    uint64_t offset = expected + static_cast<uint64_t>(UnZigZag(l.offset));
    l.offset = offset;
    expected = offset + l.text_len + 1;
  }
}

LineRecord DecodedBlock::Record(size_t i, int64_t file_id, int64_t first_line) const {
  const DecodedLine& l = lines_[i];
  LineRecord rec;
  rec.file_id = file_id;
  rec.line_no = first_line + static_cast<int64_t>(i);
  rec.offset = l.offset;
  rec.ts_us = l.ts_us;
  rec.level = l.level;
  rec.rank = l.rank;
  rec.host = Host(i);
  rec.pid = l.pid;
  rec.msg_start = l.msg_start;
  rec.flags = l.flags;
  rec.signature = l.signature;
  rec.text = Text(i);
  return rec;
}

uint64_t LineBlocksDecoded() { return g_blocks_decoded.load(std::memory_order_relaxed); }

}  // namespace casefile
