// The human report: findings grouped by severity, each with culprits,
// evidence as path:line plus the line, and the recommendation; then what each
// analyzer did and what input was skipped, so nothing is silently missing.
#include <string>

#include "common/json_writer.h"
#include "common/version.h"
#include "report/report.h"

namespace casefile {
namespace {

struct Style {
  bool color;
  std::string Wrap(std::string_view code, std::string_view text) const {
    if (!color) return std::string(text);
    return "\x1b[" + std::string(code) + "m" + std::string(text) + "\x1b[0m";
  }
};

const char* SeverityColor(Severity s) {
  switch (s) {
    case Severity::kError:
      return "1;31";
    case Severity::kWarning:
      return "1;33";
    case Severity::kInfo:
      return "1;36";
  }
  return "0";
}

std::string Heading(Severity s) {
  switch (s) {
    case Severity::kError:
      return "ERRORS";
    case Severity::kWarning:
      return "WARNINGS";
    case Severity::kInfo:
      return "INFO";
  }
  return "";
}

// Evidence text can hold anything a log held: keep it on one line and valid.
std::string OneLine(std::string_view text, size_t max = 240) {
  std::string s = SanitizeUtf8(text.substr(0, max));
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  if (text.size() > max) s += "...";
  return s;
}

std::string CulpritText(const Culprit& c) {
  std::string out;
  auto add = [&](const std::string& k, const std::string& v) {
    if (!out.empty()) out += ", ";
    out += k + " " + v;
  };
  if (c.host) add("host", OneLine(*c.host, 200));
  if (c.task) add("task", OneLine(*c.task, 200));
  if (c.rank) add("rank", std::to_string(*c.rank));
  return out.empty() ? "(unknown)" : out;
}

}  // namespace

std::string RenderText(const Report& report, bool color) {
  const Style st{color};
  std::string out;
  out += st.Wrap("1", std::string("casefile ") + kVersionString + " report") + "\n";
  for (const auto& b : report.bundles) {
    out += "  bundle " + OneLine(b.name, 400) + " (" +
           OneLine(b.format.empty() ? "unknown format" : b.format, 200) + ", " +
           std::to_string(b.entries) + " entries)";
    if (b.status == "partial") out += " " + st.Wrap("1;33", "PARTIAL: " + OneLine(b.error, 400));
    if (b.status == "unreadable")
      out += " " + st.Wrap("1;31", "UNREADABLE: " + OneLine(b.error, 400));
    out += "\n";
  }
  out += "\n";

  if (report.findings.empty()) {
    out += "No findings.\n\n";
  }
  for (Severity s : {Severity::kError, Severity::kWarning, Severity::kInfo}) {
    size_t n = 0;
    for (const auto& f : report.findings) n += f.severity == s;
    if (n == 0) continue;
    out += st.Wrap(SeverityColor(s), Heading(s) + " (" + std::to_string(n) + ")") + "\n\n";
    for (const auto& f : report.findings) {
      if (f.severity != s) continue;
      out += st.Wrap(SeverityColor(s), "[" + std::string(SeverityName(s)) + "] " + f.code) + "  " +
             st.Wrap("1", OneLine(f.title, 1000)) + "\n";
      // External analyzers may leave the summary empty: no blank line then.
      if (!f.summary.empty()) out += "  " + OneLine(f.summary, 4000) + "\n";
      if (!f.culprits.empty()) {
        out += "  culprits:\n";
        for (const auto& c : f.culprits) out += "    - " + CulpritText(c) + "\n";
      }
      out += "  evidence:\n";
      for (const auto& e : f.evidence) {
        std::string where =
            OneLine((report.bundles.size() > 1 ? e.bundle + ":" : "") + e.path, 400) + ":" +
            std::to_string(e.line);
        out += "    " + st.Wrap("36", where) + "\n      " + OneLine(e.text) + "\n";
      }
      out += "  recommendation: " + OneLine(f.recommendation, 2000) + "\n\n";
    }
  }

  out += st.Wrap("1", "Analyzers") + "\n";
  for (const auto& a : report.analyzers) {
    out += "  " + a.name + ": " + a.status;
    if (a.status == "ran") out += " (" + std::to_string(a.findings) + " findings)";
    if (!a.reason.empty()) out += " — " + OneLine(a.reason, 400);
    out += "\n";
  }

  if (!report.ingest_issues.empty()) {
    int64_t total = 0;
    for (const auto& [kind, n] : report.ingest_issue_counts) total += n;
    out += "\n" + st.Wrap("1", "Ingest issues (" + std::to_string(total) + ")") + "\n";
    for (const auto& i : report.ingest_issues) {
      out += "  " + i.row.kind + " " +
             OneLine((i.bundle.empty() ? "" : i.bundle + ":") + i.row.path, 400) + " @" +
             std::to_string(i.row.offset) + ": " + OneLine(i.row.message, 400) + "\n";
    }
    for (const auto& [kind, n] : report.ingest_issue_counts) {
      if (n > kReportIssuesPerKind) {
        out += "  ... and " + std::to_string(n - kReportIssuesPerKind) + " more " + kind +
               " (all are in the index: SELECT * FROM ingest_issues WHERE kind='" + kind + "')\n";
      }
    }
  }
  if (const std::string net = RenderNetworkText(report.network); !net.empty()) {
    out += "\n" + st.Wrap("1", "Network (profiler traces)") + "\n" + net;
  }
  if (!report.warnings.empty()) {
    out += "\n" + st.Wrap("1;33", "Warnings") + "\n";
    for (const auto& w : report.warnings) out += "  " + OneLine(w, 1000) + "\n";
  }
  return out;
}

}  // namespace casefile
