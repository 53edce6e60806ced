// Hostile archives the reader must survive with bounded work and an honest
// account: decompression bombs (Limits::bomb_floor_bytes, bomb_ratio), a
// size a zip header lies about, a damaged tar header in the middle.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bundle/bundle_reader.h"
#include "bundle/limited_entry_data.h"
#include "bundle_test_visitor.h"
#include "test_util.h"

namespace casefile::test {
namespace {

constexpr uint64_t kMiB = 1 << 20;

// Small bomb limits so a test bomb costs megabytes, not gigabytes.
Limits BombLimits() {
  Limits limits;
  limits.bomb_floor_bytes = 1 * kMiB;
  limits.bomb_ratio = 100;
  return limits;
}

// Lines that look like a log and compress about 3-5x (well under 100x).
std::string TextLines(size_t bytes) {
  std::string out;
  uint64_t x = 88172645463325252ull;
  for (int n = 1; out.size() < bytes; ++n) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out += "step " + std::to_string(n) + " loss " + std::to_string(x % 100000) + " tokens " +
           std::to_string(x >> 40) + "\n";
  }
  return out;
}

TEST(BombTest, GzipMemberBombStopsThatEntryAndTheReadGoesOn) {
  TempDir tmp;
  const std::string bomb = Gzip(std::string(8 * kMiB, '\0'));  // about 1000:1
  ASSERT_LT(bomb.size(), 64 * 1024u);
  WriteArchive(
      tmp.Join("b.tar"), "tar",
      {File("before.log", "before\n"), File("bomb.log.gz", bomb), File("after.log", "after\n")});
  WriteFile(tmp.Join("d/before.log"), "before\n");
  WriteFile(tmp.Join("d/bomb.log.gz"), bomb);
  WriteFile(tmp.Join("d/zz_after.log"), "after\n");
  const Limits limits = BombLimits();
  for (const std::string input : {"b.tar", "d"}) {
    RecordingVisitor v;
    ReadBudget budget;
    BundleReadResult r = ReadBundle(tmp.Join(input), limits, budget, v);
    ASSERT_EQ(v.entries.size(), 3u) << input;
    const SeenEntry* cut = v.Find("bomb.log.gz");
    ASSERT_NE(cut, nullptr);
    // Stopped just past the floor: at most two chunks of the gzip layer.
    EXPECT_GT(cut->bytes.size(), limits.bomb_floor_bytes) << input;
    EXPECT_LT(cut->bytes.size(), 4 * kMiB) << input;
    EXPECT_EQ(cut->bytes.find_first_not_of('\0'), std::string::npos);
    std::vector<IngestIssue> issues = v.IssuesOf("decompression_bomb");
    ASSERT_EQ(issues.size(), 1u) << input;
    EXPECT_EQ(issues[0].path, "bomb.log.gz");
    EXPECT_EQ(issues[0].offset, cut->bytes.size());
    EXPECT_NE(issues[0].message.find("'bomb.log.gz'"), std::string::npos) << issues[0].message;
    // The sound entry after it is read whole: the outer layer is not blamed.
    const std::string after = input == "d" ? "zz_after.log" : "after.log";
    ASSERT_NE(v.Find(after), nullptr) << input;
    EXPECT_EQ(v.Find(after)->bytes, "after\n");
    EXPECT_EQ(v.Find("before.log")->bytes, "before\n");
    EXPECT_TRUE(r.partial) << input;
    EXPECT_NE(r.error.find("bomb.log.gz"), std::string::npos) << r.error;
    EXPECT_EQ(v.issues.size(), 1u) << input;
  }
}

TEST(BombTest, ArchiveCompressionBombStopsTheInput) {
  TempDir tmp;
  for (const std::string format : {"tar.zst", "tar.gz", "zip"}) {
    const std::string path = tmp.Join("bomb." + format);
    WriteArchive(path, format,
                 {File("before.log", "before\n"), File("zeros.bin", std::string(8 * kMiB, '\0')),
                  File("after.log", "after\n")});
    const Limits limits = BombLimits();
    RecordingVisitor v;
    ReadBudget budget;
    BundleReadResult r = ReadBundle(path, limits, budget, v);
    EXPECT_EQ(v.Paths(), (std::vector<std::string>{"before.log", "zeros.bin"})) << format;
    ASSERT_NE(v.Find("zeros.bin"), nullptr);
    const size_t got = v.Find("zeros.bin")->bytes.size();
    // The floor is on the input's stored bytes: before.log's 7 count too.
    EXPECT_GT(got + 7, limits.bomb_floor_bytes) << format;
    EXPECT_LT(got, 8 * kMiB) << format;
    std::vector<IngestIssue> issues = v.IssuesOf("decompression_bomb");
    ASSERT_EQ(issues.size(), 1u) << format;
    EXPECT_EQ(issues[0].path, "zeros.bin");
    EXPECT_EQ(issues[0].offset, got);
    EXPECT_TRUE(r.partial);
    EXPECT_NE(r.error.find("'zeros.bin'"), std::string::npos) << r.error;
  }
}

TEST(BombTest, OrdinaryCompressionIsNoBomb) {
  TempDir tmp;
  const std::string text = TextLines(6 * kMiB);
  WriteArchive(tmp.Join("t.tar.zst"), "tar.zst",
               {File("train.log", text), File("train.log.gz", Gzip(text))});
  WriteFile(tmp.Join("d/train.log.gz"), Gzip(text));
  for (const std::string input : {"t.tar.zst", "d"}) {
    RecordingVisitor v;
    ReadBudget budget;
    BundleReadResult r = ReadBundle(tmp.Join(input), BombLimits(), budget, v);
    EXPECT_FALSE(r.partial) << input;
    EXPECT_TRUE(v.issues.empty()) << input << ": " << v.issues[0].message;
    ASSERT_NE(v.Find("train.log.gz"), nullptr);
    EXPECT_EQ(v.Find("train.log.gz")->bytes, text);
  }
}

// A source that hands out fixed chunks, for LimitedEntryData alone.
class ChunkSource : public EntryData {
 public:
  explicit ChunkSource(std::vector<std::string> chunks) : chunks_(std::move(chunks)) {}
  std::string_view Next() override {
    if (next_ == chunks_.size()) return {};
    offset_ += chunks_[next_].size();
    return chunks_[next_++];
  }
  uint64_t offset() const override { return offset_; }

 private:
  std::vector<std::string> chunks_;
  size_t next_ = 0;
  uint64_t offset_ = 0;
};

TEST(BombTest, AStreamThatEndsWhereTheCheckTripsIsWholeNotCut) {
  Limits limits;
  ReadBudget budget;
  // The check trips once 8 bytes are out.
  ChunkSource whole({"abcd", "efgh"});
  bundle::LimitedEntryData a(whole, limits, budget);
  a.SetBombCheck([&] { return a.offset() >= 8 ? bundle::Cut::kEntryBomb : bundle::Cut::kNone; });
  EXPECT_EQ(a.Next(), "abcd");
  EXPECT_EQ(a.Next(), "efgh");
  EXPECT_EQ(a.Next(), "");
  EXPECT_EQ(a.cut(), bundle::Cut::kNone);
  EXPECT_TRUE(a.ended());

  ChunkSource more({"abcd", "efgh", "ijkl", "mnop"});
  bundle::LimitedEntryData b(more, limits, budget);
  b.SetBombCheck([&] { return b.offset() >= 8 ? bundle::Cut::kInputBomb : bundle::Cut::kNone; });
  EXPECT_EQ(b.Next(), "abcd");
  EXPECT_EQ(b.Next(), "efgh");
  EXPECT_EQ(b.Next(), "");
  EXPECT_EQ(b.cut(), bundle::Cut::kInputBomb);
  EXPECT_FALSE(b.ended());
  EXPECT_EQ(b.offset(), 8u);
  EXPECT_EQ(b.Next(), "");
}

// CRC-32 (IEEE, reflected), as zip stores it.
uint32_t Crc32(const std::string& data) {
  uint32_t crc = 0xffffffffu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

void PutLe(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// A zip of stored members whose zip64 extra fields declare `declared` bytes
// of uncompressed size (the CRC is right: only the size lies).
std::string ZipDeclaring(const std::vector<std::pair<std::string, std::string>>& members,
                         const std::vector<uint64_t>& declared) {
  std::string body, central;
  for (size_t i = 0; i < members.size(); ++i) {
    const auto& [name, data] = members[i];
    const uint32_t crc = Crc32(data);
    const uint64_t offset = body.size();
    std::string extra;
    PutLe(extra, 1, 2);
    PutLe(extra, 16, 2);
    PutLe(extra, declared[i], 8);
    PutLe(extra, data.size(), 8);
    PutLe(body, 0x04034b50, 4);
    PutLe(body, 45, 2);
    PutLe(body, 0, 2);  // flags
    PutLe(body, 0, 2);  // stored
    PutLe(body, 0, 4);  // time, date
    PutLe(body, crc, 4);
    PutLe(body, 0xffffffff, 4);
    PutLe(body, 0xffffffff, 4);
    PutLe(body, name.size(), 2);
    PutLe(body, extra.size(), 2);
    body += name + extra + data;
    PutLe(central, 0x02014b50, 4);
    PutLe(central, 45, 2);
    PutLe(central, 45, 2);
    PutLe(central, 0, 2);
    PutLe(central, 0, 2);
    PutLe(central, 0, 4);
    PutLe(central, crc, 4);
    PutLe(central, 0xffffffff, 4);
    PutLe(central, 0xffffffff, 4);
    PutLe(central, name.size(), 2);
    PutLe(central, extra.size(), 2);
    PutLe(central, 0, 2);  // comment
    PutLe(central, 0, 2);  // disk
    PutLe(central, 0, 2);  // internal attributes
    PutLe(central, 0100644u << 16, 4);
    PutLe(central, offset, 4);
    central += name + extra;
  }
  std::string out = body + central;
  PutLe(out, 0x06054b50, 4);
  PutLe(out, 0, 4);
  PutLe(out, members.size(), 2);
  PutLe(out, members.size(), 2);
  PutLe(out, central.size(), 4);
  PutLe(out, body.size(), 4);
  PutLe(out, 0, 2);
  return out;
}

TEST(BombTest, AZipMemberDeclaringTooMuchIsReadAsItIsAndReported) {
  TempDir tmp;
  const uint64_t kTiB = uint64_t{1} << 40;
  WriteFile(
      tmp.Join("liar.zip"),
      ZipDeclaring({{"liar.log", "three\nsmall\nlines\n"}, {"honest.log", "ok\n"}}, {kTiB, 3}));
  RecordingVisitor v;
  ReadBudget budget;
  BundleReadResult r = ReadBundle(tmp.Join("liar.zip"), Limits{}, budget, v);
  EXPECT_FALSE(r.partial);
  ASSERT_NE(v.Find("liar.log"), nullptr);
  EXPECT_EQ(v.Find("liar.log")->bytes, "three\nsmall\nlines\n");
  EXPECT_EQ(v.Find("honest.log")->bytes, "ok\n");
  std::vector<IngestIssue> issues = v.IssuesOf("entry_size_mismatch");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "liar.log");
  EXPECT_NE(issues[0].message.find("1099511627776"), std::string::npos) << issues[0].message;
  EXPECT_NE(issues[0].message.find("holds 18"), std::string::npos) << issues[0].message;
}

TEST(BombTest, ADamagedTarHeaderIsSkippedReportedAndTheRestRead) {
  TempDir tmp;
  const std::string path = tmp.Join("d.tar");
  WriteArchive(
      path, "tar",
      {File("a.log", "a\n"), File("b.log", "b\n"), File("c.log", "c\n"), File("d.log", "d\n")});
  std::string bytes = ReadFile(path);
  // c.log's header: the 512-byte block that starts with its name.
  size_t header = std::string::npos;
  for (size_t at = 0; at + 512 <= bytes.size(); at += 512) {
    if (bytes.compare(at, 6, std::string("c.log\0", 6)) == 0) header = at;
  }
  ASSERT_NE(header, std::string::npos);
  std::memcpy(&bytes[header], "\xde\xad\xbe\xef", 4);  // the checksum no longer matches
  WriteFile(path, bytes);

  RecordingVisitor v;
  ReadBudget budget;
  BundleReadResult r = ReadBundle(path, Limits{}, budget, v);
  EXPECT_EQ(v.Paths(), (std::vector<std::string>{"a.log", "b.log", "d.log"}));
  EXPECT_EQ(v.Find("d.log")->bytes, "d\n");
  std::vector<IngestIssue> damaged = v.IssuesOf("archive_corrupt");
  ASSERT_EQ(damaged.size(), 1u);
  EXPECT_NE(damaged[0].message.find("after entry 'b.log'"), std::string::npos)
      << damaged[0].message;
  EXPECT_EQ(damaged[0].offset % 512, 0u);
  EXPECT_TRUE(v.IssuesOf("path_invalid").empty());
  EXPECT_EQ(v.issues.size(), 1u);
  EXPECT_TRUE(r.partial);
  EXPECT_NE(r.error.find("b.log"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace casefile::test
