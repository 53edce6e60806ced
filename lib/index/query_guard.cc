#include "index/query_guard.h"

#include <algorithm>
#include <cctype>

#include "index/query_limits.h"

namespace casefile {
namespace {

// Pragmas whose argument names a thing to describe rather than a new value.
constexpr std::string_view kDescribingPragmas[] = {
    "table_info",      "table_xinfo",    "table_list",       "index_info",
    "index_xinfo",     "index_list",     "foreign_key_list", "foreign_key_check",
    "integrity_check", "quick_check",    "function_list",    "module_list",
    "pragma_list",     "collation_list", "database_list",    "compile_options",
};

// Pragmas that act even without an argument (checkpoint, vacuum, memory).
constexpr std::string_view kActingPragmas[] = {
    "optimize",
    "shrink_memory",
    "wal_checkpoint",
    "incremental_vacuum",
};

// SQL functions a query may not call: they reach outside the index
// (load_extension runs a shared object's code; fts3_tokenizer with two
// arguments installs a pointer). SQLite disables both by default; the guard
// refuses them by name as well, so a build or a setting that enables them
// still cannot hand them to a query.
constexpr std::string_view kRefusedFunctions[] = {
    "load_extension",
    "fts3_tokenizer",
};

std::string Name(const char* s) { return s ? s : ""; }

std::string Lower(const char* s) {
  std::string name = Name(s);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

std::string Describe(int action, const char* a1, const char* a2) {
  switch (action) {
    case SQLITE_INSERT:
      return "INSERT into " + Name(a1);
    case SQLITE_UPDATE:
      return "UPDATE of " + Name(a1) + "." + Name(a2);
    case SQLITE_DELETE:
      return "DELETE from " + Name(a1);
    case SQLITE_CREATE_TABLE:
    case SQLITE_CREATE_TEMP_TABLE:
      return "CREATE TABLE " + Name(a1);
    case SQLITE_CREATE_INDEX:
    case SQLITE_CREATE_TEMP_INDEX:
      return "CREATE INDEX " + Name(a1);
    case SQLITE_CREATE_VIEW:
    case SQLITE_CREATE_TEMP_VIEW:
      return "CREATE VIEW " + Name(a1);
    case SQLITE_CREATE_TRIGGER:
    case SQLITE_CREATE_TEMP_TRIGGER:
      return "CREATE TRIGGER " + Name(a1);
    case SQLITE_CREATE_VTABLE:
      return "CREATE VIRTUAL TABLE " + Name(a1);
    case SQLITE_DROP_TABLE:
    case SQLITE_DROP_TEMP_TABLE:
      return "DROP TABLE " + Name(a1);
    case SQLITE_DROP_INDEX:
    case SQLITE_DROP_TEMP_INDEX:
      return "DROP INDEX " + Name(a1);
    case SQLITE_DROP_VIEW:
    case SQLITE_DROP_TEMP_VIEW:
      return "DROP VIEW " + Name(a1);
    case SQLITE_DROP_TRIGGER:
    case SQLITE_DROP_TEMP_TRIGGER:
      return "DROP TRIGGER " + Name(a1);
    case SQLITE_DROP_VTABLE:
      return "DROP VIRTUAL TABLE " + Name(a1);
    case SQLITE_ALTER_TABLE:
      return "ALTER TABLE " + Name(a2);
    case SQLITE_ATTACH:
      return "ATTACH " + Name(a1);
    case SQLITE_DETACH:
      return "DETACH " + Name(a1);
    case SQLITE_REINDEX:
      return "REINDEX " + Name(a1);
    case SQLITE_ANALYZE:
      return "ANALYZE " + Name(a1);
    case SQLITE_TRANSACTION:
      return Name(a1) + " (transaction control)";
    case SQLITE_SAVEPOINT:
      return "SAVEPOINT " + Name(a2);
    case SQLITE_PRAGMA:
      return "PRAGMA " + Name(a1) + (a2 ? " = " + Name(a2) : "");
    case SQLITE_FUNCTION:
      return "the function " + Name(a2) + "()";
    default:
      return "action " + std::to_string(action);
  }
}

}  // namespace

bool IsReadOnlyPragma(std::string_view pragma, bool has_argument) {
  if (std::find(std::begin(kDescribingPragmas), std::end(kDescribingPragmas), pragma) !=
      std::end(kDescribingPragmas)) {
    return true;
  }
  if (has_argument) return false;
  return std::find(std::begin(kActingPragmas), std::end(kActingPragmas), pragma) ==
         std::end(kActingPragmas);
}

void QueryGuard::Install(sqlite3* db) {
  sqlite3_set_authorizer(db, &QueryGuard::Authorize, this);
  // What no query may pass, whatever its QueryLimits: values and SQL of a
  // bounded length (zeroblob(2e9) fails before it allocates), no attached
  // database even if an ATTACH got past the authorizer, no helper threads.
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, kQueryMaxValueBytes);
  sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, kQueryMaxSqlBytes);
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 0);
  // No extension loading through the C call or the SQL function, and the
  // defensive mode that keeps even a writable_schema pragma from corrupting
  // the file (both are also refused above; this is the second wall).
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
}

int QueryGuard::Authorize(void* self, int action, const char* a1, const char* a2, const char*,
                          const char*) {
  auto* guard = static_cast<QueryGuard*>(self);
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_FUNCTION: {
      const std::string name = Lower(a2);
      if (std::find(std::begin(kRefusedFunctions), std::end(kRefusedFunctions), name) ==
          std::end(kRefusedFunctions)) {
        return SQLITE_OK;
      }
      break;
    }
    case SQLITE_INSERT:
    case SQLITE_UPDATE:
    case SQLITE_DELETE:
      // Writes to the schema table itself are left to the checks after it:
      // SQLite asks about them before the specific DDL action (so CREATE
      // TABLE is refused as CREATE TABLE, not as "INSERT into
      // sqlite_master"), and SQLite 3.40 runs a nested UPDATE of
      // sqlite_master while any virtual table (lines, json_each,
      // pragma_table_info…) declares its columns, which must not fail.
      // A user's own write to sqlite_master still cannot happen: SQLite
      // refuses it without writable_schema (a pragma with a value, refused
      // here), the connection is SQLITE_OPEN_READONLY, and Query() refuses
      // any statement sqlite3_stmt_readonly() calls a writer.
      if (a1 && (std::string_view(a1) == "sqlite_master" ||
                 std::string_view(a1) == "sqlite_temp_master")) {
        return SQLITE_OK;
      }
      break;
    case SQLITE_PRAGMA: {
      const std::string name = Lower(a1);
      if (IsReadOnlyPragma(name, a2 != nullptr)) return SQLITE_OK;
      break;
    }
    default:
      break;
  }
  if (guard->refused_.empty()) guard->refused_ = Describe(action, a1, a2);
  return SQLITE_DENY;
}

}  // namespace casefile
