// Damaged and unreadable inputs: what came before the damage stays valid, the
// error names the entry and a real byte offset, and nothing escapes as an
// exception except the documented refusals.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "bundle/bundle_reader.h"
#include "bundle_test_visitor.h"
#include "common/error.h"
#include "test_util.h"

namespace casefile::test {
namespace {

// The number after "at byte " in `message`, or -1.
long long ByteAfter(const std::string& message) {
  size_t at = message.find("at byte ");
  if (at == std::string::npos) return -1;
  return std::stoll(message.substr(at + 8));
}

ErrorCode CodeOf(const std::string& path) {
  RecordingVisitor v;
  ReadBudget budget;
  try {
    ReadBundle(path, Limits{}, budget, v);
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::kInternal;
}

class TruncatedArchiveTest : public ::testing::TestWithParam<std::string> {
 protected:
  // a.log ends near a third of the archive, b.log runs to near its end: a cut
  // at 60% lands inside b.log's data whatever the container.
  void SetUp() override {
    a_ = NoiseBytes(200000, 1);
    b_ = NoiseBytes(400000, 2);
    std::string whole = tmp_.Join("whole." + GetParam());
    WriteArchive(whole, GetParam(), {File("a.log", a_), File("b.log", b_), File("c.log", "c\n")});
    std::string bytes = ReadFile(whole);
    cut_size_ = bytes.size() * 6 / 10;
    path_ = tmp_.Join("cut." + GetParam());
    WriteFile(path_, bytes.substr(0, cut_size_));
  }

  TempDir tmp_;
  std::string a_, b_, path_;
  size_t cut_size_ = 0;
};

TEST_P(TruncatedArchiveTest, EndsPartialAfterDeliveringEarlierEntriesIntact) {
  for (bool swallow : {false, true}) {
    RecordingVisitor v;
    v.swallow_errors = swallow;
    ReadBudget budget;
    BundleReadResult r = ReadBundle(path_, Limits{}, budget, v);
    ASSERT_EQ(v.Paths(), (std::vector<std::string>{"a.log", "b.log"}));
    EXPECT_TRUE(v.entries[0].bytes == a_);
    EXPECT_FALSE(v.entries[0].threw);
    const SeenEntry& b = v.entries[1];
    EXPECT_TRUE(b.threw);
    EXPECT_EQ(b.code, ErrorCode::kCorrupt);
    EXPECT_LT(b.bytes.size(), b_.size());
    EXPECT_TRUE(b.bytes == b_.substr(0, b.bytes.size()));

    EXPECT_TRUE(r.partial);
    EXPECT_EQ(r.error.rfind(path_ + ": entry 'b.log': corrupt or truncated archive at byte ", 0),
              0u)
        << r.error;
    EXPECT_NE(r.error.find("entry data offset " + std::to_string(b.bytes.size())),
              std::string::npos)
        << r.error;
    EXPECT_NE(r.error.find("(libarchive: "), std::string::npos) << r.error;
    long long at = ByteAfter(r.error);
    EXPECT_GT(at, 0);
    EXPECT_LE(at, static_cast<long long>(cut_size_));

    std::vector<IngestIssue> corrupt = v.IssuesOf("archive_corrupt");
    ASSERT_EQ(corrupt.size(), 1u);
    EXPECT_EQ(corrupt[0].path, "b.log");
    EXPECT_EQ(corrupt[0].offset, b.bytes.size());
    EXPECT_EQ(corrupt[0].message, r.error);
    EXPECT_EQ(r.entries, 2u);
    EXPECT_EQ(r.bytes, a_.size() + b.bytes.size());
  }
}

TEST_P(TruncatedArchiveTest, DamageInAnUnreadEntryIsFoundAtTheNextHeader) {
  RecordingVisitor v;
  v.read_limit = 0;
  ReadBudget budget;
  BundleReadResult r = ReadBundle(path_, Limits{}, budget, v);
  ASSERT_EQ(v.Paths(), (std::vector<std::string>{"a.log", "b.log"}));
  EXPECT_TRUE(r.partial);
  EXPECT_NE(r.error.find("entry 'b.log'"), std::string::npos) << r.error;
  long long at = ByteAfter(r.error);
  EXPECT_GT(at, 0);
  EXPECT_LE(at, static_cast<long long>(cut_size_));
  std::vector<IngestIssue> corrupt = v.IssuesOf("archive_corrupt");
  ASSERT_EQ(corrupt.size(), 1u);
  EXPECT_EQ(corrupt[0].offset, static_cast<uint64_t>(at));
}

INSTANTIATE_TEST_SUITE_P(Containers, TruncatedArchiveTest,
                         ::testing::Values("tar.zst", "tar", "tar.gz"), [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '.') c = '_';
                           }
                           return name;
                         });

TEST(DamageTest, ArchiveDamageInsideAGzipMemberIsTheArchives) {
  // The outer archive breaks while the inner gzip is being read: that is
  // archive damage (the read ends), not a corrupt gzip member.
  TempDir tmp;
  const std::string noise = NoiseBytes(400000, 3);
  std::string whole = tmp.Join("whole.tar.zst");
  WriteArchive(whole, "tar.zst",
               {File("a.log", "alpha\n"), File("b.log.gz", Gzip(noise)), File("c.log", "c\n")});
  std::string bytes = ReadFile(whole);
  std::string path = tmp.Join("cut.tar.zst");
  WriteFile(path, bytes.substr(0, bytes.size() / 2));

  RecordingVisitor v;
  ReadBudget budget;
  BundleReadResult r = ReadBundle(path, Limits{}, budget, v);
  ASSERT_EQ(v.Paths(), (std::vector<std::string>{"a.log", "b.log.gz"}));
  EXPECT_EQ(v.entries[0].bytes, "alpha\n");
  const SeenEntry& b = v.entries[1];
  EXPECT_TRUE(b.info.gunzipped);
  EXPECT_TRUE(b.threw);
  EXPECT_GT(b.bytes.size(), 0u);
  EXPECT_TRUE(b.bytes == noise.substr(0, b.bytes.size()));
  EXPECT_TRUE(r.partial);
  EXPECT_EQ(r.error.rfind(path + ": entry 'b.log.gz': corrupt or truncated archive at byte ", 0),
            0u)
      << r.error;
  EXPECT_TRUE(v.IssuesOf("gzip_corrupt").empty());
  std::vector<IngestIssue> corrupt = v.IssuesOf("archive_corrupt");
  ASSERT_EQ(corrupt.size(), 1u);
  EXPECT_EQ(corrupt[0].offset, b.bytes.size());
}

TEST(DamageTest, GarbageAndPlainTextAreUnsupported) {
  TempDir tmp;
  WriteFile(tmp.Join("garbage.bin"), NoiseBytes(5000, 7));
  WriteFile(tmp.Join("notes.txt"), "this is a plain text file\nnot an archive\n");
  EXPECT_EQ(CodeOf(tmp.Join("garbage.bin")), ErrorCode::kUnsupported);
  EXPECT_EQ(CodeOf(tmp.Join("notes.txt")), ErrorCode::kUnsupported);
  RecordingVisitor v;
  ReadBudget budget;
  try {
    ReadBundle(tmp.Join("notes.txt"), Limits{}, budget, v);
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string expected = tmp.Join("notes.txt") + ": not a directory or a recognised archive";
    EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("(libarchive: "), std::string::npos) << e.what();
  }
}

TEST(DamageTest, AGzippedLogGivenAsTheInputIsUnsupported) {
  TempDir tmp;
  WriteFile(tmp.Join("rank0.log.gz"), Gzip("just a log\n"));
  EXPECT_EQ(CodeOf(tmp.Join("rank0.log.gz")), ErrorCode::kUnsupported);
}

TEST(DamageTest, AnMtreeListingIsNotReadAsAnArchive) {
  // libarchive's mtree reader takes member bytes from the local paths an
  // mtree file names; a bundle must never make us read /etc/passwd.
  TempDir tmp;
  WriteFile(tmp.Join("listing.mtree"), "#mtree\n./passwd type=file contents=/etc/passwd\n");
  EXPECT_EQ(CodeOf(tmp.Join("listing.mtree")), ErrorCode::kUnsupported);
}

TEST(DamageTest, MissingInputIsNotFound) {
  TempDir tmp;
  EXPECT_EQ(CodeOf(tmp.Join("no-such-bundle.tar.zst")), ErrorCode::kNotFound);
  EXPECT_EQ(CodeOf(tmp.Join("no-such-dir/")), ErrorCode::kNotFound);
}

TEST(DamageTest, AVisitorsOwnErrorPropagates) {
  class Aborting : public BundleVisitor {
   public:
    void OnEntry(const EntryInfo&, EntryData*) override {
      throw Error(ErrorCode::kAborted, "stop");
    }
    void OnIssue(const IngestIssue&) override {}
  };
  TempDir tmp;
  WriteFile(tmp.Join("d/a"), "a");
  Aborting v;
  ReadBudget budget;
  try {
    ReadBundle(tmp.Join("d"), Limits{}, budget, v);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kAborted);
  }
}

}  // namespace
}  // namespace casefile::test
