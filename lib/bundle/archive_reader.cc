#include "bundle/archive_reader.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>

#include "bundle/archive_entry_data.h"
#include "bundle/entry_dispatch.h"
#include "bundle/zstd_read_ahead.h"
#include "common/error.h"

namespace casefile::bundle {

namespace {

struct ReaderFree {
  void operator()(archive* reader) const { archive_read_free(reader); }
};
using Reader = std::unique_ptr<archive, ReaderFree>;

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Every format of archive_read_support_format_all() except mtree: an mtree
// file is a text listing whose members are read from the *local filesystem*
// at the paths it names, which would let a bundle make us read any file.
void SupportFormats(archive* reader) {
  archive_read_support_format_7zip(reader);
  archive_read_support_format_ar(reader);
  archive_read_support_format_cab(reader);
  archive_read_support_format_cpio(reader);
  archive_read_support_format_empty(reader);
  archive_read_support_format_iso9660(reader);
  archive_read_support_format_lha(reader);
  archive_read_support_format_rar(reader);
  archive_read_support_format_rar5(reader);
  archive_read_support_format_tar(reader);
  archive_read_support_format_warc(reader);
  archive_read_support_format_xar(reader);
  archive_read_support_format_zip(reader);
  // Only filters libarchive decodes in-process. filter_all would also accept
  // lrzip, lzop and grzip by running external programs on untrusted bytes.
  archive_read_support_filter_gzip(reader);
  archive_read_support_filter_zstd(reader);
  archive_read_support_filter_xz(reader);
  archive_read_support_filter_lzma(reader);
  archive_read_support_filter_bzip2(reader);
  archive_read_support_filter_lz4(reader);
  archive_read_support_filter_compress(reader);
}

std::string ErrorString(archive* reader) {
  const char* text = archive_error_string(reader);
  return text ? text : "no further detail";
}

// `zstd_outside`: the file was decompressed by ZstdReadAhead, before
// libarchive saw it.
std::string FormatName(archive* reader, bool zstd_outside) {
  const char* format = archive_format_name(reader);
  std::string name = format ? format : "unknown format";
  for (int i = 0; i < archive_filter_count(reader); ++i) {
    if (archive_filter_code(reader, i) == ARCHIVE_FILTER_NONE) continue;
    const char* filter = archive_filter_name(reader, i);
    name += std::string(" + ") + (filter ? filter : "unknown filter");
  }
  if (zstd_outside) name += " + zstd";
  return name;
}

// libarchive's read callback over a ZstdReadAhead: the decompressed bytes,
// 0 at the end, -1 (fatal) with the decompression's error.
// libarchive is C: nothing may unwind through it.
la_ssize_t ReadAhead(archive* reader, void* client, const void** buffer) noexcept {
  auto* ahead = static_cast<ZstdReadAhead*>(client);
  try {
    std::string_view bytes;
    if (!ahead->Next(&bytes)) {
      archive_set_error(reader, EIO, "%s", ahead->error().c_str());
      return -1;
    }
    *buffer = bytes.data();
    return static_cast<la_ssize_t>(bytes.size());
  } catch (...) {
    archive_set_error(reader, ENOMEM, "zstd: out of memory or threads while decompressing");
    return -1;
  }
}

EntryType TypeOf(archive_entry* entry) {
  if (archive_entry_hardlink(entry)) return EntryType::kHardlink;
  switch (archive_entry_filetype(entry)) {
    case AE_IFDIR:
      return EntryType::kDirectory;
    case AE_IFLNK:
      return EntryType::kSymlink;
    case AE_IFCHR:
    case AE_IFBLK:
      return EntryType::kDevice;
    case AE_IFIFO:
    case AE_IFSOCK:
      return EntryType::kOther;
    default:
      return EntryType::kFile;  // AE_IFREG, or no type given: keep the bytes
  }
}

EntryInfo InfoOf(archive_entry* entry, const char* raw_path) {
  EntryInfo info;
  info.raw_path = raw_path;
  info.type = TypeOf(entry);
  if (info.type == EntryType::kFile) {
    info.size = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : -1;
  } else {
    info.size = 0;
  }
  info.mtime = archive_entry_mtime_is_set(entry) ? archive_entry_mtime(entry) : 0;
  const char* target = nullptr;
  if (info.type == EntryType::kHardlink) target = archive_entry_hardlink(entry);
  if (info.type == EntryType::kSymlink) target = archive_entry_symlink(entry);
  if (target) info.link_target = target;
  return info;
}

const char* RawPathOf(archive_entry* entry) {
  if (const char* path = archive_entry_pathname(entry)) return path;
  if (const char* path = archive_entry_pathname_utf8(entry)) return path;
  return "";
}

}  // namespace

void ReadArchive(const std::string& path, const Limits& limits, ReadBudget& budget,
                 BundleVisitor& visitor, const ReadTuning& tuning, BundleReadResult& result) {
  FileDescriptor fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    int err = errno;
    throw Error(err == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
                path + ": cannot open: " + std::strerror(err));
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    throw Error(ErrorCode::kUnsupported, path + ": not a directory or a regular file");
  }
  size_t block = std::clamp<size_t>(tuning.archive_block_bytes, 512, 1 << 20);
  // A .tar.zst (what the collector writes) is decompressed on a thread of its
  // own, ahead of the entries (zstd_read_ahead.h); other files go to
  // libarchive's filters. Declared before the reader, which is freed first.
  std::unique_ptr<ZstdReadAhead> ahead;
  if (ZstdReadAhead::StartsWithZstdFrame(fd.get())) {
    ahead = std::make_unique<ZstdReadAhead>(fd.get(), block);
  }
  Reader reader(archive_read_new());
  if (!reader) throw std::bad_alloc();
  SupportFormats(reader.get());
  const int opened = ahead
                         ? archive_read_open(reader.get(), ahead.get(), nullptr, ReadAhead, nullptr)
                         : archive_read_open_fd(reader.get(), fd.get(), block);
  if (opened != ARCHIVE_OK) {
    throw Error(ErrorCode::kUnsupported, path +
                                             ": not a directory or a recognised archive "
                                             "(libarchive: " +
                                             ErrorString(reader.get()) + ")");
  }

  EntryDispatcher dispatch(path, limits, budget, visitor, result);
  archive* raw = reader.get();
  // The byte of the archive file reached (compressed, when it is): the
  // offset that messages name and the decompression-bomb ratio divides by.
  ZstdReadAhead* zstd = ahead.get();
  const std::function<int64_t()> archive_at = [raw, zstd]() -> int64_t {
    if (zstd) return static_cast<int64_t>(zstd->compressed_bytes());
    return std::max<la_int64_t>(archive_filter_bytes(raw, -1), 0);
  };
  dispatch.SetArchiveBytes([archive_at] { return static_cast<uint64_t>(archive_at()); });
  bool first = true;
  la_int64_t last_retry_at = -1;
  for (;;) {
    archive_entry* entry = nullptr;
    int rc = archive_read_next_header(reader.get(), &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc == ARCHIVE_RETRY) {
      // A damaged header (tar: bad checksum) that libarchive stepped over;
      // the next call looks for the next sound one. It must make progress
      // (in the bytes libarchive read, exact whoever decompressed them).
      const la_int64_t read = archive_filter_bytes(reader.get(), -1);
      if (read <= last_retry_at) {
        dispatch.HeaderDamaged(archive_at(), ErrorString(reader.get()));
        break;
      }
      last_retry_at = read;
      if (!dispatch.HeaderSkipped(archive_at(), ErrorString(reader.get()))) break;
      continue;
    }
    if (rc < ARCHIVE_WARN) {
      if (first) {
        throw Error(ErrorCode::kUnsupported, path +
                                                 ": not a directory or a recognised archive "
                                                 "(libarchive: " +
                                                 ErrorString(reader.get()) + ")");
      }
      dispatch.HeaderDamaged(archive_at(), ErrorString(reader.get()));
      break;
    }
    first = false;
    const char* raw_path = RawPathOf(entry);
    if (!dispatch.Admit(raw_path, archive_at())) break;
    EntryInfo info = InfoOf(entry, raw_path);
    ArchiveEntryData data(reader.get(), dispatch.failure(), archive_at);
    if (!dispatch.Deliver(info, info.type == EntryType::kFile ? &data : nullptr)) break;
  }
  result.format = FormatName(reader.get(), ahead != nullptr);
}

}  // namespace casefile::bundle
