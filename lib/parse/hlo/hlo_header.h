// The first line of an HLO text module, as HloModule::Print() writes it:
//   HloModule <name>, is_scheduled=true, entry_computation_layout={(f32[3,8]{1,0})->f32[8]{0}},
//   num_partitions=3, frontend_attributes={fingerprint_before_lhs="1ecf…"}
// Attribute values nest {}, (), [] and quoted strings that hold commas, so
// the line is split on commas at bracket depth 0 only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace casefile {

struct HloModuleHeader {
  std::string name;
  // key -> raw value text, in order of appearance.
  std::vector<std::pair<std::string, std::string>> attributes;
  // frontend_attributes' fingerprint_before_lhs (GPU scheduled modules).
  std::optional<std::string> fingerprint_before_lhs;
};

// Splits `text` on `sep` where no (), [], {} or "…" is open. Unbalanced
// closers are ignored (depth never goes below zero). Pieces are trimmed.
std::vector<std::string_view> SplitTopLevel(std::string_view text, char sep);

// Net depth of (, [, { minus ), ], } in `text`, outside quoted strings;
// a positive value means the header continues on the next line.
int HloBracketDepth(std::string_view text);

// `line` is the header (possibly joined from several lines), starting
// "HloModule ". Never throws; a malformed header yields what could be read.
HloModuleHeader ParseHloModuleHeader(std::string_view line);

// The value of fingerprint_before_lhs="…" anywhere in `text` (older XLA put
// it on the ROOT instruction's frontend_attributes); nullopt when absent.
std::optional<std::string> FindFingerprintBeforeLhs(std::string_view text);

}  // namespace casefile
