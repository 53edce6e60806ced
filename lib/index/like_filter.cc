#include "index/like_filter.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace casefile {
namespace {

inline unsigned char Fold(unsigned char c) { return static_cast<unsigned char>(c | 0x20); }

// text[at..] starts with the folded needle (at + n <= size checked by caller).
inline bool FoldedAt(const unsigned char* text, const std::string& needle) {
  for (size_t k = 0; k < needle.size(); ++k) {
    if (Fold(text[k]) != static_cast<unsigned char>(needle[k])) return false;
  }
  return true;
}

}  // namespace

LikeFilter::LikeFilter(std::string_view pattern) {
  size_t best_at = 0, best_len = 0;
  for (size_t i = 0; i < pattern.size();) {
    if (pattern[i] == '%' || pattern[i] == '_') {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < pattern.size() && pattern[j] != '%' && pattern[j] != '_') ++j;
    if (j - i > best_len) {
      best_at = i;
      best_len = j - i;
    }
    i = j;
  }
  needle_.reserve(best_len);
  for (size_t k = 0; k < best_len; ++k) {
    needle_ += static_cast<char>(Fold(static_cast<unsigned char>(pattern[best_at + k])));
  }
}

bool LikeFilter::MayMatch(std::string_view text) const {
  const size_t n = needle_.size();
  if (n == 0) return true;
  if (text.size() < n) return false;
  const auto* t = reinterpret_cast<const unsigned char*>(text.data());
  const size_t last = text.size() - n;  // last possible start
  size_t i = 0;
#if defined(__SSE2__)
  if (n >= 2) {
    // Candidates where the first two folded bytes match, 16 starts at a time.
    const __m128i bit5 = _mm_set1_epi8(0x20);
    const __m128i first = _mm_set1_epi8(static_cast<char>(needle_[0]));
    const __m128i second = _mm_set1_epi8(static_cast<char>(needle_[1]));
    for (; i + 16 <= last + 1 && i + 17 <= text.size(); i += 16) {
      const __m128i a =
          _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t + i)), bit5);
      const __m128i b =
          _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t + i + 1)), bit5);
      uint32_t bits = static_cast<uint32_t>(
          _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, second))));
      while (bits != 0) {
        const size_t at = i + static_cast<size_t>(__builtin_ctz(bits));
        if (FoldedAt(t + at, needle_)) return true;
        bits &= bits - 1;
      }
    }
  }
#endif
  for (; i <= last; ++i) {
    if (FoldedAt(t + i, needle_)) return true;
  }
  return false;
}

}  // namespace casefile
