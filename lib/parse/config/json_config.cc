// A lenient JSON reader that flattens as it goes. It is hand-written rather
// than simdjson because DeepSpeed configs are hjson-ish (comments, trailing
// commas, unquoted keys) and Python writes NaN/Infinity, none of which a
// strict parser accepts, and because it gives each key its line for free.
#include <string>

#include "common/error.h"
#include "parse/config/config_text.h"

namespace casefile::config_internal {
namespace {

// Deeper nesting than this is not a config; it also bounds the recursion.
constexpr int kMaxDepth = 512;

bool IsBareWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '+' || c == '.' || c == '$' || static_cast<unsigned char>(c) >= 0x80;
}

class JsonFlattener {
 public:
  JsonFlattener(std::string_view text, const ConfigEmit& emit) : s_(text), emit_(emit) {}

  void Run() {
    SkipSpace();
    if (pos_ >= s_.size()) return;  // an empty file holds no keys
    std::string path;
    Value(path, 0, line_);
    SkipSpace();
    if (pos_ < s_.size()) Fail("unexpected data after the JSON value");
  }

 private:
  [[noreturn]] void Fail(const std::string& what) {
    int64_t column = static_cast<int64_t>(pos_ - line_start_) + 1;
    throw Error(ErrorCode::kCorrupt, "JSON config: " + what + " at line " + std::to_string(line_) +
                                         ", column " + std::to_string(column));
  }

  void NewLine(size_t newline_pos) {
    ++line_;
    line_start_ = newline_pos + 1;
  }

  // Skips whitespace and comments; returns true when a line break was seen
  // (a missing comma at a line break is tolerated, as hjson does).
  bool SkipSpace() {
    bool newline = false;
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == '\n') {
        NewLine(pos_);
        newline = true;
        ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '#' || (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '/')) {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '*') {
        size_t end = s_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) Fail("unterminated /* comment");
        for (size_t i = pos_; i < end; ++i) {
          if (s_[i] == '\n') {
            NewLine(i);
            newline = true;
          }
        }
        pos_ = end + 2;
      } else if (static_cast<unsigned char>(c) == 0xEF && s_.substr(pos_, 3) == "\xEF\xBB\xBF") {
        pos_ += 3;
      } else {
        break;
      }
    }
    return newline;
  }

  // A quoted string at pos_ (either quote); returns its decoded text.
  std::string String() {
    size_t open = pos_;
    size_t close = FindClosingQuote(s_, open, false);
    if (close == std::string_view::npos) Fail("unterminated string");
    for (size_t i = open; i < close; ++i) {
      if (s_[i] == '\n') NewLine(i);
    }
    pos_ = close + 1;
    std::string_view body = s_.substr(open + 1, close - open - 1);
    if (s_[open] == '\'') return std::string(body);
    if (body.find('\\') == std::string_view::npos) return std::string(body);
    return UnescapeDoubleQuoted(body);
  }

  std::string_view BareWord() {
    size_t start = pos_;
    while (pos_ < s_.size() && IsBareWordChar(s_[pos_])) ++pos_;
    if (pos_ == start) {
      Fail(std::string("unexpected character '") + s_[pos_] + "'");
    }
    return s_.substr(start, pos_ - start);
  }

  // Reads one value at pos_ into rows under `path`. Scalars are emitted with
  // `line` (their key's line, so a value on the next line still points at
  // its key); an empty container with the line where it opens.
  void Value(std::string& path, int depth, int64_t line) {
    if (pos_ >= s_.size()) Fail("unexpected end of text");
    char c = s_[pos_];
    if (c == '{' || c == '[') {
      if (depth >= kMaxDepth) Fail("nesting deeper than " + std::to_string(kMaxDepth));
      Container(path, depth + 1, c == '{');
    } else if (c == '"' || c == '\'') {
      std::string text = String();
      emit_(path, text, line);
    } else {
      std::string_view word = BareWord();
      emit_(path, word, line);
    }
  }

  void Container(std::string& path, int depth, bool is_object) {
    const int64_t open_line = line_;
    const char close = is_object ? '}' : ']';
    const size_t base = path.size();
    ++pos_;
    size_t count = 0;
    bool separated = false;
    for (;;) {
      bool newline = SkipSpace();
      if (pos_ >= s_.size()) Fail(is_object ? "unterminated object" : "unterminated array");
      if (s_[pos_] == close) {
        ++pos_;
        break;
      }
      if (count > 0 && !separated && !newline) {
        Fail(std::string("expected ',' or '") + close + "'");
      }
      int64_t item_line = line_;
      if (is_object) {
        std::string key =
            (s_[pos_] == '"' || s_[pos_] == '\'') ? String() : std::string(BareWord());
        SkipSpace();
        if (pos_ >= s_.size() || s_[pos_] != ':') Fail("expected ':' after key \"" + key + "\"");
        ++pos_;
        SkipSpace();
        if (base > 0) path.push_back('.');
        path.append(key);
      } else {
        path.push_back('[');
        path.append(std::to_string(count));
        path.push_back(']');
      }
      Value(path, depth, item_line);
      path.resize(base);
      ++count;
      separated = SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        separated = true;
      }
    }
    if (count == 0) emit_(path, is_object ? "{}" : "[]", open_line);
  }

  std::string_view s_;
  const ConfigEmit& emit_;
  size_t pos_ = 0;
  int64_t line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace

void ParseJsonConfig(std::string_view text, const ConfigEmit& emit) {
  JsonFlattener(text, emit).Run();
}

}  // namespace casefile::config_internal
