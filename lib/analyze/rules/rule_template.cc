#include "analyze/rules/rule_template.h"

#include <cctype>

namespace casefile::rules {
namespace {

constexpr std::string_view kBuiltinNames[] = {"host", "rank", "count", "hosts", "first"};

bool IsBuiltinName(std::string_view name) {
  for (std::string_view b : kBuiltinNames) {
    if (b == name) return true;
  }
  return false;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Calls on_text(view) for literal pieces and on_field(name, offset) for
// placeholders; stops with a message at the first malformed brace.
template <class OnText, class OnField>
std::string Walk(std::string_view text, size_t* error_at, OnText on_text, OnField on_field) {
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '{' && i + 1 < text.size() && text[i + 1] == '{') {
      on_text("{");
      i += 2;
      continue;
    }
    if (c == '}' && i + 1 < text.size() && text[i + 1] == '}') {
      on_text("}");
      i += 2;
      continue;
    }
    if (c == '}') {
      if (error_at) *error_at = i;
      return "a lone '}' in the template (write }} for a brace)";
    }
    if (c == '{') {
      const size_t close = text.find('}', i + 1);
      if (close == std::string_view::npos) {
        if (error_at) *error_at = i;
        return "'{' without '}' in the template (write {{ for a brace)";
      }
      std::string message = on_field(text.substr(i + 1, close - i - 1), i);
      if (!message.empty()) return message;
      i = close + 1;
      continue;
    }
    const size_t next = text.find_first_of("{}", i);
    const size_t end = next == std::string_view::npos ? text.size() : next;
    on_text(text.substr(i, end - i));
    i = end;
  }
  return "";
}

}  // namespace

std::string CheckTemplate(std::string_view text, const std::vector<std::string>& group_names,
                          size_t* error_at) {
  const size_t groups = group_names.empty() ? 0 : group_names.size() - 1;
  return Walk(
      text, error_at, [](std::string_view) {},
      [&](std::string_view name, size_t at) -> std::string {
        if (error_at) *error_at = at;
        if (IsBuiltinName(name)) return "";
        if (AllDigits(name)) {
          // More digits than any regex has groups: refused without stoul.
          const unsigned long n = name.size() > 4 ? 100000 : std::stoul(std::string(name));
          if (n >= 1 && n <= groups) return "";
          if (groups == 0) return "{" + std::string(name) + "}: the rule has no capture groups";
          return "{" + std::string(name) + "}: the regex has " + std::to_string(groups) +
                 " capture group" + (groups == 1 ? "" : "s");
        }
        for (size_t g = 1; g < group_names.size(); ++g) {
          if (group_names[g] == name) return "";
        }
        return "unknown placeholder {" + std::string(name) +
               "} (known: {host} {rank} {count} {hosts} {first}, {N} and named groups)";
      });
}

std::string ExpandTemplate(std::string_view text, const TemplateValues& values) {
  std::string out;
  auto or_unknown = [](const std::string& s) { return s.empty() ? std::string("?") : s; };
  auto group = [&](size_t n) -> std::string {
    if (n < values.groups.size() && values.groups[n]) return *values.groups[n];
    return "?";
  };
  Walk(
      text, nullptr, [&](std::string_view piece) { out.append(piece); },
      [&](std::string_view name, size_t) -> std::string {
        if (name == "host") {
          out += or_unknown(values.host);
        } else if (name == "rank") {
          out += or_unknown(values.rank);
        } else if (name == "count") {
          out += values.count;
        } else if (name == "hosts") {
          out += or_unknown(values.hosts);
        } else if (name == "first") {
          out += values.first;
        } else if (AllDigits(name)) {
          out += group(name.size() > 4 ? 100000 : std::stoul(std::string(name)));
        } else if (values.group_names) {
          const auto& names = *values.group_names;
          for (size_t g = 1; g < names.size(); ++g) {
            if (names[g] == name) out += group(g);
          }
        }
        return "";
      });
  return out;
}

}  // namespace casefile::rules
