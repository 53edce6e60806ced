#include "bundle/directory_walk.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace casefile::bundle {

namespace {

namespace fs = std::filesystem;

struct Frame {
  std::string rel;  // of the directory; empty for the root
  std::vector<std::string> names;
  size_t next = 0;
};

void KeepSmallest(std::vector<std::string>& names, uint64_t keep) {
  if (names.size() <= keep) return;
  auto cut = names.begin() + static_cast<std::ptrdiff_t>(keep);
  std::nth_element(names.begin(), cut, names.end());
  names.erase(cut, names.end());
}

// Lists the names in `dir`, keeping the `keep` smallest; `error` is set when
// the listing failed or stopped early.
std::vector<std::string> ListNames(const std::string& dir, uint64_t keep, std::string& error) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    error = ec.message();
    return names;
  }
  // Trim in batches so that a huge directory costs O(n) time and O(keep)
  // memory; keep + 1 names always survive, so the caller's limit still sees
  // that there is more.
  uint64_t want = keep == std::numeric_limits<uint64_t>::max() ? keep : keep + 1;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    names.push_back(it->path().filename().string());
    if (names.size() >= 2 * std::min<uint64_t>(want, 1u << 20) + 1024 && names.size() > want) {
      KeepSmallest(names, want);
    }
  }
  if (ec) error = ec.message();
  KeepSmallest(names, want);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

void WalkDirectory(const std::string& root_in, const WalkCallbacks& callbacks) {
  std::string root = root_in;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  std::vector<Frame> stack;
  {
    std::string error;
    Frame top;
    top.names = ListNames(root, callbacks.room(), error);
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
      continue;
    }
    WalkEntry entry;
    const std::string& name = frame.names[frame.next++];
    entry.rel = frame.rel.empty() ? name : frame.rel + "/" + name;
    entry.full = prefix + entry.rel;
    if (lstat(entry.full.c_str(), &entry.st) != 0) {
      callbacks.error(entry.rel, std::strerror(errno));
      continue;
    }
    if (!callbacks.visit(entry)) return;
    if (!S_ISDIR(entry.st.st_mode)) continue;
    std::string error;
    Frame child;
    child.names = ListNames(entry.full, callbacks.room(), error);
    if (!error.empty()) callbacks.error(entry.rel, "cannot list directory: " + error);
    child.rel = std::move(entry.rel);
    stack.push_back(std::move(child));  // `frame` is invalid from here on
  }
}

}  // namespace casefile::bundle
