#include "parse/dist/dist_prefilter.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <utility>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define CASEFILE_DIST_X86 1
#endif

namespace casefile::dist {
namespace {

constexpr bool IsLetter(char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

// Pattern byte `p` (a letter in either case, or itself) against text byte `c`.
constexpr bool ByteMatches(char p, char c) {
  return IsLetter(p) ? (c | 0x20) == (p | 0x20) : c == p;
}

#ifdef CASEFILE_DIST_X86

// The vector scans test every position of a window against all the n-grams
// at once, in the manner of Hyperscan's "Teddy" matcher. The grams are split
// into sets of at most eight grams of one length, one bit each; for each
// byte offset k of a set, a table lookup of the text byte at i + k gives the
// grams whose byte k it is, and the AND over the offsets leaves in lane i
// the grams that occur at i. With AVX-512 VBMI one VPERMI2B looks a byte up
// in a 128-entry table; without it, two PSHUFB look up its low and its high
// nibble in 16-entry tables (a gram has one byte per offset, so the AND of
// both nibbles' entries is set exactly for that byte; a letter's high-nibble
// entry is set for both cases). Bytes >= 0x80 look up zero (no gram has
// one), and the scans pad the text with 0xFF or zero, which no gram holds
// either. The tables come from kAnchorGrams at compile time, so the vector
// code and the byte loop read the same list.

constexpr size_t kNumGrams = std::size(kAnchorGrams);
constexpr size_t kSetSize = 8;
// Enough sets for grams of kMaxGramBytes lengths, a set per length at most.
constexpr size_t kMaxSets = (kNumGrams + kSetSize - 1) / kSetSize + kMaxGramBytes;
constexpr uint8_t kPad = 0xFF;

struct Plan {
  size_t sets = 0;              // sets used (at most kMaxSets)
  size_t depth[kMaxSets] = {};  // offsets a set compares: the length of its grams
  // Per set and offset: grams whose byte there is the index (VPERMI2B) ...
  uint8_t bytes[kMaxSets][kMaxGramBytes][128] = {};
  // ... or has the index as its low / high nibble (PSHUFB; repeated in two
  // 16-byte lanes, since PSHUFB looks up within each 128-bit lane).
  uint8_t lo[kMaxSets][kMaxGramBytes][32] = {};
  uint8_t hi[kMaxSets][kMaxGramBytes][32] = {};
  uint32_t bits[kMaxSets][256] = {};  // a set's lane bits -> Anchor bits
};

constexpr Plan MakePlan() {
  Plan plan;
  // Longest grams first, and each set holds grams of one length, so that
  // every offset a set compares is one of each of its grams.
  size_t order[kNumGrams] = {};
  size_t n = 0;
  for (size_t len = kMaxGramBytes; len > 0; --len) {
    for (size_t g = 0; g < kNumGrams; ++g) {
      if (kAnchorGrams[g].pattern.size() == len) order[n++] = g;
    }
  }
  size_t set = 0, slot = 0;
  for (size_t pos = 0; pos < n; ++pos) {
    const AnchorGram& gram = kAnchorGrams[order[pos]];
    // A new set when one is full or the length changes.
    if (slot == kSetSize || (slot > 0 && gram.pattern.size() != plan.depth[set])) {
      ++set;
      slot = 0;
    }
    plan.sets = set + 1;
    const auto bit = static_cast<uint8_t>(1u << slot++);
    plan.depth[set] = gram.pattern.size();
    for (size_t k = 0; k < gram.pattern.size(); ++k) {
      const char c = gram.pattern[k];
      const auto b = static_cast<uint8_t>(c);
      plan.bytes[set][k][b] |= bit;
      if (IsLetter(c)) plan.bytes[set][k][b ^ 0x20] |= bit;
      for (size_t lane = 0; lane < 32; lane += 16) {
        plan.lo[set][k][lane + (b & 15)] |= bit;
        plan.hi[set][k][lane + (b >> 4)] |= bit;
        if (IsLetter(c)) plan.hi[set][k][lane + ((b ^ 0x20) >> 4)] |= bit;
      }
    }
    for (size_t v = 0; v < 256; ++v) {
      if (v & bit) plan.bits[set][v] |= gram.bits;
    }
  }
  return plan;
}

constexpr bool GramsFit() {
  for (const AnchorGram& g : kAnchorGrams) {
    if (g.pattern.empty() || g.pattern.size() > kMaxGramBytes) return false;
    if (g.bits == 0 || g.bits >= kLineHostRank) return false;
    for (char c : g.pattern) {
      if (static_cast<unsigned char>(c) >= 0x80) return false;
    }
  }
  return true;
}
static_assert(GramsFit(), "every gram is 1..kMaxGramBytes ASCII bytes and sets text anchors");

constexpr Plan kPlan = MakePlan();
constexpr size_t kNumSets = kPlan.sets;

// Anchor bits of a set's lane bytes, OR-ed down to 64 bits.
inline uint32_t SetBits(size_t set, uint64_t lanes) {
  lanes |= lanes >> 32;
  lanes |= lanes >> 16;
  lanes |= lanes >> 8;
  return kPlan.bits[set][lanes & 0xFF];
}

// --- SSSE3 and AVX2: 16- and 32-byte windows of gram starts. A set of
// depth d reads W + d - 1 bytes from a window's start; the last window ends
// at the end of the text (each set from its own start, so that no read
// passes the end), overlapping the previous one. Texts shorter than one
// window's reads are copied into a padded buffer.

#define CASEFILE_SSSE3 __attribute__((target("ssse3"), always_inline))

// Grams of set S whose byte K is the byte at each lane of q.
template <size_t S, size_t K>
CASEFILE_SSSE3 inline __m128i Lookup128(const uint8_t* q) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
  const __m128i hi = _mm_and_si128(_mm_srli_epi16(v, 4), _mm_set1_epi8(0x0F));
  const auto* lo_table = reinterpret_cast<const __m128i*>(kPlan.lo[S][K]);
  const auto* hi_table = reinterpret_cast<const __m128i*>(kPlan.hi[S][K]);
  return _mm_and_si128(_mm_shuffle_epi8(_mm_loadu_si128(lo_table), v),
                       _mm_shuffle_epi8(_mm_loadu_si128(hi_table), hi));
}

// Grams of set S that start at p[0..15]. The sets share their loads and
// nibbles once inlined side by side.
template <size_t S, size_t... K>
CASEFILE_SSSE3 inline __m128i SetHits128(const uint8_t* p, std::index_sequence<K...>) {
  __m128i r = _mm_set1_epi8(-1);
  ((r = _mm_and_si128(r, Lookup128<S, K>(p + K))), ...);
  return r;
}

// A window at p, or (last) the window whose reads end at p.
template <bool kLast, size_t... S>
CASEFILE_SSSE3 inline void Window128(const uint8_t* p, __m128i* acc, std::index_sequence<S...>) {
  constexpr size_t kBack = 16 - 1;
  ((acc[S] = _mm_or_si128(acc[S], SetHits128<S>(kLast ? p - kBack - kPlan.depth[S] : p,
                                                std::make_index_sequence<kPlan.depth[S]>{}))),
   ...);
}

__attribute__((target("ssse3"))) uint32_t ScanSsse3(std::string_view text) {
  constexpr size_t kWidth = 16, kReach = kWidth + kMaxGramBytes - 1;
  constexpr auto kSets = std::make_index_sequence<kNumSets>{};
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  __m128i acc[kNumSets];
  for (__m128i& a : acc) a = _mm_setzero_si128();
  if (n < kReach) {
    uint8_t buf[kReach];
    std::memset(buf, kPad, sizeof(buf));
    if (n > 0) std::memcpy(buf, p, n);
    Window128<false>(buf, acc, kSets);
  } else {
    size_t i = 0;
    for (; i + kReach <= n; i += kWidth) Window128<false>(p + i, acc, kSets);
    if (i < n) Window128<true>(p + n, acc, kSets);
  }
  uint32_t bits = 0;
  for (size_t s = 0; s < kNumSets; ++s) {
    const __m128i a = _mm_or_si128(acc[s], _mm_srli_si128(acc[s], 8));
    bits |= SetBits(s, static_cast<uint64_t>(_mm_cvtsi128_si64(a)));
  }
  return bits;
}

#define CASEFILE_AVX2 __attribute__((target("avx2"), always_inline))

template <size_t S, size_t K>
CASEFILE_AVX2 inline __m256i Lookup256(const uint8_t* q) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
  const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), _mm256_set1_epi8(0x0F));
  const auto* lo_table = reinterpret_cast<const __m256i*>(kPlan.lo[S][K]);
  const auto* hi_table = reinterpret_cast<const __m256i*>(kPlan.hi[S][K]);
  return _mm256_and_si256(_mm256_shuffle_epi8(_mm256_loadu_si256(lo_table), v),
                          _mm256_shuffle_epi8(_mm256_loadu_si256(hi_table), hi));
}

template <size_t S, size_t... K>
CASEFILE_AVX2 inline __m256i SetHits256(const uint8_t* p, std::index_sequence<K...>) {
  __m256i r = _mm256_set1_epi8(-1);
  ((r = _mm256_and_si256(r, Lookup256<S, K>(p + K))), ...);
  return r;
}

template <bool kLast, size_t... S>
CASEFILE_AVX2 inline void Window256(const uint8_t* p, __m256i* acc, std::index_sequence<S...>) {
  constexpr size_t kBack = 32 - 1;
  ((acc[S] = _mm256_or_si256(acc[S], SetHits256<S>(kLast ? p - kBack - kPlan.depth[S] : p,
                                                   std::make_index_sequence<kPlan.depth[S]>{}))),
   ...);
}

__attribute__((target("avx2"))) uint32_t ScanAvx2(std::string_view text) {
  constexpr size_t kWidth = 32, kReach = kWidth + kMaxGramBytes - 1;
  constexpr auto kSets = std::make_index_sequence<kNumSets>{};
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  if (n < kReach) return ScanSsse3(text);
  __m256i acc[kNumSets];
  for (__m256i& a : acc) a = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + kReach <= n; i += kWidth) Window256<false>(p + i, acc, kSets);
  if (i < n) Window256<true>(p + n, acc, kSets);
  uint32_t bits = 0;
  for (size_t s = 0; s < kNumSets; ++s) {
    if (_mm256_testz_si256(acc[s], acc[s])) continue;
    __m128i a = _mm_or_si128(_mm256_castsi256_si128(acc[s]), _mm256_extracti128_si256(acc[s], 1));
    a = _mm_or_si128(a, _mm_srli_si128(a, 8));
    bits |= SetBits(s, static_cast<uint64_t>(_mm_cvtsi128_si64(a)));
  }
  return bits;
}

// --- AVX-512 VBMI: 64-byte windows, one VPERMI2B per set and offset. The
// last window reads with masked loads: masked-off bytes read as zero (which
// no gram holds) and never fault.

#define CASEFILE_VBMI_TARGET target("avx512f,avx512bw,avx512vbmi,bmi2")
#define CASEFILE_VBMI __attribute__((CASEFILE_VBMI_TARGET, always_inline))

template <size_t S, size_t K>
CASEFILE_VBMI inline __m512i Lookup512(__m512i v, __mmask64 ascii) {
  __m512i r = _mm512_maskz_permutex2var_epi8(ascii, _mm512_loadu_si512(kPlan.bytes[S][K]), v,
                                             _mm512_loadu_si512(kPlan.bytes[S][K] + 64));
  return r;
}

template <size_t S, size_t... K>
CASEFILE_VBMI inline __m512i SetHits512(const __m512i* v, const __mmask64* ascii,
                                        std::index_sequence<K...>) {
  __m512i r = _mm512_set1_epi8(-1);
  ((r = _mm512_and_si512(r, Lookup512<S, K>(v[K], ascii[K]))), ...);
  return r;
}

template <size_t... S>
CASEFILE_VBMI inline void Window512(const __m512i* v, __m512i* acc, std::index_sequence<S...>) {
  __mmask64 ascii[kMaxGramBytes];
#pragma GCC unroll 4
  for (size_t k = 0; k < kMaxGramBytes; ++k) {
    ascii[k] = _mm512_testn_epi8_mask(v[k], _mm512_set1_epi8(static_cast<char>(0x80)));
  }
  ((acc[S] = _mm512_or_si512(acc[S],
                             SetHits512<S>(v, ascii, std::make_index_sequence<kPlan.depth[S]>{}))),
   ...);
}

// Anchor bits of set S's accumulator. Most sets hit nothing on most lines.
template <size_t S>
CASEFILE_VBMI inline uint32_t Bits512(__m512i a) {
  if (_mm512_test_epi8_mask(a, a) == 0) return 0;
  // OR the sixteen 32-bit lanes into the first (maskz forms: the plain ones
  // start from an undefined vector, which GCC 12 warns about).
  a = _mm512_or_si512(a, _mm512_maskz_alignr_epi64(0xFF, a, a, 4));
  a = _mm512_or_si512(a, _mm512_maskz_alignr_epi64(0xFF, a, a, 2));
  a = _mm512_or_si512(a, _mm512_maskz_alignr_epi64(0xFF, a, a, 1));
  a = _mm512_or_si512(a, _mm512_maskz_alignr_epi32(0xFFFF, a, a, 1));
  return SetBits(S, static_cast<uint32_t>(_mm512_cvtsi512_si32(a)));
}

template <size_t... S>
CASEFILE_VBMI inline uint32_t AllBits512(const __m512i* acc, std::index_sequence<S...>) {
  return (Bits512<S>(acc[S]) | ...);
}

__attribute__((CASEFILE_VBMI_TARGET)) uint32_t ScanVbmi(std::string_view text) {
  constexpr size_t kWidth = 64, kReach = kWidth + kMaxGramBytes - 1;
  constexpr auto kSets = std::make_index_sequence<kNumSets>{};
  const char* p = text.data();
  const size_t n = text.size();
  __m512i acc[kNumSets];
  for (__m512i& a : acc) a = _mm512_setzero_si512();
  __m512i v[kMaxGramBytes];
  size_t i = 0;
  for (; i + kReach <= n; i += kWidth) {
#pragma GCC unroll 4
    for (size_t k = 0; k < kMaxGramBytes; ++k) v[k] = _mm512_loadu_si512(p + i + k);
    Window512(v, acc, kSets);
  }
  if (i < n) {
#pragma GCC unroll 4
    for (size_t k = 0; k < kMaxGramBytes; ++k) {
      // Past the end the mask is empty and the address is not used.
      const size_t at = std::min(i + k, n);
      v[k] =
          _mm512_maskz_loadu_epi8(_bzhi_u64(~uint64_t{0}, static_cast<unsigned>(n - at)), p + at);
    }
    Window512(v, acc, kSets);
  }
  return AllBits512(acc, kSets);
}

#endif  // CASEFILE_DIST_X86

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Whether `s` is a prefix of `word` (the whole of it, or cut).
bool PrefixOf(std::string_view s, std::string_view word) {
  return s.size() <= word.size() && word.substr(0, s.size()) == s;
}

// A whole group bracket's inside: "Rank 3", "PG 1 Rank 0", "PG ID 0 PG GUID
// 0(default_pg) Rank 12".
bool IsGroupBracket(std::string_view inner) {
  if (inner.substr(0, 3) == "PG ") {
    const size_t r = inner.rfind(" Rank ");
    if (r == std::string_view::npos) return false;
    inner.remove_prefix(r + 1);
  }
  if (inner.substr(0, 5) != "Rank " || inner.size() == 5) return false;
  for (char c : inner.substr(5)) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

// The start of a group bracket's inside, cut: "R", "Rank 1", "P", "PG ID 0
// PG GU" (at least one byte).
bool IsCutGroupBracket(std::string_view inner) {
  if (inner.empty()) return false;
  if (PrefixOf(inner, "PG ") || inner.substr(0, 3) == "PG ") return true;
  if (PrefixOf(inner, "Rank ")) return true;
  if (inner.substr(0, 5) != "Rank ") return false;
  for (char c : inner.substr(5)) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

}  // namespace

bool EndsInGroupHead(std::string_view msg) {
  while (!msg.empty() && (msg.back() == ' ' || msg.back() == '\t' || msg.back() == '\r')) {
    msg.remove_suffix(1);
  }
  if (msg.size() > kHeadWindow) msg.remove_prefix(msg.size() - kHeadWindow);
  // Most lines hold no '[' near their end and stop here.
  const void* open = memrchr(msg.data(), '[', msg.size());
  if (open == nullptr) return false;
  const size_t at = static_cast<size_t>(static_cast<const char*>(open) - msg.data());
  std::string_view inner = msg.substr(at + 1);
  const size_t close = inner.find(']');
  if (close == std::string_view::npos) return IsCutGroupBracket(inner);
  if (!IsGroupBracket(inner.substr(0, close))) return false;
  std::string_view tail = inner.substr(close + 1);
  while (!tail.empty() && tail.front() == ' ') tail.remove_prefix(1);
  return PrefixOf(tail, "Watchdog caught") || PrefixOf(tail, "Collective WorkNCCL(");
}

uint32_t ScanAnchorsScalar(std::string_view text) {
  uint32_t bits = 0;
  for (const AnchorGram& g : kAnchorGrams) {
    if ((bits & g.bits) == g.bits) continue;
    const size_t len = g.pattern.size();
    for (size_t i = 0; i + len <= text.size(); ++i) {
      size_t k = 0;
      while (k < len && ByteMatches(g.pattern[k], text[i + k])) ++k;
      if (k == len) {
        bits |= g.bits;
        break;
      }
    }
  }
  return bits;
}

std::vector<AnchorScan> AnchorScans() {
  std::vector<AnchorScan> scans;
#ifdef CASEFILE_DIST_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi") &&
      __builtin_cpu_supports("bmi2")) {
    scans.push_back({"vbmi", &ScanVbmi});
  }
  if (__builtin_cpu_supports("avx2")) scans.push_back({"avx2", &ScanAvx2});
  if (__builtin_cpu_supports("ssse3")) scans.push_back({"ssse3", &ScanSsse3});
#endif
  scans.push_back({"scalar", &ScanAnchorsScalar});
  return scans;
}

uint32_t ScanAnchors(std::string_view text) {
  // The first scan is the widest this machine runs.
  static const auto scan = AnchorScans().front().scan;
  return scan(text);
}

}  // namespace casefile::dist
