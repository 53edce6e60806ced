// Reads the parts of a flight-recorder dump (one entry, pg_config,
// pg_status, a scalar) from JSON text with simdjson. Both forms of the dump
// come through here: the JSON form directly, the pickle form after each part
// was written out as JSON (pickle_json.h), so the two give the same rows.
//
// Field rules (formats.md 3.3), lenient on types because dumps come from many
// torch versions and the JSON form writes some numbers as strings:
// - integers: a number (a float is truncated) or a string holding one;
//   anything else is "absent";
// - texts: a string, or a number/bool as written;
// - sizes and dtypes: compact JSON ("[[3,4]]", "[\"Float\"]"); a string that
//   holds a JSON list is taken as that list; absent or null -> "[]";
// - is_p2p absent -> true when profiling_name names a send or recv;
// - frame: the first frame (innermost first) outside torch.distributed and
//   torch.nn.parallel, else the first frame: "name at filename:line".
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/index_types.h"

namespace casefile::flight_internal {

// `len` bytes of JSON at `data`; the bytes up to data + capacity are
// readable (simdjson reads up to 64 bytes past the end).
struct PaddedJson {
  const char* data = nullptr;
  size_t len = 0;
  size_t capacity = 0;
};

// The padding simdjson needs after the text.
size_t JsonPadding();

struct PgConfigItem {
  std::string key;  // the group's name, as pg_config keys it
  std::optional<std::string> name;
  std::optional<std::string> desc;
  std::string ranks;  // compact JSON list of ints; "[]" when unreadable
};

struct PgStatusItem {
  std::string key;  // the group's numeric id, as pg_status keys it
  std::optional<int64_t> last_enqueued;
  std::optional<int64_t> last_started;
  std::optional<int64_t> last_completed;
};

// What an entry says of its group besides the row.
struct EntryGroup {
  std::optional<std::string> numeric_id;  // "pg_id"
  std::optional<std::string> name;        // process_group[0]
  bool has_record_id = false;
};

class FieldReader {
 public:
  FieldReader();
  ~FieldReader();
  FieldReader(const FieldReader&) = delete;
  FieldReader& operator=(const FieldReader&) = delete;

  // Fills the entry columns of `row` (not file_id, rank, line_no). pg_id is
  // the group's name (process_group[0]) when the entry has one, else its
  // numeric pg_id. False, with `why`, when the text is not a readable object.
  bool ReadEntry(PaddedJson json, FrEntryRow& row, EntryGroup& group, std::string& why);
  bool ReadPgConfig(PaddedJson json, std::vector<PgConfigItem>& out, std::string& why);
  bool ReadPgStatus(PaddedJson json, std::vector<PgStatusItem>& out, std::string& why);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A top-level scalar as written ("3", "\"3\"", "\"2.5\""); nullopt when it
// is not an integer / not a scalar.
std::optional<int64_t> ScalarInt(std::string_view text);
std::optional<std::string> ScalarText(std::string_view text);

// "[0, 1]", "0,1", "[]" -> "[0,1]", "[0,1]", "[]"; nullopt when the text is
// not a list of integers.
std::optional<std::string> RanksListFromText(std::string_view text);

}  // namespace casefile::flight_internal
