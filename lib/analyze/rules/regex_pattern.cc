#include "analyze/rules/regex_pattern.h"

#include <cctype>

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

}  // namespace

PreparedRegex PrepareRegex(std::string_view pattern) {
  PreparedRegex out;
  out.group_names.emplace_back();  // group 0: the whole match
  auto fail = [&](size_t at, std::string message) {
    if (out.error.empty()) {
      out.error = std::move(message);
      out.error_at = at;
    }
  };
  size_t i = 0;
  while (i < pattern.size()) {
    const char c = pattern[i];
    if (c == '\\') {
      if (i + 1 < pattern.size()) {
        const char e = pattern[i + 1];
        if (e == 'd' || e == 'D') {
          fail(i, std::string("\\") + e + " is not POSIX: write [0-9] (or [^0-9])");
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
    char literal = c;
    size_t next = i + 1;
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
      literal = e;
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
