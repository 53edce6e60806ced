// Extensions named on the command line: --plugin PATH and --rules PATH,
// accepted by every command and anywhere among its arguments, and the
// plugins of CASEFILE_PLUGIN_PATH. They are loaded through the C API before
// the command runs (docs/CLI.md, "Extensions").
#pragma once

#include "commands.h"

namespace casefile_cli {

// Removes the extension flags from `args` and loads what they name. Throws
// CliError (usage: a missing value; the plugin's or pack's own error).
void LoadExtensions(CommandArgs& args);

}  // namespace casefile_cli
