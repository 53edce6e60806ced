// Parses one trace event object (cut out by TraceTokenizer) into its fields
// with simdjson on-demand. Internal to parse/trace: it exposes simdjson,
// which stays a private dependency of cf_parse.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>

namespace casefile::trace_internal {

struct TraceEventFields {
  std::string ph;
  std::string name;
  std::string cat;
  std::string pid;  // ints and strings both occur; kept as text, "" when absent or null
  std::string tid;
  std::optional<double> ts;   // µs; numbers or numeric strings ("1e-6", "1234.567")
  std::optional<double> dur;  // µs
  std::string args = "{}";    // raw JSON text of "args"
};

class TraceEventParser {
 public:
  // Fills `out` from `object`; returns "" on success, else why the event is
  // invalid (bad JSON, not an object, wrong field type, no "ph").
  std::string Parse(std::string_view object, TraceEventFields& out);

  // The string "name" member of an args object (metadata events); nullopt
  // when absent or not a string.
  std::optional<std::string> ArgsName(std::string_view args);

 private:
  simdjson::simdjson_result<simdjson::ondemand::document> Iterate(std::string_view json);

  simdjson::ondemand::parser parser_;
  std::string padded_;  // reused copy with simdjson's padding after the text
};

}  // namespace casefile::trace_internal
