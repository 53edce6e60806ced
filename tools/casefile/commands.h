// The subcommands: each lives in its own cmd_<name>.cc with its help text.
// A command returns its exit code or throws CliError.
#pragma once

#include <string>
#include <vector>

namespace casefile_cli {

using CommandArgs = std::vector<std::string>;  // the arguments after the command name

int RunAnalyze(const CommandArgs& args);
int RunIndex(const CommandArgs& args);
int RunQuery(const CommandArgs& args);
int RunFiles(const CommandArgs& args);
int RunShow(const CommandArgs& args);
int RunAnalyzers(const CommandArgs& args);
int RunCollect(const CommandArgs& args);
int RunVerify(const CommandArgs& args);
int RunDiff(const CommandArgs& args);
int RunRules(const CommandArgs& args);

extern const char kAnalyzeHelp[];
extern const char kIndexHelp[];
extern const char kQueryHelp[];
extern const char kFilesHelp[];
extern const char kShowHelp[];
extern const char kAnalyzersHelp[];
extern const char kCollectHelp[];
extern const char kVerifyHelp[];
extern const char kDiffHelp[];
extern const char kRulesHelp[];

// Help paragraphs several commands share.
extern const char kBundleHelp[];        // what a BUNDLE may be
extern const char kIndexOptionsHelp[];  // --index and --reindex, the default location
extern const char kLimitOptionsHelp[];  // --max-entry-bytes and the other limits

// Prints `help` (and the shared paragraphs it names) on stdout; returns 0.
int PrintHelp(const char* help);

}  // namespace casefile_cli
