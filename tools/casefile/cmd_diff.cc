// casefile diff: what changed between a good run and a bad run.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "args.h"
#include "commands.h"
#include "exit_codes.h"
#include "open_session.h"
#include "output.h"
#include "progress.h"

namespace casefile_cli {

const char kDiffHelp[] =
    R"(Usage: casefile diff GOOD... -- BAD... [options]
       casefile diff --good GOOD [--good GOOD2...] --bad BAD [--bad BAD2...] [options]

Compares a run that worked (GOOD) with the run that failed (BAD), each side
one or several bundles, and prints what changed, most suspicious first: a
headline of at most three differences, then findings new in BAD, resolved and
persisting; versions; configs and environment; log templates new in BAD,
vanished and changed in frequency; metrics (loss at matching steps, step
time); HLO modules; traces. Every item cites its evidence lines (bundle,
path, line) on the side it comes from. Each side is indexed (or its index
reused) and analysed; its findings are stored in its index as 'casefile
analyze' stores them, so the next diff of the same index is fast.

Options:
  --good BUNDLE      a bundle of the good run (repeatable); instead of the
                     GOOD... -- BAD... form
  --bad BUNDLE       a bundle of the bad run (repeatable)
  --format FORMAT    text (default), json (its shape is in docs/DIFF.md),
                     html or markdown (docs/REPORTS.md)
  -o, --output FILE  write the diff to FILE (replaced whole, never left
                     half-written) instead of stdout
  --index-dir DIR    keep both sides' indexes in DIR (named after their
                     inputs); default: the cache folder (see below)
  --good-index PATH  the good side's index file (overrides --index-dir)
  --bad-index PATH   the bad side's index file
  --reindex          rebuild both indexes even when up-to-date ones exist
  --max-... N        limits of the reading (see Limits below)
  --no-store         do not save the findings into the indexes
  --fail-on-headline exit 1 when the headline is not empty
  --no-color         no colour; colour is used only when stdout is a terminal
                     and NO_COLOR is unset or empty
  -h, --help         show this help

Exit codes:
  0  success (and, with --fail-on-headline, nothing scored for the headline)
  1  --fail-on-headline and the headline is not empty
  2  usage error (no GOOD or no BAD, unknown option, bad value)
  3  an input is missing, unreadable or corrupt, or was read only in part
     (then the diff is still printed first); takes precedence over 1
  4  internal error
)";

namespace {

struct DiffReportFree {
  void operator()(casefile_diff_report* r) const { casefile_diff_report_free(r); }
};
using DiffReportPtr = std::unique_ptr<casefile_diff_report, DiffReportFree>;

struct Sides {
  std::vector<std::string> good, bad;  // from --good / --bad
  std::vector<std::string> head;       // arguments before the first bare "--"
  std::vector<std::string> tail;       // and after it
};

// Takes out --good/--bad (repeatable, unlike the flags Args knows) and splits
// the rest at the first bare "--": positional bundles before it are GOOD,
// after it BAD. Flags may stand on either side.
Sides SplitSides(const CommandArgs& argv) {
  Sides s;
  bool split = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    bool taken = false;
    for (const char* flag : {"good", "bad"}) {
      const std::string name = std::string("--") + flag;
      std::optional<std::string> value;
      if (a == name) {
        if (i + 1 >= argv.size()) throw UsageError("diff", "option '" + name + "' needs a value");
        value = argv[++i];
      } else if (a.compare(0, name.size() + 1, name + "=") == 0) {
        value = a.substr(name.size() + 1);
      }
      if (value) {
        (std::strcmp(flag, "good") == 0 ? s.good : s.bad).push_back(*value);
        taken = true;
        break;
      }
    }
    if (taken) continue;
    if (a == "--" && !split) {
      split = true;
      continue;
    }
    (split ? s.tail : s.head).push_back(a);
  }
  return s;
}

}  // namespace

int RunDiff(const CommandArgs& argv) {
  Sides sides = SplitSides(argv);
  std::vector<FlagSpec> specs;
  // --index would name one file for two indexes: --good-index/--bad-index.
  for (const FlagSpec& f : kSessionFlags) {
    if (std::strcmp(f.name, "index") != 0) specs.push_back(f);
  }
  specs.insert(specs.end(), {{"format", true},
                             {"output", true},
                             {"index-dir", true},
                             {"good-index", true},
                             {"bad-index", true},
                             {"no-store", false},
                             {"fail-on-headline", false},
                             {"no-color", false}});
  Args head("diff", sides.head, specs);
  Args tail("diff", sides.tail, specs);
  if (head.help() || tail.help()) return PrintHelp(kDiffHelp);
  for (const std::string& p : head.positional()) sides.good.push_back(p);
  for (const std::string& p : tail.positional()) sides.bad.push_back(p);
  if (sides.good.empty()) throw UsageError("diff", "no GOOD bundle given");
  if (sides.bad.empty()) throw UsageError("diff", "no BAD bundle given (GOOD... -- BAD...)");
  // Flags may stand on either side of "--": read them from both halves
  // together, each flag from the last place it was given.
  std::vector<std::string> all = sides.head;
  all.insert(all.end(), sides.tail.begin(), sides.tail.end());
  const Args flags("diff", all, specs);
  const std::string format = flags.Choice("format", {"text", "json", "html", "markdown"}, "text");

  // Both sessions are opened here and indexed by casefile_diff, which
  // builds the two indexes on two threads.
  const std::optional<std::string> dir = flags.Value("index-dir");
  SessionPtr good = OpenSession(sides.good, flags, IndexPlace{flags.Value("good-index"), dir});
  SessionPtr bad = OpenSession(sides.bad, flags, IndexPlace{flags.Value("bad-index"), dir});

  casefile_diff_options opts = CASEFILE_DIFF_OPTIONS_INIT;
  opts.no_store = flags.Has("no-store") ? 1 : 0;
  casefile_diff_report* raw = nullptr;
  casefile_error* err = nullptr;
  casefile_status status;
  {
    ProgressDisplay progress;
    status = casefile_diff(&raw, good.get(), bad.get(), &opts, ProgressDisplay::Callback, &progress,
                           &err);
  }
  Check(status, err);
  DiffReportPtr report(raw);
  if (status == CASEFILE_PARTIAL) {
    WarnPartial(good.get());
    WarnPartial(bad.get());
  }

  casefile_format render_format = CASEFILE_FORMAT_JSON;
  if (format == "html") render_format = CASEFILE_FORMAT_HTML;
  if (format == "markdown") render_format = CASEFILE_FORMAT_MARKDOWN;
  if (format == "text") {
    render_format = UseColor(flags.Has("no-color") || flags.Has("output"))
                        ? CASEFILE_FORMAT_TEXT_COLOR
                        : CASEFILE_FORMAT_TEXT;
  }
  char* raw_text = nullptr;
  err = nullptr;
  Check(casefile_diff_report_render(&raw_text, report.get(), render_format, &err), err);
  StringPtr text(raw_text);
  WriteReport(flags.Value("output"), text.get(), "the diff");
  if (status == CASEFILE_PARTIAL) return kExitInput;
  if (flags.Has("fail-on-headline") && casefile_diff_report_headline_count(report.get()) > 0) {
    return kExitFindings;
  }
  return kExitOk;
}

}  // namespace casefile_cli
