#include "collect/bundle_writer.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <string>

#include "common/error.h"

namespace casefile::collect {

BundleWriter::BundleWriter(int fd, const BundleWriterOptions& options) {
  archive_ = archive_write_new();
  if (archive_ == nullptr) throw std::bad_alloc();
  if (archive_write_set_format_pax_restricted(archive_) != ARCHIVE_OK ||
      archive_write_add_filter_zstd(archive_) != ARCHIVE_OK) {
    Fail("cannot set up tar + zstd");
  }
  const std::string level = std::to_string(options.zstd_level);
  const std::string threads = std::to_string(std::max(1u, options.threads));
  if (archive_write_set_filter_option(archive_, "zstd", "compression-level", level.c_str()) !=
      ARCHIVE_OK) {
    Fail("zstd level " + level);
  }
  if (archive_write_set_filter_option(archive_, "zstd", "threads", threads.c_str()) != ARCHIVE_OK) {
    Fail("zstd threads " + threads);
  }
  // The compressed stream ends where zstd ends it: no padding to a tape
  // block after it.
  archive_write_set_bytes_in_last_block(archive_, 1);
  if (archive_write_open_fd(archive_, fd) != ARCHIVE_OK) Fail("cannot open the output");
}

BundleWriter::~BundleWriter() {
  if (archive_ != nullptr) archive_write_free(archive_);
}

void BundleWriter::Fail(const std::string& what) {
  const char* why = archive_ != nullptr ? archive_error_string(archive_) : nullptr;
  throw Error(ErrorCode::kIo, "writing the bundle: " + what + (why ? std::string(": ") + why : ""));
}

void BundleWriter::BeginFile(const std::string& path, uint64_t size, const EntryMeta& meta) {
  if (in_file_) EndFile();
  archive_entry* entry = archive_entry_new();
  if (entry == nullptr) throw std::bad_alloc();
  archive_entry_copy_pathname(entry, path.c_str());
  archive_entry_set_filetype(entry, AE_IFREG);
  archive_entry_set_perm(entry, meta.mode & 07777);
  archive_entry_set_size(entry, static_cast<la_int64_t>(size));
  archive_entry_set_mtime(entry, meta.mtime, 0);
  archive_entry_set_uid(entry, meta.uid);
  archive_entry_set_gid(entry, meta.gid);
  int rc = archive_write_header(archive_, entry);
  archive_entry_free(entry);
  if (rc < ARCHIVE_WARN) Fail("header of " + path);
  remaining_ = size;
  in_file_ = true;
}

size_t BundleWriter::Write(std::string_view data) {
  size_t n = static_cast<size_t>(std::min<uint64_t>(data.size(), remaining_));
  size_t done = 0;
  while (done < n) {
    la_ssize_t w = archive_write_data(archive_, data.data() + done, n - done);
    if (w < 0) Fail("data");
    if (w == 0) Fail("data: nothing written");
    done += static_cast<size_t>(w);
  }
  remaining_ -= n;
  return n;
}

uint64_t BundleWriter::EndFile() {
  if (!in_file_) return 0;
  uint64_t missing = remaining_;
  static const std::string kZeros(64 * 1024, '\0');
  while (remaining_ > 0) {
    Write(std::string_view(kZeros).substr(
        0, static_cast<size_t>(std::min<uint64_t>(remaining_, kZeros.size()))));
  }
  if (archive_write_finish_entry(archive_) < ARCHIVE_WARN) Fail("end of entry");
  in_file_ = false;
  return missing;
}

uint64_t BundleWriter::Close() {
  if (closed_) return static_cast<uint64_t>(archive_filter_bytes(archive_, -1));
  EndFile();
  if (archive_write_close(archive_) != ARCHIVE_OK) Fail("close");
  closed_ = true;
  return static_cast<uint64_t>(archive_filter_bytes(archive_, -1));
}

}  // namespace casefile::collect
