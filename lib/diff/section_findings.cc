// Findings of the two sides matched by code and culprits (docs/DIFF.md,
// section findings): a finding of bad with no twin in good is new, one of
// good with no twin in bad is resolved, twins persist.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "diff/sections.h"

namespace casefile::diff {
namespace {

// How many evidence lines of a finding an item repeats (the finding itself,
// in `casefile analyze`, has them all).
constexpr size_t kEvidencePerItem = 3;

// "gpu-s03 ranks 16-23, gpu-s01 rank 3, worker/2": culprits of one host
// (and task) are one entry, their ranks folded into ranges, so a finding
// naming the eight ranks of a host reads as one host.
std::string CulpritsText(const Finding& f) {
  std::map<std::pair<std::string, std::string>, std::vector<int64_t>> groups;
  for (const Culprit& c : f.culprits) {
    auto& ranks = groups[{c.host.value_or(""), c.task.value_or("")}];
    if (c.rank) ranks.push_back(*c.rank);
  }
  std::string out;
  for (auto& [who, ranks] : groups) {
    std::string entry = who.first;
    if (!who.second.empty()) entry += (entry.empty() ? "" : " ") + who.second;
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    std::string list;
    for (size_t i = 0; i < ranks.size();) {
      size_t j = i;
      while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
      if (!list.empty()) list += ",";
      list += std::to_string(ranks[i]);
      if (j > i) list += "-" + std::to_string(ranks[j]);
      i = j + 1;
    }
    if (!list.empty()) {
      entry +=
          (entry.empty() ? "" : " ") + std::string(ranks.size() > 1 ? "ranks " : "rank ") + list;
    }
    if (!out.empty()) out += ", ";
    out += entry;
  }
  return out;
}

bool SameCulprits(const Finding& a, const Finding& b) {
  std::vector<Culprit> x = a.culprits, y = b.culprits;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y;
}

bool HasCode(const std::vector<Finding>& findings, const std::string& code) {
  return std::any_of(findings.begin(), findings.end(),
                     [&](const Finding& f) { return f.code == code; });
}

double NewScore(Severity s) {
  switch (s) {
    case Severity::kError:
      return 95;
    case Severity::kWarning:
      return 75;
    case Severity::kInfo:
      break;
  }
  return 40;
}

std::vector<Evidence> FirstEvidence(const Finding& f) {
  std::vector<Evidence> out(f.evidence.begin(),
                            f.evidence.begin() + std::min(f.evidence.size(), kEvidencePerItem));
  return out;
}

DiffItem FindingItem(const Finding& f, const char* kind, double score, const char* side) {
  DiffItem item;
  item.section = "findings";
  item.kind = kind;
  item.key = f.code;
  const std::string culprits = CulpritsText(f);
  if (!culprits.empty()) item.fields.push_back({"culprits", culprits});
  item.fields.push_back({"severity", std::string(SeverityName(f.severity))});
  item.fields.push_back({"title", f.title});
  item.score = score;
  const std::string who = culprits.empty() ? "" : " (" + culprits + ")";
  if (std::string(side) == "bad") {
    item.bad = SeverityName(f.severity);
    item.bad_evidence = FirstEvidence(f);
  } else {
    item.good = SeverityName(f.severity);
    item.good_evidence = FirstEvidence(f);
  }
  if (std::string(kind) == "new") {
    item.summary = "New in bad: " + f.code + who + ": " + f.title;
  } else if (std::string(kind) == "resolved") {
    item.summary = "Resolved in bad: " + f.code + who + ": " + f.title;
  } else {
    item.summary = "In both runs: " + f.code + who + ": " + f.title;
  }
  return item;
}

}  // namespace

std::vector<DiffItem> DiffFindings(const DiffSide& good, const DiffSide& bad) {
  std::vector<DiffItem> items;
  std::vector<bool> good_matched(good.findings.size(), false);
  for (const Finding& b : bad.findings) {
    size_t twin = good.findings.size();
    for (size_t i = 0; i < good.findings.size(); ++i) {
      if (!good_matched[i] && good.findings[i].code == b.code &&
          SameCulprits(good.findings[i], b)) {
        twin = i;
        break;
      }
    }
    if (twin < good.findings.size()) {
      good_matched[twin] = true;
      DiffItem item = FindingItem(b, "persisting", 10, "bad");
      item.good = SeverityName(good.findings[twin].severity);
      item.good_evidence = FirstEvidence(good.findings[twin]);
      items.push_back(std::move(item));
      continue;
    }
    // The same code on other culprits is still news (another host failing),
    // but less than a failure the good run never had: a warning the good run
    // had too, on the hosts it ran on, stays out of the headline (a healthy
    // run moved to new nodes shows its old warnings on new names).
    double score = NewScore(b.severity);
    if (HasCode(good.findings, b.code)) score -= 30;
    DiffItem item = FindingItem(b, "new", score, "bad");
    if (HasCode(good.findings, b.code)) item.fields.push_back({"code_in_good", true});
    items.push_back(std::move(item));
  }
  for (size_t i = 0; i < good.findings.size(); ++i) {
    if (good_matched[i]) continue;
    items.push_back(FindingItem(good.findings[i], "resolved", 30, "good"));
  }
  RankItems(items);
  return items;
}

}  // namespace casefile::diff
