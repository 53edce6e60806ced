// Fuzz target: the bundle reader over a whole archive given as bytes (tar,
// .tar.gz, .tar.zst, zip, gzip members inside, links, hostile paths),
// through ReadBundle with small limits so that a bomb stops at them quickly.
// The bytes are written to one memfd made once and read through its
// /proc/self/fd path, so no file is left behind. The visitor reads every
// entry to its end. Paths must come out normalised, only regular files carry
// data, nothing may exceed the limits, the result must count what was
// delivered, and only documented issue kinds occur.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "bundle/bundle_reader.h"
#include "common/error.h"

namespace {

casefile::Limits SmallLimits() {
  casefile::Limits limits;
  limits.max_entry_bytes = 256 * 1024;
  limits.max_total_bytes = 1024 * 1024;
  limits.max_entries = 200;
  limits.bomb_floor_bytes = 128 * 1024;
  return limits;
}

bool Normalised(std::string_view path) {
  if (path.empty() || path.size() > 4096 || path.front() == '/' || path.back() == '/') return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == ".." || part.find('\\') != std::string_view::npos) {
      return false;
    }
    start = end + 1;
  }
  return true;
}

class ReadAll : public casefile::BundleVisitor {
 public:
  explicit ReadAll(const casefile::Limits& limits) : limits_(limits) {}

  void OnEntry(const casefile::EntryInfo& info, casefile::EntryData* data) override {
    ++entries;
    if (!Normalised(info.path)) std::abort();
    if ((data != nullptr) != (info.type == casefile::EntryType::kFile)) std::abort();
    // A *.gz member (any case: ".GZ" too) is the only kind gunzipped.
    if (info.gunzipped &&
        (info.path.size() < 3 || info.path[info.path.size() - 3] != '.' ||
         (info.path[info.path.size() - 2] | 0x20) != 'g' || (info.path.back() | 0x20) != 'z')) {
      std::abort();
    }
    if (!data) return;
    uint64_t read = 0;
    try {
      for (std::string_view chunk = data->Next(); !chunk.empty(); chunk = data->Next()) {
        read += chunk.size();
        if (data->offset() != read) std::abort();
      }
    } catch (const casefile::Error& e) {
      if (e.code() != casefile::ErrorCode::kCorrupt) std::abort();
    }
    if (read > limits_.max_entry_bytes) std::abort();
    bytes += read;
  }

  void OnIssue(const casefile::IngestIssue& issue) override {
    static const std::set<std::string> kKinds = {
        "path_rewritten",  "path_invalid",     "duplicate_entry",    "entry_limit",
        "entry_truncated", "total_limit",      "archive_corrupt",    "gzip_corrupt",
        "gzip_not_gzip",   "entry_unreadable", "decompression_bomb", "entry_size_mismatch"};
    if (!kKinds.count(issue.kind) || issue.message.empty()) std::abort();
  }

  uint64_t entries = 0;
  uint64_t bytes = 0;

 private:
  const casefile::Limits& limits_;
};

// One memfd for the whole run, rewritten per input.
int InputFd() {
  static const int fd = memfd_create("fuzz_archive", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  return fd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = InputFd();
  if (ftruncate(fd, 0) != 0) std::abort();
  for (size_t done = 0; done < size;) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);

  const casefile::Limits limits = SmallLimits();
  casefile::ReadBudget budget;
  ReadAll visitor(limits);
  try {
    const casefile::BundleReadResult result = casefile::ReadBundle(path, limits, budget, visitor);
    if (result.entries != visitor.entries || result.entries > limits.max_entries) std::abort();
    if (result.bytes != visitor.bytes || result.bytes > limits.max_total_bytes) std::abort();
    if (budget.total_bytes > limits.max_total_bytes) std::abort();
    if (result.partial && result.error.empty()) std::abort();
  } catch (const casefile::Error& e) {
    // Unreadable from the first byte: not an archive at all.
    if (e.code() != casefile::ErrorCode::kUnsupported &&
        e.code() != casefile::ErrorCode::kCorrupt) {
      std::abort();
    }
  }
  return 0;
}
