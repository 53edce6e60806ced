#include "parse/template/template_mask.h"

#include <array>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "parse/template/stream_hash.h"

namespace casefile::templates {
namespace {

// Byte classes of the scan. Only whitespace, digits and '/' can start
// anything but a literal: every mask holds a digit (a hex word, an address, a
// number) or is a path, so the scan skips other bytes with one table load.
constexpr uint8_t kPlain = 0;
constexpr uint8_t kSpace = 1;
constexpr uint8_t kDigit = 2;
constexpr uint8_t kSlash = 3;

constexpr std::array<uint8_t, 256> MakeClasses() {
  std::array<uint8_t, 256> t{};
  for (char c : {' ', '\t', '\v', '\f', '\r', '\n'}) t[static_cast<uint8_t>(c)] = kSpace;
  for (int c = '0'; c <= '9'; ++c) t[c] = kDigit;
  t['/'] = kSlash;
  return t;
}
constexpr std::array<uint8_t, 256> kClass = MakeClasses();

// Bytes that stop the skip loop: digits, '/', control bytes (tabs and the
// like), and a space followed by another space (checked separately). A single
// space is part of the literal as it is, so the common case of words
// separated by one space costs nothing. The table is the scalar form, used
// only without SSE2 (StopMask16 below is the vector one).
#if !defined(__SSE2__)
constexpr std::array<bool, 256> MakeStops() {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = true;
  for (int c = '0'; c <= '9'; ++c) t[c] = true;
  t['/'] = true;
  return t;
}
constexpr std::array<bool, 256> kStop = MakeStops();
#endif

#if defined(__SSE2__)
// Bit k set when p[k] (k < 16) stops the skip; reads p[0..16].
inline uint32_t StopMask16(const char* p) {
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 1));
  const __m128i space = _mm_set1_epi8(' ');
  const __m128i twice = _mm_and_si128(_mm_cmpeq_epi8(a, space), _mm_cmpeq_epi8(b, space));
  const __m128i slash = _mm_cmpeq_epi8(a, _mm_set1_epi8('/'));
  // '0'..'9' moved to -128..-119, the only bytes below -118 after the move.
  const __m128i moved = _mm_add_epi8(a, _mm_set1_epi8(static_cast<char>(0x80 - '0')));
  const __m128i digit = _mm_cmplt_epi8(moved, _mm_set1_epi8(static_cast<char>(-128 + 10)));
  const __m128i control =
      _mm_and_si128(_mm_cmplt_epi8(a, _mm_set1_epi8(0x20)), _mm_cmpgt_epi8(a, _mm_set1_epi8(-1)));
  const __m128i any = _mm_or_si128(_mm_or_si128(twice, slash), _mm_or_si128(digit, control));
  return static_cast<uint32_t>(_mm_movemask_epi8(any));
}
#endif

// The first position >= i that stops the skip, or n. The text has no
// trailing whitespace, so a space at i < n has a byte after it.
inline size_t NextStop(const char* p, size_t i, size_t n) {
#if defined(__SSE2__)
  while (i + 17 <= n) {
    uint32_t m = StopMask16(p + i);
    if (m != 0) return i + static_cast<size_t>(std::countr_zero(m));
    i += 16;
  }
  if (i < n) {
    // The last bytes, copied beside plain padding so one block covers them.
    char tail[32];
    std::memset(tail, 'a', sizeof tail);
    std::memcpy(tail, p + i, n - i);
    uint32_t m = StopMask16(tail) & ((1u << (n - i)) - 1);
    return m != 0 ? i + static_cast<size_t>(std::countr_zero(m)) : n;
  }
  return n;
#else
  for (; i < n; ++i) {
    const uint8_t c = static_cast<uint8_t>(p[i]);
    if (kStop[c] || (c == ' ' && p[i + 1] == ' ')) return i;
  }
  return n;
#endif
}

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsSpace(char c) { return kClass[static_cast<uint8_t>(c)] == kSpace; }
inline bool IsAlnum(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
inline bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
inline bool IsOpenPunct(char c) {
  return c == '"' || c == '\'' || c == '(' || c == '[' || c == '{' || c == '<' || c == '`';
}
inline bool IsClosePunct(char c) {
  return c == ',' || c == ';' || c == ':' || c == '.' || c == ')' || c == ']' || c == '}' ||
         c == '"' || c == '\'' || c == '>' || c == '`';
}

// Mask kinds handed to the output, indexes of kMaskTexts.
constexpr int kNumMask = 0;
constexpr int kHexMask = 1;
constexpr int kIpMask = 2;
constexpr int kPathMask = 3;
constexpr std::string_view kMaskTexts[] = {kMaskNum, kMaskHex, kMaskIp, kMaskPath};

// A bounded view of the message: reads past the end give '\0'.
struct Text {
  const char* p;
  size_t n;
  char at(size_t i) const { return i < n ? p[i] : '\0'; }
};

// Digits from `i`: the position after them (i when none).
inline size_t Digits(const Text& t, size_t i) {
  while (i < t.n && IsDigit(t.p[i])) ++i;
  return i;
}

// Exactly `count` digits at `i`.
inline bool FixedDigits(const Text& t, size_t i, size_t count) {
  for (size_t k = 0; k < count; ++k) {
    if (!IsDigit(t.at(i + k))) return false;
  }
  return true;
}

// 0x..., a UUID, or a word of 8+ hex digits with a letter; `w` is the start
// of a word (a digit lies inside it). Returns the end, 0 when none.
size_t MatchHexWord(const Text& t, size_t w) {
  if (t.p[w] == '0' && (t.at(w + 1) == 'x' || t.at(w + 1) == 'X') && IsHex(t.at(w + 2))) {
    size_t e = w + 2;
    while (e < t.n && IsHex(t.p[e])) ++e;
    return e;
  }
  size_t e = w;
  bool letter = false;
  while (e < t.n && IsHex(t.p[e])) letter |= !IsDigit(t.p[e++]);
  if (e - w == 8 && t.at(e) == '-') {
    // 8-4-4-4-12
    size_t u = e;
    bool ok = true;
    for (size_t group : {4, 4, 4, 12}) {
      if (t.at(u) != '-') {
        ok = false;
        break;
      }
      ++u;
      for (size_t k = 0; k < group; ++k, ++u) {
        if (!IsHex(t.at(u))) ok = false;
      }
      if (!ok) break;
    }
    if (ok && !IsAlnum(t.at(u))) return u;
  }
  if (e - w >= 8 && letter && !IsAlnum(t.at(e))) return e;
  return 0;
}

// A short hex word from a digit, [w, h) all hex digits and the whole word:
// NCCL's counters ("opCount 1a2f", printed with %lx and no 0x), short ids.
// Masked whole, else each digit run becomes a mask between literal letters
// and every value makes its own signature ("<NUM>a<NUM>f"). It must hold a
// letter, and not be a number's exponent ("1e6", "3e-4"), which the number
// mask takes; words from a letter ("bf16", "fe80") never get here.
bool IsShortHexWord(const Text& t, size_t w, size_t h) {
  if (h - w < 2 || !IsDigit(t.p[w])) return false;
  const char next = t.at(h);
  if (IsAlnum(next) || next == '.' || next == '_') return false;
  size_t letters = 0;
  size_t e_at = 0;
  for (size_t k = w; k < h; ++k) {
    if (IsDigit(t.p[k])) continue;
    ++letters;
    if (t.p[k] == 'e' || t.p[k] == 'E') e_at = k;
  }
  if (letters == 0) return false;
  if (letters == 1 && e_at != 0) {
    if (e_at + 1 < h) return false;                // 1e6
    if (next == '-' || next == '+') return false;  // 3e-4
  }
  return true;
}

// IPv6 starting with a hex digit at `w`: groups of 1-4 hex digits and
// colons, with '::' or exactly 8 groups. Returns the end, 0 when none.
size_t MatchIpv6(const Text& t, size_t w) {
  size_t e = w;
  size_t colons = 0;
  size_t group = 0;
  bool double_colon = false;
  while (e < t.n) {
    char c = t.p[e];
    if (IsHex(c)) {
      if (++group > 4) return 0;
    } else if (c == ':') {
      if (group == 0) {
        if (double_colon || e == w) break;  // a third colon, or one before anything
        double_colon = true;
      }
      ++colons;
      group = 0;
    } else {
      break;
    }
    ++e;
  }
  // A trailing single colon is punctuation ("fe80::1: refused").
  if (e > w && t.p[e - 1] == ':' && !(e >= 2 && t.p[e - 2] == ':')) {
    --e;
    --colons;
  }
  if (IsAlnum(t.at(e)) || t.at(e) == '.') return 0;
  if (colons < 2 || (!double_colon && colons != 7)) return 0;
  return e;
}

// A time h:mm:ss or hh:mm:ss with an optional fraction at `i`; the end or 0.
size_t MatchTime(const Text& t, size_t i) {
  size_t e = Digits(t, i);
  if (e - i < 1 || e - i > 2 || t.at(e) != ':' || !FixedDigits(t, e + 1, 2) || t.at(e + 3) != ':' ||
      !FixedDigits(t, e + 4, 2)) {
    return 0;
  }
  e += 6;
  if ((t.at(e) == '.' || t.at(e) == ',') && IsDigit(t.at(e + 1))) e = Digits(t, e + 1);
  // A zone: Z, or +hh:mm / -hhmm.
  if (t.at(e) == 'Z' && !IsAlnum(t.at(e + 1))) return e + 1;
  if ((t.at(e) == '+' || t.at(e) == '-') && FixedDigits(t, e + 1, 2)) {
    size_t z = e + 3;
    if (t.at(z) == ':') ++z;
    if (FixedDigits(t, z, 2) && !IsDigit(t.at(z + 2))) return z + 2;
  }
  return e;
}

// A date yyyy-mm-dd or yyyy/mm/dd, with a time after 'T' or '_' when one
// follows; or a time alone. Returns the end, 0 when none.
size_t MatchDateTime(const Text& t, size_t i) {
  if (FixedDigits(t, i, 4) && (t.at(i + 4) == '-' || t.at(i + 4) == '/') &&
      FixedDigits(t, i + 5, 2) && t.at(i + 7) == t.at(i + 4) && FixedDigits(t, i + 8, 2) &&
      !IsDigit(t.at(i + 10))) {
    size_t e = i + 10;
    if (t.at(e) == 'T' || t.at(e) == '_') {
      if (size_t te = MatchTime(t, e + 1)) return te;
    }
    return e;
  }
  return MatchTime(t, i);
}

// "Jan".."Dec" / "Mon".."Sun" at `i`, not followed by a letter.
bool NameAt(const Text& t, size_t i, const char* const* names) {
  if (i + 3 > t.n || IsAlnum(t.at(i + 3))) return false;
  for (; *names; ++names) {
    if (t.p[i] == (*names)[0] && t.p[i + 1] == (*names)[1] && t.p[i + 2] == (*names)[2]) {
      return true;
    }
  }
  return false;
}
constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",  "Jul",
                                   "Aug", "Sep", "Oct", "Nov", "Dec", nullptr};
constexpr const char* kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", nullptr};

// A C-library date at `s` (a word start): [Day ]Mon D[D] hh:mm:ss[ yyyy], the
// day of the month padded with a space or not, as asctime, date(1),
// nvidia-smi and syslog print it. Returns the end, 0 when none.
size_t MatchCDate(const Text& t, size_t s) {
  size_t e = s;
  if (NameAt(t, e, kDays) && t.at(e + 3) == ' ') e += 4;
  if (!NameAt(t, e, kMonths) || t.at(e + 3) != ' ') return 0;
  e += 4;
  if (t.at(e) == ' ') ++e;
  size_t d = Digits(t, e);
  if (d == e || d - e > 2 || t.at(d) != ' ') return 0;
  size_t te = MatchTime(t, d + 1);
  if (te == 0) return 0;
  if (t.at(te) == ' ' && FixedDigits(t, te + 1, 4) && !IsAlnum(t.at(te + 5))) te += 5;
  return te;
}

// Where a C-library date whose month name is at `month` starts: at the day
// name before it when there is one, else at the month; npos when that is
// inside what was already handed out or not at a word start.
size_t CDateStart(const Text& t, size_t month, size_t lit) {
  if (month >= lit + 4 && month >= 4 && NameAt(t, month - 4, kDays) && t.p[month - 1] == ' ' &&
      (month - 4 == 0 || !IsAlnum(t.p[month - 5]))) {
    return month - 4;
  }
  if (month >= lit && (month == 0 || !IsAlnum(t.p[month - 1]))) return month;
  return std::string_view::npos;
}

// IPv4 a.b.c.d (1-3 digits each) with an optional :port; the end or 0.
size_t MatchIpv4(const Text& t, size_t i) {
  size_t e = i;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (t.at(e) != '.') return 0;
      ++e;
    }
    size_t d = Digits(t, e);
    if (d == e || d - e > 3) return 0;
    e = d;
  }
  // A fifth dotted part makes it a version or a number, not an address.
  if (t.at(e) == '.' && IsDigit(t.at(e + 1))) return 0;
  if (IsAlnum(t.at(e))) return 0;
  if (t.at(e) == ':' && IsDigit(t.at(e + 1))) e = Digits(t, e + 1);
  return e;
}

// A number at `i` (a digit): digits, dotted digit groups, an exponent.
size_t MatchNumber(const Text& t, size_t i) {
  size_t e = Digits(t, i);
  while (t.at(e) == '.' && IsDigit(t.at(e + 1))) e = Digits(t, e + 1);
  if ((t.at(e) == 'e' || t.at(e) == 'E')) {
    size_t x = e + 1;
    if (t.at(x) == '+' || t.at(x) == '-') ++x;
    if (IsDigit(t.at(x))) e = Digits(t, x);
  }
  return e;
}

// A relative or absolute path in [cs, ce) (see the header).
bool IsPath(const Text& t, size_t cs, size_t ce) {
  const size_t len = ce - cs;
  if (len < 2) return false;
  const char* s = t.p + cs;
  std::string_view core(s, len);
  if (core.find("://") != std::string_view::npos) return false;
  if (s[0] == '/') {
    return IsAlnum(s[1]) || s[1] == '.' || s[1] == '_' || s[1] == '-' || s[1] == '~';
  }
  if (core.starts_with("./") || core.starts_with("~/")) return len > 2;
  if (core.starts_with("../")) return len > 3;
  // Relative: path characters only, and a last component "name.ext" whose
  // extension starts with a letter (a/b/c.py, x86_64/libfoo.so.1).
  size_t last = core.rfind('/');
  if (last == std::string_view::npos || last == 0 || last + 1 >= len) return false;
  for (char c : core) {
    if (!IsAlnum(c) && c != '/' && c != '.' && c != '_' && c != '-' && c != '+' && c != '@') {
      return false;
    }
  }
  std::string_view name = core.substr(last + 1);
  for (size_t k = 1; k + 1 < name.size(); ++k) {
    char c = name[k + 1];
    if (name[k] == '.' && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return true;
  }
  return false;
}

// The scan shared by the hash and the pattern builder: `out` receives the
// masked message as literal runs and masks, in order.
template <class Out>
void Scan(std::string_view message, Out& out) {
  const char* p = message.data();
  size_t n = message.size();
  while (n > 0 && IsSpace(p[n - 1])) --n;  // trailing whitespace is dropped
  const Text t{p, n};
  size_t i = 0;
  while (i < n && IsSpace(p[i])) ++i;
  size_t lit = i;             // start of the literal run not yet handed out
  size_t no_path_before = 0;  // end of the last token found not to be a path
  auto emit = [&](size_t start, size_t end, int mask) {
    if (start > lit) out.Literal(p + lit, start - lit);
    out.Mask(mask);
    lit = i = end;
  };
  while (true) {
    i = NextStop(p, i, n);
    if (i >= n) break;
    const uint8_t k = kClass[static_cast<uint8_t>(p[i])];
    if (k == kSpace || p[i] == ' ') {
      // A run of whitespace other than one space (the run may start with a
      // single space the skip passed over): one space instead.
      size_t start = i > lit && p[i - 1] == ' ' ? i - 1 : i;
      size_t j = i + 1;
      while (j < n && IsSpace(p[j])) ++j;
      // "Jun  4 07:26:38": the padded day of a C-library date.
      if (j == i + 2 && p[i] == ' ' && i >= 3 && IsDigit(p[j]) && NameAt(t, i - 3, kMonths)) {
        size_t ds = CDateStart(t, i - 3, lit);
        if (ds != std::string_view::npos) {
          if (size_t e = MatchCDate(t, ds)) {
            emit(ds, e, kNumMask);
            continue;
          }
        }
      }
      if (start > lit) out.Literal(p + lit, start - lit);
      out.Space();
      lit = i = j;
      continue;
    }
    if (k == kPlain) {
      ++i;  // another control byte: kept
      continue;
    }
    if (k == kSlash) {
      if (i < no_path_before) {
        ++i;  // another '/' of a token already found not to be a path
        continue;
      }
      // A path starts at the token's start or after an '='; a mask already
      // handed out inside the token (the "10" of 10/100) rules it out.
      size_t s = i;
      while (s > lit && !IsSpace(p[s - 1]) && p[s - 1] != '=') --s;
      if (s > 0 && !IsSpace(p[s - 1]) && p[s - 1] != '=') {
        ++i;
        continue;
      }
      size_t cs = s;
      while (cs < i && IsOpenPunct(p[cs])) ++cs;
      size_t te = i + 1;
      while (te < n && !IsSpace(p[te])) ++te;
      size_t ce = te;
      while (ce > i + 1 && IsClosePunct(p[ce - 1])) --ce;
      // ":123" and ":123:7" suffixes are line (and column) numbers.
      for (int peel = 0; peel < 2; ++peel) {
        size_t d = ce;
        while (d > i + 1 && IsDigit(p[d - 1])) --d;
        if (d < ce && p[d - 1] == ':') {
          ce = d - 1;
        } else {
          break;
        }
      }
      if (ce > cs && IsPath(t, cs, ce)) {
        emit(cs, ce, kPathMask);
      } else {
        no_path_before = te;
        ++i;
      }
      continue;
    }
    // A digit. Find the start of its word among the bytes not yet handed out.
    size_t w = i;
    while (w > lit && IsAlnum(p[w - 1])) --w;
    const bool word_start = w == 0 || !IsAlnum(p[w - 1]);
    const size_t d = Digits(t, i);
    const char after = t.at(d);
    if (word_start) {
      // Hex words and IPv6 addresses are runs of hex digits from the word's
      // start; the run decides whether they are worth trying.
      size_t h = w;
      while (h < n && IsHex(p[h])) ++h;
      if (h > i || (h == i && w == i)) {  // the letters before the digit are hex too
        const bool zero_x = p[w] == '0' && (t.at(w + 1) == 'x' || t.at(w + 1) == 'X');
        if (zero_x || h - w >= 8) {
          if (size_t e = MatchHexWord(t, w)) {
            emit(w, e, kHexMask);
            continue;
          }
        }
        if (w == i && IsShortHexWord(t, w, h)) {
          emit(w, h, kHexMask);
          continue;
        }
        if (t.at(h) == ':') {
          if (size_t e = MatchIpv6(t, w)) {
            emit(w, e, kIpMask);
            continue;
          }
        }
      }
    }
    if (w == i) {
      // "Jul 15 01:55:44 2026": the day of the month of a C-library date.
      if (d - i <= 2 && after == ' ' && i >= 4 && p[i - 1] == ' ' && NameAt(t, i - 4, kMonths)) {
        size_t ds = CDateStart(t, i - 4, lit);
        if (ds != std::string_view::npos) {
          if (size_t e = MatchCDate(t, ds)) {
            emit(ds, e, kNumMask);
            continue;
          }
        }
      }
      if ((after == ':' && d - i <= 2) || ((after == '-' || after == '/') && d - i == 4)) {
        if (size_t e = MatchDateTime(t, i)) {
          emit(i, e, kNumMask);
          continue;
        }
      }
      if (after == '.' && d - i <= 3) {
        if (size_t e = MatchIpv4(t, i)) {
          emit(i, e, kIpMask);
          continue;
        }
      }
    }
    size_t start = i;
    if (i > lit && (p[i - 1] == '-' || p[i - 1] == '+') && (i < 2 || !IsAlnum(p[i - 2]))) {
      start = i - 1;
    }
    emit(start, MatchNumber(t, i), kNumMask);
  }
  if (n > lit) out.Literal(p + lit, n - lit);
}

// Mask texts padded to 16 bytes, so the hash may copy them as one block.
struct PaddedMask {
  char text[16];
};

struct HashOut {
  StreamHash hash;
  const char* end;  // of the message: bytes up to here may be read
  void Literal(const char* p, size_t n) { hash.Add(p, n, end); }
  void Space() {
    static constexpr PaddedMask kSpacePadded = {" "};
    hash.Add(kSpacePadded.text, 1, kSpacePadded.text + 16);
  }
  void Mask(int kind) {
    static constexpr PaddedMask kPadded[] = {{"<NUM>"}, {"<HEX>"}, {"<IP>"}, {"<PATH>"}};
    const char* at = kPadded[kind].text;
    hash.Add(at, kMaskTexts[kind].size(), at + 16);
  }
};

struct PatternOut {
  std::string text;
  size_t max_bytes = 0;
  bool full = false;
  void Literal(const char* p, size_t n) {
    if (full) return;
    size_t room = max_bytes - text.size();
    if (n > room) {
      n = room;
      full = true;
    }
    text.append(p, n);
  }
  void Space() { Literal(" ", 1); }
  void Mask(int kind) {
    const std::string_view m = kMaskTexts[kind];
    if (full) return;
    if (m.size() > max_bytes - text.size()) {
      full = true;
      return;
    }
    text.append(m);
  }
};

}  // namespace

uint64_t MaskedHash(std::string_view message, uint64_t salt) {
  HashOut out;
  out.end = message.data() + message.size();
  Scan(message, out);
  return out.hash.Finish(salt);
}

std::string MaskedPattern(std::string_view message, size_t max_bytes) {
  PatternOut out;
  out.max_bytes = max_bytes;
  Scan(message, out);
  return std::move(out.text);
}

}  // namespace casefile::templates
