#include "collect/named_secrets.h"

#include <string.h>

#include <algorithm>
#include <array>
#include <initializer_list>

#include "collect/redactor.h"

namespace casefile::collect {
namespace {

constexpr size_t kNpos = std::string_view::npos;
// Longer keys are not looked at: names of settings are short, and the bound
// keeps the look-back before every '=' and ':' cheap.
constexpr size_t kMaxKeyBytes = 96;
constexpr size_t kMaxKeyWords = 24;

bool IsKeyChar(char c) { return IsWordChar(c) || c == '-' || c == '.'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }

bool OneOf(std::string_view word, std::initializer_list<std::string_view> words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// The key's lower-case words, and all of them joined.
class KeyWords {
 public:
  explicit KeyWords(std::string_view key) {
    size_t word_start = 0;
    for (size_t i = 0; i < key.size(); ++i) {
      char c = key[i];
      if (!IsAsciiAlnum(c)) {
        EndWord(word_start);
        word_start = size_;
        continue;
      }
      if (size_ > word_start && IsUpper(c)) {
        char prev = key[i - 1];
        bool next_lower = i + 1 < key.size() && IsLower(key[i + 1]);
        if (IsLower(prev) || IsAsciiDigit(prev) || (IsUpper(prev) && next_lower)) {
          EndWord(word_start);
          word_start = size_;
        }
      }
      joined_[size_++] = AsciiLower(c);
    }
    EndWord(word_start);
  }
  std::string_view joined() const { return std::string_view(joined_.data(), size_); }
  size_t count() const { return count_; }
  std::string_view word(size_t i) const {
    if (i >= count_) return {};
    return joined().substr(bounds_[i].first, bounds_[i].second - bounds_[i].first);
  }
  bool Has(std::string_view part) const { return joined().find(part) != kNpos; }

 private:
  void EndWord(size_t word_start) {
    if (size_ > word_start && count_ < kMaxKeyWords) bounds_[count_++] = {word_start, size_};
  }
  std::array<char, kMaxKeyBytes> joined_;
  size_t size_ = 0;
  std::array<std::pair<size_t, size_t>, kMaxKeyWords> bounds_;
  size_t count_ = 0;
};

// A cheap first test, run before every '=' and ':' of a log: each secret
// word holds a 'k' (token, apikey, accesskey, privatekey) or a 'w'
// (password, passwd, pwd) or starts "secr", "cred", "pass", "auth" or
// "sign".
bool MayNameSecret(std::string_view key) {
  for (size_t i = 0; i < key.size(); ++i) {
    char c = AsciiLower(key[i]);
    if (c == 'k' || c == 'w') return true;
    if ((c == 'p' || c == 'a') && i + 4 <= key.size()) {
      char c1 = AsciiLower(key[i + 1]), c2 = AsciiLower(key[i + 2]), c3 = AsciiLower(key[i + 3]);
      if (c == 'p' && c1 == 'a' && c2 == 's' && c3 == 's') return true;
      if (c == 'a' && c1 == 'u' && c2 == 't' && c3 == 'h') return true;
    }
    if ((c == 's' || c == 'c') && i + 4 <= key.size()) {
      char c1 = AsciiLower(key[i + 1]), c2 = AsciiLower(key[i + 2]), c3 = AsciiLower(key[i + 3]);
      if (c == 's' && c1 == 'e' && c2 == 'c' && c3 == 'r') return true;
      if (c == 's' && c1 == 'i' && c2 == 'g' && c3 == 'n') return true;  // X-Amz-Signature
      if (c == 'c' && c1 == 'r' && c2 == 'e' && c3 == 'd') return true;
    }
  }
  return false;
}

bool IsTokenWord(std::string_view w) {
  return w == "token" || (w.size() > 5 && w.substr(w.size() - 5) == "token");
}

bool IsNumber(std::string_view v) {
  size_t i = 0;
  if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
  size_t digits = 0;
  while (i < v.size() && IsAsciiDigit(v[i])) ++i, ++digits;
  if (i < v.size() && v[i] == '.') {
    ++i;
    while (i < v.size() && IsAsciiDigit(v[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
    size_t exp = 0;
    while (i < v.size() && IsAsciiDigit(v[i])) ++i, ++exp;
    if (exp == 0) return false;
  }
  return i == v.size();
}

bool IsPath(std::string_view v) {
  if (!(v.substr(0, 1) == "/" || v.substr(0, 2) == "~/" || v.substr(0, 2) == "./")) return false;
  for (char c : v) {
    if (!(IsKeyChar(c) || c == '/' || c == '~')) return false;
  }
  return v.find('/', 1) != kNpos;
}

// Code rather than a value: a call or subscript (os.environ[...],
// getpass()), or an attribute that names a secret (args.hub_token,
// self.api_key). A bare name (hf_token) is not taken for code: a weak
// password can look like one, and redacting a name costs nothing.
bool IsCode(std::string_view v) {
  if (v.empty() || !(IsAsciiAlpha(v[0]) || v[0] == '_')) return false;
  size_t i = 0;
  while (i < v.size() && (IsWordChar(v[i]) || v[i] == '.')) ++i;
  if (i < v.size()) return v[i] == '(' || v[i] == '[';
  size_t dot = v.rfind('.');
  if (dot == kNpos || dot + 1 >= v.size() || !(IsAsciiAlpha(v[dot + 1]) || v[dot + 1] == '_')) {
    return false;
  }
  std::string_view attribute = v.substr(dot + 1, std::min(v.size() - dot - 1, kMaxKeyBytes));
  KeyWords words(attribute);
  return words.Has("token") || words.Has("secret") || words.Has("password") ||
         words.Has("passwd") || words.Has("key") || words.Has("credential");
}

bool IsAwsSecretShape(std::string_view v) {
  if (v.size() != 40) return false;
  for (char c : v) {
    if (!(IsAsciiAlnum(c) || c == '/' || c == '+')) return false;
  }
  return true;
}

}  // namespace

SecretKeyClass ClassifySecretKey(std::string_view key) {
  // Docker's config.json and .npmrc keep base64 "user:password" under a
  // bare "auth" / "_auth".
  if (key == "auth" || key == "_auth") return SecretKeyClass::kSecret;
  if (key.size() < 5 || key.size() > kMaxKeyBytes) return SecretKeyClass::kNone;
  if (!MayNameSecret(key)) return SecretKeyClass::kNone;
  KeyWords words(key);
  if (words.count() == 0) return SecretKeyClass::kNone;
  if (OneOf(words.word(words.count() - 1),
            {"file",     "files",      "path", "paths",   "dir",      "dirs",   "directory",
             "filename", "location",   "url",  "uri",     "endpoint", "name",   "type",
             "types",    "length",     "len",  "size",    "count",    "limit",  "expiry",
             "expires",  "expiration", "ttl",  "timeout", "lifetime", "format", "version"})) {
    return SecretKeyClass::kNone;
  }
  if (words.Has("password") || words.Has("passwd") || words.Has("secret") || words.Has("apikey") ||
      words.Has("accesskey") || words.Has("privatekey")) {
    return SecretKeyClass::kSecret;
  }
  // Short forms (DB_PASS, MYSQL_PWD, SSH_PASS) and keys named for what they
  // unlock (ENCRYPTION_KEY, AccountKey= of an Azure connection string,
  // kubeconfig's client-key-data, a Kubernetes secret's tls.key and
  // .dockerconfigjson, WANDB_KEY).
  // ("forward_pass", "second_pass" name a pass of a computation.)
  const std::string_view last = words.word(words.count() - 1);
  if (last == "pwd" || last == "auth" ||
      (last == "pass" && (words.count() == 1 || !OneOf(words.word(words.count() - 2),
                                                       {"forward", "backward", "first", "second",
                                                        "third", "last", "multi", "single", "one",
                                                        "two", "num", "by", "full", "each"})))) {
    return SecretKeyClass::kSecret;
  }
  for (std::string_view k :
       {"encryptionkey", "signingkey", "accountkey", "storagekey", "masterkey", "sessionkey",
        "clientkeydata", "tlskey", "authkey", "licensekey", "wandbkey", "openaikey", "ngckey",
        "dockerconfigjson", "amzsignature", "googsignature"}) {
    if (words.Has(k)) return SecretKeyClass::kSecret;
  }
  for (size_t i = 0; i < words.count(); ++i) {
    if (!IsTokenWord(words.word(i))) continue;
    if (OneOf(words.word(i + 1),
              {"id",        "ids",       "type",       "types",   "index",    "indices", "idx",
               "count",     "counts",    "num",        "len",     "length",   "limit",   "limits",
               "size",      "budget",    "usage",      "per",     "rate",     "pos",     "position",
               "positions", "embedding", "embeddings", "logprob", "logprobs", "prob",    "probs",
               "str",       "string",    "text",       "map",     "mapping",  "dict",    "vocab",
               "drop",      "dispatcher"})) {
      continue;
    }
    if (i > 0 && OneOf(words.word(i - 1),
                       {"pad",     "bos",        "eos",        "unk",    "sep", "cls",   "mask",
                        "special", "added",      "additional", "start",  "end", "stop",  "image",
                        "video",   "audio",      "max",        "min",    "num", "total", "n",
                        "next",    "prev",       "first",      "last",   "new", "input", "output",
                        "prompt",  "completion", "generated",  "sample", "eot", "eop",   "eom",
                        "prefix",  "middle",     "suffix",     "think",  "fim"})) {
      continue;
    }
    return SecretKeyClass::kToken;
  }
  if (words.Has("credential")) return SecretKeyClass::kCredentials;
  return SecretKeyClass::kNone;
}

bool IsNonSecretValue(std::string_view v, SecretKeyClass key_class) {
  if (v.empty()) return true;
  if (v.size() <= 9) {
    std::array<char, 9> lower;
    std::transform(v.begin(), v.end(), lower.begin(), AsciiLower);
    if (OneOf(std::string_view(lower.data(), v.size()),
              {"true", "false", "yes", "no", "on", "off", "none", "null", "nil", "undefined"})) {
      return true;
    }
  }
  if (v.front() == '<' && v.back() == '>') return true;
  if (v.front() == '{' || v.front() == '[') return true;
  if (v.size() >= 2 && v[0] == '$' && (IsAsciiAlpha(v[1]) || v[1] == '_' || v[1] == '{')) {
    return true;
  }
  if (v.find_first_not_of('*') == kNpos) return true;
  if (key_class == SecretKeyClass::kToken && IsNumber(v)) return true;
  if (key_class == SecretKeyClass::kCredentials && IsPath(v)) return true;
  return IsCode(v);
}

const char* NamedSecretKind(std::string_view key, std::string_view value) {
  if (IsAwsSecretShape(value) && key.size() <= kMaxKeyBytes &&
      KeyWords(key).Has("secretaccesskey")) {
    return kRedactAwsSecret;
  }
  return kRedactNamedSecret;
}

namespace {

size_t SkipBlanksBack(std::string_view text, size_t i, size_t cap) {
  size_t start = i;
  while (i > 0 && start - i < cap && IsBlank(text[i - 1])) --i;
  return i;
}

size_t SkipBlanks(std::string_view text, size_t i, size_t cap) {
  size_t start = i;
  while (i < text.size() && i - start < cap && IsBlank(text[i])) ++i;
  return i;
}

// Whether text[0, key) is only what may stand before a variable or YAML key
// at the start of a line.
bool KeyStartsLine(std::string_view prefix) {
  size_t i = 0;
  while (i < prefix.size() && (IsBlank(prefix[i]) || prefix[i] == '-' || prefix[i] == '+')) ++i;
  prefix.remove_prefix(i);
  for (std::string_view word : {"export ", "declare -x ", "declare -gx "}) {
    if (prefix.substr(0, word.size()) == word) {
      prefix.remove_prefix(word.size());
      break;
    }
  }
  return prefix.find_first_not_of(" \t") == kNpos;
}

constexpr std::array<bool, 256> MakeValueEnds() {
  std::array<bool, 256> ends{};
  for (unsigned char c : std::string_view(" \t\"',;&)]}\\")) ends[c] = true;
  ends[0] = true;  // NUL separates the variables of /proc/<pid>/environ
  return ends;
}
constexpr std::array<bool, 256> kValueEnds = MakeValueEnds();

bool EndsValue(char c) { return kValueEnds[static_cast<unsigned char>(c)]; }

struct Value {
  size_t begin = 0;
  size_t end = 0;
};

// The quoted value opening at `v` (", ', or an escaped \" inside a JSON
// string); unterminated runs to the end of `text`.
Value QuotedValue(std::string_view text, size_t v) {
  if (text[v] == '\\') {
    size_t begin = v + 2;
    std::string_view close = text[v + 1] == '"' ? "\\\"" : "\\'";
    size_t e = text.find(close, begin);
    return {begin, e == kNpos ? text.size() : e};
  }
  const char quote = text[v];
  size_t i = v + 1;
  while (i < text.size() && text[i] != quote) {
    if (quote == '"' && text[i] == '\\' && i + 1 < text.size()) ++i;
    ++i;
  }
  return {v + 1, std::min(i, text.size())};
}

bool OpensQuote(std::string_view text, size_t v) {
  if (text[v] == '"' || text[v] == '\'') return true;
  return text[v] == '\\' && v + 1 < text.size() && (text[v + 1] == '"' || text[v + 1] == '\'');
}

void AddIfSecret(std::string_view text, size_t context, std::string_view key,
                 SecretKeyClass key_class, Value value, SecretMatches& out) {
  std::string_view v = text.substr(value.begin, value.end - value.begin);
  if (IsNonSecretValue(v, key_class)) return;
  out.push_back({context, value.begin, value.end, NamedSecretKind(key, v)});
}

}  // namespace

void MatchAssignmentAt(std::string_view text, size_t s, bool text_starts_line, SecretMatches& out) {
  const char sep = text[s];
  const size_t n = text.size();
  if (sep == '=') {
    // ==, !=, <=, >= compare; they do not assign.
    if (s + 1 < n && text[s + 1] == '=') return;
    if (s > 0 &&
        (text[s - 1] == '=' || text[s - 1] == '!' || text[s - 1] == '<' || text[s - 1] == '>')) {
      return;
    }
  } else if ((s + 1 < n && text[s + 1] == ':') || (s > 0 && text[s - 1] == ':')) {
    return;  // C++ scope (c10::Error), not a YAML key
  }
  size_t k = SkipBlanksBack(text, s, 8);
  if (k > 0 && text[k - 1] == ']') --k;  // os.environ["KEY"] = ...
  bool quoted_key = false;
  if (k > 0 && (text[k - 1] == '"' || text[k - 1] == '\'')) {
    quoted_key = true;
    --k;
    if (k > 0 && text[k - 1] == '\\') --k;
  }
  const size_t key_end = k;
  while (k > 0 && key_end - k <= kMaxKeyBytes && IsKeyChar(text[k - 1])) --k;
  // Keys of 4 bytes are too common to look at, but for "auth" (Docker's
  // config.json, .npmrc's _auth).
  if (key_end - k < 4 || key_end - k > kMaxKeyBytes) return;
  if (key_end - k == 4 && text.compare(k, 4, "auth") != 0) return;
  size_t context = k;
  if (quoted_key && context > 0) --context;
  size_t key_begin = k;
  while (key_begin < key_end && text[key_begin] == '-') ++key_begin;
  std::string_view key = text.substr(key_begin, key_end - key_begin);
  const SecretKeyClass key_class = ClassifySecretKey(key);
  if (key_class == SecretKeyClass::kNone) return;

  size_t v = s + 1;
  if (sep == ':' && !quoted_key && v < n && !IsBlank(text[v]) && !OpensQuote(text, v)) return;
  v = SkipBlanks(text, v, 16);
  if (v >= n) return;
  Value value;
  if (OpensQuote(text, v)) {
    value = QuotedValue(text, v);
  } else if ((text_starts_line && KeyStartsLine(text.substr(0, context))) ||
             (context > 0 && text[context - 1] == '\0')) {
    // An environment dump or YAML line. After the NUL of a NUL-separated
    // dump (/proc/<pid>/environ) a value runs to the next NUL, blanks and
    // all.
    value.begin = v;
    if (context > 0 && text[context - 1] == '\0') {
      const size_t nul = text.find('\0', v);
      value.end = nul == kNpos ? n : nul;
    } else if (sep == '=') {
      value.end = v;
      while (value.end < n && !IsBlank(text[value.end]) && text[value.end] != '\0') ++value.end;
    } else {
      size_t comment = text.find(" #", v);
      value.end = comment == kNpos ? n : comment;
      value.end = std::min(value.end, text.find('\0', v));
    }
    while (value.end > v && IsBlank(text[value.end - 1])) --value.end;
  } else {
    value.begin = v;
    value.end = v;
    while (value.end < n && !EndsValue(text[value.end])) ++value.end;
  }
  AddIfSecret(text, context, key, key_class, value, out);
}

// A flag's value at `v`: quoted, or up to the next blank.
Value FlagValueAt(std::string_view text, size_t v) {
  if (OpensQuote(text, v)) return QuotedValue(text, v);
  Value value;
  value.begin = v;
  value.end = v;
  while (value.end < text.size() && !IsBlank(text[value.end])) ++value.end;
  return value;
}

// How far back "--user" looks for curl on its line.
constexpr size_t kCurlLookBack = 4096;

void MatchFlagValueAt(std::string_view text, size_t d, SecretMatches& out) {
  const size_t n = text.size();
  if (d > 0 && (IsWordChar(text[d - 1]) || text[d - 1] == '-')) return;
  const size_t key_begin = d + 2;
  if (key_begin >= n || !IsAsciiAlnum(text[key_begin])) return;
  size_t key_end = key_begin;
  while (key_end < n && key_end - key_begin <= kMaxKeyBytes && IsKeyChar(text[key_end])) ++key_end;
  if (key_end >= n || !IsBlank(text[key_end])) return;  // --key=value is an assignment
  const std::string_view key = text.substr(key_begin, key_end - key_begin);
  if (key == "user" &&
      text.substr(d > kCurlLookBack ? d - kCurlLookBack : 0, std::min(d, kCurlLookBack))
              .find("curl") != kNpos) {
    // curl's "--user name:PASSWORD", quoted or not.
    const Value value = FlagValueAt(text, SkipBlanks(text, key_end, 16));
    const size_t colon = text.substr(value.begin, value.end - value.begin).find(':');
    if (colon != kNpos && value.begin + colon + 1 < value.end &&
        text[value.begin + colon + 1] != '$')
      out.push_back({d, value.begin + colon + 1, value.end, kRedactNamedSecret});
    return;
  }
  const SecretKeyClass key_class = ClassifySecretKey(key);
  if (key_class == SecretKeyClass::kNone) return;
  const size_t v = SkipBlanks(text, key_end, 16);
  if (v >= n || text[v] == '-') return;  // the next flag, not a value
  AddIfSecret(text, d, key, key_class, FlagValueAt(text, v), out);
}

void FindNamedSecrets(std::string_view text, bool text_starts_line, SecretMatches& out) {
  size_t next_eq = FindByte(text, '=', 0);
  size_t next_colon = FindByte(text, ':', 0);
  while (next_eq != kNpos || next_colon != kNpos) {
    size_t s = std::min(next_eq, next_colon);
    MatchAssignmentAt(text, s, text_starts_line, out);
    if (s == next_eq) next_eq = FindByte(text, '=', s + 1);
    if (s == next_colon) next_colon = FindByte(text, ':', s + 1);
  }
  for (size_t d = FindLiteral(text, "--", 0, 0); d != kNpos;
       d = FindLiteral(text, "--", 0, d + 1)) {
    MatchFlagValueAt(text, d, out);
  }
}

}  // namespace casefile::collect
