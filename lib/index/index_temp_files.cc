#include "index/index_temp_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <random>

#include "common/error.h"

namespace casefile {
namespace {

// The byte range SQLite's unix VFS locks (PENDING_BYTE, RESERVED_BYTE and
// the SHARED range: 0x40000000 + 512). A writer holds its lock there for
// the whole build (the store uses locking_mode=EXCLUSIVE in one
// transaction), and the kernel drops it when the writer dies, however.
constexpr off_t kSqliteLockStart = 0x40000000;
constexpr off_t kSqliteLockBytes = 512;

// True when a process other than this one holds a lock on the SQLite lock
// range of `path`.
bool LockedByAnother(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  struct flock probe {};
  probe.l_type = F_WRLCK;  // conflicts with any lock, read or write
  probe.l_whence = SEEK_SET;
  probe.l_start = kSqliteLockStart;
  probe.l_len = kSqliteLockBytes;
  const bool locked = fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
  // Closing drops this process's own POSIX locks on the file; it holds none
  // on another writer's temporary.
  close(fd);
  return locked;
}

// The pid of "<prefix><pid>-<random>", or -1 when the name is not of that
// shape.
long PidOf(const std::string& name, const std::string& prefix) {
  if (name.compare(0, prefix.size(), prefix) != 0) return -1;
  size_t i = prefix.size();
  long pid = 0;
  size_t digits = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 10) {
    pid = pid * 10 + (name[i] - '0');
    ++i;
    ++digits;
  }
  if (digits == 0 || i >= name.size() || name[i] != '-' || pid <= 0) return -1;
  return pid;
}

bool ProcessGone(long pid) {
  // EPERM: alive, owned by another user.
  return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

std::string TempIndexPathFor(const std::string& final_path) {
  std::random_device rd;
  for (int attempt = 0; attempt < 16; ++attempt) {
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, ".tmp-%ld-%08x", static_cast<long>(getpid()),
                  static_cast<unsigned>(rd()));
    std::string path = final_path + suffix;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0 && errno == ENOENT) return path;
  }
  throw Error(ErrorCode::kIo, "cannot find a free temporary name beside " + final_path);
}

int RemoveStaleIndexTemporaries(const std::string& final_path) {
  const size_t slash = final_path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : final_path.substr(0, slash + 1);
  const std::string prefix =
      (slash == std::string::npos ? final_path : final_path.substr(slash + 1)) + ".tmp-";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return 0;
  int removed = 0;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    const long pid = PidOf(name, prefix);
    if (pid < 0 || !ProcessGone(pid)) continue;
    const std::string path = (slash == std::string::npos ? "" : dir) + name;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (LockedByAnother(path)) continue;
    if (unlink(path.c_str()) == 0) ++removed;
  }
  closedir(d);
  return removed;
}

}  // namespace casefile
