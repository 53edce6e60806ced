// Feeds lines to one distributed-run family the way ingest does: ANSI codes
// stripped, wrappers parsed by ParseLinePrefix, the LineRecord filled with
// what they said; returns the rows the family emitted, Finish() included.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parse/dist/dist_family.h"
#include "parse/line/ansi.h"
#include "parse/line/line_prefix.h"

namespace casefile::dist::test {

// `nccl_ranks`, when given, receives the family's communicator rows.
inline std::vector<DistEventRow> FeedFamily(DistFamily& family,
                                            const std::vector<std::string>& lines, int64_t file_id,
                                            int default_year,
                                            std::vector<NcclRankRow>* nccl_ranks = nullptr) {
  std::vector<DistEventRow> rows;
  DistEmitter out(
      file_id, [&rows](const DistEventRow& r) { rows.push_back(r); },
      [nccl_ranks](const NcclRankRow& r) {
        if (nccl_ranks) nccl_ranks->push_back(r);
      });
  TimeContext tc;
  tc.default_year = default_year;
  std::string clean;
  int64_t n = 0;
  for (const std::string& raw : lines) {
    std::string_view text = raw;
    if (StripAnsi(text, clean)) text = clean;
    const LinePrefix p = ParseLinePrefix(text, tc);
    LineRecord rec;
    rec.file_id = file_id;
    rec.line_no = ++n;
    rec.ts_us = p.ts_us;
    rec.level = p.level;
    rec.rank = p.rank;
    rec.local_rank = p.local_rank;
    rec.host = p.host;
    rec.pid = p.pid;
    rec.msg_start = p.msg_start;
    rec.text = text;
    family.AddLine(rec, out);
  }
  family.Finish(out);
  return rows;
}

}  // namespace casefile::dist::test
