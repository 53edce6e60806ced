// A JSON tree for the collector's tests, so that they can walk a manifest
// with Find(key) / items / text; built from simdjson's DOM (the parser the
// project uses), no parsing of its own.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace casefile::collect {

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  std::string text;  // a string's value, or a number's text
  std::optional<uint64_t> uint;
  std::vector<JsonValue> items;
  // An object's members as two parallel lists: a std::pair of the type
  // being defined is ill-formed (clang rejects it; libstdc++ lets it pass).
  std::vector<std::string> keys;
  std::vector<JsonValue> values;

  const JsonValue* Find(std::string_view key) const {
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == key) return &values[i];
    }
    return nullptr;
  }
  std::optional<uint64_t> AsUint64() const { return uint; }
  bool IsString() const { return type == Type::kString; }
};

inline JsonValue ToTree(simdjson::dom::element e) {
  JsonValue v;
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY:
      v.type = JsonValue::Type::kArray;
      {
        // Held in a local: the range of a range-for over get_array().value()
        // would refer into a temporary that is gone.
        simdjson::dom::array array;
        if (e.get(array) == simdjson::SUCCESS) {
          for (simdjson::dom::element item : array) v.items.push_back(ToTree(item));
        }
      }
      break;
    case simdjson::dom::element_type::OBJECT:
      v.type = JsonValue::Type::kObject;
      {
        simdjson::dom::object object;
        if (e.get(object) == simdjson::SUCCESS) {
          for (auto field : object) {
            v.keys.emplace_back(field.key);
            v.values.push_back(ToTree(field.value));
          }
        }
      }
      break;
    case simdjson::dom::element_type::STRING:
      v.type = JsonValue::Type::kString;
      v.text = std::string(e.get_string().value());
      break;
    case simdjson::dom::element_type::UINT64:
    case simdjson::dom::element_type::INT64:
    case simdjson::dom::element_type::DOUBLE: {
      v.type = JsonValue::Type::kNumber;
      uint64_t u = 0;
      if (e.get(u) == simdjson::SUCCESS) v.uint = u;
      v.text = simdjson::to_string(e);
      break;
    }
    case simdjson::dom::element_type::BOOL:
      v.type = JsonValue::Type::kBool;
      v.boolean = e.get_bool().value();
      break;
    case simdjson::dom::element_type::NULL_VALUE:
      break;
  }
  return v;
}

// Throws std::runtime_error when `json` is not JSON.
inline JsonValue ParseJson(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto err = parser.parse(json).get(root))
    throw std::runtime_error(std::string("not JSON: ") + simdjson::error_message(err));
  return ToTree(root);
}

}  // namespace casefile::collect
