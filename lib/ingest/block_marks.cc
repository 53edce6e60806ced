#include "ingest/block_marks.h"

namespace casefile {

void BlockMarks::Prepare(Block& block) {
  if (!marker_ || block.file_id != file_) {
    file_ = block.file_id;
    marker_ = marking_.make();
  }
  uint32_t marks = 0;
  LineRecord rec;
  rec.file_id = block.file_id;
  // Texts are stored one after another, each followed by '\n'.
  size_t offset = 0;
  for (size_t i = 0; i < block.lines.size(); ++i) {
    const BlockLine& line = block.lines[i];
    rec.line_no = block.first_line + static_cast<int64_t>(i);
    rec.offset = line.offset;
    rec.ts_us = line.ts_us;
    rec.level = static_cast<Level>(line.level);
    rec.rank = line.rank;
    rec.host = line.host == 0 ? std::string_view() : std::string_view(block.hosts[line.host - 1]);
    rec.pid = line.pid;
    rec.msg_start = line.msg_start;
    rec.flags = line.flags;
    rec.text = std::string_view(block.text.data() + offset, line.text_len);
    offset += size_t{line.text_len} + 1;
    marks |= marker_->Mark(rec);
  }
  block.scan_marks = marks;
}

}  // namespace casefile
