// Turns the collector's path arguments into files: a file is itself, a
// directory is walked recursively, and an argument holding *, ? or [ is a
// glob(3) pattern whose matches are each a file or a directory. Only
// regular files are collected: symbolic links inside a directory are not
// followed (a link to / would pull in the whole machine, and loops never
// end), and FIFOs, sockets and devices are never opened.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collect/collect_options.h"

namespace casefile::collect {

struct FoundFile {
  std::string path;      // absolute, lexically normal
  std::string relative;  // "<name of the argument>[/<path under it>]"
  bool named = false;    // the argument itself (not found in a directory or by a glob)
  int64_t mtime = 0;     // seconds since the epoch
};

struct Skip {
  std::string source;
  std::string reason;
};

struct ExpandResult {
  std::vector<FoundFile> files;
  std::vector<CollectError> errors;  // arguments or directories that could not be read
  std::vector<Skip> skipped;         // links and special files met in a walk
};

// Walk limits: deeper directories and files past the count are not read, and
// an error says so.
inline constexpr int kMaxWalkDepth = 64;
inline constexpr size_t kMaxFilesPerArgument = 1000000;

// True when `arg` holds a glob metacharacter (*, ? or [).
bool IsGlobPattern(const std::string& arg);

// Expands one argument into `result` (appending). A missing path, a pattern
// matching nothing, an unreadable directory or a special file named
// directly is an error; never throws for the file system's answers.
void ExpandPathArgument(const std::string& arg, ExpandResult& result);

}  // namespace casefile::collect
