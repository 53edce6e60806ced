#include "parse/line/line_splitter.h"

#include <cstring>
#include <utility>

#include "common/error.h"
#include "common/line_fields.h"

namespace casefile {

LineSplitter::LineSplitter(uint32_t max_line_bytes, Callback on_line)
    : max_line_bytes_(max_line_bytes), on_line_(std::move(on_line)) {
  if (max_line_bytes_ == 0) {
    throw Error(ErrorCode::kArgument, "LineSplitter: max_line_bytes must be at least 1");
  }
  if (!on_line_) throw Error(ErrorCode::kArgument, "LineSplitter: the line callback is empty");
}

void LineSplitter::Feed(std::string_view chunk) {
  const char* p = chunk.data();
  const char* const end = p + chunk.size();
  const uint64_t base = stream_offset_;
  stream_offset_ += chunk.size();
  if (p == end) return;

  if (pending_cr_) {
    // The '\r' that ended the previous chunk is now known to be either half
    // of a CRLF or a bare frame separator.
    pending_cr_ = false;
    if (*p == '\n') {
      EmitCarry(0);
      ++p;
    } else {
      frame_ended_ = true;
    }
  }
  while (p < end) {
    const auto* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    const char* seg_end = nl ? nl : end;
    FeedSegment(p, seg_end, base + static_cast<uint64_t>(p - chunk.data()), nl != nullptr);
    p = nl ? nl + 1 : end;
  }
}

// [p, seg_end) holds no '\n'; `terminated` says whether a '\n' follows it.
void LineSplitter::FeedSegment(const char* p, const char* seg_end, uint64_t offset,
                               bool terminated) {
  // A '\r' at the end is the CRLF terminator, or, at a chunk end, maybe one:
  // the next byte decides (pending_cr_).
  const char* text_end = seg_end;
  const bool trailing_cr = text_end > p && text_end[-1] == '\r';
  if (trailing_cr) --text_end;

  // Bare '\r's after the last content byte close empty frames, which never
  // replace the frame before them ("abc\r\r\n" -> "abc").
  const char* content_end = text_end;
  while (content_end > p && content_end[-1] == '\r') --content_end;
  const bool closes_frame = content_end < text_end;

  // Of the frames in this segment only the last non-empty one can be kept:
  // [start, content_end). Anything but '\r' before it is dropped.
  const char* start = p;
  bool dropped = false;
  const auto* cr = static_cast<const char*>(memrchr(p, '\r', static_cast<size_t>(content_end - p)));
  if (cr) {
    for (const char* q = p; !dropped && q < cr; ++q) dropped = *q != '\r';
    start = cr + 1;
  }
  const auto len = static_cast<size_t>(content_end - start);

  if (!line_open_ && terminated) {
    // The whole line is in this chunk (the common case): no copy.
    uint32_t flags = dropped ? static_cast<uint32_t>(kLineHadFrames) : 0u;
    if (len > max_line_bytes_) flags |= kLineTruncated;
    Emit(std::string_view(start, len > max_line_bytes_ ? max_line_bytes_ : len), offset, flags);
    return;
  }
  if (!line_open_) {
    line_open_ = true;
    frame_ended_ = false;
    carry_offset_ = offset;
    carry_flags_ = 0;
    carry_.clear();
  }
  if (len > 0) {
    // The content starts a new frame when a '\r' came before it, here or
    // earlier; otherwise it continues the open one.
    if (cr || frame_ended_) StartFrame(dropped || !carry_.empty());
    Append(start, len);
  }
  if (closes_frame) frame_ended_ = true;
  if (terminated) {
    EmitCarry(0);
  } else if (trailing_cr) {
    pending_cr_ = true;
  }
}

void LineSplitter::Append(const char* p, size_t n) {
  const size_t room = max_line_bytes_ - carry_.size();
  if (n > room) {
    carry_.append(p, room);
    carry_flags_ |= kLineTruncated;
  } else {
    carry_.append(p, n);
  }
}

void LineSplitter::StartFrame(bool dropped_content) {
  carry_.clear();
  carry_flags_ &= ~static_cast<uint32_t>(kLineTruncated);
  if (dropped_content) carry_flags_ |= kLineHadFrames;
  frame_ended_ = false;
}

void LineSplitter::EmitCarry(uint32_t extra_flags) {
  const uint32_t flags = carry_flags_ | extra_flags;
  line_open_ = false;
  frame_ended_ = false;
  carry_flags_ = 0;
  Emit(carry_, carry_offset_, flags);
  carry_.clear();
}

void LineSplitter::Emit(std::string_view text, uint64_t offset, uint32_t flags) {
  ++lines_;
  on_line_(RawLine{text, offset, flags});
}

void LineSplitter::Finish() {
  // A '\r' as the last byte of the stream ends the line like a newline would.
  pending_cr_ = false;
  if (line_open_) EmitCarry(kLineNoNewline);
}

}  // namespace casefile
