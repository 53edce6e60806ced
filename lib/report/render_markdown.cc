// The markdown report: a compact summary to paste into a GitHub or GitLab
// issue. What it shows, in order: the bundles, a one-line headline (the
// first finding of the highest severity), the findings with their evidence
// (the first pieces with the lines around them), the environment
// maintainers ask for (key versions across hosts, the command line, the
// DeepSpeed config), the analyzers that did not run, what input was damaged,
// and the warnings.
//
// Two rules shape every line of it:
// - Safety. An issue tracker renders the text: a log line holding
//   "<script>", "@someone" or "[x](http://...)" must show as that text, not
//   become HTML, a notification or a link. Bundle text goes in fenced blocks
//   whose fence is longer than any backtick run inside, or in code spans
//   built the same way, or through Inline(), which backslash-escapes what
//   markdown or HTML would read and puts the words a tracker would link
//   (mentions, URLs, issue references) in code spans, where trackers leave
//   text alone. Those primitives live in markdown/markdown_text.h, shared
//   with the diff's markdown.
// - Size. GitHub refuses a comment over 65,536 characters, so every list is
//   capped, each section writes within a byte budget and says how many items
//   it left out with the command that shows them, and if the whole still
//   went over, the last sections are dropped whole with a line naming them.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "common/version.h"
#include "report/markdown/markdown_text.h"
#include "report/report.h"

namespace casefile {
namespace {

using md::AppendWithin;
using md::Clean;
using md::CodeSpan;
using md::Fenced;
using md::Inline;
using md::kMarkdownBudgetBytes;
using md::Plural;
using md::ShellWord;
using md::SqlString;

// ---------------------------------------------------------------------------
// Caps of the markdown report (on top of the context's own caps).

constexpr size_t kBundlesListed = 10;
constexpr size_t kFullFindings = 10;    // findings with summary, culprits and evidence
constexpr size_t kListedFindings = 50;  // findings named at all (the rest: one line each)
constexpr size_t kCulpritsListed = 10;
constexpr size_t kEvidenceShown = kContextEvidence;  // in code blocks, with context
constexpr size_t kEvidenceFolded = 20;               // more, inside <details>
constexpr size_t kHostsPerVersionValue = 4;
constexpr size_t kOtherVersionRows = 20;  // non-key components that differ
constexpr size_t kAnalyzersListed = 30;
constexpr size_t kWarningsListed = 20;
constexpr size_t kCommandLineBytes = 2000;

// Byte budgets of the sections after the findings; the findings get what
// the header and these leave of kMarkdownBudgetBytes: about 30 KB at worst,
// room for one finding with everything at its cap (about 20 KB) and the
// one-line form of the others.
constexpr size_t kKeyVersionsBudget = 6 * 1024;
constexpr size_t kOtherVersionsBudget = 2560;
constexpr size_t kConfigBudget = 3 * 1024;
constexpr size_t kAnalyzersBudget = 4 * 1024;
constexpr size_t kInputBudget = 4 * 1024;
constexpr size_t kWarningsBudget = 3 * 1024;

// A command line naming every bundle is only worth pasting for a few.
constexpr size_t kCommandBundles = 4;
constexpr size_t kCommandBundleBytes = 400;

struct Commands {
  std::string bundles;  // the bundle arguments, shell-quoted, or "BUNDLE..."

  std::string Analyze(const char* format) const {
    return "casefile analyze " + bundles + " --format " + format;
  }
  std::string Query(const std::string& sql) const {
    return "casefile query " + bundles + " " + ShellWord(sql);
  }
  std::string Show(const std::string& path) const {
    return "casefile show " + bundles + " " + ShellWord(path);
  }
};

Commands MakeCommands(const Report& report) {
  Commands c;
  for (const BundleRow& b : report.bundles) {
    if (!c.bundles.empty()) c.bundles += ' ';
    c.bundles += ShellWord(b.path.empty() ? b.name : b.path);
  }
  if (c.bundles.empty() || report.bundles.size() > kCommandBundles ||
      c.bundles.size() > kCommandBundleBytes) {
    c.bundles = "BUNDLE...";
  }
  return c;
}

std::string CulpritText(const Culprit& c) {
  std::string out;
  auto add = [&](const char* what, const std::string& value) {
    if (!out.empty()) out += ", ";
    out += std::string(what) + " " + value;
  };
  if (c.host) add("host", CodeSpan(Clean(*c.host, 80)));
  if (c.task) add("task", CodeSpan(Clean(*c.task, 80)));
  if (c.rank) add("rank", std::to_string(*c.rank));
  return out.empty() ? "(unknown)" : out;
}

std::string Where(const Report& report, const Evidence& e, size_t max) {
  return Clean((report.bundles.size() > 1 ? e.bundle + ":" : "") + e.path, max) + ":" +
         std::to_string(e.line);
}

// ---------------------------------------------------------------------------
// Sections.

std::string Header(const Report& report) {
  std::string out = std::string("## casefile report (casefile ") + kVersionString + ")\n\n";
  out += "**Bundles:**";
  size_t listed = 0;
  for (const BundleRow& b : report.bundles) {
    if (listed == kBundlesListed) break;
    out += listed++ == 0 ? " " : "; ";
    out += CodeSpan(Clean(b.name, 100)) + " (" +
           Inline(b.format.empty() ? "unknown format" : b.format, 40);
    if (b.status == "partial" || b.status == "unreadable") {
      out += ", **" + std::string(b.status == "partial" ? "PARTIAL" : "UNREADABLE") + "**";
      if (!b.error.empty()) out += ": " + Inline(b.error, 200);
    } else {
      out += ", " + Inline(b.status, 20);
    }
    out += ")";
  }
  if (report.bundles.empty()) out += " none";
  if (report.bundles.size() > kBundlesListed) {
    out += "; " + std::to_string(report.bundles.size() - kBundlesListed) + " more";
  }
  return out + "\n\n";
}

// The first finding of the highest severity (the analyzers order findings
// most important first within a severity).
const Finding* HeadlineFinding(const Report& report) {
  const Finding* best = nullptr;
  for (const Finding& f : report.findings) {
    if (best == nullptr || f.severity > best->severity) best = &f;
  }
  return best;
}

std::string Headline(const Report& report) {
  const Finding* f = HeadlineFinding(report);
  if (f == nullptr) {
    std::string out = "**No findings: the analyzers that ran found nothing to report.";
    if (report.partial()) {
      out +=
          " Some input was read only in part (see Input), so the cause may be in what is "
          "missing.";
    }
    return out + "**\n\n";
  }
  std::string out = "**" + CodeSpan(Clean(f->code, 80)) + ": " + Inline(f->title, 240);
  if (!f->culprits.empty()) {
    out += " — ";
    for (size_t i = 0; i < f->culprits.size() && i < 3; ++i) {
      out += (i ? "; " : "") + CulpritText(f->culprits[i]);
    }
    if (f->culprits.size() > 3) out += "; " + std::to_string(f->culprits.size() - 3) + " more";
  }
  return out + "**\n\n";
}

// One evidence line with the lines around it, the matched one marked by '>'
// in the gutter as `casefile show` marks it.
std::string EvidenceBlock(const Report& report, const Evidence& e, const EvidenceContext* ctx) {
  std::vector<std::pair<int64_t, std::string>> lines;
  if (ctx != nullptr) {
    for (const ContextLine& l : ctx->before) lines.emplace_back(l.line, l.text);
  }
  lines.emplace_back(e.line, e.text);
  if (ctx != nullptr) {
    for (const ContextLine& l : ctx->after) lines.emplace_back(l.line, l.text);
  }
  int64_t widest = 0;
  for (const auto& [no, text] : lines) widest = std::max(widest, no);
  const int width = static_cast<int>(std::to_string(widest).size());
  std::string body;
  for (const auto& [no, text] : lines) {
    char gutter[48];
    std::snprintf(gutter, sizeof gutter, "%s%*lld | ", no == e.line ? "> " : "  ", width,
                  static_cast<long long>(no));
    body += gutter + Clean(text, 240) + "\n";
  }
  return CodeSpan(Where(report, e, 300)) + "\n\n" + Fenced(body) + "\n";
}

std::string FullFinding(const Report& report, size_t index, const Commands& cmd) {
  const Finding& f = report.findings[index];
  std::string out = "**[" + std::string(SeverityName(f.severity)) + "] " +
                    CodeSpan(Clean(f.code, 80)) + "** " + Inline(f.title, 300) + "\n\n";
  if (!f.summary.empty()) out += Inline(f.summary, 1500) + "\n\n";
  if (!f.culprits.empty()) {
    out += "Culprits:\n\n";
    for (size_t i = 0; i < f.culprits.size() && i < kCulpritsListed; ++i) {
      out += "- " + CulpritText(f.culprits[i]) + "\n";
    }
    if (f.culprits.size() > kCulpritsListed) {
      out += "- " + std::to_string(f.culprits.size() - kCulpritsListed) +
             " more: " + CodeSpan(cmd.Analyze("json")) + "\n";
    }
    out += "\n";
  }
  const std::vector<EvidenceContext>* contexts =
      index < report.context.evidence.size() ? &report.context.evidence[index] : nullptr;
  for (size_t i = 0; i < f.evidence.size() && i < kEvidenceShown; ++i) {
    const EvidenceContext* ctx =
        contexts != nullptr && i < contexts->size() ? &(*contexts)[i] : nullptr;
    out += EvidenceBlock(report, f.evidence[i], ctx);
  }
  if (f.evidence.size() > kEvidenceShown) {
    const size_t rest = f.evidence.size() - kEvidenceShown;
    const size_t folded = std::min(rest, kEvidenceFolded);
    std::string body;
    for (size_t i = kEvidenceShown; i < kEvidenceShown + folded; ++i) {
      body += Where(report, f.evidence[i], 160) + ": " + Clean(f.evidence[i].text, 160) + "\n";
    }
    out += "<details><summary>" +
           Plural(static_cast<int64_t>(rest), "more evidence line", "more evidence lines") +
           "</summary>\n\n" + Fenced(body) + "\n";
    if (rest > folded) {
      out += std::to_string(rest - folded) + " more: " + CodeSpan(cmd.Analyze("json")) + "\n\n";
    }
    out += "</details>\n\n";
  }
  if (!f.recommendation.empty()) {
    out += "**Recommendation:** " + Inline(f.recommendation, 800) + "\n\n";
  }
  return out;
}

// A finding on one line: for findings past the first ones, or when the
// full form no longer fits.
std::string CompactFinding(const Report& report, const Finding& f) {
  std::string out = "- **[" + std::string(SeverityName(f.severity)) + "] " +
                    CodeSpan(Clean(f.code, 80)) + "** " + Inline(f.title, 200);
  if (!f.evidence.empty()) out += " — " + CodeSpan(Where(report, f.evidence.front(), 160));
  return out + "\n";
}

std::string Findings(const Report& report, const Commands& cmd, size_t budget) {
  if (report.findings.empty()) return "";
  int64_t by_severity[3] = {0, 0, 0};
  for (const Finding& f : report.findings) ++by_severity[static_cast<int>(f.severity)];
  std::string out = "### Findings (" + std::to_string(report.findings.size()) + ")\n\n";
  std::string counts;
  for (Severity s : {Severity::kError, Severity::kWarning, Severity::kInfo}) {
    const int64_t n = by_severity[static_cast<int>(s)];
    if (n == 0) continue;
    counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + SeverityName(s);
  }
  out += counts + ".\n\n";

  // Room kept for the closing "N more findings" line.
  const std::string more_cmd = CodeSpan(cmd.Analyze("json"));
  const size_t reserve = more_cmd.size() + 80;
  const size_t limit = budget > reserve ? budget - reserve : 0;
  size_t shown = 0;
  bool in_list = false;
  for (size_t i = 0; i < report.findings.size() && shown < kListedFindings; ++i) {
    if (!in_list && shown < kFullFindings &&
        AppendWithin(out, FullFinding(report, i, cmd), limit)) {
      ++shown;
      continue;
    }
    // From here on one line per finding: an issue needs the first findings
    // in full and only the names of the rest.
    std::string line = CompactFinding(report, report.findings[i]);
    if (!in_list) line = "Other findings:\n\n" + line;
    if (!AppendWithin(out, line, limit)) break;
    in_list = true;
    ++shown;
  }
  if (in_list) out += "\n";
  if (shown < report.findings.size()) {
    out += Plural(static_cast<int64_t>(report.findings.size() - shown), "more finding",
                  "more findings") +
           ": " + more_cmd + "\n\n";
  }
  return out;
}

// The version components bug reports ask for, in the order a maintainer
// reads them; the loader marks them `key` as well.
constexpr const char* kKeyComponents[] = {
    "torch", "transformers", "deepspeed", "torch_cuda", "nvcc",   "cuda_toolkit", "driver_cuda",
    "nccl",  "driver",       "jax",       "jaxlib",     "libtpu", "python"};

int KeyRank(const VersionSpread& v) {
  for (size_t i = 0; i < std::size(kKeyComponents); ++i) {
    if (v.component == kKeyComponents[i]) return static_cast<int>(i);
  }
  return v.key ? static_cast<int>(std::size(kKeyComponents)) : -1;
}

std::string HostsCell(const VersionSpreadValue& v, bool name_them) {
  std::string out = Plural(v.host_count, "host", "hosts");
  if (!name_them || v.hosts.empty()) return out;
  out += ":";
  for (size_t i = 0; i < v.hosts.size() && i < kHostsPerVersionValue; ++i) {
    out += (i ? ", " : " ") + CodeSpan(Clean(v.hosts[i], 40), true);
  }
  const int64_t named = static_cast<int64_t>(std::min(v.hosts.size(), kHostsPerVersionValue));
  if (v.host_count > named) out += " +" + std::to_string(v.host_count - named);
  return out;
}

// Rows of one component: one row when every host agrees (the host count),
// else one row per value naming its hosts, marked "differs".
std::string VersionRows(const VersionSpread& v) {
  const std::string name = Inline(v.component, 40, true);
  if (v.values.empty()) return "| " + name + " | _(none)_ | |\n";
  if (!v.differs()) {
    const VersionSpreadValue& only = v.values.front();
    return "| " + name + " | " + CodeSpan(Clean(only.value, 80), true) + " | " +
           HostsCell(only, false) + " |\n";
  }
  std::string out;
  for (size_t i = 0; i < v.values.size(); ++i) {
    out += "| " + (i == 0 ? name + " **differs**" : std::string()) + " | " +
           CodeSpan(Clean(v.values[i].value, 80), true) + " | " + HostsCell(v.values[i], true) +
           " |\n";
  }
  if (v.value_count > static_cast<int64_t>(v.values.size())) {
    out += "| | " + std::to_string(v.value_count - static_cast<int64_t>(v.values.size())) +
           " more values | |\n";
  }
  return out;
}

std::string VersionTable(const std::vector<const VersionSpread*>& rows, size_t max_rows,
                         size_t budget, const Commands& cmd) {
  const std::string head = "| Component | Version | Hosts |\n|---|---|---|\n";
  std::string out = head;
  size_t shown = 0;
  for (const VersionSpread* v : rows) {
    if (shown == max_rows || !AppendWithin(out, VersionRows(*v), budget)) break;
    ++shown;
  }
  out += "\n";
  if (shown < rows.size()) {
    out += Plural(static_cast<int64_t>(rows.size() - shown), "more component", "more components") +
           ": " + CodeSpan(cmd.Query("SELECT * FROM versions")) + "\n\n";
  }
  return out;
}

std::string Environment(const Report& report, const Commands& cmd) {
  const ReportContext& c = report.context;
  std::vector<const VersionSpread*> key_rows, other_differing;
  for (const VersionSpread& v : c.versions) {
    if (KeyRank(v) >= 0) {
      key_rows.push_back(&v);
    } else if (v.differs()) {
      other_differing.push_back(&v);
    }
  }
  std::stable_sort(
      key_rows.begin(), key_rows.end(),
      [](const VersionSpread* a, const VersionSpread* b) { return KeyRank(*a) < KeyRank(*b); });
  const bool has_env =
      c.environment.command_line.has_value() || !c.environment.deepspeed_config.empty();
  if (key_rows.empty() && other_differing.empty() && !has_env) return "";

  std::string out = "### Environment\n\n";
  if (!key_rows.empty()) out += VersionTable(key_rows, key_rows.size(), kKeyVersionsBudget, cmd);
  if (!other_differing.empty()) {
    out += "<details><summary>Other components that differ across hosts (" +
           std::to_string(other_differing.size()) + ")</summary>\n\n" +
           VersionTable(other_differing, kOtherVersionRows, kOtherVersionsBudget, cmd) +
           "</details>\n\n";
  }
  if (c.environment.command_line) {
    std::string body = Clean(*c.environment.command_line, kCommandLineBytes, true);
    if (!body.empty() && body.back() != '\n') body += '\n';
    out += "Command line (" + CodeSpan(Clean(c.environment.command_line_path, 200)) + "):\n\n" +
           Fenced(body) + "\n";
  }
  if (!c.environment.deepspeed_config.empty()) {
    // A key/value table rather than a JSON document rebuilt from the keys:
    // the flattened keys have lost their types ("true" the string or the
    // boolean) and are ambiguous where a key holds a dot, and the list is cut
    // at kContextConfigKeys, so a rebuilt document would look like the file
    // without being it. The table shows exactly what was read, cell by cell.
    const auto& keys = c.environment.deepspeed_config;
    const int64_t total =
        std::max<int64_t>(c.environment.deepspeed_config_keys, static_cast<int64_t>(keys.size()));
    std::string table = "| Key | Value |\n|---|---|\n";
    size_t shown = 0;
    for (const ConfigEntry& e : keys) {
      if (!AppendWithin(table,
                        "| " + CodeSpan(Clean(e.key, 80), true) + " | " +
                            CodeSpan(Clean(e.value, 100), true) + " |\n",
                        kConfigBudget)) {
        break;
      }
      ++shown;
    }
    out += "<details><summary>DeepSpeed config (" + Plural(total, "key", "keys") +
           ")</summary>\n\nFrom " + CodeSpan(Clean(c.environment.deepspeed_config_path, 200)) +
           ":\n\n" + table + "\n";
    if (static_cast<int64_t>(shown) < total) {
      out += std::to_string(total - static_cast<int64_t>(shown)) +
             " more keys: " + CodeSpan(cmd.Show(c.environment.deepspeed_config_path)) + "\n\n";
    }
    out += "</details>\n\n";
  }
  return out;
}

std::string Analyzers(const Report& report) {
  if (report.analyzers.empty()) return "";
  int64_t ran = 0, skipped = 0, failed = 0, findings = 0;
  for (const AnalyzerStatus& a : report.analyzers) {
    if (a.status == "ran") {
      ++ran;
      findings += a.findings;
    } else if (a.status == "failed") {
      ++failed;
    } else {
      ++skipped;
    }
  }
  std::string out = "### Analyzers\n\n" + std::to_string(ran) + " ran (" +
                    Plural(findings, "finding", "findings") + "), " + std::to_string(skipped) +
                    " not applicable, " + std::to_string(failed) + " failed.\n\n";
  auto list = [&](bool want_failed) {
    std::string items;
    size_t n = 0, total = 0;
    for (const AnalyzerStatus& a : report.analyzers) {
      if (a.status == "ran" || (a.status == "failed") != want_failed) continue;
      ++total;
      if (n == kAnalyzersListed) continue;
      std::string line = "- " + CodeSpan(Clean(a.name, 60)) + " " + Inline(a.status, 20);
      if (!a.reason.empty()) line += ": " + Inline(a.reason, 200);
      if (AppendWithin(items, line + "\n", kAnalyzersBudget / 2)) ++n;
    }
    if (total > n) items += "- " + std::to_string(total - n) + " more\n";
    return items;
  };
  if (failed > 0) out += "Failed:\n\n" + list(true) + "\n";
  if (skipped > 0) {
    out += "<details><summary>Not applicable (" + std::to_string(skipped) + ")</summary>\n\n" +
           list(false) + "\n</details>\n\n";
  }
  return out;
}

std::string Input(const Report& report, const Commands& cmd) {
  std::string out = "### Input\n\n";
  int64_t damaged = 0, listed = 0;
  for (const BundleRow& b : report.bundles) {
    if (b.status != "partial" && b.status != "unreadable") continue;
    ++damaged;
    std::string line = "- " + CodeSpan(Clean(b.name, 100)) + " is **" + Inline(b.status, 20) +
                       "**" + (b.error.empty() ? "" : ": " + Inline(b.error, 300)) + "\n";
    if (listed == damaged - 1 && AppendWithin(out, line, kInputBudget / 2)) ++listed;
  }
  if (damaged > listed) out += "- " + std::to_string(damaged - listed) + " more\n";
  if (damaged > 0) out += "\n";

  if (report.ingest_issue_counts.empty()) {
    if (damaged == 0) {
      out += "Every bundle was read completely; no ingest issues.\n\n";
    }
    return out;
  }
  int64_t total = 0;
  for (const auto& [kind, n] : report.ingest_issue_counts) total += n;
  out += Plural(total, "ingest issue", "ingest issues") +
         " (input skipped or damaged; each is a row of the index):\n\n| Kind | Count | All of "
         "them |\n|---|--:|---|\n";
  size_t shown = 0;
  for (const auto& [kind, n] : report.ingest_issue_counts) {
    const std::string row =
        "| " + CodeSpan(Clean(kind, 60), true) + " | " + std::to_string(n) + " | " +
        CodeSpan(Clean(cmd.Query("SELECT * FROM ingest_issues WHERE kind=" + SqlString(kind)), 600),
                 true) +
        " |\n";
    if (!AppendWithin(out, row, kInputBudget - 200)) break;
    ++shown;
  }
  out += "\n";
  if (shown < report.ingest_issue_counts.size()) {
    out += std::to_string(report.ingest_issue_counts.size() - shown) + " more kinds: " +
           CodeSpan(cmd.Query("SELECT kind, count(*) FROM ingest_issues GROUP BY kind")) + "\n\n";
  }
  return out;
}

}  // namespace

std::string RenderMarkdown(const Report& report) {
  const Commands cmd = MakeCommands(report);
  const std::string head = Header(report) + Headline(report);
  // The sections after the findings have fixed budgets; the findings get
  // the rest, so a report of many findings still shows its environment.
  struct Part {
    const char* title;
    std::string text;
  };
  std::vector<Part> tail = {
      {"Environment", Environment(report, cmd)},
      {"Analyzers", Analyzers(report)},
      {"Input", Input(report, cmd)},
      {"Warnings", md::WarningsSection(report.warnings, kWarningsListed, kWarningsBudget)}};
  const std::string footer =
      "_Full report: " + CodeSpan(cmd.Analyze("html") + " -o casefile-report.html") + "_\n";
  size_t tail_size = footer.size();
  for (const Part& p : tail) tail_size += p.text.size();
  const size_t used = head.size() + tail_size;
  const size_t findings_budget = used < kMarkdownBudgetBytes ? kMarkdownBudgetBytes - used : 0;

  std::vector<Part> parts = {{"Findings", Findings(report, cmd, findings_budget)}};
  for (Part& p : tail) parts.push_back(std::move(p));

  // The sections' budgets already keep the total within the budget; should a
  // cap change and break that, whole sections are dropped from the end, and
  // the report says which, rather than GitHub refusing the comment.
  std::string out = head;
  std::string cut;
  for (const Part& p : parts) {
    if (!cut.empty() || out.size() + p.text.size() + footer.size() > kMarkdownBudgetBytes) {
      if (!p.text.empty()) cut += (cut.empty() ? "" : ", ") + std::string(p.title);
      continue;
    }
    out += p.text;
  }
  if (!cut.empty()) {
    out += "_Cut to stay within an issue comment's size: " + cut + "._\n\n";
  }
  return out + footer;
}

}  // namespace casefile
