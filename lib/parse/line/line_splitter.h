// Splits a byte stream, fed in chunks cut anywhere, into lines. Carriage-return
// progress frames (tqdm) are reduced to their final state while streaming, so
// a megabyte of frames never becomes a megabyte line; a line longer than the
// limit is kept truncated and flagged. The output does not depend on where the
// chunks were cut.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace casefile {

struct RawLine {
  // The line without its terminator ("\n" or "\r\n"), reduced to its last
  // carriage-return frame and cut to max_line_bytes. Valid only during the
  // callback: it points into the fed chunk or into the splitter's buffer.
  std::string_view text;
  uint64_t offset = 0;  // byte offset of the line's first raw byte in the stream
  uint32_t flags = 0;   // LineFlag bits: kLineTruncated, kLineHadFrames, kLineNoNewline
};

// Rules, applied the same way whatever the chunk boundaries:
// - "\n" ends a line; a '\r' just before it is part of the terminator.
// - Any other '\r' ("bare") ends a frame: what came before it in the line is
//   dropped, and the line is flagged kLineHadFrames if any byte other than
//   '\r' was dropped ("a\rb\rc\n" -> "c", "a\rb\r\n" -> "b", "\rc\n" -> "c"
//   unflagged).
// - A frame longer than max_line_bytes keeps its first max_line_bytes bytes
//   and is flagged kLineTruncated; the rest is discarded up to the next '\n'
//   or bare '\r' (a later frame starts afresh and clears the flag).
// - At the end of the stream an unterminated line is emitted with
//   kLineNoNewline; a '\r' as the very last byte counts as its terminator.
// Memory: one buffer of at most max_line_bytes, used only for a line that
// spans chunks. Not thread-safe; one splitter per stream.
class LineSplitter {
 public:
  using Callback = std::function<void(const RawLine&)>;
  // Throws casefile::Error (kArgument) when max_line_bytes is 0 or on_line is
  // empty.
  LineSplitter(uint32_t max_line_bytes, Callback on_line);
  void Feed(std::string_view chunk);
  // Emits the last line if the stream did not end with a newline. The
  // splitter can then be fed a new stream; offsets keep counting.
  void Finish();
  uint64_t lines() const { return lines_; }

 private:
  void FeedSegment(const char* p, const char* seg_end, uint64_t offset, bool terminated);
  void Append(const char* p, size_t n);
  void BareCr(bool dropped_content);
  void Emit(std::string_view text, uint64_t offset, uint32_t flags);
  void EmitCarry(uint32_t extra_flags);

  uint32_t max_line_bytes_;
  Callback on_line_;
  std::string carry_;  // the current frame of a line that spans chunks
  uint64_t carry_offset_ = 0;
  uint64_t stream_offset_ = 0;
  uint32_t carry_flags_ = 0;
  bool line_open_ = false;   // bytes of an unterminated line have been fed
  bool pending_cr_ = false;  // the last byte fed was a '\r' of the open line
  uint64_t lines_ = 0;
};

}  // namespace casefile
