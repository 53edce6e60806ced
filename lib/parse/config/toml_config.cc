// Basic TOML: enough for pyproject-style and launcher configs. Strings are
// decoded; arrays and inline tables are kept as their raw text (they are
// compared as values, and flattening them buys nothing for analyzers).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "parse/config/config_text.h"

namespace casefile::config_internal {
namespace {

bool IsBareKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// Splits a (possibly dotted, possibly quoted) key into its parts; nullopt
// when it is not a valid key.
std::optional<std::vector<std::string>> KeyParts(std::string_view s) {
  std::vector<std::string> parts;
  size_t i = 0;
  for (;;) {
    while (i < s.size() && IsBlank(s[i])) ++i;
    if (i >= s.size()) return std::nullopt;
    if (s[i] == '"' || s[i] == '\'') {
      size_t close = FindClosingQuote(s, i, false);
      if (close == std::string_view::npos) return std::nullopt;
      std::string_view inner = s.substr(i + 1, close - i - 1);
      parts.push_back(s[i] == '"' ? UnescapeDoubleQuoted(inner) : std::string(inner));
      i = close + 1;
    } else {
      size_t start = i;
      while (i < s.size() && IsBareKeyChar(s[i])) ++i;
      if (i == start) return std::nullopt;
      parts.emplace_back(s.substr(start, i - start));
    }
    while (i < s.size() && IsBlank(s[i])) ++i;
    if (i >= s.size()) return parts;
    if (s[i] != '.') return std::nullopt;
    ++i;
  }
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out = JoinKey(out, p);
  return out;
}

// Removes a '#' comment that is outside strings.
std::string_view StripComment(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"' || s[i] == '\'') {
      size_t close = FindClosingQuote(s, i, false);
      if (close == std::string_view::npos) return s;
      i = close;
    } else if (s[i] == '#') {
      return TrimRight(s.substr(0, i));
    }
  }
  return s;
}

class TomlFlattener {
 public:
  TomlFlattener(std::string_view text, const ConfigEmit& emit)
      : lines_(SplitLines(text)), emit_(emit) {}

  void Run() {
    while (cursor_ < lines_.size()) {
      const TextLine& line = lines_[cursor_++];
      std::string_view t = Trim(line.text);
      if (t.empty() || t[0] == '#') continue;
      if (t.substr(0, 2) == "[[") {
        Header(StripComment(t), true);
      } else if (t[0] == '[') {
        Header(StripComment(t), false);
      } else {
        KeyValue(t, line.line_no);
      }
    }
  }

 private:
  // The path of a table name, with each prefix that names an array of tables
  // replaced by its current element ("a[1].b").
  std::string Resolve(const std::vector<std::string>& parts) const {
    std::string path, plain;
    for (const std::string& part : parts) {
      plain = JoinKey(plain, part);
      path = JoinKey(path, part);
      auto it = array_tables_.find(plain);
      if (it != array_tables_.end()) path = it->second;
    }
    return path;
  }

  void Header(std::string_view t, bool array) {
    size_t open = array ? 2 : 1;
    std::string_view close = array ? "]]" : "]";
    if (t.size() < open + close.size() || t.substr(t.size() - close.size()) != close) return;
    auto parts = KeyParts(t.substr(open, t.size() - open - close.size()));
    if (!parts) return;
    if (!array) {
      table_ = Resolve(*parts);
      return;
    }
    std::vector<std::string> parent(parts->begin(), parts->end() - 1);
    std::string base = JoinKey(Resolve(parent), parts->back());
    std::string plain = Join(*parts);
    int64_t index = array_counts_[base]++;
    table_ = base + "[" + std::to_string(index) + "]";
    array_tables_[plain] = table_;
  }

  void KeyValue(std::string_view t, int64_t line_no) {
    // The '=' ending the key is the first one outside quotes.
    size_t eq = std::string_view::npos;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == '"' || t[i] == '\'') {
        size_t close = FindClosingQuote(t, i, false);
        if (close == std::string_view::npos) return;
        i = close;
      } else if (t[i] == '=') {
        eq = i;
        break;
      }
    }
    if (eq == std::string_view::npos) return;
    auto parts = KeyParts(t.substr(0, eq));
    if (!parts) return;
    std::string key = JoinKey(table_, Join(*parts));
    std::string_view v = TrimLeft(t.substr(eq + 1));
    if (v.substr(0, 3) == "\"\"\"" || v.substr(0, 3) == "'''") {
      emit_(key, MultiLineString(v), line_no);
    } else if (!v.empty() && (v[0] == '"' || v[0] == '\'')) {
      size_t close = FindClosingQuote(v, 0, false);
      std::string_view inner = v.substr(1, close == std::string_view::npos ? v.npos : close - 1);
      if (v[0] == '"') {
        emit_(key, UnescapeDoubleQuoted(inner), line_no);
      } else {
        emit_(key, inner, line_no);
      }
    } else if (!v.empty() && (v[0] == '[' || v[0] == '{')) {
      emit_(key, Collection(StripComment(v)), line_no);
    } else {
      emit_(key, StripComment(v), line_no);
    }
  }

  std::string MultiLineString(std::string_view v) {
    const std::string_view delim = v.substr(0, 3);
    std::string body(v.substr(3));
    size_t end = body.find(delim);
    size_t taken = 0;
    // A newline right after the opening delimiter is not part of the value.
    bool first = body.empty();
    while (end == std::string::npos && cursor_ < lines_.size() && taken++ < kMaxValueLines) {
      if (!first) body.push_back('\n');
      first = false;
      body.append(lines_[cursor_++].text);
      end = body.find(delim);
    }
    if (end != std::string::npos) body.resize(end);
    return delim[0] == '"' ? UnescapeDoubleQuoted(body) : body;
  }

  std::string Collection(std::string_view first) {
    std::string text(first);
    int balance = BracketBalance(first);
    size_t taken = 0;
    while (balance > 0 && cursor_ < lines_.size() && taken++ < kMaxValueLines) {
      std::string_view next = Trim(StripComment(lines_[cursor_++].text));
      if (next.empty()) continue;
      text.push_back(' ');
      text.append(next);
      balance += BracketBalance(next);
    }
    return text;
  }

  std::vector<TextLine> lines_;
  const ConfigEmit& emit_;
  size_t cursor_ = 0;
  std::string table_;
  std::map<std::string, int64_t> array_counts_;
  std::map<std::string, std::string> array_tables_;
};

}  // namespace

void ParseTomlConfig(std::string_view text, const ConfigEmit& emit) {
  TomlFlattener(text, emit).Run();
}

}  // namespace casefile::config_internal
