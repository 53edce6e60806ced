#include "index/sqlite_util.h"

#include <utility>

namespace casefile {

ErrorCode SqliteErrorCode(int rc) {
  switch (rc & 0xff) {
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return ErrorCode::kIo;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return ErrorCode::kCorrupt;
    case SQLITE_READONLY:
      return ErrorCode::kReadOnly;
    case SQLITE_NOMEM:
      throw std::bad_alloc();
    default:
      return ErrorCode::kInternal;
  }
}

void ThrowSqlite(sqlite3* db, int rc, const std::string& what) {
  std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw Error(SqliteErrorCode(rc), what + ": " + msg);
}

void Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    throw Error(SqliteErrorCode(rc), std::string("index SQL failed (") + sql + "): " + msg);
  }
}

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
  int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK) ThrowSqlite(db, rc, "cannot prepare index statement " + std::string(sql));
}

Statement::~Statement() { Finalize(); }

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    Finalize();
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

void Statement::Finalize() {
  if (stmt_) sqlite3_finalize(stmt_);
  stmt_ = nullptr;
}

void Statement::Bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
void Statement::Bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
void Statement::Bind(int i, std::string_view v) {
  sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}
void Statement::BindStatic(int i, std::string_view v) {
  sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
}
void Statement::Bind(int i, const std::optional<std::string>& v) {
  if (v) {
    Bind(i, std::string_view(*v));
  } else {
    BindNull(i);
  }
}
void Statement::Bind(int i, const std::optional<int64_t>& v) {
  if (v) {
    Bind(i, *v);
  } else {
    BindNull(i);
  }
}
void Statement::Bind(int i, const std::optional<double>& v) {
  if (v) {
    Bind(i, *v);
  } else {
    BindNull(i);
  }
}
void Statement::BindBlobStatic(int i, const void* data, size_t size) {
  sqlite3_bind_blob64(stmt_, i, data, size, SQLITE_STATIC);
}
void Statement::BindNull(int i) { sqlite3_bind_null(stmt_, i); }

bool Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  std::string sql = sqlite3_sql(stmt_) ? sqlite3_sql(stmt_) : "";
  sqlite3_reset(stmt_);
  ThrowSqlite(db_, rc, "index statement failed (" + sql + ")");
}

void Statement::Run() {
  Step();
  Reset();
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Statement::Text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  int n = sqlite3_column_bytes(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

std::optional<std::string> Statement::OptText(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Text(col);
}

std::optional<int64_t> Statement::OptInt(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Int(col);
}

}  // namespace casefile
