// collect/verify.h: a bundle against its manifest. Hand-made archives give
// each problem alone; the digests are the FIPS 180-2 test values
// (SHA-256("abc"), SHA-256("")), not computed here.
#include "collect/verify.h"

#include <gtest/gtest.h>

#include "collect/collect.h"
#include "collect_fixture.h"
#include "common/error.h"
#include "test_util.h"

namespace casefile::collect {
namespace {

using casefile::test::ArchiveMember;
using casefile::test::ReadFile;
using casefile::test::TempDir;
using casefile::test::WriteArchive;
using casefile::test::WriteFile;

const char kShaAbc[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const char kShaEmpty[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

std::string ManifestJson(const std::string& files, int version = 1) {
  return "{\"format_version\": " + std::to_string(version) + ", \"files\": [" + files + "]}";
}

std::string FileJson(const std::string& path, uint64_t size, const std::string& sha) {
  return "{\"path\": \"" + path + "\", \"size\": " + std::to_string(size) + ", \"sha256\": \"" +
         sha + "\"}";
}

class VerifyTest : public ::testing::Test {
 protected:
  VerifyResult Check(const std::vector<ArchiveMember>& members) {
    WriteArchive(path_, "tar.zst", members);
    return VerifyBundle(path_);
  }
  static std::vector<std::string> Kinds(const VerifyResult& r) {
    std::vector<std::string> out;
    for (const auto& p : r.problems) out.push_back(p.kind + " " + p.path);
    return out;
  }
  TempDir dir_;
  std::string path_ = dir_.Join("b.tar.zst");
};

TEST_F(VerifyTest, AMatchingBundleIsOk) {
  VerifyResult r = Check({{"casefile.json", ManifestJson(FileJson("a.txt", 3, kShaAbc) + "," +
                                                         FileJson("e.txt", 0, kShaEmpty))},
                          {"a.txt", "abc"},
                          {"e.txt", ""}});
  EXPECT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems[0].message);
  EXPECT_EQ(r.files_checked, 2u);
  EXPECT_EQ(r.bytes,
            3u + ManifestJson(FileJson("a.txt", 3, kShaAbc) + "," + FileJson("e.txt", 0, kShaEmpty))
                     .size());
}

TEST_F(VerifyTest, EachMismatchIsListed) {
  VerifyResult r = Check(
      {{"casefile.json",
        ManifestJson(FileJson("a.txt", 3, kShaAbc) + "," + FileJson("size.txt", 4, kShaAbc) + "," +
                     FileJson("sha.txt", 3, kShaAbc) + "," + FileJson("gone.txt", 3, kShaAbc))},
       {"a.txt", "abc"},
       {"size.txt", "abc"},
       {"sha.txt", "abd"},
       {"extra.txt", "abc"}});
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(Kinds(r), (std::vector<std::string>{"size size.txt", "sha256 sha.txt",
                                                "missing gone.txt", "extra extra.txt"}));
  EXPECT_EQ(r.files_checked, 1u);
  EXPECT_EQ(r.problems[0].message, "size 3 bytes, the manifest says 4");
}

TEST_F(VerifyTest, ManifestProblems) {
  // Not first: still checked, and said.
  VerifyResult late =
      Check({{"a.txt", "abc"}, {"casefile.json", ManifestJson(FileJson("a.txt", 3, kShaAbc))}});
  EXPECT_EQ(Kinds(late), (std::vector<std::string>{"manifest casefile.json"}));
  EXPECT_EQ(late.files_checked, 1u);

  EXPECT_EQ(Kinds(Check({{"a.txt", "abc"}})), (std::vector<std::string>{"manifest casefile.json"}));
  EXPECT_EQ(Kinds(Check({{"casefile.json", "{\"files\": [}"}})),
            (std::vector<std::string>{"manifest casefile.json"}));
  VerifyResult newer = Check({{"casefile.json", ManifestJson("", 2)}});
  ASSERT_EQ(newer.problems.size(), 1u);
  EXPECT_EQ(newer.problems[0].message, "format_version 2 is newer than this casefile reads (1)");
  VerifyResult bad_sha =
      Check({{"casefile.json", ManifestJson(FileJson("a.txt", 3, "ABC"))}, {"a.txt", "abc"}});
  EXPECT_EQ(Kinds(bad_sha), (std::vector<std::string>{"manifest a.txt", "extra a.txt"}));
}

TEST_F(VerifyTest, DuplicatesAndLinks) {
  VerifyResult r = Check({{"casefile.json", ManifestJson(FileJson("a.txt", 3, kShaAbc))},
                          {"a.txt", "abc"},
                          {"a.txt", "abc"},
                          {"l", "", ArchiveMember::Type::kSymlink, "a.txt"},
                          {"d", "", ArchiveMember::Type::kDir}});
  EXPECT_EQ(Kinds(r), (std::vector<std::string>{"entry_type l", "duplicate a.txt"}));
}

TEST_F(VerifyTest, DamagedArchives) {
  WriteArchive(path_, "tar.zst",
               {{"casefile.json", ManifestJson(FileJson("big.txt", 200000, kShaAbc))},
                {"big.txt", std::string(200000, 'q')}});
  std::string bytes = ReadFile(path_);
  WriteFile(path_, bytes.substr(0, bytes.size() / 2));
  VerifyResult cut = VerifyBundle(path_);
  EXPECT_FALSE(cut.ok());
  ASSERT_FALSE(cut.problems.empty());
  EXPECT_EQ(cut.problems[0].kind, "archive");

  WriteFile(path_, std::string(4096, '\x5a'));
  VerifyResult garbage = VerifyBundle(path_);
  ASSERT_EQ(garbage.problems.size(), 1u);
  EXPECT_EQ(garbage.problems[0].kind, "archive");

  EXPECT_THROW(VerifyBundle(dir_.Join("nothing.tar.zst")), Error);
  try {
    VerifyBundle(dir_.path());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
}

TEST_F(VerifyTest, ACollectedBundleVerifiesAndAFlippedByteIsFound) {
  WriteFile(dir_.Join("src/train.log"), "step 1\nstep 2\nloss nan at step 3\n");
  WriteFile(dir_.Join("src/other.log"), "other\n");
  CollectOptions o = test::IsolatedOptions(path_);
  o.logs = {dir_.Join("src")};
  o.deterministic = true;  // the same compressed bytes every run: the flip below is reproducible
  Collect(o);
  VerifyResult good = VerifyBundle(path_);
  EXPECT_TRUE(good.ok());
  EXPECT_EQ(good.files_checked, 3u);  // two logs and env.txt

  // One byte of train.log's content, inside the tar stream.
  std::string tar = test::DecompressedBytes(path_);
  size_t at = tar.find("loss nan");
  ASSERT_NE(at, std::string::npos);
  tar[at] = 'L';
  test::WriteZstd(dir_.Join("flipped.tar.zst"), tar);
  VerifyResult flipped = VerifyBundle(dir_.Join("flipped.tar.zst"));
  ASSERT_EQ(flipped.problems.size(), 1u);
  EXPECT_EQ(flipped.problems[0].kind, "sha256");
  EXPECT_EQ(flipped.problems[0].path, "hosts/testhost/logs/src/train.log");

  // One byte of the compressed stream: zstd's checksum or the tar's
  // structure fails; either way the bundle does not verify.
  std::string compressed = ReadFile(path_);
  compressed[compressed.size() / 2] ^= 0x20;
  WriteFile(dir_.Join("bitrot.tar.zst"), compressed);
  EXPECT_FALSE(VerifyBundle(dir_.Join("bitrot.tar.zst")).ok());
}

TEST_F(VerifyTest, ProgressCanAbort) {
  WriteArchive(path_, "tar.zst", {{"casefile.json", ManifestJson("")}, {"a.txt", "abc"}});
  try {
    VerifyBundle(path_, [](uint64_t, std::string_view) { return false; });
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kAborted);
  }
}

}  // namespace
}  // namespace casefile::collect
