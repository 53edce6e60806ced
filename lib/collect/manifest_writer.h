// casefile.json, the manifest the collector writes first in every bundle
// (docs/BUNDLE_FORMAT.md has the format, version kManifestFormatVersion).
// It stays readable by parse/classify/manifest.h, which ignores the keys it
// does not know.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "collect/collect_options.h"
#include "collect/command_collection.h"
#include "collect/path_glob.h"
#include "collect/planned_file.h"

namespace casefile::collect {

inline constexpr int kManifestFormatVersion = 1;

struct ManifestData {
  std::string created_at;  // "2026-11-29T09:21:00Z"
  std::string host;
  std::vector<std::pair<std::string, std::string>> labels;  // redacted
  std::string command_line;                                 // redacted
  bool redaction_enabled = true;
  bool redact_hosts = false;
  bool shared_key = false;
  const std::vector<PlannedFile>* files = nullptr;  // the packed ones are listed, in order
  const std::vector<CommandRecord>* commands = nullptr;
  std::vector<CollectError> errors;
  std::vector<Skip> skipped;
  std::map<std::string, uint64_t> redactions;  // totals per kind
  // Applied to every source path written (redaction of secrets and host
  // names in paths); identity when null.
  std::function<std::string(const std::string&)> redact_text;
};

std::string ManifestJson(const ManifestData& data);

// "YYYY-MM-DDTHH:MM:SSZ" for seconds since the epoch.
std::string UtcTimestamp(int64_t seconds);

}  // namespace casefile::collect
