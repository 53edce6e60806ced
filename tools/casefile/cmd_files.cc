// casefile files: the files of the bundles, as the index classified them.
#include <cstdio>

#include "args.h"
#include "commands.h"
#include "exit_codes.h"
#include "open_session.h"
#include "output.h"

namespace casefile_cli {

const char kFilesHelp[] =
    R"(Usage: casefile files BUNDLE... [options]

Lists the regular files of the bundles as the index classified them, one row
per file, ordered by bundle and path:

  bundle  the bundle's name (base name of its path)
  path    the path inside the bundle
  kind    log, hlo, trace, config, version, sysinfo, manifest,
          flight_recorder, binary or other
  host    the host the file belongs to, when known
  rank    the rank, when known
  size    bytes (decompressed)
  lines   lines indexed

Unknown values show as '-' in the table, empty in csv, null in json.

Options:
  --format FORMAT   table (default), csv or json (rank, size and lines are
                    JSON numbers, the rest strings)
  --index PATH      the index file to build or reuse (default: see below)
  --reindex         rebuild the index even when an up-to-date one exists
  --max-... N       limits of the reading (see Limits below)
  -h, --help        show this help

Exit codes:
  0  success
  2  usage error
  3  an input is missing, unreadable or corrupt, or was read only in part
     (the list is still printed first)
  4  internal error
)";

int RunFiles(const CommandArgs& argv) {
  std::vector<FlagSpec> specs = kSessionFlags;
  specs.push_back({"format", true});
  Args args("files", argv, specs);
  if (args.help()) return PrintHelp(kFilesHelp);
  if (args.positional().empty()) throw UsageError("files", "no BUNDLE given");
  RowWriter::Options out;
  out.format = ParseRowFormat(args.Choice("format", {"table", "csv", "json"}, "table"));
  out.null_text.assign(1, '-');  // not = "-": GCC 12 -Wrestrict false positive
  out.json_numbers = {false, false, false, false, true, true, true};

  IndexedSession s = OpenAndIndex(args.positional(), args);
  RowWriter writer(stdout, out);
  Query(s.session.get(),
        "SELECT b.name AS bundle, f.path AS path, f.kind AS kind, f.host AS host, "
        "f.rank AS rank, f.size AS size, f.line_count AS lines "
        "FROM files f JOIN bundles b ON b.id = f.bundle_id "
        "WHERE f.entry_type = 'file' ORDER BY b.id, f.path",
        [&](size_t count, const char* const* names, const char* const* values) {
          writer.Row(count, names, values);
          return true;
        });
  writer.Finish();
  return s.partial ? kExitInput : kExitOk;
}

}  // namespace casefile_cli
