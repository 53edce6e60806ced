// The text form of a diff: the headline, then each section's top items with
// their evidence. Long lists are cut (the JSON has up to
// kMaxItemsPerSection per list and every list's total).
#include <algorithm>
#include <string>

#include "common/json_writer.h"
#include "common/version.h"
#include "diff/diff.h"

namespace casefile::diff {
namespace {

// Items of one list the text shows.
constexpr size_t kTextItemsPerList = 10;
// Evidence lines shown per item and side.
constexpr size_t kTextEvidencePerSide = 2;

struct Style {
  bool color;
  std::string Wrap(const char* code, const std::string& text) const {
    if (!color) return text;
    return "\x1b[" + std::string(code) + "m" + text + "\x1b[0m";
  }
};

// One line of at most `max` bytes: invalid UTF-8 becomes U+FFFD first (as
// in the JSON, and as findings read back from an index hold it, so a text
// report is the same bytes whichever way its findings came), control
// characters (C0, DEL and the C1 range: an ESC or CSI of the log itself, a
// tab, a newline) become spaces so a log line cannot drive the terminal,
// and the cut falls between characters.
std::string OneLine(const std::string& text, size_t max = 300) {
  const std::string clean = SanitizeUtf8(text);
  std::string out;
  out.reserve(std::min(clean.size(), max + 3));
  for (size_t i = 0; i < clean.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(clean[i]);
    if (out.size() >= max && (c & 0xC0) != 0x80) {
      out += "...";
      break;
    }
    if (c == 0xC2 && i + 1 < clean.size() && static_cast<unsigned char>(clean[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(clean[i + 1]) <= 0x9F) {
      out += ' ';  // a C1 control character, two bytes
      ++i;
      continue;
    }
    out += (c < 0x20 || c == 0x7f) ? ' ' : static_cast<char>(c);
  }
  return out;
}

std::string ScoreText(double score) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%3.0f", score);
  return buf;
}

std::string SideText(const char* name, const std::vector<BundleRow>& bundles) {
  std::string out = std::string(name) + ":";
  for (const BundleRow& b : bundles) {
    out += " " + OneLine(b.name, 200);
    if (b.status != "complete") out += " (" + b.status + ")";
  }
  return out;
}

void AppendEvidence(std::string& out, const Style& st, const char* side,
                    const std::vector<Evidence>& evidence) {
  for (size_t i = 0; i < evidence.size() && i < kTextEvidencePerSide; ++i) {
    const Evidence& e = evidence[i];
    out += "        " + std::string(side) + " " +
           st.Wrap("36", OneLine(e.bundle + ":" + e.path, 300) + ":" + std::to_string(e.line)) +
           "  " + OneLine(e.text, 240) + "\n";
  }
}

void AppendItem(std::string& out, const Style& st, const DiffItem& item) {
  const char* color = item.score >= kHeadlineMinScore ? "1;31" : (item.score >= 30 ? "33" : "2");
  out += "  " + st.Wrap(color, "[" + ScoreText(item.score) + "]") + " " +
         OneLine(item.summary, 400) + "\n";
  AppendEvidence(out, st, "good", item.good_evidence);
  AppendEvidence(out, st, "bad ", item.bad_evidence);
}

}  // namespace

std::string RenderDiffText(const DiffReport& report, bool color) {
  const Style st{color};
  std::string out;
  out += st.Wrap("1", std::string("casefile ") + kVersionString + " diff") + "\n";
  out += "  " + SideText("good", report.good_bundles) + "\n";
  out += "  " + SideText("bad ", report.bad_bundles) + "\n\n";

  out += st.Wrap("1", "Headline") + "\n";
  if (report.headline.empty()) {
    out += "  Nothing suspicious: no difference scores " +
           std::to_string(static_cast<int>(kHeadlineMinScore)) + " or more.\n";
  }
  for (size_t i = 0; i < report.headline.size(); ++i) {
    out += "  " + std::to_string(i + 1) + ". " + OneLine(report.headline[i].summary, 400) + "\n";
  }

  const auto lists = report.Lists();
  for (size_t i = 0; i < lists.size(); ++i) {
    const std::vector<DiffItem>& items = *lists[i];
    const int64_t total = i < report.totals.size() ? report.totals[i] : items.size();
    if (total == 0) continue;
    out +=
        "\n" +
        st.Wrap("1", std::string(DiffReport::ListNames()[i]) + " (" + std::to_string(total) + ")") +
        "\n";
    for (size_t k = 0; k < items.size() && k < kTextItemsPerList; ++k)
      AppendItem(out, st, items[k]);
    if (total > static_cast<int64_t>(kTextItemsPerList)) {
      out += "  ... and " + std::to_string(total - kTextItemsPerList) +
             " more (--format json lists up to " + std::to_string(kMaxItemsPerSection) + ")\n";
    }
  }
  if (!report.warnings.empty()) {
    out += "\n" + st.Wrap("1;33", "Warnings") + "\n";
    for (const std::string& w : report.warnings) out += "  " + OneLine(w, 1000) + "\n";
  }
  return out;
}

}  // namespace casefile::diff
