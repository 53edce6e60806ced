// Turns what MegascaleParser read from each file into hang.* findings (see
// docs/FINDINGS.md, section "hang"). Separate from the analyzer so the rules
// can be tested without an index: the caller supplies the per-file results
// and a function that turns a cited line into Evidence.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analyze/analyzers/hang/megascale_parser.h"
#include "analyze/finding.h"

namespace casefile::hang {

inline constexpr const char* kAnalyzerName = "hang";
// Worker report lines cited per finding: the first of each host, up to this many.
inline constexpr size_t kMaxReportEvidence = 8;
// Digests of one cause whose lines are cited.
inline constexpr size_t kMaxDigestsCited = 4;
// A silent host's log must end at least this long before the first hang
// report (plus the hang timeout) to count as stopped early.
inline constexpr int64_t kSilentMarginUs = 60'000'000;

// What was read from one log file.
struct FileScan {
  int64_t file_id = 0;
  std::string path;
  std::string host;                   // the file's host (from the bundle layout); "" when unknown
  int64_t last_ts_us = kNoTimestamp;  // latest line timestamp in the file
  SourceLine last_ts_line;            // the line that carries it
  std::vector<HangReport> reports;
  int64_t report_count = 0;
  std::vector<HangDigest> digests;
};

using EvidenceFn = std::function<Evidence(int64_t file_id, const SourceLine& line)>;

// At most one finding per code. Findings carry analyzer = "hang" and are not
// yet normalized.
std::vector<Finding> BuildHangFindings(const std::vector<FileScan>& files,
                                       const EvidenceFn& evidence);

}  // namespace casefile::hang
