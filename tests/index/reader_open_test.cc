// IndexReader::Open tells a missing file, a file that is not an index, an
// index of another schema version and a damaged block apart.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "common/error.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index_fixture.h"
#include "test_util.h"

namespace casefile {
namespace {

ErrorCode OpenError(const std::string& path) {
  try {
    IndexReader::Open(path);
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "opened " << path;
  return ErrorCode::kInternal;
}

void RunSql(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

void BuildSmallIndex(const std::string& path) {
  IndexWriter w(path);
  int64_t f = w.AddFile(test::MakeFile(w.AddBundle(test::MakeBundle("b")), "a.log"));
  w.AddLine(test::PlainLine(f, 1, "one", 0));
  w.Commit();
}

TEST(ReaderOpen, MissingFileIsNotFound) {
  test::TempDir dir;
  EXPECT_EQ(OpenError(dir.Join("absent.db")), ErrorCode::kNotFound);
  EXPECT_EQ(OpenError(dir.Join("absent/dir/x.db")), ErrorCode::kNotFound);
}

TEST(ReaderOpen, NonIndexFilesAreCorrupt) {
  test::TempDir dir;
  test::WriteFile(dir.Join("text.db"), "this is a log file, not a database\n");
  EXPECT_EQ(OpenError(dir.Join("text.db")), ErrorCode::kCorrupt);
  test::WriteFile(dir.Join("empty.db"), "");
  EXPECT_EQ(OpenError(dir.Join("empty.db")), ErrorCode::kCorrupt);
  RunSql(dir.Join("other.db"), "CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('hi')");
  EXPECT_EQ(OpenError(dir.Join("other.db")), ErrorCode::kCorrupt);
  EXPECT_EQ(OpenError(dir.path()), ErrorCode::kCorrupt);  // a directory
}

TEST(ReaderOpen, OtherSchemaVersionIsRefused) {
  test::TempDir dir;
  std::string path = dir.Join("index.db");
  BuildSmallIndex(path);
  RunSql(path, "PRAGMA user_version = 99");
  try {
    IndexReader::Open(path);
    FAIL() << "opened an index of schema version 99";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIndexVersion);
    EXPECT_NE(std::string(e.what()).find("99"), std::string::npos) << e.what();
  }
  try {
    StoreFindings(path, {});
    FAIL() << "stored findings into an index of schema version 99";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIndexVersion);
  }
}

TEST(ReaderOpen, DamagedBlockIsCorruptNotACrash) {
  test::TempDir dir;
  std::string path = dir.Join("index.db");
  BuildSmallIndex(path);
  RunSql(path, "UPDATE line_blocks SET data = x'28b52ffd0000'");
  auto r = IndexReader::Open(path);
  try {
    r->LineText(1, 1);
    FAIL() << "decoded a damaged block";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorrupt);
  }
  try {
    test::QueryAll(*r, "SELECT text FROM lines");
    FAIL() << "queried a damaged block";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kQuery);
    EXPECT_NE(std::string(e.what()).find("corrupt line block"), std::string::npos) << e.what();
  }
}

TEST(ReaderOpen, MetaRowsOfTheWriter) {
  test::TempDir dir;
  std::string path = dir.Join("index.db");
  BuildSmallIndex(path);
  auto r = IndexReader::Open(path);
  EXPECT_EQ(r->Meta("schema_version"), std::to_string(kIndexSchemaVersion));
  EXPECT_EQ(r->Meta("line_block_format"), "2");  // 2: the signature column
  EXPECT_FALSE(r->Meta("casefile_version").empty());
  std::string created = r->Meta("created_at");  // e.g. 2024-05-01T12:00:00Z
  ASSERT_EQ(created.size(), 20u) << created;
  EXPECT_EQ(created[10], 'T');
  EXPECT_EQ(created[19], 'Z');
  EXPECT_EQ(r->Meta("inputs_identity").size(), 16u);
  EXPECT_EQ(r->Meta("no such key"), "");
}

}  // namespace
}  // namespace casefile
