// The built-in rule packs: lib/analyze/rules/packs/*.json, embedded into the
// library at build time (lib/CMakeLists.txt writes builtin_packs_data.cc
// from builtin_packs_data.cc.in), so the JSON users read is the JSON the
// library runs.
#pragma once

#include <string_view>
#include <vector>

namespace casefile::rules {

struct BuiltinPackText {
  std::string_view file;  // "runtime.json"
  std::string_view text;  // the file's bytes
};

// In file name order.
const std::vector<BuiltinPackText>& BuiltinPackTexts();

}  // namespace casefile::rules
