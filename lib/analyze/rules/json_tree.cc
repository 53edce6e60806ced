#include "analyze/rules/json_tree.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <unordered_set>

namespace casefile::rules {
namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  Parser(std::string_view text, JsonParseError& error) : text_(text), error_(error) {}

  std::unique_ptr<JsonValue> Document() {
    // A UTF-8 byte order mark, as some editors write, is not JSON but harmless.
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    SkipSpace();
    auto value = Value(0);
    if (!value) return nullptr;
    SkipSpace();
    if (pos_ < text_.size()) return Fail("unexpected text after the JSON value");
    return value;
  }

 private:
  std::unique_ptr<JsonValue> Fail(std::string message) {
    if (!failed_) {
      failed_ = true;
      error_.offset = pos_;
      error_.message = std::move(message);
    }
    return nullptr;
  }

  void SkipSpace() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  bool Literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  std::unique_ptr<JsonValue> Value(int depth) {
    if (depth > kMaxDepth) return Fail("nesting deeper than 64 levels");
    if (pos_ >= text_.size()) return Fail("unexpected end of the text: a value is missing");
    auto v = std::make_unique<JsonValue>();
    v->offset = pos_;
    const char c = text_[pos_];
    if (c == '{') return Object(std::move(v), depth);
    if (c == '[') return Array(std::move(v), depth);
    if (c == '"') {
      v->type = JsonValue::Type::kString;
      if (!String(v->string)) return nullptr;
      return v;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return Number(std::move(v));
    if (Literal("true")) {
      v->type = JsonValue::Type::kBool;
      v->boolean = true;
      return v;
    }
    if (Literal("false")) {
      v->type = JsonValue::Type::kBool;
      return v;
    }
    if (Literal("null")) return v;
    return Fail("expected a value (string, number, object, array, true, false or null)");
  }

  std::unique_ptr<JsonValue> Object(std::unique_ptr<JsonValue> v, int depth) {
    v->type = JsonValue::Type::kObject;
    ++pos_;  // '{'
    SkipSpace();
    std::unordered_set<std::string> keys;
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return v;
    }
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size()) return Fail("unexpected end of the text inside an object");
      if (text_[pos_] != '"') return Fail("expected a key in double quotes");
      JsonMember m;
      m.key_offset = pos_;
      if (!String(m.key)) return nullptr;
      // A hash set per object: a scan of the members per key made a pack
      // of 80000 keys take 43 s.
      if (!keys.insert(m.key).second) {
        pos_ = m.key_offset;
        return Fail("duplicate key \"" + m.key + "\"");
      }
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':') return Fail("expected ':' after the key");
      ++pos_;
      SkipSpace();
      m.value = Value(depth + 1);
      if (!m.value) return nullptr;
      v->members.push_back(std::move(m));
      SkipSpace();
      if (pos_ >= text_.size()) return Fail("unexpected end of the text inside an object");
      if (text_[pos_] == ',') {
        ++pos_;
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == '}') return Fail("trailing comma in an object");
        continue;
      }
      if (text_[pos_] == '}') {
        ++pos_;
        return v;
      }
      return Fail("expected ',' or '}' in an object");
    }
  }

  std::unique_ptr<JsonValue> Array(std::unique_ptr<JsonValue> v, int depth) {
    v->type = JsonValue::Type::kArray;
    ++pos_;  // '['
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return v;
    }
    while (true) {
      SkipSpace();
      auto item = Value(depth + 1);
      if (!item) return nullptr;
      v->items.push_back(std::move(item));
      SkipSpace();
      if (pos_ >= text_.size()) return Fail("unexpected end of the text inside an array");
      if (text_[pos_] == ',') {
        ++pos_;
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ']') return Fail("trailing comma in an array");
        continue;
      }
      if (text_[pos_] == ']') {
        ++pos_;
        return v;
      }
      return Fail("expected ',' or ']' in an array");
    }
  }

  static void AppendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool Hex4(uint32_t& out) {
    if (pos_ + 4 > text_.size()) return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_ + i];
      out <<= 4;
      if (c >= '0' && c <= '9') {
        out |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        out |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        out |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return false;
      }
    }
    pos_ += 4;
    return true;
  }

  // Reads a string starting at the opening quote into `out`.
  bool String(std::string& out) {
    ++pos_;  // '"'
    while (true) {
      if (pos_ >= text_.size()) {
        Fail("unterminated string");
        return false;
      }
      const unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) {
        Fail(c == '\n' ? "unterminated string (a line break inside a string must be written \\n)"
                       : "control character inside a string");
        return false;
      }
      if (c != '\\') {
        out += static_cast<char>(c);
        ++pos_;
        continue;
      }
      const size_t escape_at = pos_;
      ++pos_;
      if (pos_ >= text_.size()) {
        Fail("unterminated string");
        return false;
      }
      const char e = text_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(cp)) {
            pos_ = escape_at;
            Fail("\\u must be followed by four hex digits");
            return false;
          }
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low = 0;
            if (text_.substr(pos_, 2) == "\\u") {
              pos_ += 2;
              if (!Hex4(low) || low < 0xDC00 || low > 0xDFFF) {
                pos_ = escape_at;
                Fail("a high surrogate \\u escape must be followed by a low surrogate");
                return false;
              }
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else {
              pos_ = escape_at;
              Fail("a high surrogate \\u escape must be followed by a low surrogate");
              return false;
            }
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            pos_ = escape_at;
            Fail("a lone low surrogate \\u escape");
            return false;
          }
          AppendUtf8(out, cp);
          break;
        }
        default:
          pos_ = escape_at;
          Fail(std::string("unknown escape \\") + e +
               " (a regex backslash is written \\\\ in JSON, e.g. \"\\\\d+\")");
          return false;
      }
    }
  }

  std::unique_ptr<JsonValue> Number(std::unique_ptr<JsonValue> v) {
    const size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    const size_t int_start = pos_;
    if (digits() == 0) return Fail("expected digits in a number");
    if (text_[int_start] == '0' && pos_ - int_start > 1) {
      pos_ = int_start;
      return Fail("a number may not start with 0");
    }
    bool integer = true;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      integer = false;
      ++pos_;
      if (digits() == 0) return Fail("expected digits after the decimal point");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      integer = false;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) return Fail("expected digits in the exponent");
    }
    v->type = JsonValue::Type::kNumber;
    v->is_integer = integer;
    v->number = std::strtod(std::string(text_.substr(start, pos_ - start)).c_str(), nullptr);
    return v;
  }

  std::string_view text_;
  JsonParseError& error_;
  size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (const JsonMember& m : members) {
    if (m.key == key) return m.value.get();
  }
  return nullptr;
}

const char* JsonTypeName(JsonValue::Type type) {
  switch (type) {
    case JsonValue::Type::kNull:
      return "null";
    case JsonValue::Type::kBool:
      return "a boolean";
    case JsonValue::Type::kNumber:
      return "a number";
    case JsonValue::Type::kString:
      return "a string";
    case JsonValue::Type::kArray:
      return "an array";
    case JsonValue::Type::kObject:
      return "an object";
  }
  return "a value";
}

std::unique_ptr<JsonValue> ParseJson(std::string_view text, JsonParseError& error) {
  Parser parser(text, error);
  return parser.Document();
}

PositionCursor::PositionCursor(std::string_view text) : text_(text) {
  // A byte order mark is no character an editor shows: the parser skips it,
  // so columns on line 1 do too.
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") at_ = 3;
}

TextPosition PositionCursor::Advance(size_t offset) {
  offset = std::min(offset, text_.size());
  for (; at_ < offset; ++at_) {
    const unsigned char c = static_cast<unsigned char>(text_[at_]);
    if (c == '\n') {
      ++position_.line;
      position_.column = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++position_.column;  // continuation bytes belong to the character before
    }
  }
  return position_;
}

TextPosition PositionOf(std::string_view text, size_t offset) {
  PositionCursor cursor(text);
  return cursor.Advance(offset);
}

}  // namespace casefile::rules
