// Summary templates: "{count} lines on {hosts}: {1}". Placeholders are
// {host} {rank} {count} {hosts} {first}, a capture group's number {1} or its
// name {path}; {{ and }} write braces. Checked when the pack is read, so
// expansion never fails.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace casefile::rules {

// Empty when `text` is a valid template for a rule whose regex has
// `group_names.size() - 1` groups (group_names[n] = name of group n, ""
// unnamed; empty vector for a literal rule); else the message, and
// `*error_at` the byte offset in `text`.
std::string CheckTemplate(std::string_view text, const std::vector<std::string>& group_names,
                          size_t* error_at);

struct TemplateValues {
  std::string host;                                // culprit host of the first match; "" unknown
  std::string rank;                                // culprit rank of the first match; "" unknown
  std::string count;                               // matching lines
  std::string hosts;                               // distinct hosts, comma-separated
  std::string first;                               // "path:line" of the first match
  std::vector<std::optional<std::string>> groups;  // first match's captures
  const std::vector<std::string>* group_names = nullptr;
};

// Expands a template that CheckTemplate accepted. Unknown values and groups
// that took no part in the match expand to "?".
std::string ExpandTemplate(std::string_view text, const TemplateValues& values);

}  // namespace casefile::rules
