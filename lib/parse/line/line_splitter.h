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
  // non-empty carriage-return frame and cut to max_line_bytes. Valid only
  // during the callback: it points into the fed chunk or into the
  // splitter's buffer.
  std::string_view text;
  uint64_t offset = 0;  // byte offset of the line's first raw byte in the stream
  uint32_t flags = 0;   // LineFlag bits: kLineTruncated, kLineHadFrames, kLineNoNewline
};

// Rules, applied the same way whatever the chunk boundaries:
// - "\n" ends a line; a '\r' just before it is part of the terminator.
// - Any other '\r' ("bare") ends a frame. The line keeps its last NON-EMPTY
//   frame: tqdm redraws with "\r<frame>" and some versions end with "\r"
//   then the newline, so the final state is the last frame with content
//   ("a\rb\rc\n" -> "c", "a\rb\r\n" -> "b", "abc\r\r\n" -> "abc",
//   "\r\r\n" -> ""). The line is flagged kLineHadFrames when a byte other
//   than '\r' was dropped ("a\rb\n" flagged; "\rc\n", "abc\r\r\n" not).
// - A frame longer than max_line_bytes keeps its first max_line_bytes bytes
//   and is flagged kLineTruncated; the rest is discarded up to the next '\n'
//   or bare '\r'. The flag belongs to the frame: a later non-empty frame
//   starts afresh and clears it, an empty one does not.
// - At the end of the stream an unterminated line is emitted with
//   kLineNoNewline; a '\r' as the very last byte counts as its terminator.
// Memory: one buffer of at most max_line_bytes (the open frame or the last
// non-empty one), used only for a line that spans chunks. Not thread-safe;
// one splitter per stream.
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
  // A frame with content begins: the kept one is dropped.
  void StartFrame(bool dropped_content);
  void Emit(std::string_view text, uint64_t offset, uint32_t flags);
  void EmitCarry(uint32_t extra_flags);

  uint32_t max_line_bytes_;
  Callback on_line_;
  // The frame of a line that spans chunks: the open frame, or, when
  // frame_ended_, the last non-empty one, kept until content replaces it.
  std::string carry_;
  uint64_t carry_offset_ = 0;
  uint64_t stream_offset_ = 0;
  uint32_t carry_flags_ = 0;
  bool line_open_ = false;    // bytes of an unterminated line have been fed
  bool pending_cr_ = false;   // the last byte fed was a '\r' of the open line
  bool frame_ended_ = false;  // a bare '\r' closed carry_'s frame
  uint64_t lines_ = 0;
};

}  // namespace casefile
