// Runs every distributed-run message family (dist_family.h) over the lines of
// one log file during ingest and hands the events to a sink (the index's
// dist_events table). Memory is bounded: families keep at most one pending
// multi-line message, and rows leave as soon as they are read.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "parse/dist/dist_family.h"

namespace casefile::dist {

class DistExtractor {
 public:
  // `nccl_sink` receives the per-process communicator rows of NCCL output
  // (nccl_ranks) at Finish; none when empty.
  DistExtractor(int64_t file_id, std::function<void(const DistEventRow&)> sink,
                std::function<void(const NcclRankRow&)> nccl_sink = {});
  DistExtractor(const DistExtractor&) = delete;
  DistExtractor& operator=(const DistExtractor&) = delete;

  void AddLine(const LineRecord& line);
  void Finish();

 private:
  DistEmitter out_;
  std::vector<std::unique_ptr<DistFamily>> families_;
};

}  // namespace casefile::dist
