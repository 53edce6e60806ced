#include "parse/dist/torch_watchdog_fields.h"

#include <cstring>

namespace casefile::dist::torch {
namespace {

constexpr size_t npos = std::string_view::npos;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// A group name or GUID longer than this is not one; the rest is dropped.
constexpr size_t kMaxPgBytes = 64;
// A label between "enqueued"/"completed" and its ':' ("NCCL work") is short.
constexpr size_t kMaxWorkLabel = 24;
// An OpType name ("REDUCE_SCATTER_TENSOR_COALESCED") is shorter than this.
constexpr size_t kMaxOpBytes = 48;

// A WorkNCCL field's number, taken only when a delimiter follows it: a
// number that runs into the end of a cut line may itself be cut, and a wrong
// SeqNum or Numel would look like a mismatch between ranks.
std::optional<int64_t> FieldInt(std::string_view body, std::string_view key) {
  const size_t at = body.find(key);
  if (at == npos) return std::nullopt;
  size_t i = at + key.size();
  auto v = IntAt(body, i);
  if (!v || i >= body.size()) return std::nullopt;
  return v;
}

// "0", "0(default_pg)", "3(default_pg)": the default group's name or GUID.
bool IsDefaultGroup(std::string_view pg) {
  if (pg.find("(default_pg)") != npos) return true;
  std::string_view id = pg.substr(0, pg.find('('));
  while (!id.empty() && id.back() == ' ') id.remove_suffix(1);
  return id == "0";
}

}  // namespace

bool ContainsAt(std::string_view s, std::string_view needle, size_t anchor) {
  if (s.size() < needle.size()) return false;
  const char key = needle[anchor];
  // Positions of needle[anchor] that leave room for the whole needle.
  const char* p = s.data() + anchor;
  const char* const end = s.data() + (s.size() - needle.size()) + anchor + 1;
  while (p < end) {
    p = static_cast<const char*>(std::memchr(p, key, static_cast<size_t>(end - p)));
    if (p == nullptr) return false;
    if (std::memcmp(p - anchor, needle.data(), needle.size()) == 0) return true;
    ++p;
  }
  return false;
}

std::optional<int64_t> IntAt(std::string_view s, size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  size_t j = i;
  bool negative = false;
  if (j < s.size() && s[j] == '-') {
    negative = true;
    ++j;
  }
  if (j >= s.size() || !IsDigit(s[j])) return std::nullopt;
  int64_t v = 0;
  int digits = 0;
  for (; j < s.size() && IsDigit(s[j]); ++j) {
    // More digits than an int64 holds: keep the first 18 (the value is
    // nonsense anyway, but reading must not overflow).
    if (digits++ < 18) v = v * 10 + (s[j] - '0');
  }
  i = j;
  return negative ? -v : v;
}

std::optional<int64_t> IntAfter(std::string_view s, std::string_view key, size_t from) {
  const size_t at = s.find(key, from);
  if (at == npos) return std::nullopt;
  size_t i = at + key.size();
  return IntAt(s, i);
}

std::optional<int64_t> WorkNumberAt(std::string_view s, size_t from) {
  if (from > s.size()) return std::nullopt;
  const size_t colon = s.find(':', from);
  if (colon == npos || colon - from > kMaxWorkLabel) return std::nullopt;
  const std::string_view label = s.substr(from, colon - from);
  if (label.find("work") == npos) return std::nullopt;
  for (char c : label) {
    if (!IsAlpha(c) && c != ' ') return std::nullopt;
  }
  size_t i = colon + 1;
  return IntAt(s, i);
}

std::string_view Clip(std::string_view s, size_t max) {
  if (s.size() > max) {
    size_t n = max;
    // Step back over UTF-8 continuation bytes so no character is cut.
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    s = s.substr(0, n);
  }
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

void ApplyGroupRank(std::string_view before, DistEventRow& row) {
  const size_t pg_at = before.find("[PG ");
  if (pg_at != npos) {
    const size_t close = before.find(']', pg_at);
    std::string_view inner = before.substr(pg_at + 4, close == npos ? npos : close - (pg_at + 4));
    if (inner.substr(0, 3) == "ID ") {
      const size_t guid = inner.find("PG GUID ");
      inner = guid == npos ? inner.substr(3) : inner.substr(guid + 8);
    }
    const size_t r = inner.rfind(" Rank ");
    if (r != npos) {
      size_t i = r + 6;
      if (auto v = IntAt(inner, i); v && *v >= 0) row.pg_rank = *v;
      inner = inner.substr(0, r);
    }
    const std::string_view pg = Clip(inner, kMaxPgBytes);
    if (!pg.empty()) row.pg = std::string(pg);
    // The default group holds every rank in order: its rank is the global
    // one. It is the group described "(default_pg)", and the one named "0"
    // when no description is printed: the world is the first group every
    // rank creates (local id 0 before 2.4, GUID "0" after).
    if (!row.rank && row.pg_rank && IsDefaultGroup(pg)) row.rank = row.pg_rank;
    return;
  }
  if (row.rank) return;
  const size_t rank_at = before.rfind("[Rank ");
  if (rank_at == npos) return;
  size_t i = rank_at + 6;
  if (auto v = IntAt(before, i); v && *v >= 0 && i < before.size() && before[i] == ']') {
    row.rank = *v;
  }
}

size_t ReadWorkNccl(std::string_view s, DistEventRow& row) {
  const size_t work = s.find("WorkNCCL(");
  if (work == npos) return npos;
  // The fields end at the closing parenthesis; Timeout(ms) holds one of its
  // own, so the region is bounded by what follows the fields instead.
  std::string_view body = s.substr(work + 9);
  size_t end = body.find(" ran for ");
  if (end == npos) end = body.find(" raised ");
  if (end != npos) body = body.substr(0, end);
  if (auto v = FieldInt(body, "SeqNum=")) row.seq = *v;
  if (auto v = FieldInt(body, "NumelIn=")) row.numel_in = *v;
  if (auto v = FieldInt(body, "NumelOut=")) row.numel_out = *v;
  if (auto v = FieldInt(body, "Timeout(ms)=")) row.timeout_ms = *v;
  const size_t op = body.find("OpType=");
  if (op != npos) {
    size_t i = op + 7;
    const size_t start = i;
    while (i < body.size() && i - start < kMaxOpBytes &&
           (IsAlpha(body[i]) || IsDigit(body[i]) || body[i] == '_')) {
      ++i;
    }
    // Same rule as FieldInt: an op name that reaches the end may be cut.
    if (i > start && i < body.size()) row.op = std::string(body.substr(start, i - start));
  }
  return work + 9 + body.size();
}

}  // namespace casefile::dist::torch
