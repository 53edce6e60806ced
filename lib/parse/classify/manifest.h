// The optional bundle manifest, "casefile.json" at the bundle root, written by
// a collector that knows what it gathered. What it says about a file
// overrides what ingest would infer from the path and content.
//
// Format (JSON; unknown keys are ignored at every level so that newer
// collectors stay readable):
//   {
//     "format_version": 1,                       integer, optional
//     "host": "node03",                          the host that collected the bundle, optional
//     "labels": {"job": "pretrain-7b", ...},      optional; values kept as text
//     "files": [                                  optional
//       {"path": "logs/rank3.log",                required, bundle-relative
//        "kind": "log",                           optional, a FileKindName value
//        "host": "node03", "task": "worker_3",    optional strings
//        "rank": 3}                               optional integer (or a string of digits)
//     ]
//   }
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace casefile {

enum class FileKind;

inline constexpr std::string_view kManifestPath = "casefile.json";

// A manifest larger than this is rejected (ErrorCode::kLimit): it is read
// whole, and no real collector writes one anywhere near this size.
inline constexpr size_t kMaxManifestBytes = 64ull << 20;

struct ManifestFile {
  // Unset when absent, and when the kind names no FileKind this casefile
  // knows (a newer collector's kind falls back to classification).
  std::optional<FileKind> kind;
  std::optional<std::string> host;
  std::optional<std::string> task;
  std::optional<int64_t> rank;
};

struct Manifest {
  int64_t format_version = 0;  // 0 when absent
  std::optional<std::string> host;
  // Label values that are not strings are kept as their JSON text.
  std::map<std::string, std::string> labels;
  // Keyed by the path as given, with leading "./" and '/' removed.
  std::map<std::string, ManifestFile> files;
};

// Parses a manifest. Throws Error(kCorrupt) naming the problem when the text
// is not JSON, the root is not an object, or a known key has the wrong type
// ("files[2].rank must be an integer"); Error(kLimit) above
// kMaxManifestBytes. Thread-safe.
Manifest ParseManifest(std::string_view json);

}  // namespace casefile
