// The top of the analysis page: the bundles in the subtitle, the one-sentence
// headline, and the findings with their evidence in context.
#include <algorithm>

#include "report/html/html_page.h"
#include "report/html/html_text.h"
#include "report/render_html_parts.h"

namespace casefile::html_report {
namespace {

using html::AppendEscaped;
using html::Escape;
using html::EscapeCut;

std::string CulpritShort(const Culprit& c) {
  std::string out;
  if (c.host) out += *c.host;
  if (c.task) out += (out.empty() ? "task " : " task ") + *c.task;
  if (c.rank) out += (out.empty() ? "rank " : " rank ") + std::to_string(*c.rank);
  return out.empty() ? "(unknown)" : out;
}

// "host-3 rank 12, host-5 and 4 more", escaped.
std::string CulpritsShort(const std::vector<Culprit>& culprits, size_t shown) {
  std::string out;
  for (size_t i = 0; i < culprits.size() && i < shown; ++i) {
    if (i > 0) out += ", ";
    out += EscapeCut(CulpritShort(culprits[i]), 80);
  }
  if (culprits.size() > shown) out += " and " + std::to_string(culprits.size() - shown) + " more";
  return out;
}

const Finding* MostImportant(const std::vector<Finding>& findings) {
  const Finding* best = nullptr;
  for (const auto& f : findings) {
    if (!best || f.severity > best->severity) best = &f;
  }
  return best;
}

std::string Where(const Report& report, const Evidence& e) {
  std::string out = report.bundles.size() > 1 || !e.bundle.empty() ? e.bundle + ":" : "";
  return out + e.path + ":" + std::to_string(e.line);
}

// How much of a finding is shown. The first findings get everything; when
// the findings would not fit their share of the page, later ones get
// shorter lines, a shorter list and no surrounding lines, so 200 findings
// with 4 KiB evidence lines still fit (render_html_parts.h).
struct Detail {
  size_t line_bytes;  // per evidence line
  size_t compact;     // evidence listed after the figures
  bool context;       // lines around the evidence in figures
  size_t text_bytes;  // summary and recommendation
};
constexpr Detail kDetailLevels[] = {
    {kEvidenceLineBytes, kCompactEvidence, true, kFindingTextBytes},
    {200, 10, true, 600},
    {120, 5, false, 300},
};

// One numbered line of a figure; the text cut and escaped.
void AppendNumberedLine(std::string& out, int64_t line, std::string_view text, size_t max_bytes) {
  out += "<span class=\"ln\">";
  out += std::to_string(line);
  out += "</span>";
  out += EscapeCut(text, max_bytes);
}

std::string Figure(const Report& report, const Evidence& e, const EvidenceContext* ctx,
                   size_t line_bytes) {
  std::string out = "<figure class=\"evidence\" data-path=\"";
  AppendEscaped(out, e.path);
  out += "\" data-line=\"" + std::to_string(e.line) + "\"><figcaption>";
  out += EscapeCut(Where(report, e), 600);
  out += "</figcaption><pre>";
  if (ctx) {
    for (const auto& l : ctx->before) {
      AppendNumberedLine(out, l.line, l.text, line_bytes);
      out += '\n';
    }
  }
  out += "<mark>";
  AppendNumberedLine(out, e.line, e.text, line_bytes);
  out += "</mark>\n";
  if (ctx) {
    for (const auto& l : ctx->after) {
      AppendNumberedLine(out, l.line, l.text, line_bytes);
      out += '\n';
    }
  }
  out += "</pre></figure>\n";
  return out;
}

std::string FindingArticle(const Report& report, const Finding& f, size_t index,
                           const Detail& detail) {
  const char* sev = SeverityName(f.severity);
  std::string out = "<article class=\"finding sev-";
  out += sev;
  out += "\" id=\"finding-" + std::to_string(index + 1) + "\" data-code=\"";
  AppendEscaped(out, f.code);
  out += "\" data-severity=\"";
  out += sev;
  out += "\">\n<h4><span class=\"badge ";
  out += sev;
  out += "\">";
  out += sev;
  out += "</span> <code class=\"code\">";
  out += EscapeCut(f.code, 120);
  out += "</code> ";
  out += EscapeCut(f.title, kTitleBytes);
  out += "</h4>\n";
  if (!f.summary.empty()) {
    out += "<p class=\"summary\">" + EscapeCut(f.summary, detail.text_bytes) + "</p>\n";
  }
  if (!f.culprits.empty()) {
    out += "<ul class=\"culprits\">";
    for (size_t i = 0; i < f.culprits.size() && i < kCulpritsShown; ++i) {
      out += "<li>" + EscapeCut(CulpritShort(f.culprits[i]), 200) + "</li>";
    }
    if (f.culprits.size() > kCulpritsShown) {
      out += "<li class=\"more\">" + std::to_string(f.culprits.size() - kCulpritsShown) +
             " more culprits</li>";
    }
    out += "</ul>\n";
  }
  // The first pieces with their surrounding lines, the rest as a list.
  const std::vector<EvidenceContext>* contexts =
      index < report.context.evidence.size() ? &report.context.evidence[index] : nullptr;
  const size_t figures = std::min(f.evidence.size(), kContextEvidence);
  for (size_t j = 0; j < figures; ++j) {
    const EvidenceContext* ctx =
        detail.context && contexts && j < contexts->size() ? &(*contexts)[j] : nullptr;
    out += Figure(report, f.evidence[j], ctx, detail.line_bytes);
  }
  if (f.evidence.size() > figures) {
    const size_t rest = f.evidence.size() - figures;
    const size_t listed = std::min(rest, detail.compact);
    out += "<details class=\"evidence-rest\" open><summary>" + std::to_string(rest) +
           " more pieces of evidence</summary>\n<ul class=\"evidence-list\">";
    for (size_t j = figures; j < figures + listed; ++j) {
      const Evidence& e = f.evidence[j];
      out += "<li><code>" + EscapeCut(Where(report, e), 600) + "</code> " +
             EscapeCut(e.text, detail.line_bytes) + "</li>\n";
    }
    out += "</ul>\n";
    out += html::MoreLine(static_cast<int64_t>(rest - listed), "pieces of evidence",
                          "casefile analyze " + BundleArgs(report) + " --format json");
    out += "</details>\n";
  }
  if (!f.recommendation.empty()) {
    out +=
        "<p class=\"recommendation\">" + EscapeCut(f.recommendation, detail.text_bytes) + "</p>\n";
  }
  out += "</article>\n";
  return out;
}

const char* GroupHeading(Severity s) {
  switch (s) {
    case Severity::kError:
      return "Errors";
    case Severity::kWarning:
      return "Warnings";
    case Severity::kInfo:
      return "Information";
  }
  return "";
}

}  // namespace

std::string BundleArgs(const Report& report) {
  // A command is shown in every "more" line: with many or long bundle paths
  // it would cost more than the findings it points at, so past 4 bundles or
  // 400 bytes it names them as BUNDLE... (the page header lists them).
  constexpr size_t kMaxBundles = 4, kMaxBytes = 400;
  std::string out;
  for (const auto& b : report.bundles) {
    if (!out.empty()) out += ' ';
    out += html::ShellQuote(b.path.empty() ? b.name : b.path);
  }
  if (report.bundles.size() > kMaxBundles || out.size() > kMaxBytes) return "BUNDLE...";
  return out.empty() ? "BUNDLE" : out;
}

std::string QueryCommand(const Report& report, std::string_view sql) {
  // Double quotes, as one types SQL holding 'literals', when nothing in it
  // is special to a shell inside them; else POSIX single quotes.
  const bool plain = sql.find_first_of("$`\\\"!") == std::string_view::npos;
  return "casefile query " + BundleArgs(report) + " " +
         (plain ? "\"" + std::string(sql) + "\"" : html::ShellQuote(sql));
}

std::string HeaderSubtitle(const Report& report) {
  std::string out;
  for (size_t i = 0; i < report.bundles.size() && i < kBundlesInHeader; ++i) {
    const auto& b = report.bundles[i];
    out += "<span class=\"bundle\"><strong>" + EscapeCut(b.name, kHeaderBundleBytes) +
           "</strong> \xC2\xB7 " + EscapeCut(b.format.empty() ? "unknown format" : b.format, 40) +
           " \xC2\xB7 ";
    if (b.status == "partial" || b.status == "unreadable") {
      std::string upper = b.status == "partial" ? "PARTIAL" : "UNREADABLE";
      out += "<span class=\"badge " + b.status + "\" title=\"" + EscapeCut(b.error, 300) + "\">" +
             upper + "</span>";
    } else {
      out += EscapeCut(b.status.empty() ? "complete" : b.status, 40);
    }
    out += "</span>";
  }
  if (report.bundles.size() > kBundlesInHeader) {
    out += "<span class=\"bundle\">and " +
           std::to_string(report.bundles.size() - kBundlesInHeader) + " more bundles</span>";
  }
  if (report.bundles.empty()) out += "no bundle";
  return out;
}

std::string HeadlineSection(const Report& report) {
  std::string out = html::SectionBegin("headline", "Headline");
  const Finding* top = MostImportant(report.findings);
  if (top) {
    const size_t index = static_cast<size_t>(top - report.findings.data());
    out += "<p class=\"headline sev-";
    out += SeverityName(top->severity);
    out += "\">";
    out += EscapeCut(top->code, 120) + ": " + EscapeCut(top->title, kTitleBytes);
    if (!top->culprits.empty()) out += " \xE2\x80\x94 " + CulpritsShort(top->culprits, 3);
    out += ". ";
    if (index < kFindingsShown) {
      out += "<a href=\"#finding-" + std::to_string(index + 1) + "\">Details</a>";
    }
    out += "</p>\n";
  } else {
    size_t ran = 0;
    for (const auto& a : report.analyzers) ran += a.status == "ran";
    out += "<p class=\"headline\">No findings: " + std::to_string(ran) +
           (ran == 1 ? " analyzer" : " analyzers") + " ran and none reported a problem.";
    if (report.partial()) {
      out += " The input is partial (";
      bool first = true;
      for (const auto& b : report.bundles) {
        if (b.status != "partial") continue;
        if (!first) out += "; ";
        first = false;
        out += EscapeCut(b.name, 120) + ": " + EscapeCut(b.error, 300);
      }
      out += "), so the cause may be in what could not be read.";
    }
    out += "</p>\n";
  }
  out += html::SectionEnd();
  return out;
}

std::string FindingsSection(const Report& report, size_t budget) {
  std::string out =
      html::SectionBegin("findings", "Findings (" + std::to_string(report.findings.size()) + ")");
  if (report.findings.empty()) {
    out += "<p class=\"empty\">No findings.</p>\n" + html::SectionEnd();
    return out;
  }
  out += html::FilterBar("Filter findings (code, host, text)", true, true);
  // Room kept for the group headings, the "more" line and the closing tag.
  const size_t limit = budget > 8192 ? budget - 8192 : 0;
  const size_t to_show = std::min(report.findings.size(), kFindingsShown);
  size_t shown = 0;
  bool stopped = false;
  for (Severity s : {Severity::kError, Severity::kWarning, Severity::kInfo}) {
    size_t in_group = 0;
    for (const auto& f : report.findings) in_group += f.severity == s;
    if (in_group == 0 || stopped) continue;
    out += "<h3 class=\"sev-";
    out += SeverityName(s);
    out += "\">";
    out += GroupHeading(s);
    out += " (" + std::to_string(in_group) + ")</h3>\n";
    for (size_t i = 0; i < report.findings.size(); ++i) {
      const Finding& f = report.findings[i];
      if (f.severity != s) continue;
      if (shown >= to_show) {
        stopped = true;
        break;
      }
      // The most detailed form that leaves room for every later finding in
      // its shortest form (this one's shortest form as the estimate): the
      // first findings are shown in full, later ones shorter when the page
      // budget is tight.
      const size_t left = limit > out.size() ? limit - out.size() : 0;
      const std::string shortest = FindingArticle(report, f, i, kDetailLevels[2]);
      const size_t reserve = shortest.size() * (to_show - shown - 1);
      const size_t allowance = left > reserve ? left - reserve : 0;
      std::string article;
      for (const Detail& d : kDetailLevels) {
        article = &d == &kDetailLevels[2] ? shortest : FindingArticle(report, f, i, d);
        if (article.size() <= allowance) break;
      }
      if (article.size() > left) {
        stopped = true;
        break;
      }
      out += article;
      ++shown;
    }
  }
  out += html::MoreLine(static_cast<int64_t>(report.findings.size() - shown), "findings",
                        "casefile analyze " + BundleArgs(report) + " --format json");
  out += html::SectionEnd();
  return out;
}

std::string WithinBudget(std::string section, size_t budget, std::string_view id,
                         std::string_view heading, const Report& report) {
  if (section.size() <= budget) return section;
  std::string out = html::SectionBegin(id, heading);
  out += "<p class=\"empty\">Left out: this section would take more than its share (" +
         std::to_string(budget) + " bytes) of the page size budget.</p>\n";
  out += html::MoreLine(1, "section in full",
                        "casefile analyze " + BundleArgs(report) + " --format json");
  out += html::SectionEnd();
  return out;
}

}  // namespace casefile::html_report
