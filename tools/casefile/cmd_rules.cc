// Placeholder for `casefile rules`.
#include "commands.h"
#include "exit_codes.h"

namespace casefile_cli {

const char kRulesHelp[] = "Usage: casefile rules list | check FILE\n";

int RunRules(const CommandArgs&) { throw UsageError("rules", "not implemented yet"); }

}  // namespace casefile_cli
