// Where each collected file goes in the bundle, and which found files are
// left out before anything is read. Layout (docs/BUNDLE_FORMAT.md):
//
//   casefile.json
//   hosts/<host>/logs/<argument name>[/<path under it>]      --logs
//   hosts/<host>/hlo/...  traces/...  configs/...             --hlo-dump, --traces, --config
//   hosts/<host>/traces/<dir name>/plugins/profile/...        --tensorboard-dir
//   hosts/<host>/flight_recorder/nccl_trace_rank_<N>          discovered dumps
//   hosts/<host>/versions/*.txt  sysinfo/*.txt                the command table
//   hosts/<host>/env/env.txt  job/job_cmdline.txt
//
// Every file lives under hosts/<host>/ so that path attribution
// (parse/classify/path_attribution.h) gives each file its host when
// several hosts' bundles are analysed together.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collect/collect_options.h"
#include "collect/path_glob.h"
#include "collect/planned_file.h"
#include "collect/redactor.h"

namespace casefile::collect {

// A path component safe in a tar and a JSON manifest alike: invalid UTF-8
// becomes U+FFFD, control bytes '_', and "", "." and ".." become "_".
std::string SanitizeComponent(std::string_view component);

// Makes bundle paths unique: a path already handed out gets "~2", "~3", ...
// before the extension of its last component ("a.log" -> "a~2.log").
class PathAllocator {
 public:
  std::string Unique(const std::string& path);

 private:
  std::set<std::string> used_;
};

class BundlePlanner {
 public:
  struct Settings {
    std::string host_dir;                // the (sanitized, maybe pseudonymised) host folder name
    const Redactor* redactor = nullptr;  // null: --no-redact
    int64_t since_cutoff = 0;  // files modified before this (seconds) are left out; 0: none
    // Output paths: the file itself and its temporary "<path>.tmp-*" are
    // never collected into the bundle.
    std::vector<std::string> excluded;
    // The output by identity (st_dev, st_ino): the same file reached by
    // another name (a symbolic link above it, a hard link, standard output
    // redirected into a collected directory) is never collected either.
    std::vector<std::pair<uint64_t, uint64_t>> excluded_ids;
  };

  explicit BundlePlanner(Settings settings) : settings_(std::move(settings)) {}

  // Expands `arg` (file, directory or glob) into files under
  // hosts/<host>/<folder>/. `root_name`, when not empty, replaces the
  // argument's own name as the first component of their relative paths.
  // `discovered` inputs come from the environment: `named` marks files that
  // are exempt from --since.
  void AddPathInput(const std::string& folder, const std::string& arg, bool discovered, bool named,
                    const std::string& root_name = "");

  // A file whose bytes are in memory (command outputs, env.txt).
  void AddMemoryFile(const std::string& folder, const std::string& name, const std::string& source,
                     std::shared_ptr<const std::string> bytes, const std::string& kind,
                     bool redacted_already);

  std::vector<PlannedFile>& files() { return files_; }
  std::vector<CollectError>& errors() { return errors_; }
  std::vector<Skip>& skipped() { return skipped_; }

 private:
  std::string BundlePath(const std::string& folder, const std::string& relative,
                         RedactionCounts& counts);
  bool Excluded(const std::string& path, const struct stat* st) const;

  Settings settings_;
  PathAllocator paths_;
  std::set<std::string> seen_sources_;  // a file reached by two arguments is packed once
  std::vector<PlannedFile> files_;
  std::vector<CollectError> errors_;
  std::vector<Skip> skipped_;
};

}  // namespace casefile::collect
