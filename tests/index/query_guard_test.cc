// The read-only query path: what it refuses (writes, ATTACH, state-changing
// pragmas, more than one statement), what it allows, and how values come out.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
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
  Error Refusal(const std::string& sql, const QueryLimits& limits = {}) {
    try {
      reader_->Query(
          sql, [](const QueryRow&) { return true; }, limits);
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

TEST_F(QueryGuardTest, AttachOfAFileCreatesNothing) {
  for (const char* name : {"attached.db", "other"}) {
    const std::string path = dir_.Join(name);
    for (const std::string& sql :
         {"ATTACH DATABASE '" + path + "' AS other", "ATTACH '" + path + "' AS x",
          "ATTACH 'file:" + path + "?mode=rwc' AS y"}) {
      Error e = Refusal(sql);
      EXPECT_EQ(e.code(), ErrorCode::kReadOnly) << sql << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("ATTACH"), std::string::npos) << e.what();
      EXPECT_NE(access(path.c_str(), F_OK), 0) << sql << " created " << path;
    }
  }
  // Through a function in a SELECT as well (sqlite_attach is no SQL
  // function; the attempt is an ordinary SQL error, and nothing is made).
  EXPECT_EQ(Refusal("SELECT sqlite_attach('" + dir_.Join("f.db") + "', 'f', NULL)").code(),
            ErrorCode::kQuery);
  EXPECT_NE(access(dir_.Join("f.db").c_str(), F_OK), 0);
}

TEST_F(QueryGuardTest, StateChangingPragmasAreRefused) {
  for (const char* sql :
       {"PRAGMA journal_mode = WAL", "PRAGMA journal_mode = DELETE",
        "PRAGMA main.journal_mode = OFF", "PRAGMA writable_schema = 1",
        "PRAGMA locking_mode = EXCLUSIVE", "PRAGMA cache_size = 1", "PRAGMA temp_store = FILE",
        "PRAGMA mmap_size = 1000000000", "PRAGMA foreign_keys = ON",
        "PRAGMA recursive_triggers = 1", "PRAGMA schema_version = 1", "PRAGMA trusted_schema = 1",
        "PRAGMA wal_checkpoint", "PRAGMA incremental_vacuum", "PRAGMA shrink_memory",
        "PRAGMA journal_size_limit = 1"}) {
    Error e = Refusal(sql);
    EXPECT_EQ(e.code(), ErrorCode::kReadOnly) << sql << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("PRAGMA"), std::string::npos) << e.what();
  }
  // Even asking for the journal mode is refused (SQLite counts the pragma
  // as a statement that may write).
  EXPECT_EQ(Refusal("PRAGMA journal_mode").code(), ErrorCode::kReadOnly);
  // No journal or WAL file appeared beside the index.
  EXPECT_NE(access((path_ + "-wal").c_str(), F_OK), 0);
  EXPECT_NE(access((path_ + "-journal").c_str(), F_OK), 0);
}

TEST_F(QueryGuardTest, LoadExtensionIsRefused) {
  for (const char* sql :
       {"SELECT load_extension('/lib/x86_64-linux-gnu/libm.so.6')",
        "SELECT LOAD_EXTENSION('libm.so.6', 'cos')", "SELECT 1 WHERE load_extension('x') IS NULL",
        "SELECT fts3_tokenizer('simple', x'0000000000000000')"}) {
    Error e = Refusal(sql);
    EXPECT_EQ(e.code(), ErrorCode::kReadOnly) << sql << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("the function "), std::string::npos) << e.what();
  }
  // Other functions still run.
  EXPECT_EQ(QueryOne(*reader_, "SELECT upper('a') || length('abc')"), "A3");
}

TEST_F(QueryGuardTest, VacuumIntoWritesNoFile) {
  for (const std::string& target : {dir_.Join("vacuum-copy.db"), std::string("/tmp/x")}) {
    const bool existed = access(target.c_str(), F_OK) == 0;
    Error e = Refusal("VACUUM INTO '" + target + "'");
    EXPECT_EQ(e.code(), ErrorCode::kReadOnly) << e.what();
    if (!existed) {
      EXPECT_NE(access(target.c_str(), F_OK), 0) << "VACUUM INTO wrote " << target;
    }
  }
}

TEST_F(QueryGuardTest, RecursiveCteHitsTheTimeout) {
  QueryLimits limits;
  limits.timeout_ms = 200;
  const std::string endless =
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n";
  const auto start = std::chrono::steady_clock::now();
  Error e = Refusal(endless, limits);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(e.code(), ErrorCode::kLimit) << e.what();
  EXPECT_NE(std::string(e.what()).find("200 ms"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("timeout"), std::string::npos) << e.what();
  // Stopped near its deadline, not seconds later.
  EXPECT_LT(took, std::chrono::seconds(3));
  // The type the C API turns into CASEFILE_E_TIMEOUT.
  bool typed = false;
  try {
    reader_->Query(
        endless, [](const QueryRow&) { return true; }, limits);
  } catch (const QueryTimeoutError&) {
    typed = true;
  }
  EXPECT_TRUE(typed);
  // The connection is usable after the interruption.
  EXPECT_EQ(QueryOne(*reader_, "SELECT count(*) FROM files"), "1");
}

TEST_F(QueryGuardTest, TheCallbacksTimeIsNotCounted) {
  // Ten rows, 40 ms in the callback each: 400 ms in all, against a
  // timeout of 150 ms that only SQLite's own work counts against.
  QueryLimits limits;
  limits.timeout_ms = 150;
  int rows = 0;
  reader_->Query(
      "SELECT value FROM json_each('[1,2,3,4,5,6,7,8,9,10]')",
      [&](const QueryRow&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(40));
        ++rows;
        return true;
      },
      limits);
  EXPECT_EQ(rows, 10);
}

TEST_F(QueryGuardTest, HugeValuesHitALimitBeforeAllocating) {
  for (const char* sql : {"SELECT zeroblob(2000000000)", "SELECT length(zeroblob(2000000000))",
                          "SELECT randomblob(1000000000)", "SELECT length(randomblob(100000000))",
                          "SELECT length(replace(hex(zeroblob(40000000)), '0', '00'))"}) {
    Error e = Refusal(sql);
    EXPECT_EQ(e.code(), ErrorCode::kLimit) << sql << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("longer than 67108864 bytes"), std::string::npos)
        << e.what();
  }
  // Below the limit a value is fine.
  EXPECT_EQ(QueryOne(*reader_, "SELECT length(zeroblob(1000000))"), "1000000");
}

TEST_F(QueryGuardTest, SqlTooLongIsALimit) {
  const std::string sql = "SELECT '" + std::string(2 << 20, 'x') + "'";
  Error e = Refusal(sql);
  EXPECT_EQ(e.code(), ErrorCode::kLimit) << e.what();
}

TEST_F(QueryGuardTest, RowLimit) {
  const std::string sql = "SELECT value FROM json_each('[1,2,3,4,5]')";
  QueryLimits limits;
  limits.max_rows = 5;
  std::vector<Row> rows;
  auto collect = [&](const QueryRow& row) {
    rows.push_back(row.values);
    return true;
  };
  reader_->Query(sql, collect, limits);  // exactly the limit: no error
  EXPECT_EQ(rows.size(), 5u);
  rows.clear();
  limits.max_rows = 3;
  try {
    reader_->Query(sql, collect, limits);
    ADD_FAILURE() << "six rows passed a limit of three";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kLimit);
    EXPECT_NE(std::string(e.what()).find("more than 3 rows"), std::string::npos) << e.what();
  }
  // The rows before the limit were delivered, in order.
  EXPECT_EQ(rows, (std::vector<Row>{{"1"}, {"2"}, {"3"}}));
}

TEST_F(QueryGuardTest, ResultByteLimit) {
  // Values "aa", NULL, "bbbb", "c": 2 + 0 + 4 + 1 = 7 bytes.
  const std::string sql = "SELECT value FROM json_each('[\"aa\", null, \"bbbb\", \"c\"]')";
  QueryLimits limits;
  limits.max_result_bytes = 7;
  std::vector<Row> rows;
  auto collect = [&](const QueryRow& row) {
    rows.push_back(row.values);
    return true;
  };
  reader_->Query(sql, collect, limits);
  EXPECT_EQ(rows.size(), 4u);
  rows.clear();
  limits.max_result_bytes = 6;
  try {
    reader_->Query(sql, collect, limits);
    ADD_FAILURE() << "7 bytes passed a limit of 6";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kLimit);
    EXPECT_NE(std::string(e.what()).find("larger than 6 bytes"), std::string::npos) << e.what();
  }
  // The row that would pass the limit is not delivered.
  EXPECT_EQ(rows, (std::vector<Row>{{"aa"}, {std::nullopt}, {"bbbb"}}));
}

}  // namespace
}  // namespace casefile
