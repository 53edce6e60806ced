// A visitor for bundle tests: records every entry with the bytes it read and
// the error its stream threw, and every issue, in arrival order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bundle/bundle_reader.h"
#include "common/error.h"
#include "test_util.h"

namespace casefile::test {

struct SeenEntry {
  EntryInfo info;
  bool has_data = false;
  std::string bytes;
  bool threw = false;
  ErrorCode code = ErrorCode::kInternal;
  std::string error;
  size_t max_chunk = 0;
  // Whether EntryData::offset() matched the bytes returned after every chunk.
  bool offsets_consistent = true;
};

class RecordingVisitor : public BundleVisitor {
 public:
  // Bytes read from each entry before the visitor stops reading it.
  size_t read_limit = std::numeric_limits<size_t>::max();
  // Catch a stream error instead of letting it propagate out of OnEntry.
  bool swallow_errors = false;

  void OnEntry(const EntryInfo& info, EntryData* data) override {
    events.push_back("entry " + info.path);
    entries.push_back({});
    SeenEntry& seen = entries.back();
    seen.info = info;
    seen.has_data = data != nullptr;
    if (!data) return;
    try {
      while (seen.bytes.size() < read_limit) {
        std::string_view chunk = data->Next();
        if (chunk.empty()) break;
        seen.max_chunk = std::max(seen.max_chunk, chunk.size());
        seen.bytes.append(chunk);
        if (data->offset() != seen.bytes.size()) seen.offsets_consistent = false;
      }
    } catch (const Error& e) {
      seen.threw = true;
      seen.code = e.code();
      seen.error = e.what();
      if (!swallow_errors) throw;
    }
  }

  void OnIssue(const IngestIssue& issue) override {
    events.push_back("issue " + issue.kind + " " + issue.path);
    issues.push_back(issue);
  }

  const SeenEntry* Find(const std::string& path) const {
    for (const auto& e : entries) {
      if (e.info.path == path) return &e;
    }
    return nullptr;
  }

  std::vector<IngestIssue> IssuesOf(const std::string& kind) const {
    std::vector<IngestIssue> out;
    for (const auto& i : issues) {
      if (i.kind == kind) out.push_back(i);
    }
    return out;
  }

  std::vector<std::string> Paths() const {
    std::vector<std::string> out;
    for (const auto& e : entries) out.push_back(e.info.path);
    return out;
  }

  std::vector<SeenEntry> entries;
  std::vector<IngestIssue> issues;
  // Both, in arrival order: "entry <path>", "issue <kind> <path>".
  std::vector<std::string> events;
};

inline ArchiveMember File(const std::string& path, const std::string& content) {
  return {path, content, ArchiveMember::Type::kFile, ""};
}
inline ArchiveMember Dir(const std::string& path) {
  return {path, "", ArchiveMember::Type::kDir, ""};
}
inline ArchiveMember Symlink(const std::string& path, const std::string& target) {
  return {path, "", ArchiveMember::Type::kSymlink, target};
}
inline ArchiveMember Hardlink(const std::string& path, const std::string& target) {
  return {path, "", ArchiveMember::Type::kHardlink, target};
}

// Bytes that do not compress: a fixed xorshift sequence, so a cut at a given
// fraction of an archive lands at that fraction of its members.
inline std::string NoiseBytes(size_t n, uint64_t seed) {
  std::string out(n, '\0');
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out[i] = static_cast<char>(x >> 24);
  }
  return out;
}

// Text lines "line <n> of <tag>\n" until `n` bytes.
inline std::string TextBytes(size_t n, const std::string& tag) {
  std::string out;
  for (size_t i = 0; out.size() < n; ++i) out += "line " + std::to_string(i) + " of " + tag + "\n";
  out.resize(n);
  return out;
}

}  // namespace casefile::test
