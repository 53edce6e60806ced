// SQLite's temporary files (issue 11): a sort too big for the page cache
// spills to temp files, which plain SQLite makes in $TMPDIR. The connections
// of the index writer and readers must make them beside the index instead,
// unlinked at once, and leave nothing behind.
//
// SQLite reads TMPDIR once, when it initialises, so this file points TMPDIR
// at a folder of its own before main() (no test of this binary opens SQLite
// before that). The watches are inotify ones: a temp file is unlinked as
// soon as it is opened, so a listing afterwards could not tell.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index/sqlite_temp_vfs.h"
#include "index_fixture.h"
#include "test_util.h"

namespace casefile {
namespace {

namespace fs = std::filesystem;

// The folder TMPDIR names for this whole test binary.
const std::string& SpillTmpdir() {
  // Never destroyed: the atexit handler below runs after the destructors of
  // statics constructed after its registration, this one included.
  static const std::string* const dir = new std::string([] {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/cf-spill-tmpdir-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    std::string made = mkdtemp(buf.data()) ? std::string(buf.data()) : std::string();
    if (!made.empty()) {
      setenv("TMPDIR", made.c_str(), 1);
      // SQLITE_TMPDIR would win over TMPDIR.
      unsetenv("SQLITE_TMPDIR");
      std::atexit([] {
        std::error_code ec;
        fs::remove_all(SpillTmpdir(), ec);
      });
    }
    return made;
  }());
  return *dir;
}
// Before main(), hence before SQLite's initialisation.
const bool kTmpdirSet = !SpillTmpdir().empty();

// Names created directly in one folder while the watch is alive.
class CreationWatch {
 public:
  explicit CreationWatch(const std::string& dir) : fd_(inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    if (fd_ >= 0) wd_ = inotify_add_watch(fd_, dir.c_str(), IN_CREATE | IN_MOVED_TO);
  }
  ~CreationWatch() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return fd_ >= 0 && wd_ >= 0; }

  std::vector<std::string> Created() {
    std::vector<std::string> names;
    alignas(inotify_event) char buf[64 * 1024];
    for (;;) {
      ssize_t n = read(fd_, buf, sizeof buf);
      if (n <= 0) break;
      for (char* p = buf; p < buf + n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(p);
        if (e->len > 0) names.emplace_back(e->name);
        p += sizeof(inotify_event) + e->len;
      }
    }
    return names;
  }

 private:
  int fd_;
  int wd_ = -1;
};

int RegisteredVfsCount() {
  int n = 0;
  for (sqlite3_vfs* v = sqlite3_vfs_find(nullptr); v != nullptr; v = v->pNext) ++n;
  return n;
}

std::vector<std::string> Listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

void ExecSql(sqlite3* db, const char* sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  ASSERT_EQ(rc, SQLITE_OK) << sql << ": " << msg;
}

int64_t OneInt(sqlite3* db, const char* sql) {
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  int64_t v = -1;
  if (sqlite3_step(s) == SQLITE_ROW) v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return v;
}

// 20,000 rows of ~200 bytes sorted by CREATE INDEX with a 10-page cache:
// about 4 MB of keys against a sorter that holds ~40 KB, so SQLite must
// spill. k is a permutation of 0..19999 (7919 is prime, coprime with
// 20000), so the index's order is known: its first key is 0, its last
// 19999.
void SpillingBuild(sqlite3* db) {
  ExecSql(db,
          "PRAGMA cache_size=10; CREATE TABLE t(k INTEGER, pad TEXT);"
          "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999) "
          "INSERT INTO t SELECT (i * 7919) % 20000, printf('%0200d', i) FROM n;"
          "CREATE INDEX t_by_key ON t(k, pad)");
}

class SqliteTempFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(kTmpdirSet);
    ASSERT_TRUE(Listing(SpillTmpdir()).size() <= 64);  // a folder of this binary only
    fs::create_directory(index_dir_);
  }

  test::TempDir scratch_;  // made before any watch starts
  std::string index_dir_ = scratch_.Join("index");
};

// The control: without the shim the same workload does write into TMPDIR.
// Without it the tests below could pass because nothing spilled at all.
TEST_F(SqliteTempFiles, PlainSqliteSpillsIntoTmpdir) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2((index_dir_ + "/plain.db").c_str(), &db,
                            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr),
            SQLITE_OK);
  CreationWatch tmp(SpillTmpdir());
  ASSERT_TRUE(tmp.ok());
  SpillingBuild(db);
  sqlite3_close(db);
  std::vector<std::string> created = tmp.Created();
  ASSERT_FALSE(created.empty()) << "the workload did not spill to TMPDIR";
  EXPECT_TRUE(StartsWith(created[0], "etilqs_")) << created[0];
}

TEST_F(SqliteTempFiles, ShimSpillsBesideThePrefixAndLeavesNothing) {
  const std::string db_path = index_dir_ + "/index.db";
  const std::string prefix = db_path + ".tmp-42-sqlite-";
  const int vfs_before = RegisteredVfsCount();
  const uint64_t opened_before = SqliteTempFilesOpened();
  CreationWatch tmp(SpillTmpdir());
  CreationWatch beside(index_dir_);
  ASSERT_TRUE(tmp.ok() && beside.ok());

  sqlite3* db = nullptr;
  std::string error;
  ASSERT_EQ(
      OpenWithTempPrefix(db_path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, prefix, &db, &error),
      SQLITE_OK)
      << error;
  EXPECT_EQ(RegisteredVfsCount(), vfs_before + 1);
  SpillingBuild(db);
  // The index is whole and in key order.
  EXPECT_EQ(OneInt(db, "SELECT count(*) FROM t INDEXED BY t_by_key WHERE k >= 0"), 20000);
  EXPECT_EQ(OneInt(db, "SELECT k FROM t INDEXED BY t_by_key WHERE k >= 0 ORDER BY k LIMIT 1"), 0);
  EXPECT_EQ(OneInt(db, "SELECT k FROM t INDEXED BY t_by_key WHERE k >= 0 ORDER BY k DESC LIMIT 1"),
            19999);
  EXPECT_EQ(OneInt(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"),
            1);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);

  EXPECT_EQ(tmp.Created(), std::vector<std::string>{}) << "a file appeared in TMPDIR";
  std::vector<std::string> spilled;
  for (const std::string& name : beside.Created()) {
    // The database and its rollback journal are named by SQLite itself.
    if (name != "index.db" && name != "index.db-journal") spilled.push_back(name);
  }
  ASSERT_FALSE(spilled.empty()) << "nothing spilled beside the index";
  for (const std::string& name : spilled) {
    EXPECT_TRUE(StartsWith(name, "index.db.tmp-42-sqlite-")) << name;
  }
  EXPECT_GE(SqliteTempFilesOpened() - opened_before, spilled.size());
  // Unlinked when opened: only the database is left.
  EXPECT_EQ(Listing(index_dir_), std::vector<std::string>{"index.db"});
  EXPECT_EQ(RegisteredVfsCount(), vfs_before) << "the connection's VFS was not unregistered";
}

// sqlite3_close_v2 with a statement still alive leaves a zombie connection
// that keeps using its VFS: the VFS must outlive it and go with it.
TEST_F(SqliteTempFiles, VfsOutlivesAZombieConnection) {
  const int vfs_before = RegisteredVfsCount();
  sqlite3* db = nullptr;
  std::string error;
  ASSERT_EQ(OpenWithTempPrefix(index_dir_ + "/z.db", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                               index_dir_ + "/z.db.tmp-", &db, &error),
            SQLITE_OK)
      << error;
  ExecSql(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)");
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT x FROM t ORDER BY x", -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  ASSERT_EQ(sqlite3_close_v2(db), SQLITE_OK);
  EXPECT_EQ(RegisteredVfsCount(), vfs_before + 1);
  EXPECT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(s, 0), 2);
  sqlite3_finalize(s);
  EXPECT_EQ(RegisteredVfsCount(), vfs_before);
}

TEST_F(SqliteTempFiles, OpenFailureLeavesNoVfs) {
  const int vfs_before = RegisteredVfsCount();
  int not_a_db = 0;
  sqlite3* db = reinterpret_cast<sqlite3*>(&not_a_db);
  std::string error;
  EXPECT_NE(OpenWithTempPrefix(index_dir_ + "/missing/x.db", SQLITE_OPEN_READWRITE,
                               index_dir_ + "/x-", &db, &error),
            SQLITE_OK);
  EXPECT_EQ(db, nullptr);
  EXPECT_FALSE(error.empty());
  EXPECT_EQ(RegisteredVfsCount(), vfs_before);
}

// A reader's query that sorts more than its page cache holds (~2 MB by
// default: 40,000 lines of ~120 bytes are ~5 MB) spills beside the index.
TEST_F(SqliteTempFiles, ReaderQuerySpillsBesideTheIndex) {
  const std::string path = index_dir_ + "/index.casefile.db";
  {
    IndexWriter w(path);
    int64_t b = w.AddBundle(test::MakeBundle("run"));
    int64_t f = w.AddFile(test::MakeFile(b, "train.log"));
    uint64_t offset = 0;
    for (int i = 1; i <= 40000; ++i) {
      // Line i reads "step <(i * 7919) % 40000, 6 digits> " then padding, so
      // the largest text is the line whose key is 39999.
      char key[16];
      std::snprintf(key, sizeof key, "%06d", (i * 7919) % 40000);
      std::string text = "step " + std::string(key) + " " + std::string(110, 'x');
      w.AddLine(test::PlainLine(f, i, text, offset));
      offset += text.size() + 1;
    }
    w.EndFileLines(f);
    w.Commit();
  }
  ASSERT_EQ(Listing(index_dir_), std::vector<std::string>{"index.casefile.db"});
  std::unique_ptr<IndexReader> reader = IndexReader::Open(path);
  CreationWatch tmp(SpillTmpdir());
  CreationWatch beside(index_dir_);
  ASSERT_TRUE(tmp.ok() && beside.ok());
  const uint64_t opened_before = SqliteTempFilesOpened();

  std::vector<std::string> texts;
  reader->Query("SELECT text FROM lines ORDER BY text DESC", [&](const QueryRow& r) {
    texts.push_back(r.values[0].value_or("<null>"));
    return true;
  });
  ASSERT_EQ(texts.size(), 40000u);
  EXPECT_EQ(texts.front(), "step 039999 " + std::string(110, 'x'));
  EXPECT_EQ(texts.back(), "step 000000 " + std::string(110, 'x'));

  EXPECT_EQ(tmp.Created(), std::vector<std::string>{}) << "a file appeared in TMPDIR";
  std::vector<std::string> spilled = beside.Created();
  ASSERT_FALSE(spilled.empty()) << "the query did not spill";
  for (const std::string& name : spilled) {
    EXPECT_TRUE(StartsWith(name, "index.casefile.db.tmp-" + std::to_string(getpid()) + "-sqlite-"))
        << name;
  }
  EXPECT_GE(SqliteTempFilesOpened() - opened_before, spilled.size());
  reader.reset();
  EXPECT_EQ(Listing(index_dir_), std::vector<std::string>{"index.casefile.db"});
}

}  // namespace
}  // namespace casefile
