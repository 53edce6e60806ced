// The read-only query path: what it refuses (writes, ATTACH, state-changing
// pragmas, more than one statement), what it allows, and how values come out.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index_fixture.h"
#include "test_util.h"

namespace casefile {
namespace {

using test::QueryAll;
using test::QueryOne;
using test::Row;

class QueryGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    IndexWriter w(path_);
    int64_t b = w.AddBundle(test::MakeBundle("run"));
    int64_t f = w.AddFile(test::MakeFile(b, "a.log"));
    w.AddLine(test::PlainLine(f, 1, "hello", 0));
    w.Commit();
    reader_ = IndexReader::Open(path_);
  }

  // The error a refused statement raises; fails the test when it runs.
  Error Refusal(const std::string& sql) {
    try {
      reader_->Query(sql, [](const QueryRow&) { return true; });
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << "accepted: " << sql;
    return Error(ErrorCode::kInternal, "accepted");
  }

  test::TempDir dir_;
  std::string path_ = dir_.Join("index.db");
  std::unique_ptr<IndexReader> reader_;
};

TEST_F(QueryGuardTest, WritesAreRefusedAndSayWhat) {
  struct Case {
    const char* sql;
    const char* says;
  } cases[] = {
      {"INSERT INTO files (bundle_id, path, kind, entry_type, link_target, size, mtime, "
       "line_count, gunzipped, truncated) VALUES (1, 'x', 'log', 'file', '', 0, 0, 0, 0, 0)",
       "INSERT into files"},
      {"UPDATE files SET path = 'y'", "UPDATE of files.path"},
      {"DELETE FROM files", "DELETE from files"},
      {"DROP TABLE files", "DROP TABLE files"},
      {"CREATE TABLE t (x)", "CREATE TABLE t"},
      {"CREATE TEMP TABLE t (x)", "CREATE TABLE t"},
      {"CREATE INDEX i ON files (path)", "CREATE INDEX i"},
      {"ALTER TABLE files ADD COLUMN z", "ALTER TABLE files"},
      {"ATTACH DATABASE ':memory:' AS other", "ATTACH :memory:"},
      {"DETACH DATABASE main", "DETACH main"},
      {"PRAGMA user_version = 5", "PRAGMA user_version = 5"},
      {"PRAGMA writable_schema = ON", "PRAGMA writable_schema = ON"},
      {"PRAGMA query_only = 0", "PRAGMA query_only = 0"},
      {"PRAGMA optimize", "PRAGMA optimize"},
      {"REINDEX", "REINDEX"},
      {"ANALYZE", "ANALYZE"},
      {"BEGIN", "BEGIN (transaction control)"},
      {"UPDATE sqlite_master SET sql = ''", "sqlite_master may not be modified"},
      {"DELETE FROM sqlite_master", "sqlite_master may not be modified"},
      {"INSERT INTO sqlite_master VALUES ('table', 'x', 'x', 0, '')",
       "sqlite_master may not be modified"},
      {"DROP TABLE lines", "DROP VIRTUAL TABLE lines"},
      {"CREATE VIRTUAL TABLE v USING casefile_lines", "CREATE VIRTUAL TABLE v"},
      {"SAVEPOINT s", "SAVEPOINT s"},
      {"DROP VIEW lines_with_path", "DROP VIEW lines_with_path"},
  };
  for (const Case& c : cases) {
    Error e = Refusal(c.sql);
    EXPECT_EQ(e.code(), ErrorCode::kReadOnly) << c.sql << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << c.sql << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("read-only"), std::string::npos) << e.what();
  }
  // Nothing changed.
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM files"), "1");
  EXPECT_EQ(QueryOne(*reader_, "SELECT path FROM files"), "a.log");
  EXPECT_EQ(QueryOne(*reader_, "PRAGMA user_version"), std::to_string(kIndexSchemaVersion));
}

TEST_F(QueryGuardTest, VacuumIsRefused) {
  EXPECT_EQ(Refusal("VACUUM").code(), ErrorCode::kReadOnly);
  std::string copy = dir_.Join("copy.db");
  EXPECT_EQ(Refusal("VACUUM INTO '" + copy + "'").code(), ErrorCode::kReadOnly);
  EXPECT_NE(access(copy.c_str(), F_OK), 0) << "VACUUM INTO wrote " << copy;
}

TEST_F(QueryGuardTest, OneStatementOnly) {
  Error two = Refusal("SELECT 1; SELECT 2");
  EXPECT_EQ(two.code(), ErrorCode::kReadOnly);
  EXPECT_NE(std::string(two.what()).find("more than one SQL statement"), std::string::npos)
      << two.what();
  EXPECT_EQ(Refusal("SELECT 1; DELETE FROM files").code(), ErrorCode::kReadOnly);
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM files"), "1");
  // Trailing semicolons, whitespace and comments are fine.
  EXPECT_EQ(QueryOne(*reader_, "SELECT 7;"), "7");
  EXPECT_EQ(QueryOne(*reader_, "  SELECT 7 ;  ;\n\t"), "7");
  EXPECT_EQ(QueryOne(*reader_, "SELECT 7; -- done"), "7");
}

TEST_F(QueryGuardTest, ReadingPragmasAreAllowed) {
  std::vector<Row> cols = QueryAll(*reader_, "PRAGMA table_info(files)");
  ASSERT_FALSE(cols.empty());
  EXPECT_EQ(cols[0][1], "id");
  EXPECT_EQ(cols[2][1], "path");
  EXPECT_EQ(QueryOne(*reader_, "PRAGMA user_version"), std::to_string(kIndexSchemaVersion));
  EXPECT_FALSE(QueryAll(*reader_, "PRAGMA index_list(files)").empty());
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM pragma_table_info('bundles')"), "10");
}

TEST_F(QueryGuardTest, SqlErrorsAreQueryErrors) {
  Error syntax = Refusal("SELEC 1");
  EXPECT_EQ(syntax.code(), ErrorCode::kQuery);
  EXPECT_NE(std::string(syntax.what()).find("syntax error"), std::string::npos) << syntax.what();
  Error missing = Refusal("SELECT * FROM no_such_table");
  EXPECT_EQ(missing.code(), ErrorCode::kQuery);
  EXPECT_NE(std::string(missing.what()).find("no such table: no_such_table"), std::string::npos)
      << missing.what();
  EXPECT_EQ(Refusal("").code(), ErrorCode::kQuery);
  EXPECT_EQ(Refusal("  ;  ").code(), ErrorCode::kQuery);
}

TEST_F(QueryGuardTest, ValuesAsText) {
  std::vector<std::string> names;
  std::vector<Row> rows;
  reader_->Query(
      "SELECT 42 AS i, 1.5 AS r, 'abc' AS t, NULL AS n, x'00ff10' AS b, "
      "zeroblob(100) AS big",
      [&](const QueryRow& row) {
        names = *row.columns;
        rows.push_back(row.values);
        return true;
      });
  EXPECT_EQ(names, (std::vector<std::string>{"i", "r", "t", "n", "b", "big"}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (Row{"42", "1.5", "abc", std::nullopt, "00ff10", "<blob 100 bytes>"}));
}

TEST_F(QueryGuardTest, CallbackStopsTheQuery) {
  int seen = 0;
  reader_->Query("SELECT value FROM json_each('[1,2,3]')", [&](const QueryRow&) {
    ++seen;
    return false;
  });
  EXPECT_EQ(seen, 1);
}

}  // namespace
}  // namespace casefile
