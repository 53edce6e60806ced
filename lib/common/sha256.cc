#include "common/sha256.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define CF_SHA256_X86 1
#endif

namespace casefile {
namespace {

constexpr std::array<uint32_t, 64> kRoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

constexpr std::array<uint32_t, 8> kInitialState = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

inline uint32_t Rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

inline uint32_t LoadBigEndian(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

inline void StoreBigEndian(uint32_t v, uint8_t* p) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

}  // namespace

namespace sha256_detail {

// The FIPS 180-4 compression function. The message schedule is kept in a
// 16-word ring, and the eight working variables rotate by renaming inside
// the unrolled round macro, so a round is a handful of register operations.
void CompressPortable(std::array<uint32_t, 8>& state, const uint8_t* data, size_t blocks) {
  uint32_t w[16];
  while (blocks-- > 0) {
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 16; ++i) w[i] = LoadBigEndian(data + 4 * i);

#define CF_SHA256_ROUND(a, b, c, d, e, f, g, h, k, wi)                                      \
  do {                                                                                      \
    uint32_t t1 =                                                                           \
        h + (Rotr(e, 6) ^ Rotr(e, 11) ^ Rotr(e, 25)) + ((e & f) ^ (~e & g)) + (k) + (wi);   \
    uint32_t t2 = (Rotr(a, 2) ^ Rotr(a, 13) ^ Rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c)); \
    d += t1;                                                                                \
    h = t1 + t2;                                                                            \
  } while (0)

    for (int i = 0; i < 64; i += 8) {
      if (i >= 16) {
        for (int j = i; j < i + 8; ++j) {
          uint32_t w15 = w[(j - 15) & 15], w2 = w[(j - 2) & 15];
          uint32_t s0 = Rotr(w15, 7) ^ Rotr(w15, 18) ^ (w15 >> 3);
          uint32_t s1 = Rotr(w2, 17) ^ Rotr(w2, 19) ^ (w2 >> 10);
          w[j & 15] += s0 + w[(j - 7) & 15] + s1;
        }
      }
      const uint32_t* k = kRoundConstants.data() + i;
      const uint32_t* wi = w + (i & 15);
      CF_SHA256_ROUND(a, b, c, d, e, f, g, h, k[0], wi[0]);
      CF_SHA256_ROUND(h, a, b, c, d, e, f, g, k[1], wi[1]);
      CF_SHA256_ROUND(g, h, a, b, c, d, e, f, k[2], wi[2]);
      CF_SHA256_ROUND(f, g, h, a, b, c, d, e, k[3], wi[3]);
      CF_SHA256_ROUND(e, f, g, h, a, b, c, d, k[4], wi[4]);
      CF_SHA256_ROUND(d, e, f, g, h, a, b, c, k[5], wi[5]);
      CF_SHA256_ROUND(c, d, e, f, g, h, a, b, k[6], wi[6]);
      CF_SHA256_ROUND(b, c, d, e, f, g, h, a, k[7], wi[7]);
    }
#undef CF_SHA256_ROUND

    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
    data += 64;
  }
}

#ifdef CF_SHA256_X86
namespace {

// The same function on the x86 SHA extensions (SHA-NI), about six times the
// portable speed; file digests of a whole collection are computed here.
// The instructions keep the state as the word pairs ABEF and CDGH, and each
// sha256rnds2 does two rounds, so four rounds take one 4-word message group.
__attribute__((target("sha,sse4.1,ssse3"))) void CompressShaNi(std::array<uint32_t, 8>& state,
                                                               const uint8_t* data, size_t blocks) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state.data()));
  __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state.data() + 4));
  __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
  __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

  while (blocks-- > 0) {
    const __m128i abef_start = abef;
    const __m128i cdgh_start = cdgh;
    __m128i msg[4];
    for (int i = 0; i < 4; ++i) {
      msg[i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * i)),
                                byte_swap);
    }
#pragma GCC unroll 16
    for (int group = 0; group < 16; ++group) {
      __m128i& w = msg[group & 3];
      __m128i wk = _mm_add_epi32(
          w, _mm_loadu_si128(reinterpret_cast<const __m128i*>(kRoundConstants.data() + 4 * group)));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
      if (group < 12) {
        // W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16] for the group
        // four ahead, which reuses this group's slot in the ring.
        __m128i next = _mm_sha256msg1_epu32(w, msg[(group + 1) & 3]);
        next = _mm_add_epi32(next, _mm_alignr_epi8(msg[(group + 3) & 3], msg[(group + 2) & 3], 4));
        w = _mm_sha256msg2_epu32(next, msg[(group + 3) & 3]);
      }
    }
    abef = _mm_add_epi32(abef, abef_start);
    cdgh = _mm_add_epi32(cdgh, cdgh_start);
    data += 64;
  }

  __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  dcba = _mm_blend_epi16(feba, dchg, 0xF0);
  hgfe = _mm_alignr_epi8(dchg, feba, 8);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state.data()), dcba);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state.data() + 4), hgfe);
}

bool CpuHasShaExtensions() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  const bool ssse3 = ecx & (1u << 9), sse41 = ecx & (1u << 19);
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  const bool sha = ebx & (1u << 29);
  return ssse3 && sse41 && sha;
}

}  // namespace
#endif

CompressFn HardwareCompress() {
#ifdef CF_SHA256_X86
  static const bool available = CpuHasShaExtensions();
  return available ? &CompressShaNi : nullptr;
#else
  return nullptr;
#endif
}

}  // namespace sha256_detail

namespace {

void Compress(std::array<uint32_t, 8>& state, const uint8_t* data, size_t blocks) {
  static const sha256_detail::CompressFn chosen = sha256_detail::HardwareCompress()
                                                      ? sha256_detail::HardwareCompress()
                                                      : &sha256_detail::CompressPortable;
  chosen(state, data, blocks);
}

}  // namespace

void Sha256::Reset() {
  state_ = kInitialState;
  block_used_ = 0;
  total_bytes_ = 0;
}

void Sha256::Update(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  total_bytes_ += size;
  if (block_used_ > 0) {
    size_t take = std::min(size, block_.size() - block_used_);
    std::memcpy(block_.data() + block_used_, p, take);
    block_used_ += take;
    p += take;
    size -= take;
    if (block_used_ < block_.size()) return;
    Compress(state_, block_.data(), 1);
    block_used_ = 0;
  }
  // Whole blocks straight from the caller's buffer, without a copy.
  size_t blocks = size / 64;
  if (blocks > 0) {
    Compress(state_, p, blocks);
    p += blocks * 64;
    size -= blocks * 64;
  }
  if (size > 0) {
    std::memcpy(block_.data(), p, size);
    block_used_ = size;
  }
}

Sha256Digest Sha256::Final() {
  // Padding: 0x80, zeros to 56 mod 64, then the message length in bits as a
  // 64-bit big-endian number.
  const uint64_t bit_length = total_bytes_ * 8;
  block_[block_used_++] = 0x80;
  if (block_used_ > 56) {
    std::memset(block_.data() + block_used_, 0, 64 - block_used_);
    Compress(state_, block_.data(), 1);
    block_used_ = 0;
  }
  std::memset(block_.data() + block_used_, 0, 56 - block_used_);
  StoreBigEndian(static_cast<uint32_t>(bit_length >> 32), block_.data() + 56);
  StoreBigEndian(static_cast<uint32_t>(bit_length), block_.data() + 60);
  Compress(state_, block_.data(), 1);

  Sha256Digest digest;
  for (int i = 0; i < 8; ++i) StoreBigEndian(state_[i], digest.data() + 4 * i);
  Reset();
  return digest;
}

Sha256Digest Sha256::Hash(std::string_view bytes) {
  Sha256 h;
  h.Update(bytes);
  return h.Final();
}

HmacSha256::HmacSha256(std::string_view key) {
  // RFC 2104: a key longer than the block is replaced by its hash; the key is
  // then zero-padded to the 64-byte block.
  std::array<uint8_t, 64> padded{};
  if (key.size() > padded.size()) {
    Sha256Digest hashed = Sha256::Hash(key);
    std::memcpy(padded.data(), hashed.data(), hashed.size());
  } else if (!key.empty()) {
    std::memcpy(padded.data(), key.data(), key.size());
  }
  std::array<uint8_t, 64> pad;
  for (size_t i = 0; i < pad.size(); ++i) pad[i] = padded[i] ^ 0x36;
  inner_start_.Update(pad.data(), pad.size());
  for (size_t i = 0; i < pad.size(); ++i) pad[i] = padded[i] ^ 0x5c;
  outer_start_.Update(pad.data(), pad.size());
  inner_ = inner_start_;
}

Sha256Digest HmacSha256::Final() {
  Sha256Digest inner_digest = inner_.Final();
  Sha256 outer = outer_start_;
  outer.Update(inner_digest.data(), inner_digest.size());
  inner_ = inner_start_;
  return outer.Final();
}

Sha256Digest HmacSha256::Mac(std::string_view key, std::string_view message) {
  HmacSha256 mac(key);
  mac.Update(message);
  return mac.Final();
}

std::string HexEncode(const uint8_t* bytes, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(size * 2, '0');
  for (size_t i = 0; i < size; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
  return out;
}

}  // namespace casefile
