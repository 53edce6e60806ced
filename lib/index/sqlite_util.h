// Thin RAII helpers over the SQLite C API for the index stage: a prepared
// statement that finalizes itself, and error mapping to casefile::Error.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"

namespace casefile {

// The ErrorCode for an SQLite result code met while reading or writing an
// index file (disk full and I/O errors are kIo, a damaged file kCorrupt).
ErrorCode SqliteErrorCode(int rc);

// Throws Error(code) with "<what>: <sqlite message>".
[[noreturn]] void ThrowSqlite(sqlite3* db, int rc, const std::string& what);

// Runs statements without results; throws on error.
void Exec(sqlite3* db, const char* sql);

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, std::string_view sql);
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  sqlite3_stmt* get() const { return stmt_; }
  explicit operator bool() const { return stmt_ != nullptr; }
  void Finalize();

  void Bind(int i, int64_t v);
  void Bind(int i, double v);
  void Bind(int i, std::string_view v);  // copied (SQLITE_TRANSIENT)
  void Bind(int i, const std::string& v) { Bind(i, std::string_view(v)); }
  void Bind(int i, const char* v) { Bind(i, std::string_view(v)); }
  void BindStatic(int i, std::string_view v);  // must outlive the step
  void Bind(int i, const std::optional<std::string>& v);
  void Bind(int i, const std::optional<int64_t>& v);
  void Bind(int i, const std::optional<double>& v);
  void BindBlobStatic(int i, const void* data, size_t size);
  void BindNull(int i);

  // true when a row is ready, false when done; throws on error.
  bool Step();
  // Steps a statement that returns no rows, then resets it.
  void Run();
  void Reset();

  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const { return sqlite3_column_double(stmt_, col); }
  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string Text(int col) const;
  std::optional<std::string> OptText(int col) const;
  std::optional<int64_t> OptInt(int col) const;

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace casefile
