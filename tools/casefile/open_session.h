// What the session-based commands share: owning wrappers for the C handles,
// opening and indexing with progress, queries with C++ callbacks, and the
// warnings printed for inputs read only in part.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "casefile.h"

namespace casefile_cli {

struct SessionFree {
  void operator()(casefile_session* s) const { casefile_session_free(s); }
};
struct ReportFree {
  void operator()(casefile_report* r) const { casefile_report_free(r); }
};
struct StringFree {
  void operator()(char* s) const { casefile_string_free(s); }
};
using SessionPtr = std::unique_ptr<casefile_session, SessionFree>;
using ReportPtr = std::unique_ptr<casefile_report, ReportFree>;
using StringPtr = std::unique_ptr<char, StringFree>;

// The flags every session command takes: where the index is, and the limits
// of the reading (casefile_open_options).
inline const std::vector<FlagSpec> kSessionFlags = {
    {"index", true},           {"reindex", false},    {"max-entry-bytes", true},
    {"max-total-bytes", true}, {"max-entries", true}, {"max-line-bytes", true}};

struct IndexedSession {
  SessionPtr session;
  bool partial = false;  // some input was read only in part
  bool reused = false;
};

// Opens `inputs` with --index, --reindex and the --max-* limits from `args`, builds or reuses the
// index (progress on stderr when it is a terminal), and prints a warning per
// input read only in part. Throws CliError on failure.
IndexedSession OpenAndIndex(const std::vector<std::string>& inputs, const Args& args);

// Where one side of a diff keeps its index: an explicit file, else a folder
// (the index named after its inputs), else the cache folder.
struct IndexPlace {
  std::optional<std::string> path;
  std::optional<std::string> dir;
};
// As above, with the index placed by `place` instead of --index.
IndexedSession OpenAndIndex(const std::vector<std::string>& inputs, const Args& args,
                            const IndexPlace& place);
// Opens without indexing (casefile_diff indexes the two sides itself, on two
// threads). Throws CliError on failure.
SessionPtr OpenSession(const std::vector<std::string>& inputs, const Args& args,
                       const IndexPlace& place);
// Prints a warning on stderr for each input of the session read only in part.
void WarnPartial(casefile_session* session);

// Called per row with the column names and values (NULL for SQL NULL).
// Returning false stops the query quietly.
using RowCallback =
    std::function<bool(size_t count, const char* const* names, const char* const* values)>;

// Runs `sql` within `limits` (NULL: the library's defaults), rethrowing
// whatever the callback threw. Throws CliError for a refused or failing
// statement, or one past a limit.
void Query(casefile_session* session, const std::string& sql, const RowCallback& on_row,
           const casefile_query_options* limits = nullptr);

// `text` as a single-quoted SQL string literal.
std::string SqlQuote(const std::string& text);

}  // namespace casefile_cli
