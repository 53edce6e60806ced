// casefile show: a file of a bundle, or one line of it with context, as the
// index stored it (so evidence "path:line" from a report can be opened).
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
    R"(Usage: casefile show BUNDLE PATH[:LINE] [options]

Prints a file of the bundle as indexed, one line per row as "LINE: text".
With :LINE, prints that line with --context lines before and after it, and
marks it with '>'. PATH is the path inside the bundle as 'casefile files'
lists it; a unique ending of it is enough ("worker-1.log" for
"logs/worker-1.log"). Control characters in the text are shown as ^X.

Examples:
  casefile show run42/ logs/coordinator.log:212
  casefile show run42.tar.zst worker-1.log --context 20

Options:
  --context N    lines of context around LINE (default 5)
  --index PATH   the index file to build or reuse (default: see below)
  --reindex      rebuild the index even when an up-to-date one exists
  --no-color     no highlight of the marked line; colour is used only when
                 stdout is a terminal and NO_COLOR is unset or empty
  -h, --help     show this help

Exit codes:
  0  success
  2  usage error: no such file in the bundle, an ambiguous PATH, or a LINE
     past the end of the file
  3  the bundle is missing, unreadable or corrupt, or was read only in part
     (the lines are still printed first)
  4  internal error
)";

namespace {

struct FileMatch {
  std::string id;
  std::string path;
  long long line_count = 0;
};

// Files whose path equals `path` or, when none does, ends with "/" + `path`.
std::vector<FileMatch> FindFiles(casefile_session* session, const std::string& path) {
  std::vector<FileMatch> found;
  auto collect = [&](size_t count, const char* const*, const char* const* values) {
    if (count == 3 && values[0] != nullptr && values[1] != nullptr) {
      found.push_back({values[0], values[1], values[2] ? std::atoll(values[2]) : 0});
    }
    return found.size() < 20;
  };
  const std::string columns =
      "SELECT id, path, line_count FROM files WHERE entry_type = 'file' AND ";
  Query(session, columns + "path = " + SqlQuote(path) + " ORDER BY id", collect);
  if (!found.empty()) return found;
  const std::string suffix = "/" + path;
  Query(session,
        // As BLOBs, so lengths count bytes whatever the encoding.
        columns + "length(CAST(path AS BLOB)) > " + std::to_string(suffix.size()) +
            " AND substr(CAST(path AS BLOB), -" + std::to_string(suffix.size()) + ") = CAST(" +
            SqlQuote(suffix) + " AS BLOB) ORDER BY path",
        collect);
  return found;
}

std::string Normalise(std::string path) {
  while (path.compare(0, 2, "./") == 0) path.erase(0, 2);
  while (!path.empty() && path[0] == '/') path.erase(0, 1);
  return path;
}

}  // namespace

int RunShow(const CommandArgs& argv) {
  std::vector<FlagSpec> specs = kSessionFlags;
  specs.insert(specs.end(), {{"context", true}, {"no-color", false}});
  Args args("show", argv, specs);
  if (args.help()) return PrintHelp(kShowHelp);
  if (args.positional().size() != 2)
    throw UsageError("show", "needs exactly BUNDLE and PATH[:LINE]");
  const long long context = args.NonNegative("context", 5);
  const bool color = UseColor(args.Has("no-color"));
  const std::string target = Normalise(args.positional()[1]);
  if (target.empty()) throw UsageError("show", "empty PATH");

  IndexedSession s = OpenAndIndex({args.positional()[0]}, args);

  // "a.log:12" names line 12 of a.log, unless a file is really called that.
  std::vector<FileMatch> matches = FindFiles(s.session.get(), target);
  long long line = 0;
  if (matches.empty()) {
    size_t colon = target.rfind(':');
    if (colon != std::string::npos && colon + 1 < target.size() && colon > 0 &&
        target.find_first_not_of("0123456789", colon + 1) == std::string::npos &&
        target.size() - colon - 1 <= 18) {
      line = std::atoll(target.c_str() + colon + 1);
      matches = FindFiles(s.session.get(), target.substr(0, colon));
      if (line < 1) throw UsageError("show", "line numbers start at 1");
    }
  }
  if (matches.empty()) {
    throw CliError(kExitUsage, "no file '" + target + "' in " + args.positional()[0] +
                                   " (list them: casefile files " + args.positional()[0] + ")");
  }
  if (matches.size() > 1) {
    std::string list;
    for (const auto& m : matches) list += "\n  " + m.path;
    throw CliError(kExitUsage, "'" + target + "' matches several files:" + list);
  }
  const FileMatch& file = matches[0];
  if (line > file.line_count) {
    throw CliError(kExitUsage, file.path + " has " + std::to_string(file.line_count) +
                                   " lines; there is no line " + std::to_string(line));
  }
  if (file.line_count == 0) {
    std::fprintf(stderr, "casefile: %s has no indexed lines\n", TerminalSafe(file.path).c_str());
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
