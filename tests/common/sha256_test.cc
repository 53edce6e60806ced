// SHA-256 against the FIPS 180-4 example messages (NIST CSRC "Examples with
// Intermediate Values" and the long-message vector), and HMAC-SHA256 against
// the RFC 4231 test cases. The expected digests are the published ones.
#include "common/sha256.h"

#include <gtest/gtest.h>

#include <string>

namespace casefile {
namespace {

std::string Hex(std::string_view message) { return HexEncode(Sha256::Hash(message)); }

std::string HmacHex(std::string_view key, std::string_view message) {
  return HexEncode(HmacSha256::Mac(key, message));
}

constexpr std::string_view k448Bits = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
constexpr std::string_view k896Bits =
    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopq"
    "rsmnopqrstnopqrstu";

TEST(Sha256, NistOneBlockMessage) {
  EXPECT_EQ(Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, EmptyMessage) {
  EXPECT_EQ(Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, NistTwoBlockMessage448Bits) {
  // 56 bytes: the padding's length field no longer fits the first block.
  ASSERT_EQ(k448Bits.size(), 56u);
  EXPECT_EQ(Hex(k448Bits), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, Nist896BitMessage) {
  ASSERT_EQ(k896Bits.size(), 112u);
  EXPECT_EQ(Hex(k896Bits), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, OneMillionA) {
  const std::string expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  EXPECT_EQ(Hex(std::string(1000000, 'a')), expected);
  // The same message fed in uneven pieces, as a file read would.
  Sha256 h;
  std::string piece(997, 'a');
  size_t left = 1000000;
  while (left > 0) {
    size_t n = std::min(left, piece.size());
    h.Update(piece.data(), n);
    left -= n;
  }
  EXPECT_EQ(HexEncode(h.Final()), expected);
}

TEST(Sha256, ChunksCutAnywhereGiveTheSameDigest) {
  const std::string expected = "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1";
  for (size_t cut1 = 0; cut1 <= k896Bits.size(); ++cut1) {
    for (size_t cut2 = cut1; cut2 <= k896Bits.size(); cut2 += 7) {
      Sha256 h;
      h.Update(k896Bits.substr(0, cut1));
      h.Update(k896Bits.substr(cut1, cut2 - cut1));
      h.Update(k896Bits.substr(cut2));
      ASSERT_EQ(HexEncode(h.Final()), expected) << cut1 << " " << cut2;
    }
  }
  Sha256 bytewise;
  for (char c : k896Bits) bytewise.Update(&c, 1);
  EXPECT_EQ(HexEncode(bytewise.Final()), expected);
}

TEST(Sha256, FinalResetsForTheNextMessage) {
  Sha256 h;
  h.Update("some earlier message");
  h.Final();
  h.Update("abc");
  EXPECT_EQ(HexEncode(h.Final()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, HexEncodeIsLowercaseTwoDigitsPerByte) {
  const uint8_t bytes[] = {0x00, 0x0f, 0xa0, 0xff};
  EXPECT_EQ(HexEncode(bytes, 4), "000fa0ff");
  EXPECT_EQ(HexEncode(bytes, 0), "");
}

TEST(HmacSha256, Rfc4231Case1) {
  EXPECT_EQ(HmacHex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(HmacSha256, Rfc4231Case2KeyShorterThanTag) {
  EXPECT_EQ(HmacHex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(HmacSha256, Rfc4231Case3) {
  EXPECT_EQ(HmacHex(std::string(20, '\xaa'), std::string(50, '\xdd')),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
}

TEST(HmacSha256, Rfc4231Case4) {
  std::string key;
  for (int i = 1; i <= 25; ++i) key.push_back(static_cast<char>(i));
  EXPECT_EQ(HmacHex(key, std::string(50, '\xcd')),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
}

TEST(HmacSha256, Rfc4231Case5TruncatedTag) {
  // RFC 4231 gives only the first 128 bits for this case.
  EXPECT_EQ(HmacHex(std::string(20, '\x0c'), "Test With Truncation").substr(0, 32),
            "a3b6167473100ee06e0c796c2955552b");
}

TEST(HmacSha256, Rfc4231Case6KeyLongerThanBlock) {
  EXPECT_EQ(
      HmacHex(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First"),
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(HmacSha256, Rfc4231Case7KeyAndDataLongerThanBlock) {
  EXPECT_EQ(HmacHex(std::string(131, '\xaa'),
                    "This is a test using a larger than block-size key and a larger than "
                    "block-size data. The key needs to be hashed before being used by the HMAC "
                    "algorithm."),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

TEST(HmacSha256, OneObjectServesManyMessagesIncrementally) {
  HmacSha256 mac("Jefe");
  mac.Update("what do ya ");
  mac.Update("want for nothing?");
  EXPECT_EQ(HexEncode(mac.Final()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // Final left it ready for the next message under the same key.
  mac.Update("what do ya want for nothing?");
  EXPECT_EQ(HexEncode(mac.Final()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

// Both compression functions on the same blocks. Where the CPU has no SHA
// extensions, the dispatching class runs the portable code, and the vectors
// above already cover it.
TEST(Sha256, PortableAndHardwareCompressionAgree) {
  std::string data(64 * 37, '\0');
  uint32_t x = 12345;
  for (char& c : data) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 24);
  }
  for (size_t blocks : {1u, 2u, 5u, 37u}) {
    std::array<uint32_t, 8> portable = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    std::array<uint32_t, 8> hardware = portable;
    sha256_detail::CompressPortable(portable, reinterpret_cast<const uint8_t*>(data.data()),
                                    blocks);
    sha256_detail::CompressFn fn = sha256_detail::HardwareCompress();
    if (fn == nullptr) fn = &sha256_detail::CompressPortable;
    fn(hardware, reinterpret_cast<const uint8_t*>(data.data()), blocks);
    EXPECT_EQ(portable, hardware) << blocks;
  }
}

TEST(Sha256, PortableCompressionMatchesTheNistOneBlockVector) {
  // "abc" padded by hand: 0x80, zeros, and the bit length 24 at the end.
  std::array<uint8_t, 64> block{};
  block[0] = 'a';
  block[1] = 'b';
  block[2] = 'c';
  block[3] = 0x80;
  block[63] = 24;
  std::array<uint32_t, 8> state = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  sha256_detail::CompressPortable(state, block.data(), 1);
  std::array<uint32_t, 8> expected = {0xba7816bf, 0x8f01cfea, 0x414140de, 0x5dae2223,
                                      0xb00361a3, 0x96177a9c, 0xb410ff61, 0xf20015ad};
  EXPECT_EQ(state, expected);
}

}  // namespace
}  // namespace casefile
