#include "parse/hlo/hlo_header.h"

namespace casefile {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::string Unquote(std::string_view v) {
  v = Trim(v);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  std::string out;
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '\\' && i + 1 < v.size()) ++i;
    out.push_back(v[i]);
  }
  return out;
}

}  // namespace

std::vector<std::string_view> SplitTopLevel(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  int depth = 0;
  bool in_string = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth > 0) --depth;
    } else if (c == sep && depth == 0) {
      parts.push_back(Trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string_view last = Trim(text.substr(start < text.size() ? start : text.size()));
  if (!last.empty() || !parts.empty()) parts.push_back(last);
  return parts;
}

int HloBracketDepth(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    }
  }
  return depth;
}

HloModuleHeader ParseHloModuleHeader(std::string_view line) {
  HloModuleHeader header;
  line = Trim(line);
  constexpr std::string_view kPrefix = "HloModule ";
  if (line.substr(0, kPrefix.size()) != kPrefix) return header;
  line.remove_prefix(kPrefix.size());
  std::vector<std::string_view> parts = SplitTopLevel(line, ',');
  if (parts.empty()) return header;
  // The name runs to the first comma or blank.
  std::string_view name = parts[0];
  size_t blank = name.find_first_of(" \t");
  header.name = std::string(name.substr(0, blank));
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string_view part = parts[i];
    size_t eq = part.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key(Trim(part.substr(0, eq)));
    std::string_view value = Trim(part.substr(eq + 1));
    if (key == "frontend_attributes" && value.size() >= 2 && value.front() == '{' &&
        value.back() == '}') {
      for (std::string_view attr : SplitTopLevel(value.substr(1, value.size() - 2), ',')) {
        size_t aeq = attr.find('=');
        if (aeq != std::string_view::npos &&
            Trim(attr.substr(0, aeq)) == "fingerprint_before_lhs") {
          header.fingerprint_before_lhs = Unquote(attr.substr(aeq + 1));
        }
      }
    }
    header.attributes.emplace_back(std::move(key), std::string(value));
  }
  return header;
}

std::optional<std::string> FindFingerprintBeforeLhs(std::string_view text) {
  constexpr std::string_view kKey = "fingerprint_before_lhs=\"";
  size_t pos = text.find(kKey);
  if (pos == std::string_view::npos) return std::nullopt;
  size_t start = pos + kKey.size();
  size_t end = text.find('"', start);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(text.substr(start, end - start));
}

}  // namespace casefile
