// Collects ParseConfig rows for the config tests.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parse/config/config_parser.h"

namespace casefile::test {

struct ConfigEntry {
  std::string key;
  std::string value;
  int64_t line = 0;
  bool operator==(const ConfigEntry& o) const {
    return key == o.key && value == o.value && line == o.line;
  }
};

inline std::ostream& operator<<(std::ostream& os, const ConfigEntry& e) {
  return os << "{" << e.key << " = \"" << e.value << "\" @" << e.line << "}";
}

inline std::vector<ConfigEntry> Flatten(ConfigFormat fmt, std::string_view text) {
  std::vector<ConfigEntry> out;
  ParseConfig(fmt, text, [&](std::string_view key, std::string_view value, int64_t line) {
    out.push_back({std::string(key), std::string(value), line});
  });
  return out;
}

}  // namespace casefile::test
