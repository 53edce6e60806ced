#include "collect/env_capture.h"

#include <algorithm>
#include <map>

#include "collect/command_table.h"

extern char** environ;

namespace casefile::collect {

std::vector<std::string> ProcessEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

std::optional<std::string> EnvironmentValue(const std::vector<std::string>& env,
                                            std::string_view name) {
  std::optional<std::string> value;
  for (const auto& entry : env) {
    size_t eq = entry.find('=');
    if (eq != std::string::npos && std::string_view(entry).substr(0, eq) == name) {
      value = entry.substr(eq + 1);
    }
  }
  return value;
}

std::string EnvironmentFile(const std::vector<std::string>& env, const Redactor* redactor,
                            RedactionCounts& counts) {
  std::map<std::string, std::string> kept;
  for (const auto& entry : env) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = entry.substr(0, eq);
    if (KeepEnvironmentVariable(name)) kept[name] = entry.substr(eq + 1);
  }
  std::string out;
  for (const auto& [name, raw] : kept) {
    std::string value = redactor != nullptr ? redactor->RedactEnvValue(name, raw, counts) : raw;
    out += name;
    out += '=';
    for (char c : value) {
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else {
        out += c;
      }
    }
    out += '\n';
  }
  return out;
}

}  // namespace casefile::collect
