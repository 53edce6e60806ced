// Read-only SQL over a session's index. The engine refuses writes (read-only
// connection plus authorizer); the bridge only converts rows to C arrays.
#include "capi_internal.h"
#include "row_convert.h"

using casefile::capi::CheckSession;
using casefile::capi::Guard;

extern "C" {

casefile_status casefile_session_query(casefile_session* session, const char* sql,
                                       casefile_row_fn callback, void* payload,
                                       casefile_error** err) {
  static constexpr const char* kFn = "casefile_session_query";
  CASEFILE_CLEAR_ERR(err);
  if (casefile_status st = CheckSession(kFn, session, err); st != CASEFILE_OK) return st;
  CASEFILE_CHECK_ARG(kFn, session, err, sql);
  return Guard(kFn, session, err, [&]() -> casefile_status {
    // Querying implicitly would hide an indexing failure (or a partial index)
    // behind a query error; the caller indexes first and sees its status.
    if (!session->session->indexed()) {
      throw casefile::Error(casefile::ErrorCode::kMisuse,
                            "the session has no index yet: call casefile_session_index first");
    }
    casefile::capi::RowToC rows(callback, payload);
    session->session->Query(sql, [&](const casefile::QueryRow& row) { return rows(row); });
    if (rows.aborted()) {
      throw casefile::Error(casefile::ErrorCode::kAborted, "the row callback returned non-zero");
    }
    return CASEFILE_OK;
  });
}

}  // extern "C"
