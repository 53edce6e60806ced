// casefile analyzers: every analyzer an analysis runs, one per line: the
// built-in ones, "rules", then those of plugins, with where they come from.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "args.h"
#include "commands.h"
#include "exit_codes.h"
#include "extensions.h"

namespace casefile_cli {

const char kAnalyzersHelp[] =
    R"(Usage: casefile analyzers [--plugin FILE]... [--rules FILE]...

Lists the analyzers an analysis runs, in the order they run: the built-in
ones, "rules" (the rule packs), then those registered by plugins (--plugin,
CASEFILE_PLUGIN_PATH), each followed by the plugin it comes from. A name is
what 'casefile analyze --analyzers' takes.

Options:
  --plugin FILE   load a plugin first (docs/CLI.md, "Extensions")
  --rules FILE    add a rule pack first
  -h, --help      show this help

Exit codes:
  0  success
  2  usage error, or a plugin or rule pack refused
  3  a plugin or rule pack that does not exist
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
    const char* name = casefile_analyzer_name(i);
    const char* description = casefile_analyzer_description(i);
    const std::string origin = AnalyzerOrigin(name);
    // The library's own analyzers keep the plain two-column line scripts
    // read; a loaded one says where it comes from after its description.
    std::string line = description;
    if (!origin.empty()) line += (line.empty() ? "(from " : " (from ") + origin + ")";
    std::printf("%-*s  %s\n", static_cast<int>(width), name, line.c_str());
  }
  return kExitOk;
}

}  // namespace casefile_cli
