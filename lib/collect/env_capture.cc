#include "collect/env_capture.h"

#include <algorithm>
#include <map>

#include "collect/command_table.h"

extern char** environ;

namespace casefile::collect {

namespace {

// A line break is written "\\n" (or "\\r") so each variable stays one line.
void AppendOneLine(std::string_view text, std::string& out) {
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += c;
    }
  }
}

}  // namespace

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
    // The name too: env.txt is not scanned again, and a name can be any
    // bytes but '=' (a token pasted into it stays in the process's env).
    std::string shown = name;
    if (redactor != nullptr) {
      RedactLineState state;
      redactor->RedactLine(name, shown, state, counts);
    }
    AppendOneLine(shown, out);
    out += '=';
    AppendOneLine(value, out);
    out += '\n';
  }
  return out;
}

}  // namespace casefile::collect
