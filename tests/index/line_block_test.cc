// The block format on its own: encode/decode round trip, and a decoder that
// meets damaged bytes with Error(kCorrupt), never a crash or a wild read.
#include "index/line_block.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "index/block_compressor.h"

namespace casefile {
namespace {

Block SampleBlock() {
  Block b;
  b.Reset(7, 2, 100);
  const char* texts[] = {"first line", "", "third \xff line", "fourth"};
  const char* hosts[] = {"h1", "", "h2", "h1"};
  for (int i = 0; i < 4; ++i) {
    LineRecord l;
    l.file_id = 7;
    l.line_no = 100 + i;
    l.offset = 1000 + 20 * i;
    l.ts_us = i == 1 ? kNoTimestamp : 5000000 - i;
    l.level = static_cast<Level>(i + 2);
    l.rank = i == 3 ? -1 : i;
    l.pid = 10 * i - 1;
    l.msg_start = i;
    l.flags = static_cast<uint32_t>(i);
    l.host = hosts[i];
    l.text = texts[i];
    AppendLine(b, l, b.HostIndex(l.host));
  }
  return b;
}

TEST(LineBlock, RoundTripThroughTheCompressor) {
  Block b = SampleBlock();
  EXPECT_EQ(b.hosts, (std::vector<std::string>{"h1", "h2"}));
  EXPECT_EQ(b.min_ts, 5000000 - 3);
  EXPECT_EQ(b.max_ts, 5000000);
  BlockCompressor c;
  StoredBlock s;
  c.Compress(b, s);
  EXPECT_EQ(s.file_id, 7);
  EXPECT_EQ(s.block_no, 2);
  EXPECT_EQ(s.first_line, 100);
  EXPECT_EQ(s.line_count, 4);
  EXPECT_EQ(s.first_offset, 1000);
  DecodedBlock d;
  d.Decode(s.data.data(), s.data.size(), s.raw_bytes);
  ASSERT_EQ(d.size(), 4u);
  LineRecord r = d.Record(2, 7, 100);
  EXPECT_EQ(r.line_no, 102);
  EXPECT_EQ(r.offset, 1040u);
  EXPECT_EQ(r.ts_us, 4999998);
  EXPECT_EQ(r.level, Level::kWarning);
  EXPECT_EQ(r.rank, 2);
  EXPECT_EQ(r.host, "h2");
  EXPECT_EQ(r.pid, 19);
  EXPECT_EQ(r.msg_start, 2u);
  EXPECT_EQ(r.flags, 2u);
  EXPECT_EQ(r.text, "third \xff line");
  LineRecord r1 = d.Record(1, 7, 100);
  EXPECT_EQ(r1.ts_us, kNoTimestamp);
  EXPECT_EQ(r1.host, "");
  EXPECT_EQ(r1.text, "");
  EXPECT_EQ(r1.pid, 9);
  EXPECT_EQ(d.Record(3, 7, 100).rank, -1);
  EXPECT_EQ(d.Record(0, 7, 100).pid, -1);
}

TEST(LineBlock, WrongSizesAreCorrupt) {
  BlockCompressor c;
  StoredBlock s;
  c.Compress(SampleBlock(), s);
  DecodedBlock d;
  for (int64_t raw :
       {s.raw_bytes - 1, s.raw_bytes + 1, int64_t{0}, int64_t{-5}, int64_t{1} << 40}) {
    try {
      d.Decode(s.data.data(), s.data.size(), raw);
      FAIL() << "decoded with raw_bytes " << raw;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kCorrupt);
    }
  }
  try {
    d.Decode(s.data.data(), s.data.size() / 2, s.raw_bytes);
    FAIL() << "decoded half a frame";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorrupt);
  }
}

// Every single-byte change and every truncation of the encoded block either
// decodes to something self-consistent or is refused as corrupt. Run for a
// block whose texts end at newlines and one that needs a length column.
class DamagedPayloads : public ::testing::TestWithParam<bool> {};

TEST_P(DamagedPayloads, AreRefusedOrConsistent) {
  Block block = SampleBlock();
  if (GetParam()) {
    LineRecord l;
    l.line_no = 104;
    l.text = "with\nnewline";
    AppendLine(block, l, 0);
  }
  EXPECT_EQ(block.text_has_newline, GetParam());
  ByteBuffer encoded;
  EncodeBlock(block, encoded);
  std::vector<uint8_t> good(encoded.data(), encoded.data() + encoded.size());
  DecodedBlock d;
  d.DecodePayload(good.data(), good.size());
  ASSERT_EQ(d.size(), GetParam() ? 5u : 4u);
  if (GetParam()) {
    EXPECT_EQ(d.Text(4), "with\nnewline");
  }
  int refused = 0;
  auto check = [&](const std::vector<uint8_t>& bytes) {
    try {
      d.DecodePayload(bytes.data(), bytes.size());
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kCorrupt);
      EXPECT_EQ(d.size(), 0u);
      ++refused;
      return;
    }
    for (size_t i = 0; i < d.size(); ++i) {
      std::string_view text = d.Text(i);
      ASSERT_LE(d.line(i).text_off + text.size(), bytes.size());
      ASSERT_LE(d.line(i).host, 2);
      d.Host(i);
    }
  };
  for (size_t pos = 0; pos < good.size(); ++pos) {
    for (uint8_t v : {uint8_t{0x00}, uint8_t{0x7f}, uint8_t{0x80}, uint8_t{0xff}}) {
      std::vector<uint8_t> bad = good;
      bad[pos] = v;
      check(bad);
    }
    check(std::vector<uint8_t>(good.begin(), good.begin() + pos));
  }
  EXPECT_GT(refused, 0);
}

INSTANTIATE_TEST_SUITE_P(LineBlock, DamagedPayloads, ::testing::Bool());

}  // namespace
}  // namespace casefile
