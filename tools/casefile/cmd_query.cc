// casefile query: one read-only SQL statement over the index.
#include <cstdint>
#include <cstdio>

#include "args.h"
#include "commands.h"
#include "exit_codes.h"
#include "open_session.h"
#include "output.h"

namespace casefile_cli {

const char kQueryHelp[] =
    R"(Usage: casefile query BUNDLE... SQL [options]

Runs one SQL statement on the index of the bundles (building it first if
needed) and prints the rows. The last argument is the SQL. The index is
read-only: INSERT, UPDATE, DELETE, CREATE, DROP, ATTACH, load_extension() and
pragmas that change state are refused. The tables (bundles, files, lines, ...)
are described in docs/SCHEMA.md; 'casefile files' and 'casefile show' are
built on them. In table format, control characters of the values are shown,
not sent to the terminal (docs/CLI.md, "Terminal safety").

Example:
  casefile query run42/ "SELECT path, line_count FROM files ORDER BY size DESC LIMIT 5"

Options:
  --format FORMAT   table (default: aligned columns, NULL shown as NULL),
                    csv (RFC 4180 quoting, NULL as an empty field), or
                    json (an array of objects; every value a string or null)
  --index PATH      the index file to build or reuse (default: see below)
  --reindex         rebuild the index even when an up-to-date one exists
  --max-... N       limits of the reading (see Limits below)
  --max-rows N      fail when the result has more than N rows (the first N
                    are printed); default: no bound
  --max-bytes N     fail when the values of the result add up to more than N
                    bytes (K, M, G suffixes); default: no bound
  --timeout DURATION
                    stop the query after this much work (90, 90s, 500ms,
                    5m; 0: no bound); the time output waits on a pager is
                    not counted; default 300s
  -h, --help        show this help
  --                end of options (for SQL that starts with '-')

Exit codes:
  0  success
  2  usage error, including a refused (writing) statement and SQL that SQLite
     rejects; the message says which
  3  an input is missing, unreadable or corrupt, or was read only in part
     (the rows are still printed first); or the query passed --max-rows,
     --max-bytes or --timeout, or made a value over 64 MiB (the rows
     before it are printed; the message names the limit)
  4  internal error
)";

namespace {

// --max-rows, --max-bytes and --timeout as the library's query options. An
// absent flag leaves its field 0, the library's default; --timeout 0 asks
// for no bound, which the library spells UINT32_MAX.
casefile_query_options QueryLimits(const Args& args) {
  casefile_query_options limits = CASEFILE_QUERY_OPTIONS_INIT;
  limits.max_rows = args.Size("max-rows", 0, UINT64_MAX);
  limits.max_result_bytes = args.Size("max-bytes", 0, UINT64_MAX);
  if (auto timeout = args.Value("timeout")) {
    const uint64_t ms = ParseDuration("query", "timeout", *timeout, true);
    if (ms >= UINT32_MAX) throw UsageError("query", "--timeout is too long (at most 49 days)");
    limits.timeout_ms = ms == 0 ? UINT32_MAX : static_cast<uint32_t>(ms);
  }
  return limits;
}

}  // namespace

int RunQuery(const CommandArgs& argv) {
  std::vector<FlagSpec> specs = kSessionFlags;
  specs.push_back({"format", true});
  specs.push_back({"max-rows", true});
  specs.push_back({"max-bytes", true});
  specs.push_back({"timeout", true});
  Args args("query", argv, specs);
  if (args.help()) return PrintHelp(kQueryHelp);
  if (args.positional().size() < 2) throw UsageError("query", "needs BUNDLE... and SQL");
  RowWriter::Options out;
  out.format = ParseRowFormat(args.Choice("format", {"table", "csv", "json"}, "table"));
  const casefile_query_options limits = QueryLimits(args);

  std::vector<std::string> bundles(args.positional().begin(), args.positional().end() - 1);
  const std::string& sql = args.positional().back();
  IndexedSession s = OpenAndIndex(bundles, args);

  RowWriter writer(stdout, out);
  try {
    Query(
        s.session.get(), sql,
        [&](size_t count, const char* const* names, const char* const* values) {
          writer.Row(count, names, values);
          return true;
        },
        &limits);
  } catch (const CliError&) {
    // A limit stops the query after rows were delivered: they are printed
    // (the table holds its first rows back to size the columns) and the
    // JSON array is closed, then the error says what was cut. A statement
    // refused or failing before its first row prints nothing.
    if (writer.rows() > 0) writer.Finish();
    throw;
  }
  writer.Finish();
  return s.partial ? kExitInput : kExitOk;
}

}  // namespace casefile_cli
