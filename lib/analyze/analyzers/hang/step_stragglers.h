// A host or rank consistently slower than its peers, from the step times its
// log prints (dist_events kind step_time), judged with robust statistics so
// that slow steps every rank shares (evaluation, checkpoints) and isolated
// spikes do not count.
//
// Series: one per (host, rank), or per host when no rank is known. Needs
// kMinSeries series of at least kMinSteps steps. With m_i the median step
// time of series i, M the median of the m_i and D their median absolute
// deviation (floored at kMadFloor * M), series i straggles when
//   m_i >= kMinSlowdown * M,
//   (m_i - M) / (1.4826 * D) >= kMinRobustZ, and
//   in at least kMinSlowerShare of the steps it shares with its peers, its
//   time is above the median of the peers' times for that step.
#pragma once

#include <optional>
#include <vector>

#include "analyze/analyzers/hang/dist_common.h"

namespace casefile::hang {

inline constexpr size_t kMinSeries = 4;
inline constexpr size_t kMinSteps = 8;
inline constexpr double kMinSlowdown = 1.25;
inline constexpr double kMinRobustZ = 3.5;
inline constexpr double kMadFloor = 0.01;
inline constexpr double kMinSlowerShare = 0.75;

struct StepStraggler {
  Culprit culprit;
  double median_s = 0;        // its median step time
  double peers_median_s = 0;  // median of the peers' medians
  size_t peers = 0;
  std::string
      summary;  // "host X (rank R) median step 1.91 s vs 1.20 s for its 15 peers (1.6x slower)"
};

struct StepStragglers {
  std::vector<StepStraggler> stragglers;
  std::vector<Evidence>
      evidence;  // each straggler's last step line and a median peer's line of that step
};

StepStragglers FindStepStragglers(const DistContext& ctx);

}  // namespace casefile::hang
