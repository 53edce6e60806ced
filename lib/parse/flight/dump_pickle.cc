// The pickle form: the stream is read into plain values (pickle_reader.h),
// then the top level and each entry are written out as JSON for the field
// reader. An entry's line is the line of its EMPTY_DICT opcode, counted in
// the raw bytes as the line index counts them.
#include <algorithm>
#include <utility>
#include <vector>

#include "parse/flight/dump_forms.h"
#include "parse/flight/pickle_json.h"
#include "parse/flight/pickle_reader.h"

namespace casefile::flight_internal {
namespace {

// One entry written as JSON is far below this; more means shared values
// repeated without end.
constexpr size_t kMaxEntryJson = 1u << 20;
constexpr size_t kMaxGroupsJson = 32u << 20;

class PickleDumpReader {
 public:
  PickleDumpReader(std::string_view dump, DumpAssembler& out) : s_(dump), out_(out) {}

  void Run() {
    PickleResult result = ReadPickle(s_);
    const PickleTree& tree = result.tree;
    std::optional<uint32_t> root = tree.root();
    if (!root || tree.node(*root).type != PyType::kDict) {
      out_.Issue("flight_recorder_invalid", 0,
                 root ? "the pickle holds no dict" : "the pickle holds no value");
      out_.Begin({});
      Report(result, 0);
      return;
    }
    DumpHeader header;
    std::optional<uint32_t> entries;
    const std::vector<uint32_t>& kv = tree.items(tree.node(*root));
    for (size_t i = 0; i + 1 < kv.size(); i += 2) {
      const PyNode& key = tree.node(kv[i]);
      if (key.type != PyType::kStr) continue;
      std::string_view name = tree.text(key);
      const uint32_t value = kv[i + 1];
      if (name == "rank") {
        header.rank = Int(tree, value);
      } else if (name == "version") {
        header.version = Text(tree, value);
      } else if (name == "pg_config") {
        ReadGroups(tree, value, "pg_config", [&](PaddedJson json, std::string& why) {
          return out_.reader().ReadPgConfig(json, header.config, why);
        });
      } else if (name == "pg_status") {
        ReadGroups(tree, value, "pg_status", [&](PaddedJson json, std::string& why) {
          return out_.reader().ReadPgStatus(json, header.status, why);
        });
      } else if (name == "entries") {
        entries = value;
      }
    }
    out_.Begin(std::move(header));
    size_t complete = entries ? ReadEntries(tree, *entries) : 0;
    Report(result, complete);
  }

 private:
  PaddedJson Padded() {
    json_.reserve(json_.size() + JsonPadding());
    return {json_.data(), json_.size(), json_.capacity()};
  }

  static std::optional<int64_t> Int(const PickleTree& tree, uint32_t id) {
    const PyNode& n = tree.node(id);
    if (n.type == PyType::kInt) return n.num;
    if (n.type == PyType::kStr) return ScalarInt(tree.text(n));
    return std::nullopt;
  }

  std::optional<std::string> Text(const PickleTree& tree, uint32_t id) {
    const PyNode& n = tree.node(id);
    if (n.type == PyType::kStr) return std::string(tree.text(n));
    json_.clear();
    if (n.type != PyType::kInt && n.type != PyType::kFloat) return std::nullopt;
    AppendPickleJson(tree, id, 64, json_);
    return json_;
  }

  template <typename ReadFn>
  void ReadGroups(const PickleTree& tree, uint32_t id, const char* what, ReadFn read) {
    json_.clear();
    std::string why;
    if (!AppendPickleJson(tree, id, kMaxGroupsJson, json_)) {
      why = "too large or nested too deeply";
    } else if (read(Padded(), why)) {
      return;
    }
    out_.Issue("flight_recorder_invalid", tree.node(id).offset,
               std::string(what) + " unreadable: " + why);
  }

  int64_t LineAt(uint64_t offset) {
    if (newlines_.empty() && !newlines_scanned_) {
      newlines_scanned_ = true;
      for (size_t i = s_.find('\n'); i != std::string_view::npos; i = s_.find('\n', i + 1)) {
        newlines_.push_back(i);
      }
    }
    return 1 + static_cast<int64_t>(std::lower_bound(newlines_.begin(), newlines_.end(), offset) -
                                    newlines_.begin());
  }

  // Returns the number of complete entries.
  size_t ReadEntries(const PickleTree& tree, uint32_t id) {
    const PyNode& list = tree.node(id);
    if (list.type != PyType::kList && list.type != PyType::kTuple) {
      out_.Issue("flight_recorder_invalid", list.offset, "\"entries\" is not a list");
      return 0;
    }
    const std::vector<uint32_t>& items = tree.items(list);
    size_t first = 0;
    if (items.size() > flight::kMaxEntries) {
      first = items.size() - flight::kMaxEntries;
      out_.Issue("flight_recorder_too_many_entries", tree.node(items[first]).offset,
                 std::to_string(items.size()) + " entries: the first " + std::to_string(first) +
                     " skipped, the last " + std::to_string(flight::kMaxEntries) + " kept");
    }
    size_t complete = 0;
    for (size_t i = first; i < items.size(); ++i) {
      const PyNode& entry = tree.node(items[i]);
      // The entry the stream broke inside: the truncation issue covers it.
      if (entry.partial) continue;
      if (entry.type != PyType::kDict) {
        out_.SkipEntry(entry.offset, "not a dict");
        continue;
      }
      ++complete;
      json_.clear();
      if (!AppendPickleJson(tree, items[i], kMaxEntryJson, json_)) {
        out_.SkipEntry(entry.offset, "too large or nested too deeply");
        continue;
      }
      out_.AddEntry(Padded(), entry.offset, LineAt(entry.offset), i);
    }
    return complete;
  }

  void Report(const PickleResult& result, size_t complete) {
    if (!result.error) return;
    const PickleError& e = *result.error;
    const std::string kept =
        "; the " + std::to_string(complete) + " complete entries before it are kept";
    if (e.truncated) {
      out_.Issue("flight_recorder_truncated", e.offset,
                 e.message + " (byte " + std::to_string(e.offset) + ")" + kept);
    } else {
      out_.Issue("flight_recorder_invalid", e.offset,
                 e.message + " at byte " + std::to_string(e.offset) + kept);
    }
  }

  std::string_view s_;
  DumpAssembler& out_;
  std::string json_;
  std::vector<size_t> newlines_;
  bool newlines_scanned_ = false;
};

}  // namespace

void ReadPickleDump(std::string_view dump, DumpAssembler& out) {
  PickleDumpReader(dump, out).Run();
}

}  // namespace casefile::flight_internal
