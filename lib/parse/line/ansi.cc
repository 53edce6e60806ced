#include "parse/line/ansi.h"

#include "parse/line/byte_search.h"
#include "parse/line/scan.h"

namespace casefile {
namespace {

constexpr char kEsc = '\x1b';
constexpr char kBel = '\x07';
// A string command (OSC, DCS…) longer than this without its terminator is
// taken as unterminated. It bounds the search, so a line full of stray
// "ESC ]" stays linear; real payloads (titles, hyperlinks) are far shorter.
constexpr size_t kMaxStringCommand = 4096;

bool InRange(char c, unsigned lo, unsigned hi) {
  const auto u = static_cast<unsigned char>(c);
  return u >= lo && u <= hi;
}

// CSI body after "ESC [" (or "^[["): parameter bytes, intermediate bytes, one
// final byte. Returns the offset after the final byte, or 0 if there is none.
size_t CsiEnd(std::string_view s, size_t j) {
  while (j < s.size() && InRange(s[j], 0x30, 0x3F)) ++j;
  while (j < s.size() && InRange(s[j], 0x20, 0x2F)) ++j;
  if (j < s.size() && InRange(s[j], 0x40, 0x7E)) return j + 1;
  return 0;
}

size_t EscapeLength(std::string_view s, size_t i) {
  const size_t n = s.size();
  if (i + 1 >= n) return 1;  // a lone ESC at the end
  const char c = s[i + 1];
  if (c == '[') {
    const size_t end = CsiEnd(s, i + 2);
    if (end) return end - i;
    // Malformed or cut: drop "ESC [" and the parameter bytes read, keep the
    // byte that broke the sequence.
    size_t j = i + 2;
    while (j < n && InRange(s[j], 0x20, 0x3F)) ++j;
    return j - i;
  }
  if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') {
    // String command, ended by BEL or ST (ESC \). Another ESC aborts it.
    const size_t limit = n - i > kMaxStringCommand ? i + kMaxStringCommand : n;
    for (size_t j = i + 2; j < limit; ++j) {
      if (s[j] == kBel) return j + 1 - i;
      if (s[j] == kEsc) return (j + 1 < n && s[j + 1] == '\\') ? j + 2 - i : j - i;
    }
    // Unterminated: the text after it may be the message, so keep it.
    return 2;
  }
  if (InRange(c, 0x20, 0x2F)) {  // nF: intermediates then a final byte ("ESC ( B")
    size_t j = i + 1;
    while (j < n && InRange(s[j], 0x20, 0x2F)) ++j;
    if (j < n && InRange(s[j], 0x30, 0x7E)) return j + 1 - i;
    return 1;
  }
  if (InRange(c, 0x30, 0x7E)) return 2;  // two-byte sequences: "ESC 7", "ESC M", "ESC c"
  return 1;                              // ESC before a control or high byte
}

size_t RemnantLength(std::string_view s, size_t i) {
  const size_t n = s.size();
  size_t j = i + 1;
  for (int params = 0;; ++params) {
    if (params == 16) return 0;
    size_t digits = 0;
    while (digits < 4 && j < n && scan::IsDigit(s[j])) ++j, ++digits;
    if (digits == 0 || digits > 3) return 0;
    if (j >= n) return 0;
    if (s[j] == 'm') break;
    if (s[j] != ';') return 0;
    ++j;
  }
  const size_t end = j + 1;
  // "[10m]" or "[2m 30s]": a ']' before the next '[' makes it a bracketed
  // duration. Stopping at the next '[' keeps the scans linear over a line.
  for (size_t k = end; k < n; ++k) {
    if (s[k] == ']') return 0;
    if (s[k] == '[') break;
  }
  return end - i;
}

}  // namespace

size_t AnsiSequenceAt(std::string_view s, size_t i) {
  if (i >= s.size()) return 0;
  const char c = s[i];
  if (c == kEsc) return EscapeLength(s, i);
  if (c == '[') return RemnantLength(s, i);
  if (c == '^' && scan::LiteralAt(s, i, "^[[")) {
    const size_t end = CsiEnd(s, i + 3);
    return end ? end - i : 0;
  }
  return 0;
}

bool StripAnsi(std::string_view in, std::string& out) {
  out.clear();
  // Only the bytes that may start a sequence are looked at, found 16 at a
  // time: a look at every byte of the lines that held an escape or a "[" and
  // a digit ("[2026-", "[10:01<") was a tenth of the parsing thread's time.
  size_t copied = 0;  // in[copied, hit) is pending, not yet appended
  bool removed = false;
  scan::AnyOfFourBytes(in, kEsc, '[', '^', kEsc, [&](size_t i) {
    if (i < copied) return false;  // inside the sequence just removed
    const size_t len = AnsiSequenceAt(in, i);
    if (len == 0) return false;
    if (!removed) {
      out.reserve(in.size());
      removed = true;
    }
    out.append(in.data() + copied, i - copied);
    copied = i + len;
    return false;
  });
  if (!removed) return false;
  out.append(in.data() + copied, in.size() - copied);
  return true;
}

}  // namespace casefile
