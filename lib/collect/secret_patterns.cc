#include "collect/secret_patterns.h"

#include <string.h>

#include <algorithm>
#include <array>

#include "collect/named_secrets.h"
#include "collect/redactor.h"

namespace casefile::collect {
namespace {

constexpr size_t kNpos = std::string_view::npos;

size_t RunLength(std::string_view text, size_t from, bool (*in_class)(char), size_t cap) {
  size_t i = from;
  while (i < text.size() && i - from < cap && in_class(text[i])) ++i;
  return i - from;
}

bool IsUpperOrDigit(char c) { return IsAsciiDigit(c) || (c >= 'A' && c <= 'Z'); }
bool IsGoogleKeyChar(char c) { return IsWordChar(c) || c == '-'; }
// RFC 6750 b64token, the characters a bearer credential is made of.
bool IsTokenChar(char c) {
  return IsAsciiAlnum(c) || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '=' ||
         c == '-';
}

// A fixed-shape token starting at `start`: `prefix_len` bytes of prefix
// (already checked), then a run of `in_class` whose length is in
// [min_body, max_body] and which ends the word.
void MatchPrefixedToken(std::string_view text, size_t start, size_t prefix_len,
                        bool (*in_class)(char), size_t min_body, size_t max_body,
                        bool (*continues_word)(char), const char* kind, SecretMatches& out) {
  if (start > 0 && continues_word(text[start - 1])) return;
  size_t body = RunLength(text, start + prefix_len, in_class, max_body + 1);
  if (body < min_body || body > max_body) return;
  size_t end = start + prefix_len + body;
  if (end < text.size() && continues_word(text[end])) return;
  out.push_back({start, start, end, kind});
}

bool HasAt(std::string_view text, size_t pos, std::string_view literal) {
  return pos <= text.size() && text.size() - pos >= literal.size() &&
         memcmp(text.data() + pos, literal.data(), literal.size()) == 0;
}

template <typename Fn>
void ForEachByte(std::string_view text, char c, Fn fn) {
  for (size_t p = FindByte(text, c, 0); p != kNpos; p = FindByte(text, c, p + 1)) fn(p);
}

bool IsShellReference(std::string_view v) {
  return v.size() >= 2 && v[0] == '$' && (IsAsciiAlpha(v[1]) || v[1] == '_' || v[1] == '{');
}

}  // namespace

size_t FindByte(std::string_view hay, char c, size_t from) {
  if (from >= hay.size()) return kNpos;
  const void* p = memchr(hay.data() + from, c, hay.size() - from);
  return p == nullptr ? kNpos : static_cast<const char*>(p) - hay.data();
}

size_t FindLiteral(std::string_view hay, std::string_view needle, size_t anchor, size_t from) {
  const size_t m = needle.size();
  if (m == 0 || anchor >= m) return kNpos;
  while (from <= hay.size() && hay.size() - from >= m) {
    // The anchor byte can only sit where the whole needle still fits.
    const char* base = hay.data() + from + anchor;
    const void* p = memchr(base, needle[anchor], hay.size() - from - m + 1);
    if (p == nullptr) return kNpos;
    size_t at = static_cast<const char*>(p) - hay.data() - anchor;
    if (memcmp(hay.data() + at, needle.data(), m) == 0) return at;
    from = at + 1;
  }
  return kNpos;
}

namespace {

// Letters from rarest to most common in English text; others rank between.
constexpr std::array<uint8_t, 256> MakeCommonness() {
  std::array<uint8_t, 256> rank{};
  for (auto& r : rank) r = 12;
  constexpr std::string_view kByRarity = "zqxjkvbpygfwmucldrhsnioate";
  for (size_t i = 0; i < kByRarity.size(); ++i) {
    rank[static_cast<unsigned char>(kByRarity[i])] = static_cast<uint8_t>(i);
    rank[static_cast<unsigned char>(kByRarity[i] - 32)] = static_cast<uint8_t>(i);
  }
  return rank;
}
constexpr std::array<uint8_t, 256> kCommonness = MakeCommonness();

int Commonness(char c) { return kCommonness[static_cast<unsigned char>(c)]; }

bool EqualsCaseless(const char* text, std::string_view lower_needle) {
  for (size_t i = 0; i < lower_needle.size(); ++i) {
    if (AsciiLower(text[i]) != lower_needle[i]) return false;
  }
  return true;
}

}  // namespace

size_t FindCaseless(std::string_view hay, std::string_view lower_needle, size_t from) {
  const size_t m = lower_needle.size();
  if (m == 0 || m > 256 || from > hay.size() || hay.size() - from < m) return kNpos;
  size_t anchor = 0;
  for (size_t i = 1; i < m; ++i) {
    if (Commonness(lower_needle[i]) < Commonness(lower_needle[anchor])) anchor = i;
  }
  const char lower = lower_needle[anchor];
  const char upper = (lower >= 'a' && lower <= 'z') ? static_cast<char>(lower - 32) : lower;
  // Candidates for the anchor in either case, merged in order.
  const size_t last = hay.size() - m;  // the last possible needle start
  auto next = [&](char c, size_t start) {
    size_t p = FindByte(hay.substr(0, last + anchor + 1), c, start + anchor);
    return p == kNpos ? kNpos : p - anchor;
  };
  size_t next_lower = next(lower, from);
  size_t next_upper = upper == lower ? kNpos : next(upper, from);
  while (next_lower != kNpos || next_upper != kNpos) {
    size_t at = std::min(next_lower, next_upper);
    if (EqualsCaseless(hay.data() + at, lower_needle)) return at;
    if (at == next_lower) next_lower = next(lower, at + 1);
    if (at == next_upper) next_upper = next(upper, at + 1);
  }
  return kNpos;
}

namespace {

// The checkers below each look at one candidate position: the byte that
// FindSecrets' single pass (or a Find* function's memchr) stopped at.

// At the '_' that ends "hf_" or "api_org_".
void MatchHfTokenAt(std::string_view text, size_t u, SecretMatches& out) {
  if (u >= 2 && text[u - 2] == 'h' && text[u - 1] == 'f') {
    MatchPrefixedToken(text, u - 2, 3, IsAsciiAlnum, 30, 40, IsWordChar, kRedactHfToken, out);
  } else if (u >= 7 && HasAt(text, u - 7, "api_org_")) {
    MatchPrefixedToken(text, u - 7, 8, IsAsciiAlnum, 30, 40, IsWordChar, kRedactHfToken, out);
  }
}

// At the '_' that ends "ghp_" (gho_, ghu_, ghs_, ghr_) or "github_pat_".
void MatchGithubTokenAt(std::string_view text, size_t u, SecretMatches& out) {
  if (u >= 3 && text[u - 3] == 'g' && text[u - 2] == 'h') {
    const char type = text[u - 1];
    if (type == 'p' || type == 'o' || type == 'u' || type == 's' || type == 'r') {
      MatchPrefixedToken(text, u - 3, 4, IsAsciiAlnum, 36, 251, IsWordChar, kRedactGithubToken,
                         out);
    }
  } else if (u >= 10 && HasAt(text, u - 10, "github_pat_")) {
    MatchPrefixedToken(text, u - 10, 11, IsWordChar, 22, 255, IsWordChar, kRedactGithubToken, out);
  }
}

// At the 'K' of "AKIA" or the 'S' of "ASIA": 'A' alone starts too many
// words to be the anchor.
void MatchAwsAccessKeyIdAt(std::string_view text, size_t p, SecretMatches& out) {
  if (p >= 1 && text[p - 1] == 'A' && HasAt(text, p + 1, "IA")) {
    MatchPrefixedToken(text, p - 1, 4, IsUpperOrDigit, 16, 16, IsAsciiAlnum, kRedactAwsKeyId, out);
  }
}

// At the 'z' of "AIza".
void MatchGoogleApiKeyAt(std::string_view text, size_t z, SecretMatches& out) {
  if (z >= 2 && text[z - 2] == 'A' && text[z - 1] == 'I' && HasAt(text, z + 1, "a")) {
    MatchPrefixedToken(text, z - 2, 4, IsGoogleKeyChar, 35, 35, IsGoogleKeyChar,
                       kRedactGoogleApiKey, out);
  }
}

}  // namespace

void FindHfTokens(std::string_view text, SecretMatches& out) {
  ForEachByte(text, '_', [&](size_t u) { MatchHfTokenAt(text, u, out); });
}

void FindGithubTokens(std::string_view text, SecretMatches& out) {
  ForEachByte(text, '_', [&](size_t u) { MatchGithubTokenAt(text, u, out); });
}

void FindAwsAccessKeyIds(std::string_view text, SecretMatches& out) {
  ForEachByte(text, 'K', [&](size_t p) { MatchAwsAccessKeyIdAt(text, p, out); });
  ForEachByte(text, 'S', [&](size_t p) { MatchAwsAccessKeyIdAt(text, p, out); });
}

void FindGoogleApiKeys(std::string_view text, SecretMatches& out) {
  ForEachByte(text, 'z', [&](size_t z) { MatchGoogleApiKeyAt(text, z, out); });
}

namespace {

size_t SkipBlanks(std::string_view text, size_t i, size_t cap) {
  size_t start = i;
  while (i < text.size() && i - start < cap && IsBlank(text[i])) ++i;
  return i;
}

size_t SkipQuote(std::string_view text, size_t i) {
  if (i < text.size() && text[i] == '\\' && i + 1 < text.size() &&
      (text[i + 1] == '"' || text[i + 1] == '\'')) {
    return i + 2;
  }
  if (i < text.size() && (text[i] == '"' || text[i] == '\'')) return i + 1;
  return i;
}

bool TokenLooksLikeCredential(std::string_view token) {
  if (token.size() >= 20) return true;
  if (token.size() < 8) return false;
  for (char c : token) {
    if (!IsAsciiAlpha(c)) return true;
  }
  return false;
}

bool EqualsCaselessAt(std::string_view text, size_t pos, std::string_view lower) {
  if (pos > text.size() || text.size() - pos < lower.size()) return false;
  for (size_t i = 0; i < lower.size(); ++i) {
    if (AsciiLower(text[pos + i]) != lower[i]) return false;
  }
  return true;
}

// At the 'z' of "authorization" (any case): [quote] (':' | '=') [quote]
// [scheme] credential.
void MatchAuthorizationAt(std::string_view text, size_t z, SecretMatches& out) {
  if (z < 7 || !EqualsCaselessAt(text, z - 7, "authorization")) return;
  const size_t a = z - 7;
  if (a > 0 && IsAsciiAlnum(text[a - 1])) return;
  size_t i = SkipBlanks(text, SkipQuote(text, a + 13), 8);
  if (i >= text.size() || (text[i] != ':' && text[i] != '=')) return;
  i = SkipQuote(text, SkipBlanks(text, i + 1, 16));
  size_t word_len = RunLength(text, i, IsTokenChar, kNpos);
  if (word_len == 0) return;
  std::string_view word = text.substr(i, word_len);
  size_t cred = i, cred_len = word_len;
  bool scheme = false;
  for (std::string_view name : {"bearer", "basic", "token", "digest"}) {
    scheme = scheme || (word.size() == name.size() && EqualsCaselessAt(word, 0, name));
  }
  if (scheme) {
    size_t j = SkipBlanks(text, i + word_len, 16);
    if (j == i + word_len) return;
    cred = j;
    cred_len = RunLength(text, j, IsTokenChar, kNpos);
    if (cred_len == 0) return;
  } else if (!TokenLooksLikeCredential(word)) {
    return;  // "Authorization: none", "Authorization: required"
  }
  out.push_back({a, cred, cred + cred_len, kRedactBearer});
}

// At the 'b' of "bearer" (any case).
void MatchBearerAt(std::string_view text, size_t b, SecretMatches& out) {
  if (!EqualsCaselessAt(text, b, "bearer")) return;
  if (b > 0 && IsAsciiAlnum(text[b - 1])) return;
  size_t j = SkipBlanks(text, b + 6, 16);
  if (j == b + 6) return;
  size_t len = RunLength(text, j, IsTokenChar, kNpos);
  if (!TokenLooksLikeCredential(text.substr(j, len))) return;
  out.push_back({b, j, j + len, kRedactBearer});
}

}  // namespace

void FindBearerTokens(std::string_view text, SecretMatches& out) {
  for (char c : {'z', 'Z'}) {
    ForEachByte(text, c, [&](size_t z) { MatchAuthorizationAt(text, z, out); });
  }
  for (char c : {'b', 'B'}) {
    ForEachByte(text, c, [&](size_t b) { MatchBearerAt(text, b, out); });
  }
}

namespace {

constexpr size_t kMaxSchemeBytes = 32;
// Userinfo and host together; a password longer than this is not looked for
// (and a longer authority is surely not one).
constexpr size_t kMaxAuthorityBytes = 8192;

bool IsVendorTokenChar(char c) { return IsWordChar(c) || c == '-'; }
bool IsSchemeChar(char c) { return IsAsciiAlnum(c) || c == '+' || c == '.' || c == '-'; }

bool EndsAuthority(char c) {
  switch (c) {
    case '/':
    case '?':
    case '#':
    case ' ':
    case '\t':
    case '"':
    case '\'':
    case '<':
    case '>':
    case '`':
    case '\\':
    case '\r':
    case '\n':
      return true;
    default:
      return false;
  }
}

// At the ':' of "://".
void MatchUrlPasswordAt(std::string_view text, size_t p, SecretMatches& out) {
  if (!HasAt(text, p, "://")) return;
  size_t s = p;
  while (s > 0 && p - s < kMaxSchemeBytes && IsSchemeChar(text[s - 1])) --s;
  while (s < p && !IsAsciiAlpha(text[s])) ++s;  // a scheme starts with a letter
  if (s == p) return;
  const size_t start = p + 3;
  size_t end = start;
  while (end < text.size() && end - start < kMaxAuthorityBytes && !EndsAuthority(text[end])) {
    ++end;
  }
  std::string_view authority = text.substr(start, end - start);
  // The last '@' ends the userinfo: an unencoded '@' in a password is a
  // mistake people make, and the host never holds one.
  size_t at = authority.rfind('@');
  if (at == kNpos) {
    // A password with an unencoded '/', '?' or '#' ends the authority
    // early: read on to the end of the URL for "user:pass@host", with a
    // user free of those bytes and a password that is not a port and path
    // ("host:8080/p?mail=a@b").
    size_t url_end = end;
    while (url_end < text.size() && url_end - start < kMaxAuthorityBytes &&
           !IsBlank(text[url_end]) && text[url_end] != '"' && text[url_end] != '\'' &&
           text[url_end] != '<' && text[url_end] != '>' && text[url_end] != '\r' &&
           text[url_end] != '\n' && text[url_end] != '`' && text[url_end] != '\\')
      ++url_end;
    const std::string_view url = text.substr(start, url_end - start);
    const size_t far_at = url.rfind('@');
    const size_t colon = url.find(':');
    if (far_at == kNpos || colon == kNpos || colon > far_at || far_at + 1 >= url.size() ||
        !(IsAsciiAlnum(url[far_at + 1]) || url[far_at + 1] == '['))
      return;
    const std::string_view user = url.substr(0, colon);
    if (user.find_first_of("/?#@") != kNpos) return;
    const std::string_view password = url.substr(colon + 1, far_at - colon - 1);
    size_t digits = 0;
    while (digits < password.size() && IsAsciiDigit(password[digits])) ++digits;
    if (password.empty() || (digits > 0 && digits < password.size() && password[digits] == '/') ||
        IsShellReference(password))
      return;
    out.push_back({s, start + colon + 1, start + far_at, kRedactUrlPassword});
    return;
  }
  size_t colon = authority.find(':');
  if (colon == kNpos || colon > at) {
    // A token given as the user, with no password (git over https with a
    // 40-hex OAuth token, a Sentry DSN's key): a long run of token bytes
    // with both letters and digits; user names are shorter or dotted.
    const std::string_view user = authority.substr(0, at);
    if (user.size() < 20 || colon < at) return;
    bool digit = false, alpha = false;
    for (char c : user) {
      if (!IsVendorTokenChar(c)) return;
      digit |= IsAsciiDigit(c);
      alpha |= IsAsciiAlpha(c);
    }
    if (digit && alpha) out.push_back({s, start, start + at, kRedactUrlPassword});
    return;
  }
  std::string_view password = authority.substr(colon + 1, at - colon - 1);
  if (password.empty() || IsShellReference(password)) return;
  out.push_back({s, start + colon + 1, start + at, kRedactUrlPassword});
}

bool IsBase64Char(char c) { return IsAsciiAlnum(c) || c == '+' || c == '/' || c == '='; }

// At the '-' after a vendor's token prefix: "sk-" (OpenAI's sk-..., sk-proj-...,
// Anthropic's sk-ant-...), Slack's "xoxb-" (xoxp, xoxa, xoxr, xoxs, xoxe),
// GitLab's "glpat-", NGC's "nvapi-", PyPI's "pypi-AgE". The prefix must
// start a word and the body be long enough to be a key, not a word.
void MatchVendorTokenAt(std::string_view text, size_t dash, SecretMatches& out) {
  size_t s = dash;
  while (s > 0 && dash - s < 6 && IsAsciiAlpha(text[s - 1])) --s;
  if (s == dash || (s > 0 && IsVendorTokenChar(text[s - 1]))) return;
  const std::string_view prefix = text.substr(s, dash - s);
  size_t min_body = 0;
  if (prefix == "sk") {
    min_body = 32;
  } else if (prefix == "xoxb" || prefix == "xoxp" || prefix == "xoxa" || prefix == "xoxr" ||
             prefix == "xoxs" || prefix == "xoxe") {
    min_body = 16;
  } else if (prefix == "glpat") {
    min_body = 20;
  } else if (prefix == "nvapi") {
    min_body = 40;
  } else if (prefix == "pypi" && HasAt(text, dash + 1, "AgE")) {
    min_body = 50;
  } else {
    return;
  }
  const size_t body = RunLength(text, dash + 1, IsVendorTokenChar, 1024);
  if (body < min_body) return;
  // A body of one letter case and no digit is prose or an identifier.
  bool digit = false;
  for (size_t i = dash + 1; i < dash + 1 + body && !digit; ++i) digit = IsAsciiDigit(text[i]);
  if (!digit) return;
  out.push_back({s, s, dash + 1 + body, kRedactVendorToken});
}

// At the 'J' of "eyJ" (base64url of '{"'): a JSON Web Token is
// header.payload.signature, the first two both "eyJ...". The whole token is
// replaced: the payload names the user and the signature is the secret.
void MatchJwtAt(std::string_view text, size_t j, SecretMatches& out) {
  if (j < 2 || text[j - 2] != 'e' || text[j - 1] != 'y') return;
  const size_t s = j - 2;
  if (s > 0 && (IsVendorTokenChar(text[s - 1]) || text[s - 1] == '.')) return;
  auto b64url = [](char c) { return IsVendorTokenChar(c); };
  const size_t head = RunLength(text, s, b64url, 4096);
  const size_t dot = s + head;
  if (head < 10 || !HasAt(text, dot, ".eyJ")) return;
  const size_t payload = RunLength(text, dot + 1, b64url, 16384);
  size_t end = dot + 1 + payload;
  if (payload < 10) return;
  if (end < text.size() && text[end] == '.') end += 1 + RunLength(text, end + 1, b64url, 4096);
  out.push_back({s, s, end, kRedactVendorToken});
}

// How far back a command-line detector looks for its tool's name.
constexpr size_t kToolLookBack = 4096;

// At the 'w' of "password" in a .netrc (where `wandb login` and
// huggingface-cli keep their keys): "password VALUE" alone on its line, or
// after "machine HOST login USER" on the same line. Only where the line is
// netrc's own ("machine ", "default ", or the word first), so prose with
// "password" in it stays.
void MatchNetrcPasswordAt(std::string_view text, size_t w, bool text_starts_line,
                          SecretMatches& out) {
  if (w < 4 || !HasAt(text, w - 4, "password") || w + 4 >= text.size() || !IsBlank(text[w + 4]))
    return;
  const size_t word = w - 4;
  if (word > 0 && !IsBlank(text[word - 1])) return;
  size_t line = word;
  while (line > 0 && word - line < kToolLookBack && text[line - 1] != '\n') --line;
  if (line > 0 && text[line - 1] != '\n') return;  // far from its line's start: not netrc
  if (line == 0 && !text_starts_line) return;
  size_t first = line;
  while (first < word && IsBlank(text[first])) ++first;
  if (first != word && !HasAt(text, first, "machine ") && !HasAt(text, first, "default ")) return;
  size_t v = word + 8;
  while (v < text.size() && IsBlank(text[v])) ++v;
  size_t e = v;
  while (e < text.size() && !IsBlank(text[e]) && text[e] != '\r' && text[e] != '\n') ++e;
  if (e == v || IsShellReference(text.substr(v, e - v))) return;
  out.push_back({line, v, e, kRedactNamedSecret});
}

// The word at `v` (after blanks), quoted or not: [begin, end), or an empty
// range.
std::pair<size_t, size_t> WordAt(std::string_view text, size_t v) {
  while (v < text.size() && IsBlank(text[v])) ++v;
  if (v < text.size() && (text[v] == '\'' || text[v] == '"')) {
    const size_t close = text.find(text[v], v + 1);
    if (close == kNpos) return {v, v};
    return {v + 1, close};
  }
  size_t e = v;
  while (e < text.size() && !IsBlank(text[e]) && text[e] != '\r' && text[e] != '\n') ++e;
  return {v, e};
}

// At the 'w' of "wandb login [--relogin] KEY": the key given on the
// command line (40 hex digits, or longer for on-prem hosts).
void MatchWandbLoginAt(std::string_view text, size_t w, SecretMatches& out) {
  if (!HasAt(text, w, "wandb login ") || (w > 0 && IsWordChar(text[w - 1]))) return;
  size_t v = w + 12;
  for (int words = 0; words < 8; ++words) {
    auto [b, e] = WordAt(text, v);
    if (b == e) return;
    v = e < text.size() && (text[e] == '\'' || text[e] == '"') ? e + 1 : e;
    const std::string_view word = text.substr(b, e - b);
    // Flags (--relogin, --cloud, --host=URL), and --host's own URL.
    if (word.front() == '-' || word.find("://") != kNpos) continue;
    if (word.size() >= 32 && !IsShellReference(word)) {
      out.push_back({w, b, e, kRedactNamedSecret});
      return;
    }
  }
}

// At a single '-' of a short password flag of the tools that take one on
// the command line: curl's "-u user:PASS", and "-p PASS" of sshpass, docker
// login and twine (elsewhere -p is a port or a path). The line must name
// the tool.
void MatchShortPasswordFlagAt(std::string_view text, size_t d, SecretMatches& out) {
  if (d + 2 >= text.size() || (d > 0 && !IsBlank(text[d - 1]))) return;
  const char flag = text[d + 1];
  if (flag != 'u' && flag != 'p') return;
  // The tool's name comes early on its line: look back a bounded stretch,
  // so that a long line of flags costs linear time.
  size_t line = d;
  while (line > 0 && d - line < kToolLookBack && text[line - 1] != '\n') --line;
  const std::string_view before = text.substr(line, d - line);
  if (!IsBlank(text[d + 2])) {
    // sshpass also takes the password glued to the flag: "-pSECRET".
    if (flag != 'p' || before.find("sshpass") == kNpos) return;
    auto [b, e] = WordAt(text, d + 2);
    if (b < e && !IsShellReference(text.substr(b, e - b)))
      out.push_back({d, b, e, kRedactNamedSecret});
    return;
  }
  auto [b, e] = WordAt(text, d + 2);
  if (b == e || text[b] == '-' || IsShellReference(text.substr(b, e - b))) return;
  if (flag == 'u') {
    if (before.find("curl") == kNpos) return;
    const size_t colon = text.substr(b, e - b).find(':');
    if (colon == kNpos || b + colon + 1 >= e) return;
    out.push_back({d, b + colon + 1, e, kRedactNamedSecret});
    return;
  }
  if (before.find("sshpass") == kNpos && before.find("docker login") == kNpos &&
      before.find("twine") == kNpos)
    return;
  out.push_back({d, b, e, kRedactNamedSecret});
}

// At the 'S' of "LS0tLS1CRUdJTi", base64 of "-----BEGIN": a PEM block
// stored base64-encoded (kubeconfig's client-key-data, a Kubernetes
// secret's tls.key). Certificates encode the same way; a public
// certificate lost costs little next to a private key leaked.
void MatchBase64PemAt(std::string_view text, size_t p, SecretMatches& out) {
  if (p < 1 || !HasAt(text, p - 1, "LS0tLS1CRUdJTi")) return;
  const size_t s = p - 1;
  if (s > 0 && IsBase64Char(text[s - 1])) return;
  const size_t run = RunLength(text, s, IsBase64Char, kNpos);
  out.push_back({s, s, s + run, kRedactPrivateKey});
}

// Slack's and Discord's incoming-webhook URLs hold their secret in the path:
// https://hooks.slack.com/services/T.../B.../<secret>,
// https://discord.com/api/webhooks/<id>/<token>. The path after the fixed
// part is replaced.
void MatchWebhookAt(std::string_view text, size_t p, SecretMatches& out) {
  const size_t start = p + 3;
  size_t path = kNpos;
  for (std::string_view host :
       {"hooks.slack.com/services/", "discord.com/api/webhooks/", "discordapp.com/api/webhooks/"}) {
    if (HasAt(text, start, host)) path = start + host.size();
  }
  if (path == kNpos) return;
  auto path_char = [](char c) { return IsVendorTokenChar(c) || c == '/'; };
  const size_t run = RunLength(text, path, path_char, 1024);
  if (run >= 8) out.push_back({p, path, path + run, kRedactVendorToken});
}

}  // namespace

void FindUrlPasswords(std::string_view text, SecretMatches& out) {
  ForEachByte(text, ':', [&](size_t p) { MatchUrlPasswordAt(text, p, out); });
}

namespace {

// The bytes FindSecrets stops at: each is the anchor of some checker.
constexpr std::array<bool, 256> MakeTriggers() {
  std::array<bool, 256> t{};
  for (unsigned char c : {'_', 'K', 'S', 'z', 'Z', 'b', 'B', ':', '=', '-', 'J', 'w'}) t[c] = true;
  return t;
}
constexpr std::array<bool, 256> kTriggers = MakeTriggers();

}  // namespace

namespace {

void MatchAnyAt(std::string_view text, size_t i, bool text_starts_line, SecretMatches& out) {
  switch (text[i]) {
    case '_':
      MatchHfTokenAt(text, i, out);
      MatchGithubTokenAt(text, i, out);
      break;
    case 'K':
      MatchAwsAccessKeyIdAt(text, i, out);
      break;
    case 'S':
      MatchAwsAccessKeyIdAt(text, i, out);
      MatchBase64PemAt(text, i, out);
      break;
    case 'J':
      MatchJwtAt(text, i, out);
      break;
    case 'w':
      MatchNetrcPasswordAt(text, i, text_starts_line, out);
      MatchWandbLoginAt(text, i, out);
      break;
    case 'z':
      MatchGoogleApiKeyAt(text, i, out);
      MatchAuthorizationAt(text, i, out);
      break;
    case 'Z':
      MatchAuthorizationAt(text, i, out);
      break;
    case 'b':
    case 'B':
      MatchBearerAt(text, i, out);
      break;
    case ':':
      MatchUrlPasswordAt(text, i, out);
      if (HasAt(text, i, "://")) MatchWebhookAt(text, i, out);
      MatchAssignmentAt(text, i, text_starts_line, out);
      break;
    case '=':
      MatchAssignmentAt(text, i, text_starts_line, out);
      break;
    case '-':
      if (i + 1 < text.size() && text[i + 1] == '-') {
        MatchFlagValueAt(text, i, out);
      } else {
        MatchVendorTokenAt(text, i, out);
        MatchShortPasswordFlagAt(text, i, out);
      }
      break;
  }
}

}  // namespace

void FindSecrets(std::string_view text, bool text_starts_line, SecretMatches& out) {
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    if (kTriggers[static_cast<unsigned char>(text[i])]) MatchAnyAt(text, i, text_starts_line, out);
  }
}

namespace {

constexpr size_t kMaxKeyLabelBytes = 48;

// A "-----BEGIN <label>-----" or "-----END <label>-----" marker at `p` whose
// label holds "PRIVATE KEY"; returns its end, or npos.
size_t PrivateKeyMarkerEnd(std::string_view text, size_t p, size_t word_len) {
  size_t label = p + 5 + word_len;  // after "-----BEGIN " / "-----END "
  size_t i = label;
  while (i < text.size() && i - label <= kMaxKeyLabelBytes &&
         (IsUpperOrDigit(text[i]) || text[i] == ' ')) {
    ++i;
  }
  if (text.compare(i, 5, "-----") != 0) return kNpos;
  if (text.substr(label, i - label).find("PRIVATE KEY") == kNpos) return kNpos;
  return i + 5;
}

size_t FindMarker(std::string_view text, std::string_view word, size_t from, size_t* end) {
  // Anchored on the 'B' of BEGIN / 'E' of END: dashes are everywhere.
  for (size_t p = FindLiteral(text, word, 5, from); p != kNpos;
       p = FindLiteral(text, word, 5, p + 1)) {
    size_t e = PrivateKeyMarkerEnd(text, p, word.size() - 5);
    if (e != kNpos) {
      *end = e;
      return p;
    }
  }
  return kNpos;
}

// Replaces [begin, end) without its leading and trailing blanks.
void AddKeyContent(std::string_view text, size_t context, size_t begin, size_t end,
                   SecretMatches& out) {
  while (begin < end && IsBlank(text[begin])) ++begin;
  while (end > begin && IsBlank(text[end - 1])) --end;
  if (begin < end) out.push_back({context, begin, end, kRedactPrivateKey});
}

}  // namespace

void FindPrivateKeys(std::string_view text, bool in_block, SecretMatches& out,
                     std::vector<KeyBlockEvent>& events) {
  size_t pos = 0;
  size_t context = 0;
  while (pos <= text.size()) {
    size_t marker_end = 0;
    if (in_block) {
      size_t q = FindMarker(text, "-----END ", pos, &marker_end);
      if (q == kNpos) {
        AddKeyContent(text, context, pos, text.size(), out);
        return;
      }
      AddKeyContent(text, context, pos, q, out);
      out.push_back({context, q, marker_end, nullptr});
      events.push_back({q, false});
      in_block = false;
      pos = marker_end;
    } else {
      size_t p = FindMarker(text, "-----BEGIN ", pos, &marker_end);
      if (p == kNpos) return;
      // A marker quoted in prose ("Expected '-----BEGIN PRIVATE KEY-----'
      // header") opens no key: a key's marker is followed by its body.
      if (p > 0 && marker_end < text.size() && text[marker_end] == text[p - 1] &&
          (text[p - 1] == '\'' || text[p - 1] == '"' || text[p - 1] == '`')) {
        pos = marker_end;
        continue;
      }
      out.push_back({p, p, marker_end, nullptr});
      events.push_back({p, true});
      in_block = true;
      context = p;
      pos = marker_end;
    }
  }
}

void FindPseudonyms(std::string_view text, SecretMatches& out) {
  constexpr std::string_view kOpen = "<redacted:";
  for (size_t p = FindLiteral(text, kOpen, 0, 0); p != kNpos;
       p = FindLiteral(text, kOpen, 0, p + 1)) {
    size_t i = p + kOpen.size();
    size_t kind_len = 0;
    while (
        i + kind_len < text.size() && kind_len <= 32 &&
        ((text[i + kind_len] >= 'a' && text[i + kind_len] <= 'z') || text[i + kind_len] == '_')) {
      ++kind_len;
    }
    i += kind_len;
    if (kind_len == 0 || i >= text.size() || text[i] != ':') continue;
    ++i;
    size_t hex = RunLength(text, i, IsHexDigit, 9);
    if (hex != 8 || i + 8 >= text.size() || text[i + 8] != '>') continue;
    out.push_back({p, p, i + 9, nullptr});
  }
}

}  // namespace casefile::collect
