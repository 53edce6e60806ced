// The markdown diff: a compact summary of a good run against a bad run to
// paste into a GitHub or GitLab issue: the two sides, the headline as a
// numbered list with the evidence of each item, then one table per
// non-empty list (findings new, resolved and persisting; versions; configs;
// log templates new, vanished and changed with their counts; metrics; HLO;
// traces), the first items of each and how many more there are, with the
// command that lists them.
//
// As in the analysis report's markdown (both use the primitives of
// report/markdown/markdown_text.h): bundle text reaches the tracker only
// inside fences or code spans nothing inside can close, or escaped by
// Inline(), so "<script>", "@someone" or a markdown link shows as text; and
// the whole stays under GitHub's 65,536-character comment limit: the lists
// share a byte budget and say what they left out.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/version.h"
#include "diff/diff.h"
#include "report/markdown/markdown_text.h"

namespace casefile::diff {
namespace {

using md::AppendWithin;
using md::Clean;
using md::CodeSpan;
using md::Fenced;
using md::Inline;
using md::kMarkdownBudgetBytes;
using md::ShellWord;

// ---------------------------------------------------------------------------
// Caps of the markdown diff (on top of kMaxItemsPerSection).

constexpr size_t kItemsPerList = 10;
constexpr size_t kEvidencePerSide = 2;  // per headline item
constexpr size_t kBundlesPerSide = 10;
constexpr size_t kWarningsListed = 20;
constexpr size_t kWarningsBudget = 3 * 1024;
// A command line naming every input is only worth pasting for a few.
constexpr size_t kCommandInputs = 4;
constexpr size_t kCommandInputBytes = 400;

// Section titles, in the order of DiffReport::ListNames().
constexpr const char* kListTitles[DiffReport::kListCount] = {"Findings new in bad",
                                                             "Findings resolved (only in good)",
                                                             "Findings in both",
                                                             "Versions",
                                                             "Configs",
                                                             "Log templates new in bad",
                                                             "Log templates vanished from bad",
                                                             "Log templates changed in frequency",
                                                             "Metrics",
                                                             "HLO modules",
                                                             "Traces"};

std::string InputWords(const std::vector<std::string>& inputs,
                       const std::vector<BundleRow>& bundles, const char* placeholder) {
  std::string out;
  if (!inputs.empty()) {
    for (const std::string& i : inputs) out += (out.empty() ? "" : " ") + ShellWord(i);
  } else {
    for (const BundleRow& b : bundles) {
      out += (out.empty() ? "" : " ") + ShellWord(b.path.empty() ? b.name : b.path);
    }
  }
  const size_t count = inputs.empty() ? bundles.size() : inputs.size();
  if (out.empty() || count > kCommandInputs || out.size() > kCommandInputBytes) {
    return placeholder;
  }
  return out;
}

std::string DiffCommand(const DiffReport& report, const char* format) {
  return "casefile diff " + InputWords(report.good_inputs, report.good_bundles, "GOOD...") +
         " -- " + InputWords(report.bad_inputs, report.bad_bundles, "BAD...") + " --format " +
         format;
}

std::string SideLine(const char* name, const std::vector<BundleRow>& bundles) {
  std::string out = std::string("- **") + name + ":**";
  for (size_t i = 0; i < bundles.size() && i < kBundlesPerSide; ++i) {
    const BundleRow& b = bundles[i];
    out += (i ? "; " : " ") + CodeSpan(Clean(b.name, 100)) + " (" +
           Inline(b.format.empty() ? "unknown format" : b.format, 40);
    if (b.status != "complete" && !b.status.empty()) {
      out += ", **" + Inline(b.status, 20) + "**";
      if (!b.error.empty()) out += ": " + Inline(b.error, 200);
    }
    out += ")";
  }
  if (bundles.empty()) out += " none";
  if (bundles.size() > kBundlesPerSide) {
    out += "; " + std::to_string(bundles.size() - kBundlesPerSide) + " more";
  }
  return out + "\n";
}

std::string ScoreText(double score) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f", score);
  return buf;
}

std::string EvidenceLines(const char* side, const std::vector<Evidence>& evidence) {
  std::string out;
  for (size_t i = 0; i < evidence.size() && i < kEvidencePerSide; ++i) {
    const Evidence& e = evidence[i];
    out += std::string(side) + "  " + Clean(e.bundle + ":" + e.path, 200) + ":" +
           std::to_string(e.line) + "  " + Clean(e.text, 240) + "\n";
  }
  return out;
}

std::string Headline(const DiffReport& report) {
  std::string out = "### Headline\n\n";
  if (report.headline.empty()) {
    return out + "No difference worth a headline: no difference scores " +
           ScoreText(kHeadlineMinScore) + " or more.\n\n";
  }
  for (size_t i = 0; i < report.headline.size() && i < kHeadlineItems; ++i) {
    const DiffItem& item = report.headline[i];
    out += std::to_string(i + 1) + ". " + Inline(item.summary, 400) + " _(" +
           Inline(item.section, 20) + ", score " + ScoreText(item.score) + ")_\n";
    // The evidence stays inside the list item: every line of the fence is
    // indented as the item's text is.
    const std::string lines =
        EvidenceLines("good", item.good_evidence) + EvidenceLines("bad ", item.bad_evidence);
    if (!lines.empty()) out += Fenced(lines, "   ");
  }
  return out + "\n";
}

std::string Cell(const std::optional<std::string>& value, size_t max) {
  return value ? CodeSpan(Clean(*value, max), true) : "—";
}

std::string Row(const DiffItem& item) {
  return "| " + ScoreText(item.score) + " | " + Inline(item.kind, 24, true) + " | " +
         CodeSpan(Clean(item.key, 100), true) + " | " +
         (item.host ? CodeSpan(Clean(*item.host, 40), true) : std::string()) + " | " +
         Cell(item.good, 60) + " | " + Cell(item.bad, 60) + " | " +
         Inline(item.summary, 200, true) + " |\n";
}

// One list as a table of its first items, within `budget` bytes.
std::string List(size_t index, const std::vector<DiffItem>& items, int64_t total,
                 const std::string& more_cmd, size_t budget) {
  std::string out = "### " + std::string(kListTitles[index]) + " (" + std::to_string(total) +
                    ")\n\n| Score | Kind | Key | Host | Good | Bad | Summary |\n"
                    "|--:|---|---|---|---|---|---|\n";
  const size_t reserve = more_cmd.size() + 40;
  const size_t limit = budget > reserve ? budget - reserve : 0;
  int64_t shown = 0;
  for (size_t k = 0; k < items.size() && k < kItemsPerList; ++k) {
    if (!AppendWithin(out, Row(items[k]), limit)) break;
    ++shown;
  }
  out += "\n";
  if (total > shown) out += std::to_string(total - shown) + " more: " + more_cmd + "\n\n";
  return out;
}

}  // namespace

std::string RenderDiffMarkdown(const DiffReport& report) {
  std::string head = std::string("## casefile diff (casefile ") + kVersionString + ")\n\n" +
                     SideLine("Good", report.good_bundles) + SideLine("Bad", report.bad_bundles) +
                     "\n" + Headline(report);
  const std::string warnings =
      md::WarningsSection(report.warnings, kWarningsListed, kWarningsBudget);
  const std::string footer =
      "_Full diff: " + CodeSpan(DiffCommand(report, "html") + " -o casefile-diff.html") + "_\n";
  const std::string more_cmd = CodeSpan(DiffCommand(report, "json"));

  // The lists share what the head, the warnings and the footer leave: each
  // gets an equal part of what is left when its turn comes, so room a short
  // list does not use goes to the lists after it.
  const auto lists = report.Lists();
  std::vector<size_t> non_empty;
  std::vector<int64_t> totals(lists.size());
  for (size_t i = 0; i < lists.size(); ++i) {
    totals[i] =
        i < report.totals.size() ? report.totals[i] : static_cast<int64_t>(lists[i]->size());
    if (totals[i] > 0 || !lists[i]->empty()) non_empty.push_back(i);
  }
  const size_t fixed = head.size() + warnings.size() + footer.size();
  size_t left = fixed < kMarkdownBudgetBytes ? kMarkdownBudgetBytes - fixed : 0;
  std::string body;
  for (size_t n = 0; n < non_empty.size(); ++n) {
    const size_t i = non_empty[n];
    const std::string part = List(i, *lists[i], std::max<int64_t>(totals[i], lists[i]->size()),
                                  more_cmd, left / (non_empty.size() - n));
    body += part;
    left = part.size() < left ? left - part.size() : 0;
  }
  if (non_empty.empty()) body = "No differences in any section.\n\n";

  // The budgets keep the total within kMarkdownBudgetBytes; should a cap
  // change and break that, whole parts are dropped from the end, and the
  // diff says which, rather than GitHub refusing the comment.
  std::string out = head;
  std::string cut;
  for (const auto& [title, text] :
       {std::pair<const char*, const std::string*>{"Lists", &body}, {"Warnings", &warnings}}) {
    if (!cut.empty() || out.size() + text->size() + footer.size() > kMarkdownBudgetBytes) {
      if (!text->empty()) cut += (cut.empty() ? "" : ", ") + std::string(title);
      continue;
    }
    out += *text;
  }
  if (!cut.empty()) out += "_Cut to stay within an issue comment's size: " + cut + "._\n\n";
  return out + footer;
}

}  // namespace casefile::diff
