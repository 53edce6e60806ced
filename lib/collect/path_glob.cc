#include "collect/path_glob.h"

#include <dirent.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace casefile::collect {
namespace {

namespace fs = std::filesystem;

std::string Absolute(const std::string& path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  if (ec) abs = path;
  std::string normal = abs.lexically_normal().generic_string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

// The name a top-level argument gets in the bundle: its last component,
// "root" for "/".
std::string ArgumentName(const std::string& abs) {
  size_t slash = abs.rfind('/');
  std::string name = slash == std::string::npos ? abs : abs.substr(slash + 1);
  return name.empty() ? "root" : name;
}

const char* SpecialKind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

class Walker {
 public:
  Walker(ExpandResult& result, const std::string& arg) : result_(result), arg_(arg) {}

  void Walk(const std::string& dir, const std::string& relative, int depth) {
    if (depth > kMaxWalkDepth) {
      result_.errors.push_back(
          {dir, "deeper than " + std::to_string(kMaxWalkDepth) + " directories; not read"});
      return;
    }
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
      result_.errors.push_back(
          {dir, std::string("cannot read directory: ") + std::strerror(errno)});
      return;
    }
    std::vector<std::string> names;
    errno = 0;
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(std::move(name));
      errno = 0;
    }
    int read_errno = errno;
    ::closedir(d);
    if (read_errno != 0) {
      result_.errors.push_back(
          {dir, std::string("directory read failed: ") + std::strerror(read_errno)});
    }
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
      if (count_ >= kMaxFilesPerArgument) {
        if (!limit_reported_) {
          result_.errors.push_back({arg_, "more than " + std::to_string(kMaxFilesPerArgument) +
                                              " files; the rest were not collected"});
          limit_reported_ = true;
        }
        return;
      }
      std::string path = dir == "/" ? "/" + name : dir + "/" + name;
      std::string rel = relative + "/" + name;
      struct stat st;
      if (::lstat(path.c_str(), &st) != 0) {
        result_.errors.push_back({path, std::string("cannot stat: ") + std::strerror(errno)});
        continue;
      }
      if (S_ISDIR(st.st_mode)) {
        Walk(path, rel, depth + 1);
      } else if (S_ISREG(st.st_mode)) {
        result_.files.push_back({path, rel, false, static_cast<int64_t>(st.st_mtime)});
        ++count_;
      } else if (S_ISLNK(st.st_mode)) {
        result_.skipped.push_back({path, "symbolic link inside a directory, not followed"});
      } else {
        result_.skipped.push_back({path, std::string(SpecialKind(st.st_mode)) + ", not read"});
      }
    }
  }

 private:
  ExpandResult& result_;
  std::string arg_;
  size_t count_ = 0;
  bool limit_reported_ = false;
};

// One path (an argument, or a glob match): a directory is walked, a regular
// file kept, anything else recorded.
void ExpandPath(const std::string& given, bool named, ExpandResult& result) {
  std::string abs = Absolute(given);
  struct stat st;
  // An argument that is a link is followed: the user named it.
  if (::stat(abs.c_str(), &st) != 0) {
    int e = errno;
    result.errors.push_back({abs, e == ENOENT ? "not found" : std::string(std::strerror(e))});
    return;
  }
  std::string name = ArgumentName(abs);
  if (S_ISDIR(st.st_mode)) {
    Walker(result, abs).Walk(abs, name, 0);
  } else if (S_ISREG(st.st_mode)) {
    result.files.push_back({abs, name, named, static_cast<int64_t>(st.st_mtime)});
  } else {
    result.errors.push_back({abs, std::string(SpecialKind(st.st_mode)) + ", not read"});
  }
}

// glob(3)'s error callback has no user pointer; the expansion running on
// this thread records into this result.
thread_local ExpandResult* g_glob_result = nullptr;

int OnGlobError(const char* path, int error) {
  if (g_glob_result != nullptr) {
    g_glob_result->errors.push_back(
        {path, std::string("cannot read directory: ") + std::strerror(error)});
  }
  return 0;  // go on with the other directories
}

}  // namespace

bool IsGlobPattern(const std::string& arg) { return arg.find_first_of("*?[") != std::string::npos; }

void ExpandPathArgument(const std::string& arg, ExpandResult& result) {
  if (arg.empty()) {
    result.errors.push_back({arg, "empty path"});
    return;
  }
  if (!IsGlobPattern(arg)) {
    ExpandPath(arg, true, result);
    return;
  }
  glob_t g;
  std::memset(&g, 0, sizeof g);
  g_glob_result = &result;
  int rc = ::glob(arg.c_str(), 0, OnGlobError, &g);
  g_glob_result = nullptr;
  if (rc == GLOB_NOMATCH) {
    result.errors.push_back({arg, "no file matches the pattern"});
  } else if (rc != 0) {
    result.errors.push_back({arg, rc == GLOB_NOSPACE ? "out of memory expanding the pattern"
                                                     : "the pattern could not be expanded"});
  } else {
    for (size_t i = 0; i < g.gl_pathc; ++i) ExpandPath(g.gl_pathv[i], false, result);
  }
  ::globfree(&g);
}

}  // namespace casefile::collect
