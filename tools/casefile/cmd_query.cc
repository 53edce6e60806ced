// casefile query: one read-only SQL statement over the index.
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
read-only: INSERT, UPDATE, DELETE, CREATE, DROP, ATTACH and pragmas that change
state are refused. The tables (bundles, files, lines, ...) are described in
docs/SCHEMA.md; 'casefile files' and 'casefile show' are built on them.

Example:
  casefile query run42/ "SELECT path, line_count FROM files ORDER BY size DESC LIMIT 5"

Options:
  --format FORMAT   table (default: aligned columns, NULL shown as NULL),
                    csv (RFC 4180 quoting, NULL as an empty field), or
                    json (an array of objects; every value a string or null)
  --index PATH      the index file to build or reuse (default: see below)
  --reindex         rebuild the index even when an up-to-date one exists
  --max-... N       limits of the reading (see Limits below)
  -h, --help        show this help
  --                end of options (for SQL that starts with '-')

Exit codes:
  0  success
  2  usage error, including a refused (writing) statement and SQL that SQLite
     rejects; the message says which
  3  an input is missing, unreadable or corrupt, or was read only in part
     (the rows are still printed first)
  4  internal error
)";

int RunQuery(const CommandArgs& argv) {
  std::vector<FlagSpec> specs = kSessionFlags;
  specs.push_back({"format", true});
  Args args("query", argv, specs);
  if (args.help()) return PrintHelp(kQueryHelp);
  if (args.positional().size() < 2) throw UsageError("query", "needs BUNDLE... and SQL");
  RowWriter::Options out;
  out.format = ParseRowFormat(args.Choice("format", {"table", "csv", "json"}, "table"));

  std::vector<std::string> bundles(args.positional().begin(), args.positional().end() - 1);
  const std::string& sql = args.positional().back();
  IndexedSession s = OpenAndIndex(bundles, args);

  RowWriter writer(stdout, out);
  Query(s.session.get(), sql,
        [&](size_t count, const char* const* names, const char* const* values) {
          writer.Row(count, names, values);
          return true;
        });
  writer.Finish();
  return s.partial ? kExitInput : kExitOk;
}

}  // namespace casefile_cli
