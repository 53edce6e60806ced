// --plugin / --rules on any command, and CASEFILE_PLUGIN_PATH. The flags are
// taken out wherever they appear (diff has flags on both sides of its "--"),
// so the command never sees them; loading goes through the C API only.
#include "extensions.h"

#include <map>
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

// Takes "--plugin PATH", "--plugin=PATH", "--rules PATH", "--rules=PATH" out
// of `args`. A flag without a value is a usage error.
ExtensionFlags TakeFlags(CommandArgs& args) {
  ExtensionFlags flags;
  CommandArgs rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::vector<std::string>* list = nullptr;
    std::string_view name;
    if (arg.rfind("--plugin", 0) == 0) {
      list = &flags.plugins;
      name = "--plugin";
    } else if (arg.rfind("--rules", 0) == 0) {
      list = &flags.rules;
      name = "--rules";
    }
    // "--pluginX" or "--rulesX" are some other flag; the command judges it.
    if (list == nullptr || (arg.size() > name.size() && arg[name.size()] != '=')) {
      rest.push_back(arg);
      continue;
    }
    std::string value;
    if (arg.size() > name.size()) {
      value = arg.substr(name.size() + 1);
    } else if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {
      // A following flag is not taken for the path: "--plugin --json" is a
      // forgotten value, not a plugin named "--json".
      value = args[++i];
    }
    if (value.empty()) throw UsageError("", std::string(name) + " needs a file path");
    list->push_back(std::move(value));
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

void LoadExtensions(CommandArgs& args) {
  const ExtensionFlags flags = TakeFlags(args);
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
