// Read-only SQL over a session's index. The engine refuses writes (read-only
// connection plus authorizer) and enforces the query limits; the bridge only
// converts options and rows.
#include <cstddef>

#include "capi_internal.h"
#include "row_convert.h"

using casefile::capi::CheckOptionsVersion;
using casefile::capi::CheckSession;
using casefile::capi::Guard;

static_assert(offsetof(casefile_query_options, version) == 0);

namespace casefile::capi {

QueryLimits ToQueryLimits(const casefile_query_options* opts) {
  QueryLimits limits;
  limits.timeout_ms = kDefaultQueryTimeoutMs;
  if (opts == nullptr) return limits;
  // 0 keeps the default, as the header promises: no bound on rows and
  // bytes, kDefaultQueryTimeoutMs.
  limits.max_rows = opts->max_rows;
  limits.max_result_bytes = opts->max_result_bytes;
  if (opts->timeout_ms != 0) limits.timeout_ms = opts->timeout_ms;
  return limits;
}

}  // namespace casefile::capi

namespace {

casefile_status SessionQuery(const char* function, casefile_session* session, const char* sql,
                             const casefile_query_options* opts, casefile_row_fn callback,
                             void* payload, casefile_error** err) {
  CASEFILE_CLEAR_ERR(err);
  if (casefile_status st = CheckSession(function, session, err); st != CASEFILE_OK) return st;
  CASEFILE_CHECK_ARG(function, session, err, sql);
  if (opts != nullptr) {
    if (casefile_status st = CheckOptionsVersion(function, session, err, opts->version,
                                                 CASEFILE_QUERY_OPTIONS_VERSION, "query options");
        st != CASEFILE_OK) {
      return st;
    }
  }
  return Guard(function, session, err, [&]() -> casefile_status {
    // Querying implicitly would hide an indexing failure (or a partial index)
    // behind a query error; the caller indexes first and sees its status.
    if (!session->session->indexed()) {
      throw casefile::Error(casefile::ErrorCode::kMisuse,
                            "the session has no index yet: call casefile_session_index first");
    }
    casefile::capi::RowToC rows(callback, payload);
    session->session->Query(
        sql, [&](const casefile::QueryRow& row) { return rows(row); },
        casefile::capi::ToQueryLimits(opts));
    if (rows.aborted()) {
      throw casefile::Error(casefile::ErrorCode::kAborted, "the row callback returned non-zero");
    }
    return CASEFILE_OK;
  });
}

}  // namespace

extern "C" {

casefile_status casefile_query_options_init(casefile_query_options* opts, unsigned int version) {
  if (opts == nullptr) return CASEFILE_E_ARGUMENT;
  if (version < 1 || version > CASEFILE_QUERY_OPTIONS_VERSION) return CASEFILE_E_VERSION;
  const casefile_query_options defaults = CASEFILE_QUERY_OPTIONS_INIT;
  *opts = defaults;
  opts->version = version;
  return CASEFILE_OK;
}

casefile_status casefile_session_query(casefile_session* session, const char* sql,
                                       casefile_row_fn callback, void* payload,
                                       casefile_error** err) {
  return SessionQuery("casefile_session_query", session, sql, nullptr, callback, payload, err);
}

casefile_status casefile_session_query_ex(casefile_session* session, const char* sql,
                                          const casefile_query_options* opts,
                                          casefile_row_fn callback, void* payload,
                                          casefile_error** err) {
  return SessionQuery("casefile_session_query_ex", session, sql, opts, callback, payload, err);
}

}  // extern "C"
