#include "bundle/zstd_read_ahead.h"

#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

namespace casefile::bundle {

namespace {

struct DCtxFree {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

std::string At(uint64_t compressed) { return " at compressed byte " + std::to_string(compressed); }

}  // namespace

bool ZstdReadAhead::StartsWithZstdFrame(int fd) {
  unsigned char magic[4];
  ssize_t n;
  do {
    n = pread(fd, magic, sizeof magic, 0);
  } while (n < 0 && errno == EINTR);
  // ZSTD_MAGICNUMBER, little-endian. Skippable frames and the legacy
  // formats are left to libarchive.
  return n == 4 && magic[0] == 0x28 && magic[1] == 0xB5 && magic[2] == 0x2F && magic[3] == 0xFD;
}

ZstdReadAhead::ZstdReadAhead(int fd, size_t read_bytes)
    : fd_(fd), read_bytes_(read_bytes == 0 ? ZSTD_DStreamInSize() : read_bytes) {
  free_.reserve(kAheadBuffers + 2);  // every buffer there can be: Next never grows it
  thread_ = std::thread([this] { Run(); });
}

ZstdReadAhead::~ZstdReadAhead() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

bool ZstdReadAhead::TakeFree(Buffer* out) {
  std::unique_lock<std::mutex> lock(mu_);
  // Waits while kAheadBuffers filled buffers are unread.
  changed_.wait(lock, [&] { return stopping_ || filled_.size() < kAheadBuffers; });
  if (stopping_) return false;
  if (!free_.empty()) {
    *out = std::move(free_.back());
    free_.pop_back();
    return true;
  }
  ++allocated_;
  lock.unlock();
  out->data.reset(new char[kBufferBytes]);
  return true;
}

size_t ZstdReadAhead::buffers_made() {
  std::lock_guard<std::mutex> lock(mu_);
  return allocated_;
}

void ZstdReadAhead::Deliver(Buffer buffer) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    filled_.push_back(std::move(buffer));
  }
  changed_.notify_all();
}

void ZstdReadAhead::Finish(std::string error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
    thread_failed_ = !error.empty();
    thread_error_ = std::move(error);
  }
  changed_.notify_all();
}

void ZstdReadAhead::Run() {
  // Nothing may escape the thread: every failure becomes the stream's error,
  // delivered after what decoded before it.
  try {
    std::unique_ptr<ZSTD_DCtx, DCtxFree> dctx(ZSTD_createDCtx());
    if (!dctx) throw std::bad_alloc();
    std::unique_ptr<char[]> in(new char[read_bytes_]);
    ZSTD_inBuffer input{in.get(), 0, 0};
    uint64_t consumed = 0;  // compressed bytes decoded so far
    size_t pending = 0;     // the last return of a call that moved: 0 = at a frame's end
    bool eof = false;
    for (;;) {
      Buffer buffer;
      if (!TakeFree(&buffer)) return;
      ZSTD_outBuffer output{buffer.data.get(), kBufferBytes, 0};
      std::string error;
      bool stalled = false;  // the input is over and nothing more came out
      while (output.pos < output.size) {
        if (input.pos == input.size && !eof) {
          ssize_t n;
          do {
            n = read(fd_, in.get(), read_bytes_);
          } while (n < 0 && errno == EINTR);
          if (n < 0) {
            error = std::string("cannot read: ") + std::strerror(errno) + At(consumed);
            break;
          }
          if (n == 0) eof = true;
          input = ZSTD_inBuffer{in.get(), static_cast<size_t>(n), 0};
        }
        const size_t in_before = input.pos;
        const size_t out_before = output.pos;
        const size_t ret = ZSTD_decompressStream(dctx.get(), &output, &input);
        if (ZSTD_isError(ret)) {
          error = std::string("zstd: ") + ZSTD_getErrorName(ret) + At(consumed);
          break;
        }
        consumed += input.pos - in_before;
        if (input.pos != in_before || output.pos != out_before) {
          pending = ret;
        } else if (eof && input.pos == input.size) {
          // (A call with nothing to read returns the size of a frame
          // header, not 0: only a call that moved says where we are.)
          stalled = true;
          break;
        }
      }
      buffer.size = output.pos;
      buffer.compressed_end = consumed;
      if (buffer.size > 0) Deliver(std::move(buffer));
      if (!error.empty()) return Finish(std::move(error));
      if (stalled) {
        // At a frame's end the stream is whole; inside one it was cut.
        return Finish(pending == 0
                          ? std::string()
                          : "zstd: the stream ends inside a frame (truncated)" + At(consumed));
      }
    }
  } catch (...) {
    // Allocation failed (the context, a buffer): the reader is told so.
    // Finish itself may fail to copy a message, hence the flag apart.
    {
      std::lock_guard<std::mutex> lock(mu_);
      finished_ = true;
      thread_failed_ = true;
    }
    changed_.notify_all();
  }
}

bool ZstdReadAhead::Next(std::string_view* out) {
  *out = {};
  if (!error_.empty()) return false;
  std::unique_lock<std::mutex> lock(mu_);
  if (has_current_) {
    free_.push_back(std::move(current_));
    has_current_ = false;
    changed_.notify_all();
  }
  changed_.wait(lock, [&] { return !filled_.empty() || finished_; });
  if (!filled_.empty()) {
    current_ = std::move(filled_.front());
    filled_.pop_front();
    has_current_ = true;
    changed_.notify_all();
    compressed_bytes_ = current_.compressed_end;
    *out = std::string_view(current_.data.get(), current_.size);
    return true;
  }
  if (!thread_failed_) return true;  // the end
  error_ = thread_error_.empty() ? "zstd: out of memory while decompressing" : thread_error_;
  return false;
}

}  // namespace casefile::bundle
