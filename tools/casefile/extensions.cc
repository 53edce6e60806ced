// --plugin / --rules on any command, and CASEFILE_PLUGIN_PATH. The flags are
// taken out wherever they appear before a bare "--" (and after it for diff,
// which has flags on both sides of its "--"), so the command never sees
// them; loading goes through the C API only.
#include "extensions.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "casefile.h"
#include "exit_codes.h"

namespace casefile_cli {
namespace {

struct ExtensionFlags {
  std::vector<std::string> plugins;
  std::vector<std::string> rules;
};

// Where each analyzer loaded by this process came from ("plugin PATH").
std::map<std::string, std::string>& Origins() {
  static std::map<std::string, std::string> origins;
  return origins;
}

std::vector<std::string> AnalyzerNames() {
  std::vector<std::string> names;
  for (size_t i = 0; i < casefile_analyzer_count(); ++i) {
    if (const char* name = casefile_analyzer_name(i)) names.emplace_back(name);
  }
  return names;
}

// The names in `after` that are not in `before` (registration appends).
void RecordOrigin(const std::vector<std::string>& before, const std::string& origin) {
  const std::vector<std::string> after = AnalyzerNames();
  for (const auto& name : after) {
    bool known = false;
    for (const auto& b : before) known = known || b == name;
    if (!known) Origins()[name] = origin;
  }
}

// One extension flag at args[at]: which list it feeds, its value and how
// many arguments it spans.
struct FlagAt {
  bool plugin = false;  // else --rules
  std::string value;
  size_t width = 1;
};

// The extension flag at args[at], or nullopt when there is none. Throws
// UsageError for a flag without a value (see IsExtensionFlagAt).
std::optional<FlagAt> ParseFlagAt(const CommandArgs& args, size_t at,
                                  const std::vector<std::string>& commands) {
  const std::string& arg = args[at];
  FlagAt flag;
  std::string_view name;
  if (arg.rfind("--plugin", 0) == 0) {
    flag.plugin = true;
    name = "--plugin";
  } else if (arg.rfind("--rules", 0) == 0) {
    name = "--rules";
  } else {
    return std::nullopt;
  }
  // "--pluginX" or "--rulesX" are some other flag; the command judges it.
  if (arg.size() > name.size() && arg[name.size()] != '=') return std::nullopt;
  if (arg.size() > name.size()) {
    flag.value = arg.substr(name.size() + 1);
  } else if (at + 1 < args.size()) {
    const std::string& next = args[at + 1];
    // A following flag is not taken for the path: "--plugin --json" is a
    // forgotten value, not a plugin named "--json".
    if (next.rfind("--", 0) == 0) {
      flag.value.clear();
    } else if (std::find(commands.begin(), commands.end(), next) != commands.end()) {
      throw UsageError("", std::string(name) + " needs a file path (\"" + next +
                               "\" is a command; write ./" + next + " for a file of that name)");
    } else {
      flag.value = next;
      flag.width = 2;
    }
  }
  if (flag.value.empty()) throw UsageError("", std::string(name) + " needs a file path");
  return flag;
}

// Takes "--plugin PATH", "--plugin=PATH", "--rules PATH", "--rules=PATH" out
// of `args`, up to a bare "--" unless `through_end_marker`. A flag without
// a value is a usage error.
ExtensionFlags TakeFlags(CommandArgs& args, bool through_end_marker) {
  ExtensionFlags flags;
  CommandArgs rest;
  size_t i = 0;
  while (i < args.size()) {
    if (args[i] == "--" && !through_end_marker) {
      rest.insert(rest.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    std::optional<FlagAt> flag = ParseFlagAt(args, i, {});
    if (!flag) {
      rest.push_back(args[i++]);
      continue;
    }
    (flag->plugin ? flags.plugins : flags.rules).push_back(std::move(flag->value));
    i += flag->width;
  }
  args = std::move(rest);
  return flags;
}

void LoadPlugin(const std::string& path) {
  const std::vector<std::string> before = AnalyzerNames();
  casefile_error* err = nullptr;
  Check(casefile_plugin_load(path.c_str(), &err), err);
  RecordOrigin(before, "plugin " + path);
}

}  // namespace

bool IsExtensionFlagAt(const CommandArgs& args, size_t at, size_t* width,
                       const std::vector<std::string>& commands) {
  const std::optional<FlagAt> flag = ParseFlagAt(args, at, commands);
  if (flag && width != nullptr) *width = flag->width;
  return flag.has_value();
}

void LoadExtensions(const std::string& command, CommandArgs& args) {
  // diff's "--" separates GOOD from BAD, with flags on both sides.
  const ExtensionFlags flags = TakeFlags(args, command == "diff");
  casefile_error* err = nullptr;
  {
    // The library never reads the variable on its own; the CLI asks it to,
    // first, so a --plugin on the command line comes after them.
    const std::vector<std::string> before = AnalyzerNames();
    Check(casefile_plugin_load_path(nullptr, nullptr, &err), err);
    RecordOrigin(before, "CASEFILE_PLUGIN_PATH");
  }
  for (const auto& path : flags.plugins) LoadPlugin(path);
  for (const auto& path : flags.rules) Check(casefile_rules_add_file(path.c_str(), &err), err);
}

std::string AnalyzerOrigin(const std::string& name) {
  auto it = Origins().find(name);
  return it == Origins().end() ? std::string() : it->second;
}

}  // namespace casefile_cli
