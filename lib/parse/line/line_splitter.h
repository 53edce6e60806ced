// Splits a byte stream, fed in chunks cut anywhere, into lines. Carriage-return
// progress frames (tqdm) are reduced to their final state while streaming, so
// a megabyte of frames never becomes a megabyte line; a line longer than the
// limit is kept truncated and flagged.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace casefile {

struct RawLine {
  std::string_view text;  // without the terminator and with \r frames reduced
  uint64_t offset = 0;    // byte offset of the line's first byte in the stream
  uint32_t flags = 0;     // LineFlag bits: kLineTruncated, kLineHadFrames, kLineNoNewline
};

class LineSplitter {
 public:
  using Callback = std::function<void(const RawLine&)>;
  LineSplitter(uint32_t max_line_bytes, Callback on_line);
  void Feed(std::string_view chunk);
  // Emits the last line if the stream did not end with a newline.
  void Finish();
  uint64_t lines() const { return lines_; }

 private:
  // Implementation detail; see line_splitter.cc.
  void Emit(std::string_view text, uint32_t flags);
  uint32_t max_line_bytes_;
  Callback on_line_;
  std::string carry_;
  uint64_t carry_offset_ = 0;
  uint64_t stream_offset_ = 0;
  uint32_t carry_flags_ = 0;
  uint64_t lines_ = 0;
};

}  // namespace casefile
