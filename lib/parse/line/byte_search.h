// A one-pass search for any of four bytes, for exact checks that look for
// a few rare bytes a message must contain ('x' of "exit", 'k' of "task"),
// check the neighbours of each hit, and parse only lines that pass. Several
// memchr() calls or string_view::find() of literals that start with a common
// letter cost several times more on long lines. Used on every line at ingest
// (ANSI stripping, the distributed-run families of parse/dist, the step
// forms) and at analysis (the hang analyzer's Megascale test, runtime's
// kernel-line test). Header-only so the loop inlines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace casefile::scan {

namespace detail {

// Calls hit(base + k) for each bit k set in `bits`, lowest first; true as
// soon as hit returns true. The searches below find 16 positions at a time
// as a bit mask.
template <typename Hit>
inline bool ReportBits(size_t base, uint32_t bits, Hit& hit) {
  for (; bits != 0; bits &= bits - 1) {
    if (hit(base + static_cast<size_t>(__builtin_ctz(bits)))) return true;
  }
  return false;
}

}  // namespace detail

// Calls hit(i) for every i where s[i] is a, b, c or d, in order, until hit
// returns true; returns whether one did.
template <typename Hit>
inline bool AnyOfFourBytes(std::string_view s, char a, char b, char c, char d, Hit&& hit) {
  const char* p = s.data();
  const size_t n = s.size();
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b), vc = _mm_set1_epi8(c),
                vd = _mm_set1_epi8(d);
  // Bit k set when at[k] is one of the four bytes.
  auto mask16 = [&](const char* at) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    const __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb)),
                                   _mm_or_si128(_mm_cmpeq_epi8(v, vc), _mm_cmpeq_epi8(v, vd)));
    return static_cast<uint32_t>(_mm_movemask_epi8(m));
  };
  auto report = [&](size_t base, uint32_t bits) { return detail::ReportBits(base, bits, hit); };
  for (; i + 16 <= n; i += 16) {
    if (report(i, mask16(p + i))) return true;
  }
  if (i < n && n >= 16) {
    // The tail: the last 16 bytes, less those already seen. A byte loop
    // here was a fifth of the time on lines of a hundred bytes.
    const size_t start = n - 16;
    return report(start, mask16(p + start) & (0xFFFFu << (i - start)));
  }
#endif
  for (; i < n; ++i) {
    const char x = p[i];
    if ((x == a || x == b || x == c || x == d) && hit(i)) return true;
  }
  return false;
}

// Two consecutive bytes, as AnyOfFourPairs looks for them.
struct BytePair {
  char first;
  char second;
};

// Calls hit(i) for every i where s[i], s[i + 1] is one of the pairs a, b, c,
// d, in order, until hit returns true; returns whether one did. A pair is
// far rarer than either of its bytes ("ga" against 'g'), so a test whose
// literals each hold a rare pair calls hit a few times per hundred lines
// instead of a few times per line.
template <typename Hit>
inline bool AnyOfFourPairs(std::string_view s, BytePair a, BytePair b, BytePair c, BytePair d,
                           Hit&& hit) {
  const char* p = s.data();
  const size_t n = s.size();
  size_t i = 0;
#if defined(__SSE2__)
  if (n >= 17) {
    const __m128i a0 = _mm_set1_epi8(a.first), a1 = _mm_set1_epi8(a.second);
    const __m128i b0 = _mm_set1_epi8(b.first), b1 = _mm_set1_epi8(b.second);
    const __m128i c0 = _mm_set1_epi8(c.first), c1 = _mm_set1_epi8(c.second);
    const __m128i d0 = _mm_set1_epi8(d.first), d1 = _mm_set1_epi8(d.second);
    // Bit k set when at[k], at[k + 1] is one of the pairs (reads 17 bytes).
    auto mask16 = [&](const char* at) {
      const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
      const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + 1));
      const __m128i ma = _mm_and_si128(_mm_cmpeq_epi8(v0, a0), _mm_cmpeq_epi8(v1, a1));
      const __m128i mb = _mm_and_si128(_mm_cmpeq_epi8(v0, b0), _mm_cmpeq_epi8(v1, b1));
      const __m128i mc = _mm_and_si128(_mm_cmpeq_epi8(v0, c0), _mm_cmpeq_epi8(v1, c1));
      const __m128i md = _mm_and_si128(_mm_cmpeq_epi8(v0, d0), _mm_cmpeq_epi8(v1, d1));
      const __m128i m = _mm_or_si128(_mm_or_si128(ma, mb), _mm_or_si128(mc, md));
      return static_cast<uint32_t>(_mm_movemask_epi8(m));
    };
    auto report = [&](size_t base, uint32_t bits) { return detail::ReportBits(base, bits, hit); };
    for (; i + 17 <= n; i += 16) {
      if (report(i, mask16(p + i))) return true;
    }
    // Pairs start at most at n - 2: the last 17 bytes cover the starts left,
    // less those already seen.
    if (i + 1 < n) {
      const size_t start = n - 17;
      return report(start, mask16(p + start) & (0xFFFFu << (i - start)));
    }
    return false;
  }
#endif
  for (; i + 1 < n; ++i) {
    const char x = p[i], y = p[i + 1];
    if (((x == a.first && y == a.second) || (x == b.first && y == b.second) ||
         (x == c.first && y == c.second) || (x == d.first && y == d.second)) &&
        hit(i)) {
      return true;
    }
  }
  return false;
}

// s holds `lit` at offset i (i may be out of range: then false).
inline bool HasAt(std::string_view s, size_t i, std::string_view lit) {
  return i <= s.size() && s.size() - i >= lit.size() && s.substr(i, lit.size()) == lit;
}

// s holds `lit` ending just before offset `end` (so that lit's last byte is
// s[end - 1]).
inline bool HasBefore(std::string_view s, size_t end, std::string_view lit) {
  return end >= lit.size() && end <= s.size() && s.substr(end - lit.size(), lit.size()) == lit;
}

}  // namespace casefile::scan
