#include "bundle/directory_walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace casefile::bundle {

namespace {

struct Frame {
  std::string rel;  // of the directory; empty for the root
  std::vector<std::string> names;
  size_t next = 0;
  dev_t dev = 0;  // of the directory, to check the climb back through ".."
  ino_t ino = 0;
};

void KeepSmallest(std::vector<std::string>& names, uint64_t keep) {
  if (names.size() <= keep) return;
  auto cut = names.begin() + static_cast<std::ptrdiff_t>(keep);
  std::nth_element(names.begin(), cut, names.end());
  names.erase(cut, names.end());
}

// Lists the names in the directory open as `dir_fd` (left open), keeping
// the `keep` smallest; `error` is set when the listing failed or stopped
// early.
std::vector<std::string> ListNames(int dir_fd, uint64_t keep, std::string& error) {
  std::vector<std::string> names;
  int fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  DIR* dir = fd < 0 ? nullptr : fdopendir(fd);
  if (!dir) {
    error = std::strerror(errno);
    if (fd >= 0) close(fd);
    return names;
  }
  // Trim in batches so that a huge directory costs O(n) time and O(keep)
  // memory; keep + 1 names always survive, so the caller's limit still sees
  // that there is more.
  uint64_t want = keep == std::numeric_limits<uint64_t>::max() ? keep : keep + 1;
  for (;;) {
    errno = 0;
    const dirent* d = readdir(dir);
    if (!d) {
      if (errno != 0) error = std::strerror(errno);
      break;
    }
    std::string_view name(d->d_name);
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
    if (names.size() >= 2 * std::min<uint64_t>(want, 1u << 20) + 1024 && names.size() > want) {
      KeepSmallest(names, want);
    }
  }
  closedir(dir);
  KeepSmallest(names, want);
  std::sort(names.begin(), names.end());
  return names;
}

// Opens `name` in `dir_fd` as a directory, refusing a symlink.
int OpenDirectoryAt(int dir_fd, const char* name) {
  return openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

bool SameDirectory(int fd, const Frame& frame) {
  struct stat st;
  return fstat(fd, &st) == 0 && st.st_dev == frame.dev && st.st_ino == frame.ino;
}

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }
  void Reset(int fd) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }
  int Release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

}  // namespace

void WalkDirectory(const std::string& root_in, const WalkCallbacks& callbacks,
                   size_t max_rel_bytes) {
  std::string root = root_in;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  // The root itself may be a symlink: the user named it.
  Descriptor current(open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (current.get() < 0) {
    throw Error(ErrorCode::kIo, root_in + ": cannot list directory: " + std::strerror(errno));
  }
  std::vector<Frame> stack;
  {
    std::string error;
    Frame top;
    struct stat st;
    if (fstat(current.get(), &st) == 0) {
      top.dev = st.st_dev;
      top.ino = st.st_ino;
    }
    top.names = ListNames(current.get(), callbacks.room(), error);
    if (!error.empty() && top.names.empty()) {
      throw Error(ErrorCode::kIo, root_in + ": cannot list directory: " + error);
    }
    if (!error.empty()) callbacks.error("", error);
    stack.push_back(std::move(top));
  }
  const std::string prefix = root == "/" ? root : root + "/";
  while (!stack.empty()) {
    Frame& frame = stack.back();
    if (frame.next == frame.names.size()) {
      stack.pop_back();
      if (stack.empty()) break;
      // Back up to the parent, which must be the directory we came from.
      current.Reset(OpenDirectoryAt(current.get(), ".."));
      if (current.get() < 0 || !SameDirectory(current.get(), stack.back())) {
        callbacks.error(stack.back().rel,
                        "the directory was moved while being read; the rest of it is not read");
        return;
      }
      continue;
    }
    WalkEntry entry;
    entry.name = frame.names[frame.next++];
    entry.rel = frame.rel.empty() ? entry.name : frame.rel + "/" + entry.name;
    entry.full = prefix + entry.rel;
    entry.dir_fd = current.get();
    if (fstatat(current.get(), entry.name.c_str(), &entry.st, AT_SYMLINK_NOFOLLOW) != 0) {
      callbacks.error(entry.rel, std::strerror(errno));
      continue;
    }
    if (!callbacks.visit(entry)) return;
    if (!S_ISDIR(entry.st.st_mode) || entry.rel.size() > max_rel_bytes) continue;
    int child = OpenDirectoryAt(current.get(), entry.name.c_str());
    if (child < 0) {
      callbacks.error(entry.rel, std::string("cannot list directory: ") + std::strerror(errno));
      continue;
    }
    Descriptor opened(child);
    struct stat st;
    if (fstat(child, &st) != 0 || st.st_dev != entry.st.st_dev || st.st_ino != entry.st.st_ino) {
      callbacks.error(entry.rel, "cannot list directory: it changed while being read");
      continue;
    }
    std::string error;
    Frame next;
    next.dev = st.st_dev;
    next.ino = st.st_ino;
    next.names = ListNames(child, callbacks.room(), error);
    if (!error.empty()) callbacks.error(entry.rel, "cannot list directory: " + error);
    next.rel = std::move(entry.rel);
    current.Reset(opened.Release());
    stack.push_back(std::move(next));  // `frame` is invalid from here on
  }
}

}  // namespace casefile::bundle
