#include "index/index_open.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "index/index_reader.h"
#include "index/lines_vtab.h"
#include "index/metric_points_codec.h"
#include "index/sqlite_temp_vfs.h"
#include "index/sqlite_util.h"

namespace casefile {
namespace {

// Waits this long for a lock held by another connection (StoreFindings
// rewriting findings while a reader is open) before reporting it.
constexpr int kBusyTimeoutMs = 10000;

[[noreturn]] void NotAnIndex(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kCorrupt, "not a casefile index: " + path + " (" + why + ")");
}

void Validate(sqlite3* db, const std::string& path) {
  sqlite3_stmt* stmt = nullptr;
  // Preparing reads the schema, which is where a file that is not a
  // database is noticed.
  int rc = sqlite3_prepare_v2(
      db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'", -1, &stmt,
      nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
  if (rc != SQLITE_ROW) {
    std::string msg = sqlite3_errmsg(db);
    sqlite3_finalize(stmt);
    if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT) {
      NotAnIndex(path, "not an SQLite database: " + msg);
    }
    throw Error(SqliteErrorCode(rc), "cannot read index " + path + ": " + msg);
  }
  bool has_meta = sqlite3_column_int64(stmt, 0) > 0;
  sqlite3_finalize(stmt);
  if (!has_meta) NotAnIndex(path, "an SQLite database without a meta table");

  Statement version(db, "PRAGMA user_version");
  version.Step();
  int64_t v = version.Int(0);
  if (v != kIndexSchemaVersion) {
    throw Error(ErrorCode::kIndexVersion,
                "index " + path + " has schema version " + std::to_string(v) +
                    " but this casefile reads version " + std::to_string(kIndexSchemaVersion) +
                    "; rebuild the index (casefile index --reindex)");
  }
}

}  // namespace

sqlite3* OpenIndexConnection(const std::string& path, bool writable) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      throw Error(ErrorCode::kNotFound, "index not found: " + path);
    }
    throw Error(ErrorCode::kIo, "cannot open index " + path + ": " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) NotAnIndex(path, "not a regular file");

  sqlite3* db = nullptr;
  int flags = writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
  // Where SQLite's temporary files go (the spill of a big ORDER BY, GROUP
  // BY or DISTINCT, materialised subqueries, statement journals): never
  // $TMPDIR, which is outside the index (docs/SECURITY.md). Beside the
  // index when its folder takes new files: memory stays bounded whatever a
  // query sorts (analyze of a 10-million-event trace keeps to its RSS
  // bound), and the files are unlinked as soon as they are opened. A
  // read-only folder (an index on a read-only mount or owned by another
  // user) gets temp_store=MEMORY instead: a sort then grows memory, bounded
  // in time by the query limits (query_limits.h), which is better than
  // failing every spilling query or writing outside the index.
  const bool temp_beside = CanMakeTempFilesBeside(path);
  std::string msg;
  int rc = temp_beside ? OpenWithTempPrefix(path, flags, SqliteTempPrefixFor(path), &db, &msg)
                       : sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    if (!temp_beside) msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    throw Error(ErrorCode::kIo, "cannot open index " + path + ": " + msg);
  }
  try {
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, kBusyTimeoutMs);
    if (!temp_beside) Exec(db, "PRAGMA temp_store=MEMORY");
    Validate(db, path);
    RegisterLinesModule(db);
    RegisterMetricPointsFunction(db);
  } catch (...) {
    sqlite3_close_v2(db);
    throw;
  }
  return db;
}

}  // namespace casefile
