#include "collect/host_patterns.h"

#include <string.h>

#include <algorithm>

#include "collect/redactor.h"

namespace casefile::collect {
namespace {

constexpr size_t kNpos = std::string_view::npos;

// Four dotted octets from `i`; their end, or npos. `first` gets the first
// octet's value.
size_t ParseIpv4(std::string_view text, size_t i, int* first) {
  for (int octet = 0; octet < 4; ++octet) {
    if (octet > 0) {
      if (i >= text.size() || text[i] != '.') return kNpos;
      ++i;
    }
    int value = 0;
    size_t digits = 0;
    while (i < text.size() && IsAsciiDigit(text[i]) && digits < 4) {
      value = value * 10 + (text[i] - '0');
      ++i;
      ++digits;
    }
    if (digits == 0 || digits > 3 || value > 255) return kNpos;
    if (octet == 0) *first = value;
  }
  return i;
}

bool ReadsAsVersion(std::string_view text, size_t begin, size_t end) {
  if (end < text.size() && (text[end] == '+' || text[end] == '-') && end + 1 < text.size() &&
      IsAsciiAlnum(text[end + 1])) {
    return true;
  }
  if (begin >= 2 && text[begin - 1] == '=' && strchr("=<>~!", text[begin - 2]) != nullptr) {
    return true;
  }
  size_t window = std::min<size_t>(begin, 24);
  std::string_view before = text.substr(begin - window, window);
  // A pseudonym there hides what stood before (maybe "version"): keep it.
  return FindCaseless(before, "version", 0) != kNpos || before.find("<redacted:") != kNpos;
}

}  // namespace

void FindIpv4Addresses(std::string_view text, SecretMatches& out) {
  const size_t n = text.size();
  size_t resume = 0;
  for (size_t d = FindByte(text, '.', 0); d != kNpos; d = FindByte(text, '.', d + 1)) {
    if (d < resume) continue;
    size_t s = d;
    while (s > 0 && d - s < 4 && IsAsciiDigit(text[s - 1])) --s;
    if (s == d || d - s > 3) continue;
    if (s > 0 && (IsWordChar(text[s - 1]) || text[s - 1] == '.')) continue;
    int first = 0;
    size_t e = ParseIpv4(text, s, &first);
    if (e == kNpos) continue;
    if (e < n &&
        (IsWordChar(text[e]) || (text[e] == '.' && e + 1 < n && IsAsciiDigit(text[e + 1])))) {
      continue;
    }
    resume = e;
    if (ReadsAsVersion(text, s, e)) continue;
    if (first == 127 || first == 255 || text.substr(s, e - s) == "0.0.0.0") continue;
    out.push_back({s, s, e, kRedactIp});
  }
}

namespace {

// An IPv6 address from `s`; its end, or npos.
size_t ParseIpv6(std::string_view text, size_t s) {
  const size_t n = text.size();
  size_t i = s;
  size_t end = kNpos;
  int groups = 0;
  bool compressed = false;
  if (text.compare(i, 2, "::") == 0) {
    compressed = true;
    i += 2;
    end = i;
  }
  while (true) {
    size_t h = 0;
    while (i + h < n && h < 5 && IsHexDigit(text[i + h])) ++h;
    if (h == 0) break;
    if (i + h < n && text[i + h] == '.') {
      int first = 0;
      size_t v4 = ParseIpv4(text, i, &first);
      if (v4 != kNpos) {
        groups += 2;
        end = v4;
      }
      break;
    }
    if (h > 4) break;
    ++groups;
    i += h;
    end = i;
    if (groups > 8) return kNpos;
    if (text.compare(i, 2, "::") == 0) {
      if (compressed) break;
      compressed = true;
      i += 2;
      end = i;
      continue;
    }
    if (i + 1 < n && text[i] == ':' && IsHexDigit(text[i + 1])) {
      ++i;
      continue;
    }
    break;
  }
  if (end == kNpos) return kNpos;
  bool valid = compressed ? (groups >= 1 && groups <= 7) : groups == 8;
  if (!valid) return kNpos;
  if (end < n && IsWordChar(text[end])) return kNpos;
  // A ':' right after may start a group that could not be read ("::1:zz",
  // or an unbracketed port): only "fe80::1: refused" and the like pass.
  if (end < n && text[end] == ':' && end + 1 < n && !IsBlank(text[end + 1])) return kNpos;
  return end;
}

}  // namespace

void FindIpv6Addresses(std::string_view text, SecretMatches& out) {
  for (size_t c = FindByte(text, ':', 0); c != kNpos;) {
    size_t s = c;
    while (s > 0 && c - s < 4 && IsHexDigit(text[s - 1])) --s;
    size_t e = kNpos;
    if (s == 0 || !IsWordChar(text[s - 1])) e = ParseIpv6(text, s);
    if (e == kNpos) {
      c = FindByte(text, ':', c + 1);
      continue;
    }
    std::string_view address = text.substr(s, e - s);
    if (address != "::1") out.push_back({s, s, e, kRedactIp});
    c = FindByte(text, ':', e);
  }
}

void FindHostNames(std::string_view text, const std::vector<std::string>& lower_names,
                   SecretMatches& out) {
  auto is_name_char = [](char c) { return IsWordChar(c) || c == '-'; };
  for (const std::string& name : lower_names) {
    for (size_t p = FindCaseless(text, name, 0); p != kNpos; p = FindCaseless(text, name, p + 1)) {
      size_t e = p + name.size();
      if (p > 0 && is_name_char(text[p - 1])) continue;
      if (e < text.size() && is_name_char(text[e])) continue;
      out.push_back({p, p, e, kRedactHostname});
    }
  }
}

}  // namespace casefile::collect
