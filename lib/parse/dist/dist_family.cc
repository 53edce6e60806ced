#include "parse/dist/dist_family.h"

#include <utility>

namespace casefile::dist {

void DistEmitter::Restart(DistEventRow& row, const LineRecord& line, const char* kind) const {
  // Every column back to its default (whatever columns the row has), then
  // the line's; the host and kind strings keep their buffers.
  std::optional<std::string> host = std::move(row.host);
  std::string kind_text = std::move(row.kind);
  row = DistEventRow{};
  row.file_id = file_id_;
  row.line_no = line.line_no;
  row.ts_us = line.ts_us;
  if (!line.host.empty()) {
    row.host = std::move(host);
    if (row.host) {
      row.host->assign(line.host);
    } else {
      row.host.emplace(line.host);
    }
  }
  if (line.rank >= 0) row.rank = line.rank;
  if (line.local_rank >= 0) row.local_rank = line.local_rank;
  row.kind = std::move(kind_text);
  row.kind.assign(kind);
}

}  // namespace casefile::dist
