// Starts the kernel writing a new index's pages to disk while the build goes
// on. Commit() must fsync the finished file before the rename (a power loss
// must never leave a half index under the final name), and on the 1 GiB
// benchmark bundle that one fsync, writing 256 MB at the end with both cores
// idle, took half a second. Asked now and then during the build to start
// writing what is dirty (sync_file_range, which does not wait), the disk
// works while the cores parse, and the final fsync has little left to do.
// Durability still comes from that fsync alone; this only moves the I/O
// earlier. Where sync_file_range does not exist (not Linux), it does
// nothing.
//
// The object holds a descriptor of the file of its own, and closing any
// descriptor of a file drops every POSIX lock the process holds on it,
// SQLite's exclusive lock included (which tells other writers' stale-file
// cleanup that the build is alive, index_temp_files.h): destroy it only
// after the SQLite connection to the file is closed.
#pragma once

#include <cstdint>
#include <string>

namespace casefile {

class EarlyWriteback {
 public:
  // Every this many bytes stored, writeback is started.
  static constexpr uint64_t kStepBytes = 32u << 20;

  // `path`: the file being built. Opened on the first Stored() call that
  // starts a writeback (SQLite has created it by then).
  explicit EarlyWriteback(std::string path);
  ~EarlyWriteback();
  EarlyWriteback(const EarlyWriteback&) = delete;
  EarlyWriteback& operator=(const EarlyWriteback&) = delete;

  // About `bytes` more were written into the file. Never throws: a failure
  // here only leaves the work to the final fsync.
  void Stored(uint64_t bytes) noexcept;
  // Writebacks started so far (for tests).
  int started() const { return started_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool failed_ = false;
  uint64_t since_last_ = 0;
  int started_ = 0;
};

}  // namespace casefile
