#include "analyze/analyzers/hang/megascale_text.h"

#include <cmath>
#include <limits>

namespace casefile::hang {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Characters of host names, task paths and ports as MXLA prints them.
bool IsWorkerChar(char c) {
  return IsAlnum(c) || c == '-' || c == '_' || c == '.' || c == '/' || c == ':' || c == '@';
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

// Drops a ":port" suffix from a host.
std::string_view StripPort(std::string_view host) {
  size_t colon = host.rfind(':');
  if (colon != std::string_view::npos && colon > 0 && AllDigits(host.substr(colon + 1))) {
    return host.substr(0, colon);
  }
  return host;
}

// TensorFlow-style device names: "/job:worker/replica:0/task:3[/device:TPU:0]".
std::optional<WorkerRef> ParseTfTaskName(std::string_view t) {
  std::string_view rest = t.substr(5);  // after "/job:"
  size_t slash = rest.find('/');
  std::string_view job = rest.substr(0, slash);
  size_t task_pos = t.find("/task:");
  if (job.empty() || task_pos == std::string_view::npos) return std::nullopt;
  size_t n = 0;
  std::optional<int64_t> task = ParseInt(t.substr(task_pos + 6), &n);
  if (!task) return std::nullopt;
  WorkerRef ref;
  ref.task = std::string(job) + "/" + std::to_string(*task);
  return ref;
}

}  // namespace

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

size_t FindNoCase(std::string_view hay, std::string_view needle, size_t from) {
  if (needle.empty()) return from <= hay.size() ? from : std::string_view::npos;
  if (hay.size() < needle.size()) return std::string_view::npos;
  const char first = needle[0];
  const char first_upper =
      (first >= 'a' && first <= 'z') ? static_cast<char>(first - 'a' + 'A') : first;
  for (size_t i = from; i + needle.size() <= hay.size(); ++i) {
    if (hay[i] != first && hay[i] != first_upper) continue;
    size_t j = 1;
    while (j < needle.size() && Lower(hay[i + j]) == needle[j]) ++j;
    if (j == needle.size()) return i;
  }
  return std::string_view::npos;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (Lower(s[i]) != Lower(prefix[i])) return false;
  }
  return true;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

std::string_view StripGlogHeader(std::string_view s) {
  std::string_view t = s;
  while (!t.empty() && IsBlank(t.front())) t.remove_prefix(1);
  size_t i = 0;
  const bool bracketed = !t.empty() && t[0] == '[';
  if (bracketed) ++i;
  // Level letter, then MMDD, a space and HH:MM:SS.
  if (i + 14 > t.size()) return s;
  const char level = t[i];
  if (level != 'I' && level != 'W' && level != 'E' && level != 'F') return s;
  for (size_t k = 1; k <= 4; ++k) {
    if (!IsDigit(t[i + k])) return s;
  }
  if (t[i + 5] != ' ') return s;
  const std::string_view clock = t.substr(i + 6, 8);
  if (!(IsDigit(clock[0]) && IsDigit(clock[1]) && clock[2] == ':' && IsDigit(clock[3]) &&
        IsDigit(clock[4]) && clock[5] == ':' && IsDigit(clock[6]) && IsDigit(clock[7]))) {
    return s;
  }
  // Then an optional fraction, thread id and "file.cc:line]"; the header is
  // short, so the closing bracket must come soon and follow a line number.
  const size_t limit = std::min(t.size(), i + 14 + 160);
  for (size_t k = i + 14; k < limit; ++k) {
    if (t[k] != ']') continue;
    if (k == 0 || !IsDigit(t[k - 1])) return s;
    std::string_view rest = t.substr(k + 1);
    if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    return rest;
  }
  return s;
}

std::optional<WorkerRef> ParseWorkerRef(std::string_view token) {
  std::string_view t = Trim(token);
  while (!t.empty() && (t.front() == '"' || t.front() == '\'' || t.front() == '`' ||
                        t.front() == '(' || t.front() == '[')) {
    t.remove_prefix(1);
  }
  while (!t.empty() && (t.back() == '"' || t.back() == '\'' || t.back() == '`' || t.back() == ')' ||
                        t.back() == ']' || t.back() == '.' || t.back() == ',' || t.back() == ';')) {
    t.remove_suffix(1);
  }
  if (t.empty() || t.size() > kMaxWorkerTokenBytes) return std::nullopt;
  bool has_alnum = false;
  for (char c : t) {
    if (!IsWorkerChar(c)) return std::nullopt;
    has_alnum = has_alnum || IsAlnum(c);
  }
  if (!has_alnum) return std::nullopt;
  if (t.starts_with("/job:")) return ParseTfTaskName(t);

  WorkerRef ref;
  size_t slash = t.rfind('/');
  if (slash != std::string_view::npos) {
    size_t colon = t.find(':', slash);
    if (colon == std::string_view::npos) {
      ref.task = std::string(t);
    } else {
      ref.task = std::string(t.substr(0, colon));
      ref.host = std::string(StripPort(t.substr(colon + 1)));
    }
  } else {
    ref.host = std::string(StripPort(t));
  }
  if (ref.host.empty() && ref.task.empty()) return std::nullopt;
  return ref;
}

std::vector<WorkerRef> ParseWorkerList(std::string_view list, size_t max) {
  std::vector<WorkerRef> out;
  size_t i = 0;
  while (i < list.size() && out.size() < max) {
    while (i < list.size() && (IsBlank(list[i]) || list[i] == ',')) ++i;
    size_t start = i;
    while (i < list.size() && !IsBlank(list[i]) && list[i] != ',') ++i;
    if (i > start) {
      if (auto ref = ParseWorkerRef(list.substr(start, i - start))) out.push_back(std::move(*ref));
    }
  }
  return out;
}

bool IsWorkerList(std::string_view list) {
  // Only commas separate names here: "step 100 done" is three name-shaped
  // words, not a list of hosts.
  int count = 0;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view item = Trim(list.substr(start, comma - start));
    if (!item.empty()) {
      for (char c : item) {
        if (IsBlank(c)) return false;
      }
      if (!ParseWorkerRef(item)) return false;
      ++count;
    } else if (comma < list.size()) {
      return false;
    }
    start = comma + 1;
  }
  return count > 0;
}

std::optional<int64_t> ParseInt(std::string_view s, size_t* consumed) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && s[i] == '-') {
    negative = true;
    ++i;
  }
  const size_t digits_start = i;
  int64_t v = 0;
  while (i < s.size() && IsDigit(s[i])) {
    const int d = s[i] - '0';
    if (v > (std::numeric_limits<int64_t>::max() - d) / 10) return std::nullopt;
    v = v * 10 + d;
    ++i;
  }
  if (i == digits_start) return std::nullopt;
  if (consumed) *consumed = i;
  return negative ? -v : v;
}

std::optional<int64_t> ParseDurationUs(std::string_view s) {
  s = Trim(s);
  if (s.empty()) return std::nullopt;
  double total = 0;
  size_t i = 0;
  while (i < s.size()) {
    const size_t start = i;
    while (i < s.size() && (IsDigit(s[i]) || s[i] == '.')) ++i;
    if (i == start) return std::nullopt;
    double value = 0;
    double scale = 1;
    bool fraction = false;
    for (size_t k = start; k < i; ++k) {
      if (s[k] == '.') {
        if (fraction) return std::nullopt;
        fraction = true;
        continue;
      }
      if (fraction) {
        scale /= 10;
        value += (s[k] - '0') * scale;
      } else {
        value = value * 10 + (s[k] - '0');
      }
    }
    std::string_view unit = s.substr(i);
    double mult = 0;
    if (unit.starts_with("ms")) {
      mult = 1e3;
      i += 2;
    } else if (unit.starts_with("us")) {
      mult = 1;
      i += 2;
    } else if (unit.starts_with("ns")) {
      mult = 1e-3;
      i += 2;
    } else if (unit.starts_with("h")) {
      mult = 3600e6;
      i += 1;
    } else if (unit.starts_with("m")) {
      mult = 60e6;
      i += 1;
    } else if (unit.starts_with("s")) {
      mult = 1e6;
      i += 1;
    } else {
      return std::nullopt;
    }
    total += value * mult;
    // A year of microseconds is far beyond any hang timeout.
    if (total > 3.2e13) return std::nullopt;
  }
  return static_cast<int64_t>(std::llround(total));
}

}  // namespace casefile::hang
