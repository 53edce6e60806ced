#include "parse/dist/dist_extractor.h"

namespace casefile::dist {

DistExtractor::DistExtractor(int64_t file_id, std::function<void(const DistEventRow&)> sink,
                             std::function<void(const NcclRankRow&)> nccl_sink)
    : out_(file_id, std::move(sink), std::move(nccl_sink)) {
  families_.push_back(MakeTorchWatchdogFamily());
  families_.push_back(MakeCrashFamily());
  families_.push_back(MakeLauncherFamily());
  families_.push_back(MakeJaxCoordinationFamily());
  families_.push_back(MakeProgramProgressFamily());
  families_.push_back(MakeStepTimeFamily());
  families_.push_back(MakeRankHostFamily());
  families_.push_back(MakeBuildLinesFamily());
  families_.push_back(MakeCommLinesFamily());
}

void DistExtractor::AddLine(const LineRecord& line) {
  // One scan for all families; most lines hold no family's anchor and cost
  // only this scan and a mask test per family.
  const uint32_t anchors = LineAnchors(line);
  for (const auto& f : families_) f->AddLine(line, anchors, out_);
}

void DistExtractor::Finish() {
  for (const auto& f : families_) f->Finish(out_);
}

}  // namespace casefile::dist
