// The same members read from a directory and from every archive format give
// the same entries and bytes, whatever the chunking.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bundle/bundle_reader.h"
#include "bundle_test_visitor.h"
#include "test_util.h"

namespace casefile::test {
namespace {

struct Expected {
  std::string path;
  EntryType type;
  std::string bytes;
  bool gunzipped = false;
};

class FormatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    host0_ = "[rank0]: step 1 loss 2.5\n[rank0]: step 2 loss 2.4\n";
    host1_ = TextBytes(40000, "host-1");
    // Several chunks long whatever the chunk size, and not a multiple of any.
    module_ = TextBytes(700001, "module_0001");
    WriteFile(tmp_.Join("src/config.json"), "{\"world_size\": 2}\n");
    WriteFile(tmp_.Join("src/empty.txt"), "");
    WriteFile(tmp_.Join("src/hlo/module_0001.txt"), module_);
    WriteFile(tmp_.Join("src/logs/host-0.log"), host0_);
    WriteFile(tmp_.Join("src/logs/host-1.log.gz"), Gzip(host1_));
  }

  // Written by hand from the layout above: sorted, directories before their
  // contents, the .gz member decompressed under its own name.
  std::vector<Expected> ExpectedEntries() const {
    return {
        {"config.json", EntryType::kFile, "{\"world_size\": 2}\n"},
        {"empty.txt", EntryType::kFile, ""},
        {"hlo", EntryType::kDirectory, ""},
        {"hlo/module_0001.txt", EntryType::kFile, module_},
        {"logs", EntryType::kDirectory, ""},
        {"logs/host-0.log", EntryType::kFile, host0_},
        {"logs/host-1.log.gz", EntryType::kFile, host1_, true},
    };
  }

  std::string MakeInput(const std::string& format) {
    if (format == "directory") return tmp_.Join("src");
    std::string path = tmp_.Join("bundle." + format);
    ArchiveDirectory(tmp_.Join("src"), path, format);
    return path;
  }

  void ExpectSameEntries(const RecordingVisitor& v, const std::string& label) {
    std::vector<Expected> expected = ExpectedEntries();
    ASSERT_EQ(v.entries.size(), expected.size()) << label;
    for (size_t i = 0; i < expected.size(); ++i) {
      const SeenEntry& seen = v.entries[i];
      EXPECT_EQ(seen.info.path, expected[i].path) << label;
      EXPECT_EQ(seen.info.type, expected[i].type) << label << " " << expected[i].path;
      EXPECT_EQ(seen.has_data, expected[i].type == EntryType::kFile) << label;
      EXPECT_TRUE(seen.bytes == expected[i].bytes) << label << " " << expected[i].path;
      EXPECT_EQ(seen.info.gunzipped, expected[i].gunzipped) << label << " " << expected[i].path;
      EXPECT_FALSE(seen.info.path_rewritten) << label;
      EXPECT_FALSE(seen.threw) << label << " " << seen.error;
      EXPECT_TRUE(seen.offsets_consistent) << label;
      EXPECT_LE(seen.max_chunk, 1u << 20) << label;
    }
  }

  TempDir tmp_;
  std::string host0_, host1_, module_;
};

TEST_F(FormatsTest, EveryFormatGivesTheSameEntriesAndBytes) {
  for (const std::string format : {"directory", "tar", "tar.zst", "tar.gz", "zip"}) {
    std::string input = MakeInput(format);
    RecordingVisitor v;
    ReadBudget budget;
    BundleReadResult r = ReadBundle(input, Limits{}, budget, v);
    ExpectSameEntries(v, format);
    EXPECT_FALSE(r.partial) << format << ": " << r.error;
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.entries, 7u) << format;
    uint64_t total = 18 + module_.size() + host0_.size() + host1_.size();
    EXPECT_EQ(r.bytes, total) << format;
    EXPECT_EQ(budget.total_bytes, total) << format;
    EXPECT_TRUE(v.issues.empty()) << format << ": " << v.issues[0].message;
  }
}

TEST_F(FormatsTest, FormatNamesTheContainerAndItsFilters) {
  auto format_of = [&](const std::string& format) {
    RecordingVisitor v;
    ReadBudget budget;
    return ReadBundle(MakeInput(format), Limits{}, budget, v).format;
  };
  EXPECT_EQ(format_of("directory"), "directory");
  std::string tar = format_of("tar");
  EXPECT_NE(tar.find("POSIX"), std::string::npos) << tar;
  EXPECT_EQ(tar.find(" + "), std::string::npos) << tar;
  EXPECT_EQ(format_of("tar.zst"), tar + " + zstd");
  EXPECT_EQ(format_of("tar.gz"), tar + " + gzip");
  EXPECT_EQ(format_of("zip").rfind("ZIP", 0), 0u) << format_of("zip");
}

TEST_F(FormatsTest, ResultDoesNotDependOnChunking) {
  for (size_t chunk : {size_t{1}, size_t{7}, size_t{4096}, size_t{1} << 20}) {
    RecordingVisitor v;
    ReadBudget budget;
    ReadTuning tuning;
    tuning.file_chunk_bytes = chunk;
    ReadBundle(MakeInput("directory"), Limits{}, budget, v, tuning);
    ExpectSameEntries(v, "directory chunk " + std::to_string(chunk));
    if (chunk == 7) {
      EXPECT_EQ(v.Find("config.json")->max_chunk, 7u);
    }
  }
  for (const std::string format : {"tar", "tar.zst", "zip"}) {
    std::string input = MakeInput(format);
    for (size_t block : {size_t{512}, size_t{10000}, size_t{1} << 20}) {
      RecordingVisitor v;
      ReadBudget budget;
      ReadTuning tuning;
      tuning.archive_block_bytes = block;
      ReadBundle(input, Limits{}, budget, v, tuning);
      ExpectSameEntries(v, format + " block " + std::to_string(block));
    }
  }
}

TEST_F(FormatsTest, AnEntryReadOnlyInPartDoesNotDisturbTheNext) {
  for (const std::string format : {"directory", "tar", "tar.zst", "tar.gz", "zip"}) {
    RecordingVisitor v;
    v.read_limit = 5;
    ReadBudget budget;
    BundleReadResult r = ReadBundle(MakeInput(format), Limits{}, budget, v);
    std::vector<Expected> expected = ExpectedEntries();
    ASSERT_EQ(v.entries.size(), expected.size()) << format;
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(v.entries[i].info.path, expected[i].path) << format;
      // A chunk may hold more than asked for; what was read is a prefix.
      EXPECT_EQ(v.entries[i].bytes, expected[i].bytes.substr(0, v.entries[i].bytes.size()));
      EXPECT_GE(v.entries[i].bytes.size(), std::min<size_t>(5, expected[i].bytes.size()));
    }
    EXPECT_FALSE(r.partial) << format << ": " << r.error;
    EXPECT_TRUE(v.issues.empty()) << format;
  }
}

TEST(FormatsLargeTest, LargeMembersStreamInBoundedChunks) {
  TempDir tmp;
  std::string big = TextBytes(24u << 20, "big");
  std::string path = tmp.Join("big.tar.zst");
  WriteArchive(path, "tar.zst",
               {File("big.log", big), File("big.log.gz", Gzip(big)), File("after", "x")});
  RecordingVisitor v;
  ReadBudget budget;
  BundleReadResult r = ReadBundle(path, Limits{}, budget, v);
  ASSERT_EQ(v.entries.size(), 3u);
  EXPECT_TRUE(v.entries[0].bytes == big);
  EXPECT_TRUE(v.entries[1].bytes == big);
  EXPECT_TRUE(v.entries[1].info.gunzipped);
  EXPECT_EQ(v.entries[2].bytes, "x");
  EXPECT_LE(v.entries[0].max_chunk, 1u << 20);
  EXPECT_LE(v.entries[1].max_chunk, 1u << 20);
  EXPECT_EQ(r.bytes, 2 * big.size() + 1);
}

TEST(FormatsEmptyTest, AnEmptyArchiveHasNoEntries) {
  TempDir tmp;
  for (const std::string format : {"tar", "tar.zst", "tar.gz", "zip"}) {
    std::string path = tmp.Join("empty." + format);
    WriteArchive(path, format, {});
    RecordingVisitor v;
    ReadBudget budget;
    BundleReadResult r = ReadBundle(path, Limits{}, budget, v);
    EXPECT_EQ(r.entries, 0u) << format;
    EXPECT_TRUE(v.entries.empty()) << format;
    EXPECT_FALSE(r.partial) << format << ": " << r.error;
  }
  RecordingVisitor v;
  ReadBudget budget;
  std::filesystem::create_directory(tmp.Join("emptydir"));
  BundleReadResult r = ReadBundle(tmp.Join("emptydir"), Limits{}, budget, v);
  EXPECT_EQ(r.entries, 0u);
  EXPECT_EQ(r.format, "directory");
}

}  // namespace
}  // namespace casefile::test
