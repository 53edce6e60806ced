// *.gz members are delivered gunzipped; a broken inner gzip is reported as
// gzip_corrupt and the members after it are still read; a *.gz member that is
// not gzip at all is delivered as stored and reported as gzip_not_gzip.
#include <gtest/gtest.h>

#include <string>

#include "bundle/bundle_reader.h"
#include "bundle_test_visitor.h"
#include "test_util.h"

namespace casefile::test {
namespace {

// RFC 1952: a 10-byte header (no optional fields from this writer), then
// deflate blocks whose first 3 bits are BFINAL and BTYPE; BTYPE 11 is
// reserved, so setting both bits makes any inflater fail at once.
std::string InvalidBlockType(const std::string& gz) {
  std::string bad = gz;
  bad[10] = static_cast<char>(bad[10] | 0x06);
  return bad;
}

BundleReadResult Read(const std::string& path, RecordingVisitor& v) {
  ReadBudget budget;
  return ReadBundle(path, Limits{}, budget, v);
}

TEST(GzipMemberTest, DeliversDecompressedBytesUnderTheGzName) {
  TempDir tmp;
  const std::string log = "[rank1]: NCCL WARN Call to ibv_modify_qp failed\n";
  const std::string trace = "{\"traceEvents\": []}\n";
  WriteArchive(tmp.Join("b.tar.zst"), "tar.zst",
               {File("host-1/rank1.log.gz", Gzip(log)), File("host-1/trace.json.gz", Gzip(trace)),
                File("host-1/plain.log", log)});
  RecordingVisitor v;
  BundleReadResult r = Read(tmp.Join("b.tar.zst"), v);
  ASSERT_EQ(v.entries.size(), 3u);
  EXPECT_EQ(v.entries[0].info.path, "host-1/rank1.log.gz");
  EXPECT_TRUE(v.entries[0].info.gunzipped);
  EXPECT_EQ(v.entries[0].bytes, log);
  // The stored size is the compressed one.
  EXPECT_EQ(v.entries[0].info.size, static_cast<int64_t>(Gzip(log).size()));
  EXPECT_EQ(v.entries[1].info.path, "host-1/trace.json.gz");
  EXPECT_EQ(v.entries[1].bytes, trace);
  EXPECT_FALSE(v.entries[2].info.gunzipped);
  EXPECT_EQ(v.entries[2].bytes, log);
  EXPECT_EQ(r.bytes, 2 * log.size() + trace.size());
  EXPECT_TRUE(v.issues.empty());
}

TEST(GzipMemberTest, WorksForDirectoryInputs) {
  TempDir tmp;
  const std::string log = TextBytes(300000, "rank3");
  WriteFile(tmp.Join("d/rank3.log.gz"), Gzip(log));
  // One-byte reads: the gzip magic is read ahead across two chunks.
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{256 * 1024}}) {
    RecordingVisitor v;
    ReadBudget budget;
    ReadTuning tuning;
    tuning.file_chunk_bytes = chunk;
    ReadBundle(tmp.Join("d"), Limits{}, budget, v, tuning);
    ASSERT_EQ(v.entries.size(), 1u);
    EXPECT_TRUE(v.entries[0].info.gunzipped);
    EXPECT_TRUE(v.entries[0].bytes == log) << "chunk " << chunk;
    EXPECT_TRUE(v.entries[0].offsets_consistent);
  }
}

TEST(GzipMemberTest, ConcatenatedMembersAndEmptyContent) {
  TempDir tmp;
  // gzip -c a >> x.gz; gzip -c b >> x.gz gives one file of two gzip members,
  // which gunzip reads as the concatenation.
  WriteArchive(tmp.Join("b.tar"), "tar",
               {File("two.log.gz", Gzip("first\n") + Gzip("second\n")), File("none.gz", Gzip("")),
                File("after.txt", "ok")});
  RecordingVisitor v;
  BundleReadResult r = Read(tmp.Join("b.tar"), v);
  ASSERT_EQ(v.entries.size(), 3u);
  EXPECT_EQ(v.entries[0].bytes, "first\nsecond\n");
  EXPECT_EQ(v.entries[1].bytes, "");
  EXPECT_FALSE(v.entries[1].threw);
  EXPECT_EQ(v.entries[2].bytes, "ok");
  EXPECT_TRUE(v.issues.empty());
  EXPECT_FALSE(r.partial);
}

TEST(GzipMemberTest, CorruptGzipIsReportedAndTheNextMembersStillRead) {
  TempDir tmp;
  const std::string big = TextBytes(400000, "rank2");
  std::string gz_big = Gzip(big);
  // Cut well inside the deflate data: what came before is delivered.
  std::string truncated = gz_big.substr(0, gz_big.size() / 2);
  for (const std::string format : {"tar", "tar.zst", "zip"}) {
    std::string path = tmp.Join("b." + format);
    WriteArchive(path, format,
                 {File("a.log", "alpha\n"), File("bad-block.log.gz", InvalidBlockType(Gzip("x\n"))),
                  File("cut.log.gz", truncated), File("not-gzip.gz", "plain text\n"),
                  File("z.log", "omega\n")});
    RecordingVisitor v;
    BundleReadResult r = Read(path, v);
    ASSERT_EQ(v.entries.size(), 5u) << format;
    EXPECT_EQ(v.entries[0].bytes, "alpha\n");
    for (int i = 1; i <= 2; ++i) {
      EXPECT_TRUE(v.entries[i].threw) << format << " " << v.entries[i].info.path;
      EXPECT_EQ(v.entries[i].code, ErrorCode::kCorrupt);
      EXPECT_NE(v.entries[i].error.find("'" + v.entries[i].info.path + "'"), std::string::npos)
          << v.entries[i].error;
    }
    const SeenEntry& cut = v.entries[2];
    EXPECT_GT(cut.bytes.size(), 0u);
    EXPECT_LT(cut.bytes.size(), big.size());
    EXPECT_TRUE(cut.bytes == big.substr(0, cut.bytes.size()));
    EXPECT_EQ(v.entries[4].bytes, "omega\n");
    EXPECT_FALSE(v.entries[4].threw);

    // Not gzip at all: delivered as stored (see NotGzipIsDeliveredAsStored).
    EXPECT_FALSE(v.entries[3].threw);
    EXPECT_EQ(v.entries[3].bytes, "plain text\n");

    std::vector<IngestIssue> issues = v.IssuesOf("gzip_corrupt");
    ASSERT_EQ(issues.size(), 2u) << format;
    EXPECT_EQ(issues[0].path, "bad-block.log.gz");
    EXPECT_EQ(issues[0].offset, 0u);
    EXPECT_EQ(issues[1].path, "cut.log.gz");
    EXPECT_EQ(issues[1].offset, cut.bytes.size());
    EXPECT_NE(issues[1].message.find("decompressed offset " + std::to_string(cut.bytes.size())),
              std::string::npos)
        << issues[1].message;
    EXPECT_EQ(v.IssuesOf("gzip_not_gzip").size(), 1u);
    EXPECT_EQ(v.issues.size(), 3u);
    EXPECT_FALSE(r.partial) << r.error;
    EXPECT_EQ(r.entries, 5u);
  }
}

TEST(GzipMemberTest, NotGzipIsDeliveredAsStored) {
  // Collectors name files freely: a plain log saved as *.gz must not lose
  // its lines. Only the first two bytes decide (RFC 1952: ID1 31, ID2 139).
  TempDir tmp;
  const std::string log = TextBytes(300000, "rank0");
  const std::vector<ArchiveMember> members = {
      File("logs/rank0.log.gz", log),
      File("empty.log.gz", ""),
      File("one-byte.gz", "x"),
      File("first-byte-only.gz",
           "\x1f"
           "abc"),
      File("real.log.gz", Gzip("real\n")),
  };
  std::vector<std::string> inputs;
  for (const std::string format : {"tar", "tar.zst", "zip"}) {
    inputs.push_back(tmp.Join("b." + format));
    WriteArchive(inputs.back(), format, members);
  }
  for (const ArchiveMember& m : members) WriteFile(tmp.Join("d/" + m.path), m.content);
  inputs.push_back(tmp.Join("d"));

  for (const std::string& input : inputs) {
    for (size_t chunk : {size_t{1}, size_t{7}, size_t{256 * 1024}}) {
      RecordingVisitor v;
      ReadBudget budget;
      ReadTuning tuning;
      tuning.file_chunk_bytes = chunk;
      BundleReadResult r = ReadBundle(input, Limits{}, budget, v, tuning);
      const std::string label = input + " chunk " + std::to_string(chunk);
      EXPECT_FALSE(r.partial) << label << ": " << r.error;
      // (A directory input also gives the "logs" directory.)
      size_t files = 0;
      for (const SeenEntry& e : v.entries) files += e.has_data ? 1 : 0;
      ASSERT_EQ(files, 5u) << label;

      const SeenEntry* plain = v.Find("logs/rank0.log.gz");
      ASSERT_NE(plain, nullptr) << label;
      EXPECT_FALSE(plain->info.gunzipped) << label;
      EXPECT_FALSE(plain->threw) << label << ": " << plain->error;
      EXPECT_TRUE(plain->bytes == log) << label;
      EXPECT_TRUE(plain->offsets_consistent) << label;
      EXPECT_EQ(plain->info.size, static_cast<int64_t>(log.size())) << label;

      const SeenEntry* empty = v.Find("empty.log.gz");
      ASSERT_NE(empty, nullptr) << label;
      EXPECT_FALSE(empty->info.gunzipped);
      EXPECT_FALSE(empty->threw);
      EXPECT_EQ(empty->bytes, "");
      EXPECT_EQ(v.Find("one-byte.gz")->bytes, "x") << label;
      EXPECT_FALSE(v.Find("one-byte.gz")->info.gunzipped) << label;
      EXPECT_EQ(v.Find("first-byte-only.gz")->bytes,
                "\x1f"
                "abc")
          << label;
      EXPECT_FALSE(v.Find("first-byte-only.gz")->info.gunzipped) << label;
      EXPECT_TRUE(v.Find("real.log.gz")->info.gunzipped) << label;
      EXPECT_EQ(v.Find("real.log.gz")->bytes, "real\n") << label;

      // Issues arrive in entry order; directories are read in sorted order.
      std::vector<IngestIssue> issues = v.IssuesOf("gzip_not_gzip");
      ASSERT_EQ(issues.size(), 4u) << label;
      EXPECT_EQ(v.issues.size(), 4u) << label;
      auto issue_of = [&](const std::string& path) -> const IngestIssue* {
        for (const IngestIssue& i : issues) {
          if (i.path == path) return &i;
        }
        return nullptr;
      };
      const IngestIssue* text = issue_of("logs/rank0.log.gz");
      ASSERT_NE(text, nullptr) << label;
      EXPECT_EQ(text->offset, 0u);
      // "line 0 of rank0": 'l' 'i'.
      EXPECT_NE(text->message.find("'logs/rank0.log.gz'"), std::string::npos) << text->message;
      EXPECT_NE(text->message.find("starts with 6c 69, not the gzip magic 1f 8b"),
                std::string::npos)
          << text->message;
      ASSERT_NE(issue_of("empty.log.gz"), nullptr) << label;
      EXPECT_NE(issue_of("empty.log.gz")->message.find("is empty"), std::string::npos);
      ASSERT_NE(issue_of("one-byte.gz"), nullptr) << label;
      EXPECT_NE(issue_of("one-byte.gz")->message.find("starts with 78,"), std::string::npos);
      ASSERT_NE(issue_of("first-byte-only.gz"), nullptr) << label;
      EXPECT_NE(issue_of("first-byte-only.gz")->message.find("starts with 1f 61,"),
                std::string::npos);
    }
  }
}

TEST(GzipMemberTest, GzipMagicCutShortIsStillGzipDamage) {
  // The first magic byte and nothing more: a gzip file cut at byte 1.
  TempDir tmp;
  WriteArchive(tmp.Join("b.tar"), "tar", {File("cut.log.gz", "\x1f"), File("z.log", "z\n")});
  RecordingVisitor v;
  BundleReadResult r = Read(tmp.Join("b.tar"), v);
  ASSERT_EQ(v.entries.size(), 2u);
  EXPECT_TRUE(v.entries[0].info.gunzipped);
  EXPECT_TRUE(v.entries[0].threw);
  EXPECT_EQ(v.IssuesOf("gzip_corrupt").size(), 1u);
  EXPECT_TRUE(v.IssuesOf("gzip_not_gzip").empty());
  EXPECT_EQ(v.entries[1].bytes, "z\n");
  EXPECT_FALSE(r.partial);
}

TEST(GzipMemberTest, CorruptGzipCaughtByTheVisitorIsStillReported) {
  TempDir tmp;
  WriteFile(tmp.Join("d/bad.log.gz"), InvalidBlockType(Gzip("x\n")));
  WriteFile(tmp.Join("d/good.log"), "fine\n");
  RecordingVisitor v;
  v.swallow_errors = true;
  BundleReadResult r = Read(tmp.Join("d"), v);
  ASSERT_EQ(v.entries.size(), 2u);
  EXPECT_TRUE(v.entries[0].threw);
  EXPECT_EQ(v.IssuesOf("gzip_corrupt").size(), 1u);
  EXPECT_EQ(v.entries[1].bytes, "fine\n");
  EXPECT_FALSE(r.partial);
}

TEST(GzipMemberTest, UnreadGzipMemberIsSkippedCleanly) {
  TempDir tmp;
  WriteArchive(tmp.Join("b.tar.gz"), "tar.gz",
               {File("big.log.gz", Gzip(TextBytes(200000, "x"))), File("next.log", "next\n")});
  RecordingVisitor v;
  v.read_limit = 0;
  BundleReadResult r = Read(tmp.Join("b.tar.gz"), v);
  ASSERT_EQ(v.entries.size(), 2u);
  EXPECT_TRUE(v.entries[0].info.gunzipped);
  EXPECT_FALSE(r.partial);
  EXPECT_TRUE(v.issues.empty());
}

}  // namespace
}  // namespace casefile::test
