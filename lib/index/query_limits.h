// The bounds of one read-only query (casefile query, casefile_session_query_ex,
// casefile_analysis_query_ex): how long SQLite may work on it and how much it
// may hand back. A query over an index built from a stranger's bundle is
// still a query written by the caller, but an embedder running queries in a
// service (or a typo such as a recursive CTE without its stop condition) must
// not hang or exhaust memory; docs/API.md "Query limits".
#pragma once

#include <cstdint>
#include <string>

#include "common/error.h"

namespace casefile {

struct QueryLimits {
  // Rows handed to the callback; one more row fails the query with
  // Error(kLimit) (the rows before it were delivered). 0: no bound.
  uint64_t max_rows = 0;
  // Bytes of the values handed to the callback, summed over the result (NULL
  // counts 0, a value its text's length); a row that would pass it fails the
  // query with Error(kLimit) before it is delivered. 0: no bound.
  uint64_t max_result_bytes = 0;
  // Milliseconds SQLite may spend computing the result, the callback's own
  // time not counted (a reader paging through output is not a slow query);
  // past it the query fails with QueryTimeoutError. 0: no bound.
  uint32_t timeout_ms = 0;
};

// The timeout of the C API's queries when the caller sets none
// (casefile_query_options.timeout_ms 0, and the calls without options):
// long enough for a full scan of the lines of a large index, short enough
// that a runaway query in a service ends.
inline constexpr uint32_t kDefaultQueryTimeoutMs = 300000;

// The longest string or blob a query may make or read (SQLITE_LIMIT_LENGTH
// of the query connection): zeroblob(2e9) or randomblob(1e9) fail before
// allocating instead of taking gigabytes. Stored values are far shorter
// (lines are capped by max_line_bytes, 64 KiB by default).
inline constexpr int kQueryMaxValueBytes = 64 << 20;
// The longest SQL text a query may have (SQLITE_LIMIT_SQL_LENGTH).
inline constexpr int kQueryMaxSqlBytes = 1 << 20;

// A query stopped by its timeout. An Error(kLimit), so code that handles
// limits handles it; the C API reports it as CASEFILE_E_TIMEOUT.
class QueryTimeoutError : public Error {
 public:
  explicit QueryTimeoutError(const std::string& message) : Error(ErrorCode::kLimit, message) {}
};

}  // namespace casefile
