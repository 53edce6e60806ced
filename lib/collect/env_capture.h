// The environment as the collector sees it, and hosts/<host>/env/env.txt:
// the variables the analyzers read (command_table.h), one KEY=VALUE line
// each, sorted by name, values redacted where secret.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/redactor.h"

namespace casefile::collect {

// "KEY=VALUE" entries of the process environment.
std::vector<std::string> ProcessEnvironment();

// The value of `name` in `env` (the last entry wins, as getenv's would after
// putenv), or nullopt.
std::optional<std::string> EnvironmentValue(const std::vector<std::string>& env,
                                            std::string_view name);

// The env.txt content. Each value goes through redactor->RedactEnvValue
// (redactor may be null: --no-redact), counts added to `counts`. A newline
// or carriage return inside a value is written as "\n" / "\r" so that one
// variable stays one line.
std::string EnvironmentFile(const std::vector<std::string>& env, const Redactor* redactor,
                            RedactionCounts& counts);

}  // namespace casefile::collect
