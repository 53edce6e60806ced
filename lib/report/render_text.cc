// The human report: findings grouped by severity, each with culprits,
// evidence as path:line plus the line, and the recommendation; then what each
// analyzer did and what input was skipped, so nothing is silently missing.
#include <cstdint>
#include <cstdio>
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

// The code point of the valid UTF-8 sequence at s[i] and its length, or
// length 0 when the bytes there are not valid UTF-8.
struct Decoded {
  uint32_t cp = 0;
  size_t len = 0;
};

Decoded DecodeUtf8(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return {c, 1};
  size_t len;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return {};
  }
  if (i + len > s.size()) return {};
  for (size_t k = 1; k < len; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return {};
    cp = (cp << 6) | (cc & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF)) {
    return {};
  }
  return {cp, len};
}

// Code points that change how a terminal shows the text around them
// without being controls: bidirectional overrides, isolates and marks
// (a U+202E can show a line's end first) and the Unicode line separators.
bool IsFormatting(uint32_t cp) {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

// Text from a bundle made inert for a terminal, and visible (docs/CLI.md,
// "Terminal safety"): a C0 control or DEL in caret notation (ESC is "^[", CR
// "^M", LF "^J"), a C1 control or a formatting code point as "<U+009B>",
// a byte that is not UTF-8 as "<0x9B>"; a tab becomes a space. Nothing a
// log line holds can then move the cursor, recolour, retitle or clear the
// terminal, or reorder what is shown.
std::string TerminalInert(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char buf[16];
  for (size_t i = 0; i < text.size();) {
    const Decoded d = DecodeUtf8(text, i);
    if (d.len == 0) {
      std::snprintf(buf, sizeof buf, "<0x%02X>", static_cast<unsigned char>(text[i]));
      out += buf;
      ++i;
      continue;
    }
    if (d.cp == '\t') {
      out += ' ';
    } else if (d.cp < 0x20 || d.cp == 0x7F) {
      out += '^';
      out += d.cp == 0x7F ? '?' : static_cast<char>(d.cp + 0x40);
    } else if ((d.cp >= 0x80 && d.cp <= 0x9F) || IsFormatting(d.cp)) {
      std::snprintf(buf, sizeof buf, "<U+%04X>", static_cast<unsigned>(d.cp));
      out += buf;
    } else {
      out.append(text.substr(i, d.len));
    }
    i += d.len;
  }
  return out;
}

// Evidence text can hold anything a log held: on one line, inert, at most
// `max` bytes of it (cut on a character boundary).
std::string OneLine(std::string_view text, size_t max = 240) {
  if (text.size() <= max) return TerminalInert(text);
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return TerminalInert(text.substr(0, cut)) + "...";
}

// A block of our own lines that quotes bundle text (the network section):
// each line made inert, the line breaks kept.
std::string InertLines(std::string_view block) {
  std::string out;
  size_t start = 0;
  while (start < block.size()) {
    size_t end = block.find('\n', start);
    if (end == std::string_view::npos) end = block.size();
    out += TerminalInert(block.substr(start, end - start));
    if (end < block.size()) out += '\n';
    start = end + 1;
  }
  return out;
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
    out += "  " + OneLine(a.name, 200) + ": " + OneLine(a.status, 100);
    if (a.status == "ran") out += " (" + std::to_string(a.findings) + " findings)";
    if (!a.reason.empty()) out += " — " + OneLine(a.reason, 400);
    out += "\n";
  }

  if (!report.ingest_issues.empty()) {
    int64_t total = 0;
    for (const auto& [kind, n] : report.ingest_issue_counts) total += n;
    out += "\n" + st.Wrap("1", "Ingest issues (" + std::to_string(total) + ")") + "\n";
    for (const auto& i : report.ingest_issues) {
      out += "  " + OneLine(i.row.kind, 100) + " " +
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
    out += "\n" + st.Wrap("1", "Network (profiler traces)") + "\n" + InertLines(net);
  }
  if (!report.warnings.empty()) {
    out += "\n" + st.Wrap("1;33", "Warnings") + "\n";
    for (const auto& w : report.warnings) out += "  " + OneLine(w, 1000) + "\n";
  }
  return out;
}

}  // namespace casefile
