// The diff report: every section of docs/DIFF.md for two sides, ranked, with
// the headline on top; rendered as deterministic JSON or as text.
#pragma once

#include <string>
#include <vector>

#include "diff/diff_types.h"

namespace casefile::diff {

// How many items the headline holds at most, and the score an item needs to
// be in it (below, a difference is reported in its section only). The
// headline takes the best item of each section first, then the next best of
// any section while places are left; it lists them by score.
inline constexpr size_t kHeadlineItems = 3;
inline constexpr double kHeadlineMinScore = 50;
// Items kept per list (most suspicious first); the report gives each list's
// total, so a diff of two unrelated runs stays readable and bounded.
inline constexpr size_t kMaxItemsPerSection = 100;

struct DiffReport {
  std::vector<std::string> good_inputs;
  std::vector<std::string> bad_inputs;
  std::vector<BundleRow> good_bundles;
  std::vector<BundleRow> bad_bundles;
  std::vector<DiffItem> headline;  // copies of the top items of all sections
  std::vector<DiffItem> findings_new, findings_resolved, findings_persisting;
  std::vector<DiffItem> versions, configs;
  std::vector<DiffItem> templates_new, templates_vanished, templates_changed;
  std::vector<DiffItem> metrics, hlo, traces;
  std::vector<std::string> warnings;  // about the diff itself (a section that failed...)
  // Items each list had before it was cut to kMaxItemsPerSection, in the
  // order of Lists().
  std::vector<int64_t> totals;

  // The lists in their documented order, named by ListNames()
  // ("findings.new", ..., "traces").
  std::vector<std::vector<DiffItem>*> Lists();
  std::vector<const std::vector<DiffItem>*> Lists() const;
  static const char* const* ListNames();
  static constexpr size_t kListCount = 11;
};

// Runs every section over the two sides (a section that throws becomes a
// warning, the others still run), ranks each, and picks the headline.
DiffReport BuildDiff(const DiffSide& good, const DiffSide& bad);

std::string RenderDiffJson(const DiffReport& report);
std::string RenderDiffText(const DiffReport& report, bool color);
// One self-contained HTML page (docs/REPORTS.md), like the analysis report's.
std::string RenderDiffHtml(const DiffReport& report);
// A compact markdown summary to paste into an issue tracker.
std::string RenderDiffMarkdown(const DiffReport& report);

}  // namespace casefile::diff
