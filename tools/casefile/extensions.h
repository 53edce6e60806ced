// Extensions named on the command line: --plugin PATH and --rules PATH,
// accepted by every command and anywhere among its arguments, and the
// plugins of CASEFILE_PLUGIN_PATH. They are loaded through the C API before
// the command runs (docs/CLI.md, "Extensions").
#pragma once

#include <string>

#include "commands.h"

namespace casefile_cli {

// Removes the extension flags from `args` and loads what they name. Throws
// CliError (usage: a missing value; the plugin's or pack's own error).
void LoadExtensions(CommandArgs& args);

// Where an analyzer loaded by LoadExtensions came from ("plugin PATH",
// "CASEFILE_PLUGIN_PATH"); "" for the library's own analyzers.
std::string AnalyzerOrigin(const std::string& name);

}  // namespace casefile_cli
