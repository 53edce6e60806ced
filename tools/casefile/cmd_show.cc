// casefile show: a file of a bundle, or one line of it with context, as the
// index stored it (so evidence "path:line" or "bundle:path:line" from a
// report can be opened).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "args.h"
#include "commands.h"
#include "exit_codes.h"
#include "open_session.h"
#include "output.h"

namespace casefile_cli {

const char kShowHelp[] =
    R"(Usage: casefile show BUNDLE... PATH[:LINE] [options]

Prints a file of the bundles as indexed, one line per row as "LINE: text".
With :LINE, prints that line with --context lines before and after it, and
marks it with '>'. The last argument is PATH. PATH is the path inside the
bundle as 'casefile files' lists it; a unique ending of it is enough
("worker-1.log" for "logs/worker-1.log"). With several bundles, PATH may
start with a bundle's name and a colon, as the evidence of a report on
several bundles is printed ("run42:logs/coordinator.log:212"); without it,
PATH is looked for in every bundle. Control characters in the text are shown
as ^X.

Examples:
  casefile show run42/ logs/coordinator.log:212
  casefile show run42.tar.zst worker-1.log --context 20
  casefile show run42/ run43/ run43:logs/worker-1.log:7

Options:
  --context N    lines of context around LINE (default 5)
  --index PATH   the index file to build or reuse (default: see below)
  --reindex      rebuild the index even when an up-to-date one exists
  --max-... N    limits of the reading (see Limits below)
  --no-color     no highlight of the marked line; colour is used only when
                 stdout is a terminal and NO_COLOR is unset or empty
  -h, --help     show this help

Exit codes:
  0  success
  2  usage error: no such file in the bundles, an ambiguous PATH, or a LINE
     past the end of the file
  3  a bundle is missing, unreadable or corrupt, or was read only in part
     (the lines are still printed first)
  4  internal error
)";

namespace {

struct BundleName {
  std::string id;
  std::string name;
};

struct FileMatch {
  std::string id;
  std::string bundle;  // the bundle's display name
  std::string path;
  long long line_count = 0;
};

// A PATH[:LINE] resolved: the files it may name and the line (0: none).
struct Target {
  std::vector<FileMatch> matches;
  long long line = 0;
};

std::vector<BundleName> ListBundles(casefile_session* session) {
  std::vector<BundleName> bundles;
  Query(session, "SELECT id, name FROM bundles ORDER BY id",
        [&](size_t count, const char* const*, const char* const* values) {
          if (count == 2 && values[0] != nullptr && values[1] != nullptr) {
            bundles.push_back({values[0], values[1]});
          }
          return true;
        });
  return bundles;
}

// Files whose path equals `path` or, when none does, ends with "/" + `path`;
// only in bundle `bundle_id` when it is not empty.
std::vector<FileMatch> FindFiles(casefile_session* session, const std::string& path,
                                 const std::string& bundle_id) {
  std::vector<FileMatch> found;
  auto collect = [&](size_t count, const char* const*, const char* const* values) {
    if (count == 4 && values[0] != nullptr && values[2] != nullptr) {
      found.push_back({values[0], values[1] ? values[1] : "", values[2],
                       values[3] ? std::atoll(values[3]) : 0});
    }
    return found.size() < 20;
  };
  std::string columns =
      "SELECT f.id, b.name, f.path, f.line_count FROM files f JOIN bundles b ON b.id = "
      "f.bundle_id WHERE f.entry_type = 'file' AND ";
  if (!bundle_id.empty()) columns += "f.bundle_id = " + bundle_id + " AND ";
  Query(session, columns + "f.path = " + SqlQuote(path) + " ORDER BY f.id", collect);
  if (!found.empty()) return found;
  const std::string suffix = "/" + path;
  Query(session,
        // As BLOBs, so lengths count bytes whatever the encoding.
        columns + "length(CAST(f.path AS BLOB)) > " + std::to_string(suffix.size()) +
            " AND substr(CAST(f.path AS BLOB), -" + std::to_string(suffix.size()) + ") = CAST(" +
            SqlQuote(suffix) + " AS BLOB) ORDER BY b.id, f.path",
        collect);
  return found;
}

std::string Normalise(std::string path) {
  while (path.compare(0, 2, "./") == 0) path.erase(0, 2);
  while (!path.empty() && path[0] == '/') path.erase(0, 1);
  return path;
}

// `spec` as a path first, then as "path:LINE": a file really named
// "a.log:12" is found under its full name.
Target Resolve(casefile_session* session, const std::string& spec, const std::string& bundle_id) {
  Target t;
  if (spec.empty()) return t;
  t.matches = FindFiles(session, spec, bundle_id);
  if (!t.matches.empty()) return t;
  size_t colon = spec.rfind(':');
  if (colon != std::string::npos && colon + 1 < spec.size() && colon > 0 &&
      spec.find_first_not_of("0123456789", colon + 1) == std::string::npos &&
      spec.size() - colon - 1 <= 18) {
    t.matches = FindFiles(session, spec.substr(0, colon), bundle_id);
    t.line = std::atoll(spec.c_str() + colon + 1);
    if (!t.matches.empty() && t.line < 1) throw UsageError("show", "line numbers start at 1");
  }
  return t;
}

std::string Shown(const FileMatch& m, bool several_bundles) {
  return several_bundles ? m.bundle + ":" + m.path : m.path;
}

}  // namespace

int RunShow(const CommandArgs& argv) {
  std::vector<FlagSpec> specs = kSessionFlags;
  specs.insert(specs.end(), {{"context", true}, {"no-color", false}});
  Args args("show", argv, specs);
  if (args.help()) return PrintHelp(kShowHelp);
  if (args.positional().size() < 2) throw UsageError("show", "needs BUNDLE... and PATH[:LINE]");
  const long long context = args.NonNegative("context", 5);
  const bool color = UseColor(args.Has("no-color"));
  const std::string target = Normalise(args.positional().back());
  if (target.empty()) throw UsageError("show", "empty PATH");
  const std::vector<std::string> inputs(args.positional().begin(), args.positional().end() - 1);

  IndexedSession s = OpenAndIndex(inputs, args);
  const std::vector<BundleName> bundles = ListBundles(s.session.get());
  const bool several = bundles.size() > 1;

  Target found = Resolve(s.session.get(), target, "");
  if (found.matches.empty()) {
    // "bundle:path[:line]", as a report on several bundles prints evidence.
    // Display names may repeat (a/run42, b/run42): each bundle of the name
    // is searched.
    for (const auto& b : bundles) {
      if (target.size() <= b.name.size() + 1 || target.compare(0, b.name.size(), b.name) != 0 ||
          target[b.name.size()] != ':') {
        continue;
      }
      Target in_bundle =
          Resolve(s.session.get(), Normalise(target.substr(b.name.size() + 1)), b.id);
      if (in_bundle.matches.empty()) continue;
      if (found.matches.empty()) found.line = in_bundle.line;
      found.matches.insert(found.matches.end(), in_bundle.matches.begin(), in_bundle.matches.end());
    }
  }
  const std::vector<FileMatch>& matches = found.matches;
  const long long line = found.line;
  if (matches.empty()) {
    std::string given;
    for (const auto& in : inputs) given += (given.empty() ? "" : " ") + in;
    throw CliError(kExitUsage, "no file '" + target + "' in " + given +
                                   " (list them: casefile files " + given + ")");
  }
  if (matches.size() > 1) {
    std::string list;
    for (const auto& m : matches) list += "\n  " + Shown(m, several);
    throw CliError(kExitUsage, "'" + target + "' matches several files:" + list);
  }
  const FileMatch& file = matches[0];
  if (line > file.line_count) {
    throw CliError(kExitUsage, Shown(file, several) + " has " + std::to_string(file.line_count) +
                                   " lines; there is no line " + std::to_string(line));
  }
  if (file.line_count == 0) {
    std::fprintf(stderr, "casefile: %s has no indexed lines\n",
                 TerminalSafe(Shown(file, several)).c_str());
  }

  const long long first = line > 0 ? std::max(1LL, line - context) : 1;
  const long long last = line > 0 ? std::min(file.line_count, line + context) : file.line_count;
  const int width = static_cast<int>(std::to_string(std::max(last, 1LL)).size());
  Query(s.session.get(),
        "SELECT line_no, text FROM lines WHERE file_id = " + file.id + " AND line_no BETWEEN " +
            std::to_string(first) + " AND " + std::to_string(last) + " ORDER BY line_no",
        [&](size_t count, const char* const*, const char* const* values) {
          if (count != 2 || values[0] == nullptr) return true;
          long long n = std::atoll(values[0]);
          std::string text = TerminalSafe(values[1] ? values[1] : "");
          std::string out;
          if (line > 0) out += n == line ? "> " : "  ";
          char number[32];
          std::snprintf(number, sizeof number, "%*lld: ", width, n);
          if (color && n == line) {
            out += "\x1b[1m" + std::string(number) + text + "\x1b[0m\n";
          } else {
            out += number + text + "\n";
          }
          if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) {
            throw CliError(kExitInput, "cannot write to stdout");
          }
          return true;
        });
  std::fflush(stdout);
  return s.partial ? kExitInput : kExitOk;
}

}  // namespace casefile_cli
