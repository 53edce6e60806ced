#include "bundle/bundle_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "bundle/archive_reader.h"
#include "bundle/directory_reader.h"
#include "common/error.h"

namespace casefile {

namespace {

// stat() follows a symlink given as the input itself: the user named it.
struct stat StatInput(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      throw Error(ErrorCode::kNotFound, path + ": no such file or directory");
    }
    throw Error(ErrorCode::kIo, path + ": " + std::strerror(err));
  }
  return st;
}

}  // namespace

BundleReadResult ReadBundle(const std::string& path, const Limits& limits, ReadBudget& budget,
                            BundleVisitor& visitor) {
  return ReadBundle(path, limits, budget, visitor, ReadTuning{});
}

BundleReadResult ReadBundle(const std::string& path, const Limits& limits, ReadBudget& budget,
                            BundleVisitor& visitor, const ReadTuning& tuning) {
  struct stat st = StatInput(path);
  BundleReadResult result;
  if (S_ISDIR(st.st_mode)) {
    bundle::ReadDirectory(path, limits, budget, visitor, tuning, result);
  } else if (S_ISREG(st.st_mode)) {
    bundle::ReadArchive(path, limits, budget, visitor, tuning, result);
  } else {
    throw Error(ErrorCode::kUnsupported,
                path + ": not a directory or a recognised archive (not a regular file)");
  }
  return result;
}

std::string BundleDisplayName(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  std::string name = std::filesystem::path(trimmed).filename().string();
  if (name.empty() || name == "." || name == "..") {
    // "." or ".." says nothing: name the directory it stands for.
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(trimmed, ec).lexically_normal();
    while (!absolute.empty() && !absolute.has_filename() && absolute != absolute.root_path()) {
      absolute = absolute.parent_path();
    }
    name = absolute.filename().string();
  }
  return name.empty() ? trimmed : name;
}

}  // namespace casefile
