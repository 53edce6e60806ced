// Extensions named on the command line: --plugin PATH and --rules PATH,
// accepted by every command and anywhere among its arguments, and the
// plugins of CASEFILE_PLUGIN_PATH. They are loaded through the C API before
// the command runs (docs/CLI.md, "Extensions").
#pragma once

#include <string>
#include <vector>

#include "commands.h"

namespace casefile_cli {

// Removes the extension flags from the arguments of `command` and loads
// what they name. A bare "--" ends the options: what follows it is left as
// it is (query SQL may start with "--rules"), except for diff, whose "--"
// separates GOOD from BAD and has flags on both sides. Throws CliError
// (usage: a missing value; the plugin's or pack's own error).
void LoadExtensions(const std::string& command, CommandArgs& args);

// Whether args[at] is "--plugin", "--rules" or their "=VALUE" forms; sets
// *width to the number of arguments the flag takes (1 or 2). A separate
// value that is missing, starts with "--", or is one of `commands` (a
// forgotten path before the command: "casefile --plugin analyze DIR") is a
// usage error.
bool IsExtensionFlagAt(const CommandArgs& args, size_t at, size_t* width,
                       const std::vector<std::string>& commands = {});

// Where an analyzer loaded by LoadExtensions came from ("plugin PATH",
// "CASEFILE_PLUGIN_PATH"); "" for the library's own analyzers.
std::string AnalyzerOrigin(const std::string& name);

}  // namespace casefile_cli
