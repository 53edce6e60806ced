#include "bundle/directory_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "bundle/directory_walk.h"
#include "bundle/entry_dispatch.h"
#include "bundle/entry_path.h"
#include "bundle/file_entry_data.h"

namespace casefile::bundle {

namespace {

EntryType TypeOf(mode_t mode) {
  if (S_ISREG(mode)) return EntryType::kFile;
  if (S_ISDIR(mode)) return EntryType::kDirectory;
  if (S_ISLNK(mode)) return EntryType::kSymlink;
  if (S_ISCHR(mode) || S_ISBLK(mode)) return EntryType::kDevice;
  return EntryType::kOther;  // fifo, socket
}

std::string ReadLinkTarget(int dir_fd, const std::string& name) {
  std::vector<char> target(kMaxEntryPathBytes + 1);
  ssize_t n = readlinkat(dir_fd, name.c_str(), target.data(), target.size());
  if (n < 0) return {};
  return std::string(target.data(), static_cast<size_t>(n));
}

// O_NOFOLLOW: a file swapped for a symlink since the walk saw it is refused;
// O_NONBLOCK: one swapped for a fifo cannot hang the read. The fstat check
// then refuses anything that is not a regular file after all.
int OpenRegular(int dir_fd, const std::string& name, std::string& error) {
  int fd = openat(dir_fd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    error = std::string("cannot open: ") + std::strerror(errno);
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    error = "changed into something other than a regular file while being read";
    return -1;
  }
  return fd;
}

}  // namespace

void ReadDirectory(const std::string& path, const Limits& limits, ReadBudget& budget,
                   BundleVisitor& visitor, const ReadTuning& tuning, BundleReadResult& result) {
  result.format = "directory";
  EntryDispatcher dispatch(path, limits, budget, visitor, result);
  std::vector<char> buffer(std::clamp<size_t>(tuning.file_chunk_bytes, 1, 1 << 20));
  uint64_t admitted = 0;

  WalkCallbacks callbacks;
  callbacks.room = [&] {
    return limits.max_entries > admitted ? limits.max_entries - admitted : 0;
  };
  callbacks.error = [&](const std::string& rel, const std::string& message) {
    IngestIssue issue;
    issue.path = NormalizeEntryPath(rel).path;
    issue.kind = "entry_unreadable";
    issue.message = path + ": entry '" + rel + "': " + message;
    visitor.OnIssue(issue);
  };
  callbacks.visit = [&](const WalkEntry& entry) {
    if (!dispatch.Admit(entry.rel, -1)) return false;
    ++admitted;
    EntryInfo info;
    info.raw_path = entry.rel;
    info.type = TypeOf(entry.st.st_mode);
    info.size = info.type == EntryType::kFile ? static_cast<int64_t>(entry.st.st_size) : 0;
    info.mtime = static_cast<int64_t>(entry.st.st_mtim.tv_sec);
    if (info.type == EntryType::kSymlink)
      info.link_target = ReadLinkTarget(entry.dir_fd, entry.name);
    if (info.type != EntryType::kFile) return dispatch.Deliver(info, nullptr);
    std::string open_error;
    int fd = OpenRegular(entry.dir_fd, entry.name, open_error);
    FileEntryData data(fd, std::move(open_error), buffer, dispatch.failure());
    return dispatch.Deliver(info, &data);
  };
  WalkDirectory(path, callbacks, kMaxEntryPathBytes);
}

}  // namespace casefile::bundle
