// A small streaming JSON writer. Output is deterministic (the caller chooses
// key order) and always valid UTF-8: invalid bytes in log text become U+FFFD,
// so a corrupt log line can never produce unparseable JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace casefile {

class JsonWriter {
 public:
  explicit JsonWriter(int indent = 2) : indent_(indent) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Double(double value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  // Convenience: a string value or null.
  JsonWriter& OptString(const std::optional<std::string>& value);
  JsonWriter& OptInt(const std::optional<int64_t>& value);
  // Inserts already-serialised JSON as a value.
  JsonWriter& Raw(std::string_view json);

  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void BeforeValue();
  void Newline();

  struct Level {
    bool is_object;
    bool empty = true;
  };
  int indent_;
  std::string out_;
  std::vector<Level> stack_;
  bool after_key_ = false;
};

// Appends `text` to `out` as a JSON string body (no quotes), escaping control
// characters and replacing invalid UTF-8 with U+FFFD.
void AppendJsonEscaped(std::string& out, std::string_view text);

// Returns `text` with invalid UTF-8 sequences replaced by U+FFFD.
std::string SanitizeUtf8(std::string_view text);

}  // namespace casefile
