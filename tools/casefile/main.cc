// casefile: the command-line tool. It uses only include/casefile.h, so every
// feature it offers is also reachable through the C API.
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "casefile.h"
#include "commands.h"
#include "exit_codes.h"
#include "extensions.h"
#include "output.h"

namespace casefile_cli {

const char kBundleHelp[] =
    R"(A BUNDLE is a directory or an archive: .tar, .tar.zst, .tar.gz/.tgz or .zip.
)";

const char kIndexOptionsHelp[] =
    R"(The index is an SQLite file. Without --index it is kept in
$CASEFILE_CACHE_DIR, else $XDG_CACHE_HOME/casefile, else $HOME/.cache/casefile,
named after a hash of the bundles' absolute paths, and reused by later
commands on the same bundles while they are unchanged.
)";

const char kLimitOptionsHelp[] =
    R"(
Limits (each part of what makes an index reusable: a changed limit rebuilds
it). Input cut by a limit is listed in the report's ingest issues.
  --max-entry-bytes N   decompressed bytes read from one file; the rest is
                        skipped (default 8GiB)
  --max-total-bytes N   decompressed bytes read from all bundles together;
                        reading stops there (default 256GiB)
  --max-entries N       entries (files, directories, links) read per bundle;
                        reading stops there (default 1000000)
  --max-line-bytes N    a longer line keeps its first N bytes and is marked
                        truncated (default 65536; at most 4294967295)
N is a positive integer, optionally followed by K, M, G or T (or KiB, MiB,
GiB, TiB): powers of 1024, so 64K is 65536.
)";

namespace {

struct Command {
  const char* name;
  const char* summary;
  const char* help;
  int (*run)(const CommandArgs&);
  bool uses_index;
};

const Command kCommands[] = {
    {"analyze", "find the cause, culprits and evidence of a failure", kAnalyzeHelp, RunAnalyze,
     true},
    {"diff", "what changed between a good run and a bad run", kDiffHelp, RunDiff, true},
    {"index", "build or reuse the index of bundles", kIndexHelp, RunIndex, true},
    {"query", "run read-only SQL on the index", kQueryHelp, RunQuery, true},
    {"files", "list the files of bundles", kFilesHelp, RunFiles, true},
    {"show", "print a file, or a line with context", kShowHelp, RunShow, true},
    {"analyzers", "list the analyzers (built-in, rules, plugins)", kAnalyzersHelp, RunAnalyzers,
     false},
    {"rules", "list rule packs, or check a rule pack file", kRulesHelp, RunRules, false},
    {"collect", "pack this host's logs into a redacted bundle", kCollectHelp, RunCollect, false},
    {"verify", "check a collected bundle against its manifest", kVerifyHelp, RunVerify, false},
};

const char kMainHelp[] =
    R"(Usage: casefile COMMAND [options]
       casefile --version
       casefile --help | help [COMMAND]

Offline forensics for failed distributed ML training runs: indexes bundles of
logs, HLO dumps, profiler traces, configs and version outputs from many hosts,
then names the cause, the culprit hosts and ranks, and the evidence lines.

Commands:
)";

const char kMainExitCodes[] =
    R"(
Exit codes (every command):
  0  success
  1  analyze: a finding at or above --fail-on; diff: --fail-on-headline
     and the headline is not empty
  2  usage error (also: unknown analyzer, refused or invalid SQL)
  3  an input is missing, unreadable or corrupt, or was read only in part
     (output is still printed for a partial input)
  4  internal error
  130  interrupted (Ctrl-C)

Errors are printed on stderr as "casefile: <message>". Colour is used only
when stdout is a terminal, NO_COLOR is unset or empty, and --no-color is not
given. 'casefile COMMAND --help' describes each command.
)";

const Command* FindCommand(const std::string& name) {
  for (const auto& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

// The command names, and "help": what a path given before the command
// cannot be.
std::vector<std::string> CommandNames() {
  std::vector<std::string> names{"help"};
  for (const auto& c : kCommands) names.emplace_back(c.name);
  return names;
}

// The index of the first argument from `at` on that is not an extension
// flag or its value.
size_t SkipExtensionFlags(const CommandArgs& args, size_t at,
                          const std::vector<std::string>& commands) {
  size_t width = 0;
  while (at < args.size() && IsExtensionFlagAt(args, at, &width, commands)) at += width;
  return at;
}

void PrintMainHelp(std::FILE* out) {
  std::fputs(kMainHelp, out);
  for (const auto& c : kCommands) std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
  std::fputs("\n", out);
  std::fputs(kBundleHelp, out);
  std::fputs(kMainExitCodes, out);
}

int PrintVersion() {
  std::printf("casefile %s\n", casefile_version_string());
  if (casefile_version_number() != CASEFILE_VERSION_NUMBER) {
    std::printf("(built against casefile.h %d.%d.%d)\n", CASEFILE_VERSION_MAJOR,
                CASEFILE_VERSION_MINOR, CASEFILE_VERSION_PATCH);
  }
  return kExitOk;
}

int Run(int argc, char** argv) {
  if (argc < 2) {
    std::fputs("casefile: no command given\n\n", stderr);
    PrintMainHelp(stderr);
    return kExitUsage;
  }
  // Extension flags (--plugin, --rules) may also come before the command:
  // the command is the first argument that is neither one nor its value,
  // and the flags stay among the command's arguments for LoadExtensions.
  // Before the command, a value that names a command is a forgotten path
  // ("casefile --plugin analyze DIR"), as a value starting with "--" is.
  CommandArgs rest(argv + 1, argv + argc);
  const std::vector<std::string> names = CommandNames();
  const size_t at = SkipExtensionFlags(rest, 0, names);
  if (at >= rest.size()) throw UsageError("", "no command given");
  const std::string first = rest[at];
  rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(at));
  if (first == "--version" || first == "-V") return PrintVersion();
  if (first == "--help" || first == "-h") {
    PrintMainHelp(stdout);
    return kExitOk;
  }
  if (first == "help") {
    // Extension flags around "help" change no help text: skipped, not loaded.
    const size_t topic = SkipExtensionFlags(rest, 0, names);
    if (topic >= rest.size()) {
      PrintMainHelp(stdout);
      return kExitOk;
    }
    const Command* c = FindCommand(rest[topic]);
    if (c == nullptr) throw UsageError("", "unknown command '" + rest[topic] + "'");
    return PrintHelp(c->help);
  }
  const Command* c = FindCommand(first);
  if (c == nullptr) {
    if (!first.empty() && first[0] == '-') throw UsageError("", "unknown option '" + first + "'");
    throw UsageError("", "unknown command '" + first + "'");
  }
  // --plugin and --rules (and CASEFILE_PLUGIN_PATH) apply to every command;
  // they are taken out of the arguments before the command reads them.
  LoadExtensions(c->name, rest);
  return c->run(rest);
}

}  // namespace

int PrintHelp(const char* help) {
  std::fputs(help, stdout);
  for (const auto& c : kCommands) {
    if (c.help == help && c.uses_index) {
      std::fputs("\n", stdout);
      std::fputs(kBundleHelp, stdout);
      std::fputs(kIndexOptionsHelp, stdout);
      std::fputs(kLimitOptionsHelp, stdout);
    }
  }
  return kExitOk;
}

namespace {

// An error message quotes paths, SQL and messages of the library, all of
// which may hold bundle text: each of its lines is made terminal-safe, the
// line breaks kept (docs/CLI.md, "Terminal safety").
std::string SafeMessage(const char* message) {
  const std::string_view text = message != nullptr ? message : "";
  std::string out;
  size_t start = 0;
  for (;;) {
    const size_t end = text.find('\n', start);
    out += TerminalSafe(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace

}  // namespace casefile_cli

int main(int argc, char** argv) {
  casefile_cli::InstallInterruptHandler();
  int code;
  try {
    code = casefile_cli::Run(argc, argv);
  } catch (const casefile_cli::CliError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "casefile: %s\n", casefile_cli::SafeMessage(e.what()).c_str());
    code = e.code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "casefile: out of memory\n");
    code = casefile_cli::kExitInternal;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "casefile: internal error: %s\n",
                 casefile_cli::SafeMessage(e.what()).c_str());
    code = casefile_cli::kExitInternal;
  }
  return code;
}
