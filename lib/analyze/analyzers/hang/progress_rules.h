// MXLA program progress (--vmodule=real_program_continuator=1): the last
// launch id each host reached. Hosts whose last launch id is below the one
// most hosts reached stopped advancing first. Never a finding by itself: the
// analyzer names these hosts in the Megascale hang finding.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyze/analyzers/hang/dist_common.h"

namespace casefile::hang {

struct ProgressLag {
  std::vector<Culprit> culprits;   // the hosts behind
  std::vector<Evidence> evidence;  // each one's last progress line, and one line at the common id
  std::string
      summary;  // "MXLA program progress: host X stopped at launch id L while N hosts reached M."
};

std::optional<ProgressLag> FindProgressLag(const DistContext& ctx);

}  // namespace casefile::hang
