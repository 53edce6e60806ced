// Marks that ingest leaves on line blocks for the analysis line pass
// (line_pass.h). Three analyzers read lines: the rule automaton, hang's
// Megascale parser and runtime's kernel, assertion and process scan. Each
// cares about a few lines in a million, yet decoding every block for them
// was most of an analysis. So ingest runs their line tests as it stores the
// lines, and ORs what it found into the block's `scan_marks`; an analysis
// then decodes only the blocks whose marks its scans ask for (and, for
// runtime, those near a failure row that has no time of its own).
//
// Marks are trusted only by the casefile version that wrote them (meta
// `casefile_version`) and the same version of the tests here (meta
// `line_marks`, "<kLineMarksVersion> <rule packs' version>"); rule hits only
// for the rule packs they were matched with. Otherwise, and for an index
// without marks, every block is read. A damaged block fails only the scans
// that wanted it (line_pass.h).
#pragma once

#include <cstdint>
#include <string>

#include "index/line_marker.h"

namespace casefile {

class IndexReader;

// A rule of the built-in packs matches the message (of any file kind).
inline constexpr uint32_t kMarkRuleHit = 1u << 0;
// A Megascale digest header or worker report (MegascaleParser::Opens).
inline constexpr uint32_t kMarkMegascale = 1u << 1;
// A kernel OOM-kill or Xid line (runtime's ParseKernelLine).
inline constexpr uint32_t kMarkKernel = 1u << 2;
// A device-side "Assertion `...` failed".
inline constexpr uint32_t kMarkAssert = 1u << 3;
// The first line of its file with this (pid, rank, host) as the line itself
// gives them (runtime's pid owners).
inline constexpr uint32_t kMarkNewPid = 1u << 4;
inline constexpr uint32_t kAllMarks =
    kMarkRuleHit | kMarkMegascale | kMarkKernel | kMarkAssert | kMarkNewPid;

// Bump when any test above changes (what a mark means, or which lines get
// it): indexes marked by the old tests are then read whole.
inline constexpr int kLineMarksVersion = 1;

// The marking the engine hands to ingest: one marker per file, running the
// tests above on its lines in order.
const LineMarking& AnalysisLineMarking();

// The marks of the index that an analysis may trust: kAllMarks less
// kMarkRuleHit when `rules_version` (the rules analyzer's version) is not
// the one the hits were marked with; 0 when the index has no marks it can
// trust (another casefile version, or built without marking).
uint32_t TrustedMarks(const IndexReader& index, const std::string& rules_version);

}  // namespace casefile
