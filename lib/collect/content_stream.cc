#include "collect/content_stream.h"

#include <archive.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "common/error.h"

namespace casefile::collect {
namespace {

constexpr size_t kChunkBytes = 1u << 20;

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

class FileHandle {
 public:
  explicit FileHandle(int fd) : fd_(fd) {}
  ~FileHandle() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void IoError(const std::string& what) {
  throw Error(ErrorCode::kIo, what + ": " + std::strerror(errno));
}

// Either passes chunks through or redacts them on the way; stops asking for
// more once the sink has had enough.
class Pipeline {
 public:
  Pipeline(const Redactor* redactor, RedactionCounts& counts, const ContentSink& sink,
           StreamStats& stats)
      : sink_(sink), stats_(stats) {
    if (redactor != nullptr) stream_ = std::make_unique<StreamRedactor>(*redactor, counts);
  }

  // False once the sink asked to stop.
  bool Feed(std::string_view chunk) {
    if (stopped_) return false;
    if (stream_ == nullptr) return Emit(chunk);
    out_.clear();
    stream_->Feed(chunk, out_);
    return Emit(out_);
  }

  void Finish() {
    if (stopped_ || stream_ == nullptr) return;
    out_.clear();
    stream_->Finish(out_);
    Emit(out_);
  }

 private:
  bool Emit(std::string_view bytes) {
    if (bytes.empty()) return true;
    stats_.content_bytes += bytes.size();
    if (!sink_(bytes)) stopped_ = true;
    return !stopped_;
  }

  const ContentSink& sink_;
  StreamStats& stats_;
  std::unique_ptr<StreamRedactor> stream_;
  std::string out_;
  bool stopped_ = false;
};

// libarchive reads the compressed file through this, never past the limit.
struct RawInput {
  int fd;
  uint64_t remaining;
  uint64_t read = 0;
  std::string buffer;
};

la_ssize_t ReadRaw(archive* a, void* client, const void** buffer) {
  auto* in = static_cast<RawInput*>(client);
  size_t want = in->remaining < kChunkBytes ? static_cast<size_t>(in->remaining) : kChunkBytes;
  if (want == 0) return 0;
  in->buffer.resize(kChunkBytes);
  ssize_t n;
  do {
    n = ::read(in->fd, in->buffer.data(), want);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    archive_set_error(a, errno, "read failed: %s", std::strerror(errno));
    return -1;
  }
  in->remaining -= static_cast<uint64_t>(n);
  in->read += static_cast<uint64_t>(n);
  *buffer = in->buffer.data();
  return n;
}

void StreamDecompressed(int fd, uint64_t limit, Pipeline& pipeline, StreamStats& stats) {
  archive* a = archive_read_new();
  if (a == nullptr) throw std::bad_alloc();
  struct Free {
    archive* a;
    ~Free() { archive_read_free(a); }
  } free_guard{a};
  // Only the filters SniffCompression names; no external programs.
  archive_read_support_filter_gzip(a);
  archive_read_support_filter_zstd(a);
  archive_read_support_filter_xz(a);
  archive_read_support_filter_bzip2(a);
  archive_read_support_filter_lz4(a);
  archive_read_support_format_raw(a);
  RawInput in{fd, limit, 0, {}};
  archive_entry* entry = nullptr;
  if (archive_read_open(a, &in, nullptr, ReadRaw, nullptr) != ARCHIVE_OK ||
      archive_read_next_header(a, &entry) != ARCHIVE_OK) {
    const char* why = archive_error_string(a);
    stats.cut = std::string("cannot decompress: ") + (why ? why : "unknown error");
    stats.source_bytes = in.read;
    return;
  }
  std::string buf(kChunkBytes, '\0');
  uint64_t produced = 0;
  while (true) {
    la_ssize_t n = archive_read_data(a, buf.data(), buf.size());
    if (n == 0) break;
    if (n < 0) {
      const char* why = archive_error_string(a);
      stats.cut = "decompression stopped after " + std::to_string(produced) +
                  " bytes: " + (why ? why : "corrupt data") + "; the rest is not packed";
      break;
    }
    uint64_t take = static_cast<uint64_t>(n);
    if (produced + take > kMaxDecompressedBytes) {
      take = kMaxDecompressedBytes - produced;
      stats.cut = "decompressed content larger than " + std::to_string(kMaxDecompressedBytes) +
                  " bytes; the rest is not packed";
    }
    produced += take;
    if (!pipeline.Feed(std::string_view(buf.data(), static_cast<size_t>(take)))) break;
    if (!stats.cut.empty()) break;
  }
  stats.source_bytes = in.read;
}

}  // namespace

Compression SniffCompression(std::string_view head) {
  if (StartsWith(head, "\x1f\x8b")) return Compression::kGzip;
  if (StartsWith(head, "\x28\xb5\x2f\xfd")) return Compression::kZstd;
  if (StartsWith(head, std::string_view("\xfd"
                                        "7zXZ\x00",
                                        6)))
    return Compression::kXz;
  if (StartsWith(head, "BZh") && head.size() > 3 && head[3] >= '1' && head[3] <= '9') {
    return Compression::kBzip2;
  }
  if (StartsWith(head, "\x04\x22\x4d\x18")) return Compression::kLz4;
  return Compression::kNone;
}

bool IsMultiMemberArchive(std::string_view head) {
  return StartsWith(head, std::string_view("PK\x03\x04", 4)) ||
         StartsWith(head, std::string_view("PK\x05\x06", 4)) ||
         StartsWith(head, std::string_view("7z\xbc\xaf\x27\x1c", 6));
}

std::string ReadHead(const std::string& path, size_t n) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return "";
  FileHandle file(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return "";
  std::string head(n, '\0');
  ssize_t got;
  do {
    got = ::pread(fd, head.data(), n, 0);
  } while (got < 0 && errno == EINTR);
  head.resize(got > 0 ? static_cast<size_t>(got) : 0);
  return head;
}

std::string StripCompressionSuffix(const std::string& name, Compression c) {
  auto strip = [&](std::string_view suffix,
                   std::string_view replacement) -> std::optional<std::string> {
    if (name.size() > suffix.size() && EndsWith(name, suffix)) {
      return name.substr(0, name.size() - suffix.size()) + std::string(replacement);
    }
    return std::nullopt;
  };
  std::optional<std::string> out;
  switch (c) {
    case Compression::kGzip:
      out = strip(".tgz", ".tar");
      if (!out) out = strip(".gz", "");
      break;
    case Compression::kZstd:
      out = strip(".zst", "");
      if (!out) out = strip(".zstd", "");
      break;
    case Compression::kXz:
      out = strip(".xz", "");
      break;
    case Compression::kBzip2:
      out = strip(".bz2", "");
      break;
    case Compression::kLz4:
      out = strip(".lz4", "");
      break;
    case Compression::kNone:
      break;
  }
  return out ? *out : name;
}

StreamStats StreamContent(const ContentSource& source, uint64_t source_limit,
                          const Redactor* redactor, RedactionCounts& counts,
                          const ContentSink& sink, const SourceObserver& on_source) {
  StreamStats stats;
  Pipeline pipeline(source.redacted_already ? nullptr : redactor, counts, sink, stats);
  if (source.memory != nullptr) {
    const std::string& bytes = *source.memory;
    uint64_t limit = source_limit < bytes.size() ? source_limit : bytes.size();
    for (uint64_t off = 0; off < limit; off += kChunkBytes) {
      uint64_t n = limit - off < kChunkBytes ? limit - off : kChunkBytes;
      if (!pipeline.Feed(std::string_view(bytes).substr(off, n))) break;
    }
    stats.source_bytes = limit;
    pipeline.Finish();
    return stats;
  }

  // O_NONBLOCK: a FIFO put where a file was must not hang the open; it is
  // then refused by the type check.
  int fd = ::open(source.file_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) IoError("cannot open");
  FileHandle file(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) IoError("cannot stat");
  if (!S_ISREG(st.st_mode)) throw Error(ErrorCode::kUnsupported, "not a regular file");
  stats.mtime = static_cast<int64_t>(st.st_mtime);
  stats.mode = static_cast<uint32_t>(st.st_mode & 07777);
  stats.uid = static_cast<uint32_t>(st.st_uid);
  stats.gid = static_cast<uint32_t>(st.st_gid);
  uint64_t limit = source_limit;
  if (limit == UINT64_MAX) {
    limit = st.st_size > 0 ? static_cast<uint64_t>(st.st_size) : kMaxUnsizedBytes;
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);

  if (source.decompress) {
    StreamDecompressed(fd, limit, pipeline, stats);
    pipeline.Finish();
    return stats;
  }
  std::string buf(kChunkBytes, '\0');
  while (stats.source_bytes < limit) {
    uint64_t left = limit - stats.source_bytes;
    size_t want = left < kChunkBytes ? static_cast<size_t>(left) : kChunkBytes;
    ssize_t n = ::read(fd, buf.data(), want);
    if (n < 0) {
      if (errno == EINTR) continue;
      IoError("read failed after " + std::to_string(stats.source_bytes) + " bytes");
    }
    if (n == 0) break;
    stats.source_bytes += static_cast<uint64_t>(n);
    std::string_view raw(buf.data(), static_cast<size_t>(n));
    if (on_source) on_source(raw);
    if (!pipeline.Feed(raw)) break;
  }
  pipeline.Finish();
  return stats;
}

}  // namespace casefile::collect
