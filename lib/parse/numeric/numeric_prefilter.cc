#include "parse/numeric/numeric_prefilter.h"

#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define CASEFILE_NUMERIC_X86 1
#endif

namespace casefile::numeric {
namespace {

// Folding with | 0x20 lower-cases ASCII letters; it also maps some
// punctuation onto other punctuation, which no needle contains, so folding
// never creates a match between a letter and a non-letter.
inline char Fold(char c) { return static_cast<char>(c | 0x20); }

inline uint32_t HitsAt(const char* p) {
  uint32_t hits = 0;
  const char a = Fold(p[0]), b = Fold(p[1]), c = Fold(p[2]);
  if (a == 'o' && b == 's' && c == 's') hits |= kHitLoss;
  if (a == 'n' && b == 'a' && c == 'n') hits |= kHitNan;
  if (a == 'r' && b == 'f' && c == 'l') hits |= kHitOverflow;
  if (a == 'i' && b == 'n' && c == 'f') hits |= kHitInf;
  return hits;
}

#ifdef CASEFILE_NUMERIC_X86

// Windows of 16 (SSE2), 32 (AVX2) or 64 (AVX-512) starting positions: a needle starts at
// position i when bytes i, i+1, i+2 match, so each window loads the text at
// three offsets. Zero bytes (the padding of short texts) fold to a space,
// which ends any needle, so padding cannot create a match. The versions
// differ only in vector width; AVX2 or AVX-512 is picked at run time, so
// the build needs neither.

uint32_t SplitHits(uint32_t loss, uint32_t nan, uint32_t ovf, uint32_t inf) {
  return (loss ? kHitLoss : 0u) | (nan ? kHitNan : 0u) | (ovf ? kHitOverflow : 0u) |
         (inf ? kHitInf : 0u);
}

inline uint32_t WindowSse2(const char* p) {
  const __m128i fold = _mm_set1_epi8(0x20);
  const __m128i r0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i r1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 1));
  const __m128i r2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2));
  const __m128i v0 = _mm_or_si128(r0, fold), v1 = _mm_or_si128(r1, fold),
                v2 = _mm_or_si128(r2, fold);
  auto eq = [](__m128i v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
  const __m128i loss = _mm_and_si128(_mm_and_si128(eq(v0, 'o'), eq(v1, 's')), eq(v2, 's'));
  const __m128i nan = _mm_and_si128(_mm_and_si128(eq(v0, 'n'), eq(v1, 'a')), eq(v2, 'n'));
  const __m128i ovf = _mm_and_si128(_mm_and_si128(eq(v0, 'r'), eq(v1, 'f')), eq(v2, 'l'));
  const __m128i inf = _mm_and_si128(_mm_and_si128(eq(v0, 'i'), eq(v1, 'n')), eq(v2, 'f'));
  // Most windows hit nothing: test the union once, split it only on a hit.
  if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(loss, nan), _mm_or_si128(ovf, inf))) == 0) {
    return 0;
  }
  return SplitHits(_mm_movemask_epi8(loss), _mm_movemask_epi8(nan), _mm_movemask_epi8(ovf),
                   _mm_movemask_epi8(inf));
}

// Texts shorter than one window are copied into a zeroed buffer; longer
// ones end with a window that overlaps the previous one (a needle seen twice
// sets its bit twice).
uint32_t ScanShort(std::string_view text) {
  if (text.size() < 3) return 0;
  char buf[16 + 2] = {};
  std::memcpy(buf, text.data(), text.size());
  return WindowSse2(buf);
}

uint32_t ScanSse2(std::string_view text) {
  constexpr size_t kSpan = 16 + 2;  // bytes one window reads
  const char* p = text.data();
  const size_t n = text.size();
  if (n < kSpan) return ScanShort(text);
  uint32_t hits = 0;
  size_t i = 0;
  for (; i + kSpan <= n; i += 16) hits |= WindowSse2(p + i);
  if (i + 2 < n) hits |= WindowSse2(p + n - kSpan);
  return hits;
}

__attribute__((target("avx2"))) inline uint32_t WindowAvx2(const char* p) {
  const __m256i fold = _mm256_set1_epi8(0x20);
  const __m256i r0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i r1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 1));
  const __m256i r2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 2));
  const __m256i v0 = _mm256_or_si256(r0, fold), v1 = _mm256_or_si256(r1, fold),
                v2 = _mm256_or_si256(r2, fold);
  const __m256i loss =
      _mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi8(v0, _mm256_set1_epi8('o')),
                                        _mm256_cmpeq_epi8(v1, _mm256_set1_epi8('s'))),
                       _mm256_cmpeq_epi8(v2, _mm256_set1_epi8('s')));
  const __m256i nan =
      _mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi8(v0, _mm256_set1_epi8('n')),
                                        _mm256_cmpeq_epi8(v1, _mm256_set1_epi8('a'))),
                       _mm256_cmpeq_epi8(v2, _mm256_set1_epi8('n')));
  const __m256i ovf =
      _mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi8(v0, _mm256_set1_epi8('r')),
                                        _mm256_cmpeq_epi8(v1, _mm256_set1_epi8('f'))),
                       _mm256_cmpeq_epi8(v2, _mm256_set1_epi8('l')));
  const __m256i inf =
      _mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi8(v0, _mm256_set1_epi8('i')),
                                        _mm256_cmpeq_epi8(v1, _mm256_set1_epi8('n'))),
                       _mm256_cmpeq_epi8(v2, _mm256_set1_epi8('f')));
  if (_mm256_movemask_epi8(
          _mm256_or_si256(_mm256_or_si256(loss, nan), _mm256_or_si256(ovf, inf))) == 0) {
    return 0;
  }
  return SplitHits(_mm256_movemask_epi8(loss), _mm256_movemask_epi8(nan), _mm256_movemask_epi8(ovf),
                   _mm256_movemask_epi8(inf));
}

__attribute__((target("avx2"))) uint32_t ScanAvx2(std::string_view text) {
  constexpr size_t kSpan = 32 + 2;
  const char* p = text.data();
  const size_t n = text.size();
  if (n < kSpan) return ScanSse2(text);
  uint32_t hits = 0;
  size_t i = 0;
  for (; i + kSpan <= n; i += 32) hits |= WindowAvx2(p + i);
  if (i + 2 < n) hits |= WindowAvx2(p + n - kSpan);
  return hits;
}

__attribute__((target("avx512f,avx512bw"))) inline uint32_t WindowAvx512(const char* p) {
  const __m512i fold = _mm512_set1_epi8(0x20);
  const __m512i v0 = _mm512_or_si512(_mm512_loadu_si512(p), fold);
  const __m512i v1 = _mm512_or_si512(_mm512_loadu_si512(p + 1), fold);
  const __m512i v2 = _mm512_or_si512(_mm512_loadu_si512(p + 2), fold);
  const __mmask64 loss = _mm512_cmpeq_epi8_mask(v0, _mm512_set1_epi8('o')) &
                         _mm512_cmpeq_epi8_mask(v1, _mm512_set1_epi8('s')) &
                         _mm512_cmpeq_epi8_mask(v2, _mm512_set1_epi8('s'));
  const __mmask64 nan = _mm512_cmpeq_epi8_mask(v0, _mm512_set1_epi8('n')) &
                        _mm512_cmpeq_epi8_mask(v1, _mm512_set1_epi8('a')) &
                        _mm512_cmpeq_epi8_mask(v2, _mm512_set1_epi8('n'));
  const __mmask64 ovf = _mm512_cmpeq_epi8_mask(v0, _mm512_set1_epi8('r')) &
                        _mm512_cmpeq_epi8_mask(v1, _mm512_set1_epi8('f')) &
                        _mm512_cmpeq_epi8_mask(v2, _mm512_set1_epi8('l'));
  const __mmask64 inf = _mm512_cmpeq_epi8_mask(v0, _mm512_set1_epi8('i')) &
                        _mm512_cmpeq_epi8_mask(v1, _mm512_set1_epi8('n')) &
                        _mm512_cmpeq_epi8_mask(v2, _mm512_set1_epi8('f'));
  return SplitHits(loss != 0, nan != 0, ovf != 0, inf != 0);
}

__attribute__((target("avx512f,avx512bw"))) uint32_t ScanAvx512(std::string_view text) {
  constexpr size_t kSpan = 64 + 2;
  const char* p = text.data();
  const size_t n = text.size();
  if (n < kSpan) return ScanAvx2(text);
  uint32_t hits = 0;
  size_t i = 0;
  for (; i + kSpan <= n; i += 64) hits |= WindowAvx512(p + i);
  if (i + 2 < n) hits |= WindowAvx512(p + n - kSpan);
  return hits;
}

using ScanFn = uint32_t (*)(std::string_view);

ScanFn PickScan() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bw")) return &ScanAvx512;
  return __builtin_cpu_supports("avx2") ? &ScanAvx2 : &ScanSse2;
}

#endif  // CASEFILE_NUMERIC_X86

}  // namespace

uint32_t ScanLiteralsScalar(std::string_view text) {
  uint32_t hits = 0;
  for (size_t i = 0; i + 2 < text.size(); ++i) hits |= HitsAt(text.data() + i);
  return hits;
}

uint32_t ScanLiterals(std::string_view text) {
#ifdef CASEFILE_NUMERIC_X86
  static const ScanFn scan = PickScan();
  return scan(text);
#else
  return ScanLiteralsScalar(text);
#endif
}

}  // namespace casefile::numeric
