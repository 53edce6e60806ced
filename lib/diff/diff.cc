#include "diff/diff.h"

#include <algorithm>
#include <functional>
#include <tuple>

#include "common/error.h"
#include "diff/sections.h"

namespace casefile::diff {
namespace {

// Reads the cited lines of the kept items, in (file, line) order so that
// consecutive citations of one block decode it once.
void ResolveEvidence(const DiffSide& side, std::vector<DiffItem*>& items, bool good) {
  struct Want {
    int64_t file_id, line_no;
    DiffItem* item;
    size_t order;
  };
  std::vector<Want> wants;
  for (DiffItem* item : items) {
    const auto& lines = good ? item->good_lines : item->bad_lines;
    for (size_t i = 0; i < lines.size(); ++i) {
      wants.push_back({lines[i].first, lines[i].second, item, i});
    }
  }
  std::sort(wants.begin(), wants.end(), [](const Want& a, const Want& b) {
    return std::tie(a.file_id, a.line_no) < std::tie(b.file_id, b.line_no);
  });
  for (const Want& w : wants) {
    auto& out = good ? w.item->good_evidence : w.item->bad_evidence;
    out.push_back(side.LineEvidence(w.file_id, w.line_no));
  }
  for (DiffItem* item : items) {
    auto& out = good ? item->good_evidence : item->bad_evidence;
    std::sort(out.begin(), out.end());
    out.erase(
        std::unique(out.begin(), out.end(),
                    [](const Evidence& a, const Evidence& b) { return !(a < b) && !(b < a); }),
        out.end());
    (good ? item->good_lines : item->bad_lines).clear();
  }
}

}  // namespace

DiffReport BuildDiff(const DiffSide& good, const DiffSide& bad) {
  DiffReport report;
  report.good_inputs = good.inputs;
  report.bad_inputs = bad.inputs;
  report.good_bundles = good.bundles;
  report.bad_bundles = bad.bundles;

  TemplateOmitted omitted;
  auto templates = [&omitted](const DiffSide& g, const DiffSide& b) {
    return DiffTemplates(g, b, kMaxItemsPerSection, &omitted);
  };
  struct SectionRun {
    const char* name;
    std::function<std::vector<DiffItem>(const DiffSide&, const DiffSide&)> fn;
  };
  const SectionRun sections[] = {{"findings", DiffFindings}, {"versions", DiffVersions},
                                 {"configs", DiffConfigs},   {"templates", templates},
                                 {"metrics", DiffMetrics},   {"hlo", DiffHlo},
                                 {"traces", DiffTraces}};
  for (const SectionRun& s : sections) {
    std::vector<DiffItem> items;
    try {
      items = s.fn(good, bad);
    } catch (const std::exception& e) {
      // One section's failure (a damaged table) must not hide the others.
      report.warnings.push_back(std::string("section ") + s.name + " failed: " + e.what());
      continue;
    }
    RankItems(items);
    const std::string name = s.name;
    for (DiffItem& item : items) {
      std::vector<DiffItem>* list = nullptr;
      if (name == "findings") {
        list = item.kind == "new"        ? &report.findings_new
               : item.kind == "resolved" ? &report.findings_resolved
                                         : &report.findings_persisting;
      } else if (name == "templates") {
        list = item.kind == "new"        ? &report.templates_new
               : item.kind == "vanished" ? &report.templates_vanished
                                         : &report.templates_changed;
      } else if (name == "versions") {
        list = &report.versions;
      } else if (name == "configs") {
        list = &report.configs;
      } else if (name == "metrics") {
        list = &report.metrics;
      } else if (name == "hlo") {
        list = &report.hlo;
      } else {
        list = &report.traces;
      }
      list->push_back(std::move(item));
    }
  }

  // Keep the top of each list; the totals stay countable.
  std::vector<DiffItem*> kept_good, kept_bad;
  for (auto* list : report.Lists()) {
    int64_t total = static_cast<int64_t>(list->size());
    if (list == &report.templates_new) total += omitted.fresh;
    if (list == &report.templates_vanished) total += omitted.vanished;
    if (list == &report.templates_changed) total += omitted.changed;
    report.totals.push_back(total);
    if (list->size() > kMaxItemsPerSection) list->resize(kMaxItemsPerSection);
    for (DiffItem& item : *list) {
      kept_good.push_back(&item);
      kept_bad.push_back(&item);
    }
  }
  ResolveEvidence(good, kept_good, /*good=*/true);
  ResolveEvidence(bad, kept_bad, /*good=*/false);

  // The headline: the most suspicious items, one per section first, so that
  // three version bumps of one upgrade do not hide the new error their run
  // prints; then the next best of any section while places are left.
  std::vector<const DiffItem*> all;
  for (auto* list : report.Lists()) {
    for (const DiffItem& item : *list) {
      if (item.score >= kHeadlineMinScore) all.push_back(&item);
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const DiffItem* a, const DiffItem* b) {
    if (a->score != b->score) return a->score > b->score;
    return std::tie(a->section, a->key, a->host, a->kind) <
           std::tie(b->section, b->key, b->host, b->kind);
  });
  std::vector<const DiffItem*> picked;
  for (const DiffItem* item : all) {
    if (picked.size() == kHeadlineItems) break;
    const bool section_taken = std::any_of(picked.begin(), picked.end(), [&](const DiffItem* p) {
      return p->section == item->section;
    });
    if (!section_taken) picked.push_back(item);
  }
  for (const DiffItem* item : all) {
    if (picked.size() == kHeadlineItems) break;
    if (std::find(picked.begin(), picked.end(), item) == picked.end()) picked.push_back(item);
  }
  std::stable_sort(picked.begin(), picked.end(), [&](const DiffItem* a, const DiffItem* b) {
    return std::find(all.begin(), all.end(), a) < std::find(all.begin(), all.end(), b);
  });
  for (const DiffItem* item : picked) report.headline.push_back(*item);
  return report;
}

std::vector<std::vector<DiffItem>*> DiffReport::Lists() {
  return {&findings_new,  &findings_resolved,  &findings_persisting, &versions, &configs,
          &templates_new, &templates_vanished, &templates_changed,   &metrics,  &hlo,
          &traces};
}

std::vector<const std::vector<DiffItem>*> DiffReport::Lists() const {
  return {&findings_new,  &findings_resolved,  &findings_persisting, &versions, &configs,
          &templates_new, &templates_vanished, &templates_changed,   &metrics,  &hlo,
          &traces};
}

const char* const* DiffReport::ListNames() {
  static const char* const kNames[] = {
      "findings.new",  "findings.resolved",  "findings.persisting", "versions", "configs",
      "templates.new", "templates.vanished", "templates.changed",   "metrics",  "hlo",
      "traces"};
  return kNames;
}

}  // namespace casefile::diff
