// The endpoint and errno readers of comm_text.h: c10d's socket messages.
#include <algorithm>

#include "parse/dist/comm_text.h"
#include "parse/line/scan.h"

namespace casefile::dist {
namespace {

constexpr size_t npos = std::string_view::npos;

bool Has(std::string_view s, std::string_view part) { return s.find(part) != npos; }

// The decimal number at s[i] (an optional '-' first); nullopt when none.
std::optional<int64_t> IntAt(std::string_view s, size_t i) {
  bool neg = false;
  if (i < s.size() && s[i] == '-') {
    neg = true;
    ++i;
  }
  uint64_t v = 0;
  const size_t n = scan::ReadUint(s, i, 12, &v);
  if (n == 0) return std::nullopt;
  return neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

bool IsHostChar(char c) {
  return scan::IsAlnum(c) || c == '.' || c == '-' || c == '_' || c == ':' || c == '%';
}

bool IsSourceName(std::string_view host) {
  for (std::string_view ext : {".cpp", ".cc", ".h", ".hpp", ".py", ".cu"}) {
    if (host.ends_with(ext)) return true;
  }
  return false;
}

// "host:port" from `inside` and `port`, brackets kept for an IPv6 address.
std::string JoinEndpoint(std::string_view inside, std::string_view port) {
  std::string out;
  const bool v6 = Has(inside, ":");
  if (v6) out.push_back('[');
  out.append(inside);
  if (v6) out.push_back(']');
  out.push_back(':');
  out.append(port);
  return out;
}

// "[inside]:port" at s[open]; "" when the bracket is no endpoint.
std::string BracketEndpointAt(std::string_view s, size_t open) {
  const size_t close = s.find(']', open + 1);
  if (close == npos || close == open + 1 || close - open > 80 || !scan::At(s, close + 1, ':')) {
    return {};
  }
  size_t end = close + 2;
  while (end < s.size() && scan::IsDigit(s[end])) ++end;
  if (end == close + 2 || end - close - 2 > 5) return {};
  const std::string_view inside = s.substr(open + 1, close - open - 1);
  for (char c : inside) {
    if (!IsHostChar(c)) return {};
  }
  return JoinEndpoint(inside, s.substr(close + 2, end - close - 2));
}

}  // namespace

std::string Endpoint(std::string_view text) {
  if (const size_t at = text.find("remote="); at != npos) {
    if (scan::At(text, at + 7, '[')) {
      std::string e = BracketEndpointAt(text, at + 7);
      if (!e.empty()) return e;
    }
  }
  for (size_t open = text.find('['); open != npos; open = text.find('[', open + 1)) {
    std::string e = BracketEndpointAt(text, open);
    if (!e.empty()) return e;
  }
  // "(host, port)" of the client socket messages.
  for (size_t open = text.find('('); open != npos; open = text.find('(', open + 1)) {
    const size_t comma = text.find(", ", open);
    const size_t close = text.find(')', open);
    if (comma == npos || close == npos || comma > close || close - open > 80) continue;
    const std::string_view host = text.substr(open + 1, comma - open - 1);
    const std::string_view port = text.substr(comma + 2, close - comma - 2);
    uint64_t v = 0;
    if (host.empty() || port.empty() || scan::ReadUint(port, 0, 5, &v) != port.size()) continue;
    if (!std::all_of(host.begin(), host.end(), IsHostChar)) continue;
    return JoinEndpoint(host, port);
  }
  // A bare "host:port" word ("failed to bind to 0.0.0.0:29500").
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    size_t end = text.find(' ', i);
    if (end == npos) end = text.size();
    std::string_view word = text.substr(i, end - i);
    while (!word.empty() && (word.back() == '.' || word.back() == ',' || word.back() == ')')) {
      word.remove_suffix(1);
    }
    i = end;
    const size_t colon = word.rfind(':');
    if (colon == npos || colon == 0 || colon + 1 >= word.size()) continue;
    const std::string_view host = word.substr(0, colon);
    const std::string_view port = word.substr(colon + 1);
    uint64_t v = 0;
    if (scan::ReadUint(port, 0, 5, &v) != port.size()) continue;
    if (!std::all_of(host.begin(), host.end(), IsHostChar) || IsSourceName(host)) continue;
    if (!scan::IsAlnum(host[0])) continue;
    return std::string(word);
  }
  return {};
}

std::optional<int64_t> ErrnoOf(std::string_view text) {
  for (std::string_view key : {"errno: ", "errno "}) {
    if (const size_t at = text.find(key); at != npos) {
      if (auto v = IntAt(text, at + key.size())) return v;
    }
  }
  return std::nullopt;
}

}  // namespace casefile::dist
