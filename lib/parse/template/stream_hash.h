// The hash of the masked message, fed in pieces (literal runs and mask
// texts) as the masker finds them. The value must not depend on how the bytes
// were split between calls (two lines with the same masked form must hash
// alike even when their runs are cut at different places), so pieces are
// first copied into a small fixed buffer, which is hashed in whole 128-byte
// chunks as it fills and at the end: the chunks fall at the same offsets of
// the masked form whatever the pieces were. Copying a short piece is one
// 16-byte load and store; hashing takes 16 bytes per 64x64->128 multiply
// (wyhash's mixing), so a line of ~100 bytes costs a few dozen cycles. Not
// persisted: only the in-memory signature table uses it, so the constants
// may change.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace casefile::templates {

class StreamHash {
 public:
  // Adds n bytes at p. Bytes from p up to `readable_end` may be read beyond
  // p + n (a short piece is copied as one 16-byte block when 16 bytes are
  // readable there); nothing past `readable_end` is read.
  void Add(const char* p, size_t n, const char* readable_end) {
#if defined(__SSE2__)
    if (n <= 16 && p + 16 <= readable_end) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(buf_ + len_),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
      len_ += n;
      if (len_ >= kChunk) Drain();
      return;
    }
#endif
    (void)readable_end;
    while (n != 0) {
      size_t take = kChunk - len_ < n ? kChunk - len_ : n;
      std::memcpy(buf_ + len_, p, take);
      len_ += take;
      p += take;
      n -= take;
      if (len_ >= kChunk) Drain();
    }
  }

  // The hash of everything added, with `salt` (the level) mixed in.
  uint64_t Finish(uint64_t salt) {
    std::memset(buf_ + len_, 0, 16);  // the last block's padding
    uint64_t h = state_ ^ (salt * 0x9e3779b97f4a7c15ull);
    for (size_t at = 0; at < len_; at += 16) h = Block(h, buf_ + at);
    return Mum(h ^ (total_ + len_), 0xe7037ed1a0b428dbull);
  }

 private:
  static constexpr size_t kChunk = 128;  // a multiple of 16

  static uint64_t Mum(uint64_t a, uint64_t b) {
    unsigned __int128 m = static_cast<unsigned __int128>(a) * b;
    return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
  }
  static uint64_t Block(uint64_t h, const char* p) {
    uint64_t a, b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + 8, 8);
    return Mum(a ^ 0xa0761d6478bd642full, b ^ h ^ 0x8ebc6af09c88c6e3ull);
  }
  void Drain() {
    for (size_t at = 0; at < kChunk; at += 16) state_ = Block(state_, buf_ + at);
    total_ += kChunk;
    len_ -= kChunk;
    std::memcpy(buf_, buf_ + kChunk, len_);  // what the last copy put beyond the chunk
  }

  uint64_t state_ = 0x8bb84b93962eacc9ull;
  uint64_t total_ = 0;
  size_t len_ = 0;
  // A chunk, the 16 bytes a block copy may write past it, and the padding.
  char buf_[kChunk + 32];
};

}  // namespace casefile::templates
