// casefile analyzers: the built-in analyzers, one per line.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "args.h"
#include "commands.h"
#include "exit_codes.h"

namespace casefile_cli {

const char kAnalyzersHelp[] =
    R"(Usage: casefile analyzers

Lists the built-in analyzers: each name (for 'casefile analyze --analyzers')
and what it looks for.

Options:
  -h, --help   show this help

Exit codes:
  0  success
  2  usage error
)";

int RunAnalyzers(const CommandArgs& argv) {
  Args args("analyzers", argv, {});
  if (args.help()) return PrintHelp(kAnalyzersHelp);
  if (!args.positional().empty()) {
    throw UsageError("analyzers", "unexpected argument '" + args.positional()[0] + "'");
  }
  size_t width = 0;
  for (size_t i = 0; i < casefile_analyzer_count(); ++i) {
    width = std::max(width, std::strlen(casefile_analyzer_name(i)));
  }
  for (size_t i = 0; i < casefile_analyzer_count(); ++i) {
    std::printf("%-*s  %s\n", static_cast<int>(width), casefile_analyzer_name(i),
                casefile_analyzer_description(i));
  }
  return kExitOk;
}

}  // namespace casefile_cli
