// Writes the bundle as one stream: POSIX tar (pax where a path needs it)
// compressed with zstd by libarchive, straight to the output descriptor, so
// no temporary copy of the bundle is ever made. Entries are written in the
// order given (the collector sorts them, manifest first). Each entry's size
// is declared in its header before its bytes, which is why the collector
// measures every file before writing any (collect.cc).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

struct archive;

namespace casefile::collect {

struct BundleWriterOptions {
  int zstd_level = 3;
  // zstd worker threads, at least 1: zstd's multi-threaded mode gives the
  // same bytes for any number of workers, so bundles do not depend on the
  // machine's CPU count (single-threaded mode would differ).
  unsigned threads = 1;
};

// Ownership and mode of an entry. With --deterministic the collector passes
// Fixed() for every file.
struct EntryMeta {
  int64_t mtime = 0;
  uint32_t mode = 0644;
  uint32_t uid = 0;
  uint32_t gid = 0;
  static EntryMeta Fixed() { return {}; }
};

class BundleWriter {
 public:
  // Writes to `fd` (not closed here). Throws Error(kIo) when libarchive
  // refuses the options.
  BundleWriter(int fd, const BundleWriterOptions& options);
  ~BundleWriter();
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  // Starts a regular file of exactly `size` bytes.
  void BeginFile(const std::string& path, uint64_t size, const EntryMeta& meta);
  // Appends bytes to the current file; bytes past its declared size are not
  // written. Returns how many were.
  size_t Write(std::string_view data);
  // Ends the current file, writing NUL bytes for what is missing of its
  // declared size. Returns how many were missing.
  uint64_t EndFile();
  // Finishes the stream. Returns the compressed bytes written.
  uint64_t Close();

 private:
  [[noreturn]] void Fail(const std::string& what);

  archive* archive_ = nullptr;
  uint64_t remaining_ = 0;
  bool in_file_ = false;
  bool closed_ = false;
};

}  // namespace casefile::collect
