// A rule pack: the JSON format of docs/RULES.md, read into Rule structs and
// validated. Every error names the line and column of the value at fault;
// reading goes on after an error so that one check lists all of them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/finding.h"

namespace casefile::rules {

inline constexpr int kRulesFormatVersion = 1;
inline constexpr int64_t kMaxEvidenceLimit = 100;
// A literal (or anchor) is at most 1 KiB, and a pack's literals and anchors
// at most 32 KiB in all: the automaton costs up to ~2 KB per pattern byte
// (docs/RULES.md, "Limits"; the packs in use together are bounded by
// kMaxAutomatonEntries).
inline constexpr size_t kMaxLiteralBytes = 1024;
inline constexpr size_t kMaxPackLiteralBytes = 32 * 1024;
// A pack's text, from a file or a string: hand-written packs are a few
// kilobytes; the JSON tree costs tens of bytes per byte of text.
inline constexpr size_t kMaxPackTextBytes = 1 << 20;

// Where a rule takes a culprit field from: a capture group by number or by
// name. Unset: the line's host/rank from the index.
struct CaptureRef {
  int group = -1;    // resolved group number; -1 = not set
  std::string name;  // as written, when given by name
};

struct RuleMatch {
  enum class Kind { kLiteral, kAny, kRegex };
  Kind kind = Kind::kLiteral;
  std::vector<std::string> literals;  // literal: one; any: several
  std::string regex;                  // as written
  std::string posix;                  // after named groups are taken out
  std::vector<std::string> group_names;
  std::string anchor;  // the literal a regex needs (written, or derived)
  bool anchor_given = false;
  bool ignore_case = false;
};

struct Rule {
  std::string code;
  Severity severity = Severity::kError;
  std::string title;
  std::string summary;  // template (rule_template.h)
  std::string recommendation;
  std::vector<std::string> kinds;  // default {"log"}
  RuleMatch match;
  CaptureRef capture_host;
  CaptureRef capture_rank;
  int64_t min_count = 1;
  int64_t min_hosts = 1;
  std::vector<std::string> absent_if;
  int64_t max_evidence = 5;
};

struct RulePack {
  std::string name;
  std::string description;
  std::string source;  // file name or the source_name given; for messages
  std::string text;    // the JSON as loaded (its digest versions the analyzer)
  bool builtin = false;
  std::vector<Rule> rules;
};

struct RuleError {
  size_t line = 0;
  size_t column = 0;
  std::string message;
};

// What the rest of the packs in use say about a new pack's codes.
struct PackContext {
  // Non-empty: the owner of a code the pack may not use (a built-in
  // analyzer's, or another pack's), e.g. "the comm analyzer".
  std::function<std::string(const std::string& code)> code_owner;
  // True when absent_if may name `code` (a rule of another pack in use).
  std::function<bool(const std::string& code)> known_code;
  // Non-empty: why the pack may not take this name (a built-in pack's).
  std::function<std::string(const std::string& name)> name_refused;
};

// Reads and validates a pack. Errors (empty when valid) are in text order.
// `pack` is filled only when there are none.
std::vector<RuleError> ParseRulePack(std::string_view text, const std::string& source,
                                     const PackContext& context, RulePack& pack);

// "SOURCE:LINE:COLUMN: message", one per line, no trailing newline.
std::string FormatRuleErrors(const std::string& source, const std::vector<RuleError>& errors);
// The message of Error(kRules): "N error(s) in rule pack SOURCE", then the
// errors one per line (the C API puts the function's name before the first
// line; callers print the lines after it).
std::string RuleErrorMessage(const std::string& source, const std::vector<RuleError>& errors);

// The file kinds a rule may read.
const std::vector<std::string>& RuleFileKinds();

}  // namespace casefile::rules
