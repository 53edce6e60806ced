#include "parse/line/utf8.h"

#include <cstdint>
#include <cstring>

namespace casefile {
namespace {

constexpr uint64_t kHighBits = 0x8080808080808080ull;

// Length of the valid sequence starting at p[0] (a byte >= 0x80), or 0. The
// ranges of the second byte follow the table in RFC 3629 section 4, which is
// what rules out overlongs, surrogates and code points above U+10FFFF.
size_t SequenceLength(const unsigned char* p, size_t left) {
  const unsigned char b0 = p[0];
  auto cont = [&](size_t k) { return k < left && (p[k] & 0xC0) == 0x80; };
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (left < 2) return 0;
    const unsigned char b1 = p[1];
    const unsigned char lo = b0 == 0xE0 ? 0xA0 : 0x80;
    const unsigned char hi = b0 == 0xED ? 0x9F : 0xBF;
    if (b1 < lo || b1 > hi) return 0;
    return cont(2) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (left < 2) return 0;
    const unsigned char b1 = p[1];
    const unsigned char lo = b0 == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = b0 == 0xF4 ? 0x8F : 0xBF;
    if (b1 < lo || b1 > hi) return 0;
    return cont(2) && cont(3) ? 4 : 0;
  }
  return 0;  // 0x80..0xC1 (continuation or overlong lead) and 0xF5..0xFF
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    // ASCII fast path: skip whole 8-byte words with no high bit set.
    while (i + 8 <= n) {
      uint64_t word;
      std::memcpy(&word, p + i, sizeof word);
      if (word & kHighBits) break;
      i += 8;
    }
    // The word loop stopped within 8 bytes of a high byte or of the end.
    while (i < n && p[i] < 0x80) ++i;
    if (i >= n) break;
    const size_t len = SequenceLength(p + i, n - i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

}  // namespace casefile
