// casefile analyze: index, run the analyzers, print the report.
#include <cstdio>
#include <cstring>

#include "args.h"
#include "commands.h"
#include "exit_codes.h"
#include "open_session.h"
#include "output.h"

namespace casefile_cli {

const char kAnalyzeHelp[] =
    R"(Usage: casefile analyze BUNDLE... [options]

Indexes the bundles (or reuses their index), runs the analyzers, and prints
the report: each finding with its cause, the culprit hosts, tasks and ranks,
and the evidence lines (bundle, path, line number, text). Several bundles are
analysed together, as one run.

Options:
  --analyzers LIST   run only these analyzers: comma-separated names from
                     'casefile analyzers' (default: all)
  --format FORMAT    text (default), json (its shape is in docs/CLI.md),
                     html (one self-contained page for a bug report) or
                     markdown (a summary to paste into an issue tracker);
                     docs/REPORTS.md shows both
  -o, --output FILE  write the report to FILE (replaced whole, never left
                     half-written) instead of stdout
  --fail-on LEVEL    exit 1 when a finding is at or above LEVEL: error
                     (default), warning, info, or never
  --index PATH       the index file to build or reuse (default: see below)
  --reindex          rebuild the index even when an up-to-date one exists
  --max-... N        limits of the reading (see Limits below)
  --no-store         do not save the findings into the index
  --no-color         no colour; colour is used only when stdout is a terminal
                     and NO_COLOR is unset or empty
  -h, --help         show this help

Exit codes:
  0  success, no finding at or above --fail-on
  1  a finding at or above --fail-on
  2  usage error (unknown option or analyzer, bad value)
  3  an input is missing, unreadable or corrupt, or was read only in part
     (then the report is still printed first); takes precedence over 1
  4  internal error
)";

namespace {

// --fail-on as the lowest severity that fails, or -1 for "never".
int FailThreshold(const std::string& level) {
  if (level == "never") return -1;
  if (level == "info") return CASEFILE_SEVERITY_INFO;
  if (level == "warning") return CASEFILE_SEVERITY_WARNING;
  return CASEFILE_SEVERITY_ERROR;
}

}  // namespace

int RunAnalyze(const CommandArgs& argv) {
  std::vector<FlagSpec> specs = kSessionFlags;
  specs.insert(specs.end(), {{"analyzers", true},
                             {"format", true},
                             {"output", true},
                             {"fail-on", true},
                             {"no-store", false},
                             {"no-color", false}});
  Args args("analyze", argv, specs);
  if (args.help()) return PrintHelp(kAnalyzeHelp);
  if (args.positional().empty()) throw UsageError("analyze", "no BUNDLE given");
  const std::string format = args.Choice("format", {"text", "json", "html", "markdown"}, "text");
  const int threshold =
      FailThreshold(args.Choice("fail-on", {"error", "warning", "info", "never"}, "error"));
  std::vector<std::string> names;
  if (auto list = args.Value("analyzers")) names = SplitList("analyze", "analyzers", *list);
  // Unknown names are a usage error before any indexing is spent on them.
  for (const auto& name : names) {
    bool known = false;
    for (size_t i = 0; i < casefile_analyzer_count(); ++i) {
      if (name == casefile_analyzer_name(i)) known = true;
    }
    if (!known) {
      throw UsageError("analyze",
                       "unknown analyzer '" + name + "' (list them: casefile analyzers)");
    }
  }

  IndexedSession s = OpenAndIndex(args.positional(), args);

  std::vector<const char*> name_ptrs;
  for (const auto& n : names) name_ptrs.push_back(n.c_str());
  casefile_analyze_options opts = CASEFILE_ANALYZE_OPTIONS_INIT;
  opts.analyzers = name_ptrs.empty() ? nullptr : name_ptrs.data();
  opts.analyzer_count = name_ptrs.size();
  opts.no_store = args.Has("no-store") ? 1 : 0;
  // Text and JSON draw no curves, timelines or evidence context: skip
  // loading them.
  if (format == "text" || format == "json") opts.omit = CASEFILE_OMIT_CONTEXT;
  casefile_report* raw_report = nullptr;
  casefile_error* err = nullptr;
  Check(casefile_session_analyze(&raw_report, s.session.get(), &opts, &err), err);
  ReportPtr report(raw_report);

  casefile_format render_format = CASEFILE_FORMAT_JSON;
  if (format == "html") render_format = CASEFILE_FORMAT_HTML;
  if (format == "markdown") render_format = CASEFILE_FORMAT_MARKDOWN;
  if (format == "text") {
    render_format = UseColor(args.Has("no-color") || args.Has("output"))
                        ? CASEFILE_FORMAT_TEXT_COLOR
                        : CASEFILE_FORMAT_TEXT;
  }
  char* raw_text = nullptr;
  err = nullptr;
  Check(casefile_report_render(&raw_text, report.get(), render_format, &err), err);
  StringPtr text(raw_text);
  WriteReport(args.Value("output"), text.get(), "the report");

  if (s.partial || casefile_report_is_partial(report.get()) == 1) return kExitInput;
  if (threshold >= 0 && casefile_report_max_severity(report.get()) >= threshold) {
    return kExitFindings;
  }
  return kExitOk;
}

}  // namespace casefile_cli
