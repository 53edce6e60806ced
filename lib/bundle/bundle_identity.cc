#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "bundle/bundle_reader.h"
#include "bundle/directory_walk.h"
#include "bundle/entry_path.h"
#include "common/error.h"
#include "common/hash.h"

namespace casefile {

namespace {

uint64_t MtimeNs(const struct stat& st) {
  return static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(st.st_mtim.tv_nsec);
}

// Every entry ReadBundle would see, with what would change if it were edited:
// path, type, size and mtime. Links are hashed as links, never followed.
std::string DirectoryIdentity(const std::string& path) {
  Fnv1a64 hash;
  bundle::WalkCallbacks callbacks;
  // The same bound as the default entry limit: past it the read stops anyway.
  callbacks.room = [] { return Limits{}.max_entries; };
  callbacks.error = [&](const std::string& rel, const std::string& message) {
    hash.Update("!");
    hash.Update(rel);
    hash.Update(std::string_view("\0", 1));
    hash.Update(message);
  };
  callbacks.visit = [&](const bundle::WalkEntry& entry) {
    hash.Update(entry.rel);
    hash.Update(std::string_view("\0", 1));
    hash.UpdateU64(static_cast<uint64_t>(entry.st.st_mode & S_IFMT));
    hash.UpdateU64(static_cast<uint64_t>(entry.st.st_size));
    hash.UpdateU64(MtimeNs(entry.st));
    return true;
  };
  bundle::WalkDirectory(path, callbacks, bundle::kMaxEntryPathBytes);
  return "directory:" + hash.HexDigest();
}

}  // namespace

std::string BundleIdentity(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    int err = errno;
    throw Error(err == ENOENT || err == ENOTDIR ? ErrorCode::kNotFound : ErrorCode::kIo,
                path + ": " + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) return DirectoryIdentity(path);
  std::error_code ec;
  std::string absolute = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec) absolute = path;
  return "archive:" + absolute + ":" + std::to_string(st.st_size) + ":" +
         std::to_string(MtimeNs(st));
}

}  // namespace casefile
