// The writer builds beside the final path and renames only in Commit(): an
// abandoned or failed build leaves nothing behind and never touches an
// existing index; errors of the storage thread reach the caller.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/error.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index_fixture.h"
#include "test_util.h"

namespace casefile {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  return out;
}

// Writes `lines` lines of `text` into a one-file index (without committing).
void Fill(IndexWriter& w, int lines, const std::string& text) {
  int64_t f = w.AddFile(test::MakeFile(w.AddBundle(test::MakeBundle("b")), "a.log"));
  for (int i = 1; i <= lines; ++i) w.AddLine(test::PlainLine(f, i, text, 0));
}

TEST(Atomicity, DestroyedWithoutCommitLeavesNothing) {
  test::TempDir dir;
  {
    IndexWriter w(dir.Join("index.db"));
    Fill(w, 20000, "some line of text");
    // While building, only the temporary file exists, beside the target.
    std::vector<std::string> during = Entries(dir.path());
    ASSERT_EQ(during.size(), 1u);
    EXPECT_EQ(during[0].rfind("index.db.tmp-", 0), 0u) << during[0];
  }
  EXPECT_TRUE(Entries(dir.path()).empty());
}

TEST(Atomicity, ExceptionMidBuildLeavesNothing) {
  test::TempDir dir;
  try {
    IndexWriter w(dir.Join("index.db"));
    Fill(w, 10000, "line");
    throw std::runtime_error("parser failed");
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "parser failed");
  }
  EXPECT_TRUE(Entries(dir.path()).empty());
}

TEST(Atomicity, OlderIndexSurvivesUntilCommit) {
  test::TempDir dir;
  std::string path = dir.Join("index.db");
  {
    IndexWriter w(path);
    Fill(w, 1, "old");
    w.Commit();
  }
  std::string old_bytes = test::ReadFile(path);
  {
    IndexWriter w(path);
    Fill(w, 5000, "new");
    // Mid-build the old index is still whole and readable.
    auto r = IndexReader::Open(path);
    EXPECT_EQ(r->LineText(1, 1), "old");
    EXPECT_EQ(r->LineText(1, 2), std::nullopt);
  }  // abandoned
  EXPECT_EQ(test::ReadFile(path), old_bytes);
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"index.db"});
  {
    IndexWriter w(path);
    Fill(w, 2, "new");
    w.Commit();
  }
  auto r = IndexReader::Open(path);
  EXPECT_EQ(r->LineText(1, 2), "new");
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"index.db"});
}

TEST(Atomicity, MissingDirectoryFailsAtOnce) {
  test::TempDir dir;
  try {
    IndexWriter w(dir.Join("no/such/dir/index.db"));
    FAIL() << "a writer opened in a missing directory";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo);
  }
}

// Restores the file-size limit and SIGXFSZ disposition on scope exit.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = signal(SIGXFSZ, SIG_IGN);  // writes fail with EFBIG instead
    rlimit lim = saved_;
    lim.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lim);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit saved_{};
  sighandler_t old_handler_;
};

TEST(Atomicity, StorageErrorReachesTheCaller) {
  test::TempDir dir;
  std::string path = dir.Join("index.db");
  // Random text does not compress, so a few MiB of it overflow a 1 MiB
  // file-size limit on the storage thread.
  std::mt19937 rng(7);
  std::string text(1000, ' ');
  bool thrown = false;
  {
    FileSizeLimit limit(1 << 20);
    try {
      IndexWriter w(path);
      int64_t f = w.AddFile(test::MakeFile(w.AddBundle(test::MakeBundle("b")), "a.log"));
      for (int i = 1; i <= 8000; ++i) {
        for (char& c : text) c = static_cast<char>('!' + rng() % 90);
        w.AddLine(test::PlainLine(f, i, text, 0));
      }
      w.Commit();
    } catch (const Error& e) {
      thrown = true;
      EXPECT_EQ(e.code(), ErrorCode::kIo) << e.what();
    }
  }
  EXPECT_TRUE(thrown) << "the build over the size limit reported no error";
  EXPECT_TRUE(Entries(dir.path()).empty());
}

}  // namespace
}  // namespace casefile
