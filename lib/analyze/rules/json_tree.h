// A small JSON reader that remembers where every value starts. Rule packs
// are hand-written files of a few kilobytes, and every error in them must
// name a line and column; simdjson gives neither for values nor for syntax
// errors, so packs are read by this recursive-descent parser instead (it is
// never used on hot paths: one pack is read once per load).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace casefile::rules {

struct JsonValue;

struct JsonMember {
  std::string key;
  size_t key_offset = 0;  // byte offset of the key's opening quote
  std::unique_ptr<JsonValue> value;
};

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  size_t offset = 0;  // byte offset of the value's first byte in the text
  bool boolean = false;
  double number = 0;
  bool is_integer = false;  // a number written without fraction or exponent
  std::string string;       // unescaped
  std::vector<std::unique_ptr<JsonValue>> items;
  std::vector<JsonMember> members;  // in the order written (duplicates refused)

  const JsonValue* Find(std::string_view key) const;
};

const char* JsonTypeName(JsonValue::Type type);  // "string", "object", ...

struct JsonParseError {
  size_t offset = 0;
  std::string message;
};

// Parses `text` as one JSON document. On a syntax error returns nullptr and
// fills `error` with the offset where reading stopped. Duplicate keys in an
// object are a syntax error (a second "match" would silently win otherwise).
// Nesting deeper than 64 levels is refused (no pack needs it; the parser
// recurses).
std::unique_ptr<JsonValue> ParseJson(std::string_view text, JsonParseError& error);

// 1-based line and column of a byte offset; columns count characters
// (UTF-8 code points), as editors do.
struct TextPosition {
  size_t line = 1;
  size_t column = 1;
};
TextPosition PositionOf(std::string_view text, size_t offset);

// PositionOf for increasing offsets, in one pass over the text.
class PositionCursor {
 public:
  explicit PositionCursor(std::string_view text);
  // `offset` must not be below the previous call's.
  TextPosition Advance(size_t offset);

 private:
  std::string_view text_;
  size_t at_ = 0;
  TextPosition position_;
};

}  // namespace casefile::rules
