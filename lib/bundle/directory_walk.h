// A sorted, pre-order walk of a directory tree that never follows a symlink:
// every entry is lstat()ed and only real directories are entered.
//
// The walk works through directory descriptors (fstatat, openat relative to
// the directory being listed), never through full paths: a path lookup costs
// one step per component, so a tree 2,000 levels deep would cost millions of
// steps per pass, and past PATH_MAX (4096) full paths fail outright. Only the
// directory being listed is open: the walk climbs back through "..", checked
// against the device and inode it left, so depth costs no descriptors.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace casefile::bundle {

struct WalkEntry {
  std::string rel;   // relative to the root, '/'-separated
  std::string full;  // root + '/' + rel, for messages (may exceed PATH_MAX)
  int dir_fd = -1;   // the directory holding the entry, open during visit()
  std::string name;  // the entry's name in dir_fd: use *at() system calls
  struct stat st;    // fstatat(dir_fd, name, AT_SYMLINK_NOFOLLOW)
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
// A directory whose relative path is longer than `max_rel_bytes` is visited
// but not entered: nothing under it could have a usable path.
void WalkDirectory(const std::string& root, const WalkCallbacks& callbacks, size_t max_rel_bytes);
}  // namespace casefile::bundle
