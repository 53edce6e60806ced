#include "analyze/rules/regex_pattern.h"

#include <locale.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace casefile::rules {
namespace {

// Offset just past the bracket expression that starts at `i` ('['), or the
// pattern's size when it is not closed (regcomp then reports it).
size_t SkipBracket(std::string_view p, size_t i) {
  size_t j = i + 1;
  if (j < p.size() && p[j] == '^') ++j;
  if (j < p.size() && p[j] == ']') ++j;  // a leading ']' is a member
  while (j < p.size() && p[j] != ']') {
    if (p[j] == '[' && j + 1 < p.size() &&
        (p[j + 1] == ':' || p[j + 1] == '.' || p[j + 1] == '=')) {
      const char kind = p[j + 1];
      const size_t close = p.find(std::string{kind, ']'}, j + 2);
      j = close == std::string_view::npos ? p.size() : close + 2;
      continue;
    }
    ++j;
  }
  return j < p.size() ? j + 1 : p.size();
}

// Offset just past the group that starts at `i` ('('), or the size.
size_t SkipGroup(std::string_view p, size_t i) {
  int depth = 0;
  size_t j = i;
  while (j < p.size()) {
    const char c = p[j];
    if (c == '\\') {
      j += 2;
      continue;
    }
    if (c == '[') {
      j = SkipBracket(p, j);
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')' && --depth == 0) return j + 1;
    ++j;
  }
  return p.size();
}

bool IsQuantifier(char c) { return c == '*' || c == '?' || c == '{' || c == '+'; }

// Length of the UTF-8 sequence that starts with `lead` (1 for ASCII and for
// stray continuation bytes), so that a character written in a pattern is
// one atom whatever its byte count.
size_t Utf8Length(unsigned char lead) {
  if (lead >= 0xF0 && lead <= 0xF7) return 4;
  if (lead >= 0xE0) return lead <= 0xEF ? 3 : 1;
  if (lead >= 0xC2) return 2;
  return 1;
}

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  if (a != 0 && b > kMaxExpandedAtoms * 16 / a) return kMaxExpandedAtoms * 16;
  return a * b;
}

// The largest count an interval {m}, {m,} or {m,n} starting at `i` ('{')
// copies its atom to, and the offset past it; nullopt when it is not an
// interval (regcomp then reports it or reads '{' literally).
std::optional<std::pair<uint64_t, size_t>> IntervalCopies(std::string_view p, size_t i) {
  const size_t close = p.find('}', i);
  if (close == std::string_view::npos) return std::nullopt;
  uint64_t low = 0;
  uint64_t high = 0;
  bool comma = false;
  bool has_high = false;
  for (size_t j = i + 1; j < close; ++j) {
    const char c = p[j];
    if (c == ',' && !comma) {
      comma = true;
      continue;
    }
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t& n = comma ? high : low;
    n = std::min<uint64_t>(n * 10 + static_cast<uint64_t>(c - '0'), 1'000'000);
    if (comma) has_high = true;
  }
  // {m,} is m copies and a star: m + 1 positions; {m} is m.
  const uint64_t copies = !comma ? low : (has_high ? std::max(low, high) : low + 1);
  return std::make_pair(std::max<uint64_t>(copies, 1), close + 1);
}

// The C locale, for regcomp and regexec: byte-wise matching whatever the
// host process set (Python sets LC_CTYPE from the environment; under a
// UTF-8 locale '.' would not match an invalid byte and a pack would match
// differently in the CLI and in a binding). Created once, never freed.
locale_t CLocale() {
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
  return c_locale;
}

// Switches this thread to the C locale for its lifetime (uselocale is
// per-thread, so other threads of the host are not affected).
class ScopedCLocale {
 public:
  ScopedCLocale() : previous_(CLocale() ? uselocale(CLocale()) : static_cast<locale_t>(0)) {}
  ~ScopedCLocale() {
    if (previous_) uselocale(previous_);
  }
  ScopedCLocale(const ScopedCLocale&) = delete;
  ScopedCLocale& operator=(const ScopedCLocale&) = delete;

 private:
  locale_t previous_;
};

}  // namespace

uint64_t ExpandedAtoms(std::string_view p) {
  // One frame per open group: the atoms it holds so far (every branch of an
  // alternation counts, as the compiled automaton holds them all) and the
  // size of its last atom, which a quantifier multiplies.
  struct Frame {
    uint64_t total = 0;
    uint64_t last = 0;
  };
  std::vector<Frame> stack(1);
  auto atom = [&](uint64_t size) {
    stack.back().total = std::min(stack.back().total + size, kMaxExpandedAtoms * 16);
    stack.back().last = size;
  };
  size_t i = 0;
  while (i < p.size()) {
    const char c = p[i];
    if (c == '\\') {
      atom(1);
      i += 2;
      continue;
    }
    if (c == '[') {
      atom(1);
      i = SkipBracket(p, i);
      continue;
    }
    if (c == '(') {
      stack.emplace_back();
      ++i;
      continue;
    }
    if (c == ')' && stack.size() > 1) {
      const uint64_t size = std::max<uint64_t>(stack.back().total, 1);
      stack.pop_back();
      atom(size);
      ++i;
      continue;
    }
    if (c == '{') {
      if (const auto interval = IntervalCopies(p, i)) {
        Frame& f = stack.back();
        const uint64_t grown = SaturatingMul(f.last, interval->first);
        f.total = std::min(f.total - f.last + grown, kMaxExpandedAtoms * 16);
        f.last = grown;
        i = interval->second;
        continue;
      }
    }
    if (c == '+') {
      // glibc copies the atom once and stars the copy.
      Frame& f = stack.back();
      f.total = std::min(f.total + f.last, kMaxExpandedAtoms * 16);
      f.last *= 2;
      ++i;
      continue;
    }
    if (c == '*' || c == '?' || c == '|' || c == '^' || c == '$') {
      ++i;
      continue;
    }
    atom(1);
    ++i;
  }
  uint64_t total = 0;
  for (const Frame& f : stack) total = std::min(total + f.total, kMaxExpandedAtoms * 16);
  return total;
}

PreparedRegex PrepareRegex(std::string_view pattern) {
  PreparedRegex out;
  out.group_names.emplace_back();  // group 0: the whole match
  auto fail = [&](size_t at, std::string message) {
    if (out.error.empty()) {
      out.error = std::move(message);
      out.error_at = at;
    }
  };
  if (pattern.size() > kMaxRegexBytes) {
    fail(kMaxRegexBytes, "a regex is at most " + std::to_string(kMaxRegexBytes) + " bytes");
    return out;
  }
  size_t i = 0;
  while (i < pattern.size()) {
    const char c = pattern[i];
    if (c == '\\') {
      if (i + 1 < pattern.size()) {
        const char e = pattern[i + 1];
        if (e == 'd' || e == 'D') {
          fail(i, std::string("\\") + e + " is not POSIX: write [0-9] (or [^0-9])");
        }
        if (e >= '1' && e <= '9') {
          // glibc matches back-references by backtracking: exponential in
          // the line's length (minutes on one 200-byte line).
          fail(i, std::string("back-references (\\") + e +
                      ") are not supported: they can make matching one line take minutes");
        }
        out.posix.append(pattern.substr(i, 2));
        i += 2;
      } else {
        out.posix += c;
        ++i;
      }
      continue;
    }
    if (c == '[') {
      const size_t end = SkipBracket(pattern, i);
      out.posix.append(pattern.substr(i, end - i));
      i = end;
      continue;
    }
    if (c == '(') {
      if (pattern.substr(i, 3) == "(?<" && pattern.substr(i, 4) != "(?<=" &&
          pattern.substr(i, 4) != "(?<!") {
        const size_t close = pattern.find('>', i + 3);
        if (close == std::string_view::npos) {
          fail(i, "unterminated group name: (?<name>...)");
          out.posix += c;
          ++i;
          continue;
        }
        const std::string name(pattern.substr(i + 3, close - i - 3));
        bool valid = !name.empty() && std::isalpha(static_cast<unsigned char>(name[0]));
        for (char n : name)
          valid = valid && (std::isalnum(static_cast<unsigned char>(n)) || n == '_');
        if (!valid) fail(i + 3, "a group name is a letter then letters, digits or '_'");
        for (const std::string& other : out.group_names) {
          if (!name.empty() && other == name) fail(i + 3, "group name '" + name + "' used twice");
        }
        out.group_names.push_back(name);
        out.posix += '(';
        i = close + 1;
        continue;
      }
      if (pattern.substr(i, 2) == "(?") {
        fail(i, "(?...) groups are not POSIX; only (?<name>...) is supported");
      }
      out.group_names.emplace_back();
      out.posix += c;
      ++i;
      continue;
    }
    if ((c == '*' || c == '+' || c == '?' || c == '}') && i + 1 < pattern.size() &&
        (pattern[i + 1] == '?' || pattern[i + 1] == '+') && i > 0) {
      fail(i + 1, "lazy or possessive quantifiers (*?, +?, *+, ...) are not POSIX");
    }
    out.posix += c;
    ++i;
  }
  if (out.error.empty()) {
    // Before regcomp: glibc copies a repeated atom once per count, so
    // nested intervals multiply ((a{0,255}){0,255}){0,255} took 9 GB).
    const uint64_t atoms = ExpandedAtoms(out.posix);
    if (atoms > kMaxExpandedAtoms) {
      fail(0, "the regex expands to " +
                  (atoms >= kMaxExpandedAtoms * 16 ? "more than " + std::to_string(atoms)
                                                   : std::to_string(atoms)) +
                  " positions once its repetition counts are copied out (at most " +
                  std::to_string(kMaxExpandedAtoms) +
                  "): lower the {m,n} counts, above all nested ones");
    }
  }
  return out;
}

std::string RequiredLiteral(std::string_view p) {
  std::string best;
  std::string run;
  auto end_run = [&] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  size_t i = 0;
  while (i < p.size()) {
    const char c = p[i];
    if (c == '|') return "";  // top-level alternation: no literal is in every match
    if (c == '[') {
      end_run();
      i = SkipBracket(p, i);
      continue;
    }
    if (c == '(') {
      end_run();
      i = SkipGroup(p, i);
      continue;
    }
    if (c == '.' || c == '^' || c == '$' || c == ')') {
      end_run();
      ++i;
      continue;
    }
    if (IsQuantifier(c)) {
      // A quantifier after something that already ended the run.
      if (c == '{') {
        const size_t close = p.find('}', i);
        i = close == std::string_view::npos ? p.size() : close + 1;
      } else {
        ++i;
      }
      end_run();
      continue;
    }
    std::string_view literal = p.substr(i, 1);
    size_t next = i + 1;
    if (static_cast<unsigned char>(c) >= 0x80) {
      // A whole UTF-8 character: a quantifier after it makes it all
      // optional in the author's eyes (byte-wise it is only the last byte;
      // either way the run must end before it).
      next = std::min(p.size(), i + Utf8Length(static_cast<unsigned char>(c)));
      literal = p.substr(i, next - i);
    }
    if (c == '\\') {
      if (i + 1 >= p.size()) break;
      const char e = p[i + 1];
      next = i + 2;
      if (std::isalnum(static_cast<unsigned char>(e)) || e == '<' || e == '>' || e == '`' ||
          e == '\'') {
        // GNU classes and assertions (\w \s \b \< ...), or a back-reference.
        end_run();
        i = next;
        continue;
      }
      literal = p.substr(i + 1, 1);
    }
    const char q = next < p.size() ? p[next] : '\0';
    if (q == '*' || q == '?' || q == '{') {
      end_run();  // optional: not in every match
      i = next;
      continue;
    }
    run += literal;
    if (q == '+') end_run();  // required once, but what follows may not be adjacent
    i = next;
  }
  end_run();
  return best;
}

CompiledRegex::CompiledRegex(const std::string& posix, bool ignore_case) {
  const int flags = REG_EXTENDED | (ignore_case ? REG_ICASE : 0);
  const ScopedCLocale c_locale;
  const int rc = regcomp(&regex_, posix.c_str(), flags);
  if (rc != 0) {
    char buffer[256];
    regerror(rc, &regex_, buffer, sizeof buffer);
    error_ = buffer;
    return;
  }
  ok_ = true;
}

CompiledRegex::~CompiledRegex() {
  if (ok_) regfree(&regex_);
}

bool CompiledRegex::Match(std::string_view text, bool not_bol, bool not_eol,
                          std::vector<std::optional<std::string>>* groups) const {
  if (!ok_) return false;
  // regexec reads a NUL-terminated string; a line may hold NUL bytes, which
  // then end the text it sees (documented in RULES.md).
  const std::string copy(text);
  // Without groups wanted, nmatch 0 lets regexec skip the submatch search.
  const size_t n = groups ? regex_.re_nsub + 1 : 0;
  std::vector<regmatch_t> match(n == 0 ? 1 : n);
  const int flags = (not_bol ? REG_NOTBOL : 0) | (not_eol ? REG_NOTEOL : 0);
  const ScopedCLocale c_locale;
  if (regexec(&regex_, copy.c_str(), n, match.data(), flags) != 0) return false;
  if (groups) {
    groups->assign(n, std::nullopt);
    for (size_t g = 0; g < n; ++g) {
      if (match[g].rm_so < 0) continue;
      (*groups)[g] = copy.substr(static_cast<size_t>(match[g].rm_so),
                                 static_cast<size_t>(match[g].rm_eo - match[g].rm_so));
    }
  }
  return true;
}

}  // namespace casefile::rules
