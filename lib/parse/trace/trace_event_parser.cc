#include "parse/trace/trace_event_parser.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace casefile::trace_internal {
namespace {

namespace od = simdjson::ondemand;

std::string_view TrimWs(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Any value as text: strings unescaped, numbers and booleans as written,
// null as "", objects and arrays as their raw JSON.
simdjson::error_code ReadText(od::value value, std::string& out) {
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  std::string_view text;
  switch (type) {
    case od::json_type::string:
      if (auto error = value.get_string().get(text)) return error;
      break;
    case od::json_type::number:
    case od::json_type::boolean:
      text = TrimWs(value.raw_json_token());
      break;
    case od::json_type::null:
      break;
    case od::json_type::object: {
      od::object obj;
      if (auto error = value.get_object().get(obj)) return error;
      if (auto error = obj.raw_json().get(text)) return error;
      break;
    }
    case od::json_type::array: {
      od::array arr;
      if (auto error = value.get_array().get(arr)) return error;
      if (auto error = arr.raw_json().get(text)) return error;
      break;
    }
  }
  out.assign(TrimWs(text));
  return simdjson::SUCCESS;
}

// A number, or a string holding one (Kineto writes "{us}.{ns:03}").
bool ReadNumber(od::value value, std::optional<double>& out) {
  od::json_type type;
  if (value.type().get(type)) return false;
  if (type == od::json_type::null) {
    out.reset();
    return true;
  }
  if (type == od::json_type::number) {
    double d = 0;
    if (value.get_double().get(d) || !std::isfinite(d)) return false;
    out = d;
    return true;
  }
  if (type != od::json_type::string) return false;
  std::string_view text;
  if (value.get_string().get(text)) return false;
  text = TrimWs(text);
  double d = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return false;
  // from_chars reads "inf" and "nan": a time that is not a number is invalid.
  if (!std::isfinite(d)) return false;
  out = d;
  return true;
}

}  // namespace

simdjson::simdjson_result<od::document> TraceEventParser::Iterate(std::string_view json) {
  if (padded_.size() < json.size() + simdjson::SIMDJSON_PADDING)
    padded_.resize(json.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(padded_.data(), json.data(), json.size());
  std::memset(padded_.data() + json.size(), 0, simdjson::SIMDJSON_PADDING);
  return parser_.iterate(padded_.data(), json.size(), padded_.size());
}

std::string TraceEventParser::Parse(std::string_view object, TraceEventFields& out) {
  out = TraceEventFields();
  od::document doc;
  if (auto error = Iterate(object).get(doc)) return simdjson::error_message(error);
  od::object obj;
  if (auto error = doc.get_object().get(obj)) return simdjson::error_message(error);
  for (auto member : obj) {
    od::field field;
    if (auto error = std::move(member).get(field)) return simdjson::error_message(error);
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return simdjson::error_message(error);
    od::value value = field.value();
    simdjson::error_code error = simdjson::SUCCESS;
    if (key == "ph") {
      error = ReadText(value, out.ph);
    } else if (key == "name") {
      error = ReadText(value, out.name);
    } else if (key == "cat") {
      error = ReadText(value, out.cat);
    } else if (key == "pid") {
      error = ReadText(value, out.pid);
    } else if (key == "tid") {
      error = ReadText(value, out.tid);
    } else if (key == "ts") {
      if (!ReadNumber(value, out.ts)) return "\"ts\" is not a number";
    } else if (key == "dur") {
      if (!ReadNumber(value, out.dur)) return "\"dur\" is not a number";
    } else if (key == "args") {
      error = ReadText(value, out.args);
      if (out.args.empty()) out.args = "{}";  // "args": null
    }
    if (error) return simdjson::error_message(error);
  }
  if (out.ph.empty()) return "no \"ph\" (phase)";
  return "";
}

std::optional<std::string> TraceEventParser::ArgsName(std::string_view args) {
  od::document doc;
  if (Iterate(args).get(doc)) return std::nullopt;
  od::object obj;
  if (doc.get_object().get(obj)) return std::nullopt;
  std::string_view name;
  if (obj.find_field_unordered("name").get_string().get(name)) return std::nullopt;
  return std::string(name);
}

}  // namespace casefile::trace_internal
