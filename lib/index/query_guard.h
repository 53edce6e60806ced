// The rules of the read-only query path: an SQLite authorizer that lets a
// statement read and nothing else, and the single-statement check. Combined
// with SQLITE_OPEN_READONLY (which already stops writes to the file), it also
// stops what a read-only connection would still allow: ATTACH of another
// file, temporary tables, pragmas that change the connection, and
// load_extension().
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

namespace casefile {

class QueryGuard {
 public:
  // Installs the authorizer on `db`, with the limits no query may pass
  // (query_limits.h: value and SQL length, no attached database) and
  // extension loading off; the guard must outlive the connection's use for
  // queries. Only for the query connection: the limits apply to every
  // statement on it.
  void Install(sqlite3* db);

  // What the authorizer refused since the last Clear(), for the error
  // message ("INSERT into files"); empty when nothing was refused.
  const std::string& refused() const { return refused_; }
  void Clear() { refused_.clear(); }

 private:
  static int Authorize(void* self, int action, const char* a1, const char* a2, const char* db,
                       const char* trigger);
  std::string refused_;
};

// True when `pragma` (lower case) only reads, whatever its argument, e.g.
// table_info(files). Other pragmas are allowed only without a value.
bool IsReadOnlyPragma(std::string_view pragma, bool has_argument);

}  // namespace casefile
