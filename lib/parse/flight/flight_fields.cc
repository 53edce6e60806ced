#include "parse/flight/flight_fields.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <utility>

namespace casefile::flight_internal {
namespace {

namespace od = simdjson::ondemand;

// A frames list longer than this is not read further; the user frame is
// near the top of any real stack.
constexpr size_t kMaxFrames = 512;
// pg_config / pg_status with more groups than this are read up to here.
constexpr size_t kMaxGroups = 100000;

std::string_view Trim(std::string_view s) {
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

// "42", "-1", "600000.0" (truncated); nullopt for anything else or out of
// the int64 range.
std::optional<int64_t> IntFromText(std::string_view text) {
  text = Trim(text);
  if (text.empty()) return std::nullopt;
  const char* end = text.data() + text.size();
  int64_t i = 0;
  auto [p, ec] = std::from_chars(text.data(), end, i);
  if (ec == std::errc() && p == end) return i;
  double d = 0;
  auto [pd, ecd] = std::from_chars(text.data(), end, d);
  if (ecd != std::errc() || pd != end || !std::isfinite(d) || d < -9.2e18 || d > 9.2e18) {
    return std::nullopt;
  }
  return static_cast<int64_t>(d);
}

od::json_type TypeOf(od::value& v, bool& ok) {
  od::json_type type = od::json_type::null;
  ok = v.type().get(type) == simdjson::SUCCESS;
  return type;
}

std::optional<int64_t> AsInt(od::value v) {
  bool ok = false;
  od::json_type type = TypeOf(v, ok);
  if (!ok) return std::nullopt;
  if (type == od::json_type::number) return IntFromText(v.raw_json_token());
  if (type == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s)) return std::nullopt;
    return IntFromText(s);
  }
  return std::nullopt;
}

std::optional<std::string> AsText(od::value v) {
  bool ok = false;
  od::json_type type = TypeOf(v, ok);
  if (!ok) return std::nullopt;
  if (type == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s)) return std::nullopt;
    return std::string(s);
  }
  if (type == od::json_type::number || type == od::json_type::boolean) {
    return std::string(Trim(v.raw_json_token()));
  }
  return std::nullopt;
}

std::optional<bool> AsBool(od::value v) {
  bool ok = false;
  od::json_type type = TypeOf(v, ok);
  if (!ok) return std::nullopt;
  if (type == od::json_type::boolean) {
    bool b = false;
    if (v.get_bool().get(b)) return std::nullopt;
    return b;
  }
  std::string_view text;
  if (type == od::json_type::number) {
    text = v.raw_json_token();
  } else if (type == od::json_type::string) {
    if (v.get_string().get(text)) return std::nullopt;
  } else {
    return std::nullopt;
  }
  text = Trim(text);
  if (text == "true" || text == "True") return true;
  if (text == "false" || text == "False") return false;
  if (std::optional<int64_t> i = IntFromText(text)) return *i != 0;
  return std::nullopt;
}

std::string Minify(std::string_view raw) {
  std::string out(raw.size(), '\0');
  size_t len = 0;
  if (simdjson::minify(raw.data(), raw.size(), out.data(), len) != simdjson::SUCCESS) {
    return std::string(Trim(raw));
  }
  out.resize(len);
  return out;
}

// Sizes and dtypes as compact JSON (flight_fields.h).
std::string AsCompactJson(od::value v) {
  bool ok = false;
  od::json_type type = TypeOf(v, ok);
  if (!ok) return "[]";
  std::string_view raw;
  switch (type) {
    case od::json_type::array: {
      od::array a;
      if (v.get_array().get(a) || a.raw_json().get(raw)) return "[]";
      return Minify(raw);
    }
    case od::json_type::object: {
      od::object o;
      if (v.get_object().get(o) || o.raw_json().get(raw)) return "[]";
      return Minify(raw);
    }
    case od::json_type::string: {
      std::string_view token = Trim(v.raw_json_token());
      std::string_view s;
      if (v.get_string().get(s)) return "[]";
      s = Trim(s);
      if (!s.empty() && s.front() == '[') return Minify(s);
      return std::string(token);
    }
    case od::json_type::number:
    case od::json_type::boolean:
      return std::string(Trim(v.raw_json_token()));
    case od::json_type::null:
      break;
  }
  return "[]";
}

bool IsInternalFrame(std::string_view filename) {
  std::string f(filename);
  for (char& c : f) {
    if (c == '\\') c = '/';
  }
  return f.find("torch/distributed/") != std::string::npos ||
         f.find("torch/nn/parallel/") != std::string::npos;
}

std::string FrameText(const std::optional<std::string>& name,
                      const std::optional<std::string>& file,
                      const std::optional<std::string>& line) {
  std::string text = name && !name->empty() ? *name : "?";
  if (file) {
    text += " at " + *file;
    if (line) text += ":" + *line;
  }
  return text;
}

// The frame column: the first frame outside torch's distributed code (the
// caller that issued the collective), else the first frame.
std::optional<std::string> ReadFrames(od::value v) {
  od::array frames;
  if (v.get_array().get(frames)) return std::nullopt;
  std::optional<std::string> first;
  size_t n = 0;
  for (auto item : frames) {
    if (++n > kMaxFrames) break;
    od::object frame;
    if (item.get_object().get(frame)) continue;
    std::optional<std::string> name, file, line;
    for (auto f : frame) {
      od::field field;
      std::string_view key;
      if (std::move(f).get(field) || field.unescaped_key().get(key)) break;
      if (key == "name") {
        name = AsText(field.value());
      } else if (key == "filename") {
        file = AsText(field.value());
      } else if (key == "line") {
        line = AsText(field.value());
      }
    }
    if (!name && !file) continue;
    std::string text = FrameText(name, file, line);
    if (!file || !IsInternalFrame(*file)) return text;
    if (!first) first = std::move(text);
  }
  return first;
}

// ["name", "desc"] (the tuple of the pickle form), or a lone name.
void ReadProcessGroup(od::value v, EntryGroup& group, std::optional<std::string>& desc) {
  bool ok = false;
  od::json_type type = TypeOf(v, ok);
  if (!ok) return;
  if (type != od::json_type::array) {
    group.name = AsText(v);
    return;
  }
  od::array a;
  if (v.get_array().get(a)) return;
  size_t i = 0;
  for (auto item : a) {
    od::value x;
    if (std::move(item).get(x)) return;
    if (i == 0) group.name = AsText(x);
    if (i == 1) desc = AsText(x);
    if (++i == 2) break;
  }
}

std::string RanksFromArray(od::value v) {
  od::array a;
  if (v.get_array().get(a)) return "[]";
  std::string out = "[";
  for (auto item : a) {
    od::value x;
    if (std::move(item).get(x)) return "[]";
    std::optional<int64_t> r = AsInt(x);
    if (!r) return "[]";
    if (out.size() > 1) out += ',';
    out += std::to_string(*r);
  }
  return out + "]";
}

simdjson::padded_string_view View(PaddedJson json) {
  return simdjson::padded_string_view(json.data, json.len, json.capacity);
}

}  // namespace

size_t JsonPadding() { return simdjson::SIMDJSON_PADDING; }

std::optional<std::string> RanksListFromText(std::string_view text) {
  text = Trim(text);
  if (text.size() >= 2 &&
      ((text.front() == '[' && text.back() == ']') || (text.front() == '(' && text.back() == ')') ||
       (text.front() == '{' && text.back() == '}'))) {
    text = Trim(text.substr(1, text.size() - 2));
  }
  std::string out = "[";
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = Trim(text.substr(0, comma));
    int64_t r = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), r);
    if (item.empty() || ec != std::errc() || p != item.data() + item.size()) {
      // A trailing comma ("(0,)", Python's one-tuple) is the only empty item.
      if (item.empty() && comma == std::string_view::npos && out.size() > 1) break;
      return std::nullopt;
    }
    if (out.size() > 1) out += ',';
    out += std::to_string(r);
    if (comma == std::string_view::npos) break;
    text = text.substr(comma + 1);
  }
  return out + "]";
}

struct FieldReader::Impl {
  od::parser parser;
};

FieldReader::FieldReader() : impl_(std::make_unique<Impl>()) {}
FieldReader::~FieldReader() = default;

bool FieldReader::ReadEntry(PaddedJson json, FrEntryRow& row, EntryGroup& group, std::string& why) {
  od::document doc;
  od::object obj;
  if (auto error = impl_->parser.iterate(View(json)).get(doc)) {
    why = simdjson::error_message(error);
    return false;
  }
  if (auto error = doc.get_object().get(obj)) {
    why = error == simdjson::INCORRECT_TYPE ? "not an object" : simdjson::error_message(error);
    return false;
  }
  std::optional<std::string> desc;
  std::optional<bool> is_p2p;
  for (auto f : obj) {
    od::field field;
    std::string_view key;
    if (auto error = std::move(f).get(field)) {
      why = simdjson::error_message(error);
      return false;
    }
    if (auto error = field.unescaped_key().get(key)) {
      why = simdjson::error_message(error);
      return false;
    }
    od::value v = field.value();
    if (key == "record_id") {
      if (std::optional<int64_t> i = AsInt(v)) {
        row.record_id = *i;
        group.has_record_id = true;
      }
    } else if (key == "pg_id") {
      group.numeric_id = AsText(v);
    } else if (key == "process_group") {
      ReadProcessGroup(v, group, desc);
    } else if (key == "collective_seq_id") {
      row.collective_seq_id = AsInt(v);
    } else if (key == "p2p_seq_id") {
      row.p2p_seq_id = AsInt(v);
    } else if (key == "profiling_name") {
      row.op = AsText(v).value_or("");
    } else if (key == "state") {
      row.state = AsText(v).value_or("");
    } else if (key == "input_sizes") {
      row.input_sizes = AsCompactJson(v);
    } else if (key == "output_sizes") {
      row.output_sizes = AsCompactJson(v);
    } else if (key == "input_dtypes") {
      row.input_dtypes = AsCompactJson(v);
    } else if (key == "output_dtypes") {
      row.output_dtypes = AsCompactJson(v);
    } else if (key == "timeout_ms") {
      row.timeout_ms = AsInt(v);
    } else if (key == "time_created_ns") {
      row.time_created_ns = AsInt(v);
    } else if (key == "is_p2p") {
      is_p2p = AsBool(v);
    } else if (key == "retired") {
      row.retired = AsBool(v).value_or(false);
    } else if (key == "frames") {
      row.frame = ReadFrames(v);
    }
  }
  if (group.name && !group.name->empty()) {
    row.pg_id = *group.name;
  } else if (group.numeric_id) {
    row.pg_id = *group.numeric_id;
  }
  row.pg_desc = desc;
  // Dumps older than is_p2p name p2p ops "nccl:send 1->2" / "nccl:recv 3<-0".
  row.is_p2p = is_p2p.value_or(row.op.find("send") != std::string::npos ||
                               row.op.find("recv") != std::string::npos);
  return true;
}

namespace {

// Calls member(key, value) for each member of the object `json` holds,
// until it returns false; false with `why` when the text is not an object or
// is damaged. pg_config and pg_status are both objects keyed by group.
template <typename Member>
bool ForEachGroup(od::parser& parser, PaddedJson json, const char* what, std::string& why,
                  Member&& member) {
  od::document doc;
  od::object obj;
  if (auto error = parser.iterate(View(json)).get(doc)) {
    why = simdjson::error_message(error);
    return false;
  }
  if (doc.get_object().get(obj)) {
    why = std::string(what) + " is not an object";
    return false;
  }
  for (auto f : obj) {
    od::field field;
    std::string_view key;
    if (auto error = std::move(f).get(field)) {
      why = simdjson::error_message(error);
      return false;
    }
    if (auto error = field.unescaped_key().get(key)) {
      why = simdjson::error_message(error);
      return false;
    }
    if (!member(key, field.value())) break;
  }
  return true;
}

}  // namespace

bool FieldReader::ReadPgConfig(PaddedJson json, std::vector<PgConfigItem>& out, std::string& why) {
  return ForEachGroup(impl_->parser, json, "pg_config", why,
                      [&](std::string_view key, od::value value) {
                        if (out.size() == kMaxGroups) return false;
                        PgConfigItem item;
                        item.key = std::string(key);
                        item.ranks = "[]";
                        od::object info;
                        // A group whose description is not an object still exists: its row
                        // keeps the name pg_config gives it.
                        if (value.get_object().get(info)) {
                          out.push_back(std::move(item));
                          return true;
                        }
                        for (auto g : info) {
                          od::field gf;
                          std::string_view gkey;
                          if (std::move(g).get(gf) || gf.unescaped_key().get(gkey)) break;
                          od::value v = gf.value();
                          if (gkey == "name") {
                            item.name = AsText(v);
                          } else if (gkey == "desc") {
                            item.desc = AsText(v);
                          } else if (gkey == "ranks") {
                            bool ok = false;
                            od::json_type type = TypeOf(v, ok);
                            if (ok && type == od::json_type::array) {
                              item.ranks = RanksFromArray(v);
                            } else if (std::optional<std::string> text = AsText(v)) {
                              item.ranks = RanksListFromText(*text).value_or("[]");
                            }
                          }
                        }
                        out.push_back(std::move(item));
                        return true;
                      });
}

bool FieldReader::ReadPgStatus(PaddedJson json, std::vector<PgStatusItem>& out, std::string& why) {
  return ForEachGroup(impl_->parser, json, "pg_status", why,
                      [&](std::string_view key, od::value value) {
                        if (out.size() == kMaxGroups) return false;
                        PgStatusItem item;
                        item.key = std::string(key);
                        od::object status;
                        if (value.get_object().get(status)) return true;
                        for (auto g : status) {
                          od::field gf;
                          std::string_view gkey;
                          if (std::move(g).get(gf) || gf.unescaped_key().get(gkey)) break;
                          if (gkey == "last_enqueued_collective") {
                            item.last_enqueued = AsInt(gf.value());
                          } else if (gkey == "last_started_collective") {
                            item.last_started = AsInt(gf.value());
                          } else if (gkey == "last_completed_collective") {
                            item.last_completed = AsInt(gf.value());
                          }
                        }
                        out.push_back(std::move(item));
                        return true;
                      });
}

std::optional<int64_t> ScalarInt(std::string_view text) {
  text = Trim(text);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    text = text.substr(1, text.size() - 2);
  }
  return IntFromText(text);
}

std::optional<std::string> ScalarText(std::string_view text) {
  text = Trim(text);
  if (text.empty() || text.front() == '{' || text.front() == '[' || text == "null") {
    return std::nullopt;
  }
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    text = text.substr(1, text.size() - 2);
  }
  return std::string(text);
}

}  // namespace casefile::flight_internal
