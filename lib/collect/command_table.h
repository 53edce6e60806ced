// The version and system commands the collector runs, and the environment
// variables it keeps: both are data, so adding a command or a prefix is one
// line in command_table.cc.
#pragma once

#include <string_view>
#include <vector>

#include "collect/collect_options.h"

namespace casefile::collect {

// The default command table, in the order the commands are listed in the
// manifest. Bundle paths follow the naming the version and sysinfo readers
// expect (hosts/<host>/versions/nvcc_version.txt, .../sysinfo/dmesg.txt).
const std::vector<CommandSpec>& DefaultCommands();

// True when an environment variable of this name is packed into
// hosts/<host>/env/env.txt: a name in the table, or one starting with a
// prefix of the table (CUDA_, NCCL_, TORCH_, XLA_, ...).
bool KeepEnvironmentVariable(std::string_view name);

}  // namespace casefile::collect
