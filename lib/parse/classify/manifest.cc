#include "parse/classify/manifest.h"

#include <simdjson.h>

#include <charconv>

#include "common/error.h"
#include "parse/classify/classify.h"

namespace casefile {
namespace {

namespace dom = simdjson::dom;

[[noreturn]] void Corrupt(const std::string& what) {
  throw Error(ErrorCode::kCorrupt, "casefile.json: " + what);
}

std::string NormaliseFilePath(std::string_view path) {
  for (;;) {
    if (path.substr(0, 2) == "./") {
      path.remove_prefix(2);
    } else if (!path.empty() && path[0] == '/') {
      path.remove_prefix(1);
    } else {
      break;
    }
  }
  return std::string(path);
}

std::optional<std::string> OptionalString(dom::object obj, std::string_view key,
                                          const std::string& where) {
  dom::element value;
  if (obj[key].get(value) != simdjson::SUCCESS || value.is_null()) return std::nullopt;
  std::string_view text;
  if (value.get_string().get(text) != simdjson::SUCCESS) {
    Corrupt(where + std::string(key) + " must be a string");
  }
  return std::string(text);
}

std::optional<int64_t> OptionalRank(dom::object obj, const std::string& where) {
  dom::element value;
  if (obj["rank"].get(value) != simdjson::SUCCESS || value.is_null()) return std::nullopt;
  int64_t rank = 0;
  if (value.get_int64().get(rank) == simdjson::SUCCESS) {
    if (rank < 0) Corrupt(where + "rank must not be negative");
    return rank;
  }
  std::string_view text;
  if (value.get_string().get(text) == simdjson::SUCCESS && !text.empty()) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), rank);
    if (ec == std::errc() && end == text.data() + text.size() && rank >= 0) return rank;
  }
  Corrupt(where + "rank must be an integer");
}

ManifestFile ParseFileEntry(dom::element entry, size_t index, std::string& path_out) {
  std::string where = "files[" + std::to_string(index) + "].";
  dom::object obj;
  if (entry.get_object().get(obj) != simdjson::SUCCESS) {
    Corrupt("files[" + std::to_string(index) + "] must be an object");
  }
  std::optional<std::string> path = OptionalString(obj, "path", where);
  if (!path || path->empty()) Corrupt(where + "path is required");
  path_out = NormaliseFilePath(*path);
  ManifestFile file;
  if (std::optional<std::string> kind = OptionalString(obj, "kind", where)) {
    file.kind = FileKindFromName(*kind);
  }
  file.host = OptionalString(obj, "host", where);
  file.task = OptionalString(obj, "task", where);
  file.rank = OptionalRank(obj, where);
  return file;
}

}  // namespace

Manifest ParseManifest(std::string_view json) {
  if (json.size() > kMaxManifestBytes) {
    throw Error(ErrorCode::kLimit,
                "casefile.json: larger than " + std::to_string(kMaxManifestBytes) + " bytes");
  }
  dom::parser parser;
  simdjson::padded_string padded(json);
  dom::element root;
  if (auto error = parser.parse(padded).get(root)) {
    Corrupt(std::string("not valid JSON (") + simdjson::error_message(error) + ")");
  }
  dom::object obj;
  if (root.get_object().get(obj) != simdjson::SUCCESS) Corrupt("the root must be an object");

  Manifest manifest;
  dom::element value;
  if (obj["format_version"].get(value) == simdjson::SUCCESS && !value.is_null()) {
    if (value.get_int64().get(manifest.format_version) != simdjson::SUCCESS) {
      Corrupt("format_version must be an integer");
    }
  }
  manifest.host = OptionalString(obj, "host", "");
  if (obj["labels"].get(value) == simdjson::SUCCESS && !value.is_null()) {
    dom::object labels;
    if (value.get_object().get(labels) != simdjson::SUCCESS) Corrupt("labels must be an object");
    for (dom::key_value_pair kv : labels) {
      std::string_view text;
      if (kv.value.get_string().get(text) == simdjson::SUCCESS) {
        manifest.labels[std::string(kv.key)] = std::string(text);
      } else {
        manifest.labels[std::string(kv.key)] = simdjson::minify(kv.value);
      }
    }
  }
  if (obj["files"].get(value) == simdjson::SUCCESS && !value.is_null()) {
    dom::array files;
    if (value.get_array().get(files) != simdjson::SUCCESS) Corrupt("files must be an array");
    size_t index = 0;
    for (dom::element entry : files) {
      std::string path;
      ManifestFile file = ParseFileEntry(entry, index++, path);
      manifest.files[std::move(path)] = std::move(file);
    }
  }
  return manifest;
}

}  // namespace casefile
