#include "bundle/entry_path.h"

#include <vector>

namespace casefile::bundle {

namespace {

// The routine spelling of a member: optional "./" prefixes, then clean
// components, then an optional trailing '/'.
std::string_view StripRoutine(std::string_view raw) {
  while (raw.size() >= 2 && raw[0] == '.' && raw[1] == '/') raw.remove_prefix(2);
  if (!raw.empty() && raw.back() == '/') raw.remove_suffix(1);
  return raw;
}

}  // namespace

NormalizedPath NormalizeEntryPath(std::string_view raw) {
  NormalizedPath out;
  if (raw.empty()) return out;
  if (raw.size() > kMaxEntryPathBytes) {
    out.rewritten = true;
    return out;
  }
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= raw.size(); ++i) {
    if (i < raw.size() && raw[i] != '/' && raw[i] != '\\') continue;
    std::string_view part = raw.substr(start, i - start);
    start = i + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out.path.push_back('/');
    out.path.append(parts[i]);
  }
  out.rewritten = out.path != StripRoutine(raw) || raw.front() == '/';
  return out;
}

bool IsRootPath(std::string_view raw) {
  if (raw.empty()) return false;
  for (char c : raw) {
    if (c != '.' && c != '/') return false;
  }
  return raw == "." || StripRoutine(raw).empty() || StripRoutine(raw) == ".";
}

bool HasGzipSuffix(std::string_view path) {
  if (path.size() < 3) return false;
  std::string_view tail = path.substr(path.size() - 3);
  return tail[0] == '.' && (tail[1] == 'g' || tail[1] == 'G') && (tail[2] == 'z' || tail[2] == 'Z');
}

}  // namespace casefile::bundle
