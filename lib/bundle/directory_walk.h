// A sorted, pre-order walk of a directory tree that never follows a symlink:
// every entry is lstat()ed and only real directories are entered.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <string>

namespace casefile::bundle {

struct WalkEntry {
  std::string rel;   // relative to the root, '/'-separated
  std::string full;  // root + '/' + rel, for system calls
  struct stat st;    // lstat() of `full`
};

struct WalkCallbacks {
  // Returns false to stop the walk.
  std::function<bool(const WalkEntry&)> visit;
  // An entry that could not be lstat()ed or a directory that could not be
  // listed (in full or in part); the walk goes on.
  std::function<void(const std::string& rel, const std::string& message)> error;
  // How many more entries the caller can take: each directory listing keeps
  // only this many of its smallest names, so memory stays bounded by the
  // limit rather than by the size of the largest directory.
  std::function<uint64_t()> room;
};

// Names are ordered bytewise within each directory, and a directory's
// contents follow it directly: the order of std::filesystem::path
// comparison. Throws Error(kIo) when the root itself cannot be listed.
void WalkDirectory(const std::string& root, const WalkCallbacks& callbacks);

}  // namespace casefile::bundle
