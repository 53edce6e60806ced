// casefile index: build (or reuse) the index and summarise it.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "args.h"
#include "commands.h"
#include "exit_codes.h"
#include "open_session.h"
#include "output.h"

namespace casefile_cli {

const char kIndexHelp[] =
    R"(Usage: casefile index BUNDLE... [options]

Builds the index of the bundles, or reuses it when an index of the same
inputs, unchanged since, made by the same casefile version with the same
limits, already exists. While indexing, a progress line is shown on stderr when stderr
is a terminal. At the end one summary line is printed on stdout:

  built index PATH: 2 bundles, 14 files, 20511 lines, 3.2 MB

("reused index" when nothing had to be read again).

Options:
  --index PATH   the index file to build or reuse (default: see below)
  --reindex      rebuild the index even when an up-to-date one exists
  --max-... N    limits of the reading (see Limits below)
  -h, --help     show this help

Exit codes:
  0  the index is complete
  2  usage error
  3  an input is missing, unreadable or corrupt, or was read only in part
     (the index then holds what could be read, and the summary is printed)
  4  internal error
)";

namespace {

uint64_t ToCount(const char* value) {
  return value == nullptr ? 0 : std::strtoull(value, nullptr, 10);
}

}  // namespace

int RunIndex(const CommandArgs& argv) {
  Args args("index", argv, kSessionFlags);
  if (args.help()) return PrintHelp(kIndexHelp);
  if (args.positional().empty()) throw UsageError("index", "no BUNDLE given");

  IndexedSession s = OpenAndIndex(args.positional(), args);

  uint64_t bundles = 0, files = 0, lines = 0, bytes = 0;
  Query(s.session.get(),
        "SELECT (SELECT count(*) FROM bundles), "
        "(SELECT count(*) FROM files WHERE entry_type = 'file'), "
        "(SELECT coalesce(sum(line_count), 0) FROM files), "
        "(SELECT coalesce(sum(bytes), 0) FROM bundles)",
        [&](size_t count, const char* const*, const char* const* values) {
          if (count == 4) {
            bundles = ToCount(values[0]);
            files = ToCount(values[1]);
            lines = ToCount(values[2]);
            bytes = ToCount(values[3]);
          }
          return false;
        });
  std::printf(
      "%s index %s: %llu bundle%s, %llu file%s, %llu line%s, %s\n", s.reused ? "reused" : "built",
      TerminalSafe(casefile_session_index_path(s.session.get())).c_str(),
      static_cast<unsigned long long>(bundles), bundles == 1 ? "" : "s",
      static_cast<unsigned long long>(files), files == 1 ? "" : "s",
      static_cast<unsigned long long>(lines), lines == 1 ? "" : "s", HumanBytes(bytes).c_str());
  std::fflush(stdout);
  return s.partial ? kExitInput : kExitOk;
}

}  // namespace casefile_cli
