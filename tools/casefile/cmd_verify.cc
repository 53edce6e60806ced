// casefile verify: check bundles written by 'casefile collect' against their
// manifests.
#include <cstdio>
#include <memory>

#include "args.h"
#include "commands.h"
#include "exit_codes.h"
#include "output.h"

namespace casefile_cli {

const char kVerifyHelp[] =
    R"(Usage: casefile verify BUNDLE...

Checks each bundle written by 'casefile collect' against its manifest
(casefile.json, its first entry): every file the manifest lists must be in
the archive once, with the listed size and SHA-256, and nothing else may be
there. Every problem is printed on stdout as

  BUNDLE: PATH: KIND: MESSAGE

(KIND is archive, manifest, missing, extra, size, sha256, duplicate or
entry_type), then one line per bundle: "BUNDLE: ok, N files" or
"BUNDLE: FAILED, N problems".

Options:
  -h, --help   show this help

Exit codes:
  0  every bundle matches its manifest
  2  usage error
  3  a bundle does not match its manifest, is damaged, or cannot be read
  4  internal error
)";

namespace {

struct VerifyResultFree {
  void operator()(casefile_verify_result* r) const { casefile_verify_result_free(r); }
};

int OnProgress(uint64_t, const char*, void*) { return Interrupted() ? 1 : 0; }

}  // namespace

int RunVerify(const CommandArgs& argv) {
  Args args("verify", argv, {});
  if (args.help()) return PrintHelp(kVerifyHelp);
  if (args.positional().empty()) throw UsageError("verify", "no BUNDLE given");
  bool all_ok = true;
  for (const std::string& bundle : args.positional()) {
    casefile_verify_result* raw = nullptr;
    casefile_error* err = nullptr;
    Check(casefile_verify_bundle(&raw, bundle.c_str(), OnProgress, nullptr, &err), err);
    std::unique_ptr<casefile_verify_result, VerifyResultFree> result(raw);
    const std::string name = TerminalSafe(bundle);
    size_t problems = casefile_verify_result_problem_count(result.get());
    for (size_t i = 0; i < problems; ++i) {
      const char *path, *kind, *message;
      casefile_verify_result_problem(result.get(), i, &path, &kind, &message);
      std::printf("%s: %s: %s: %s\n", name.c_str(),
                  path[0] != '\0' ? TerminalSafe(path).c_str() : "-", kind,
                  TerminalSafe(message).c_str());
    }
    if (casefile_verify_result_ok(result.get()) == 1) {
      uint64_t files = casefile_verify_result_file_count(result.get());
      std::printf("%s: ok, %llu %s\n", name.c_str(), static_cast<unsigned long long>(files),
                  files == 1 ? "file" : "files");
    } else {
      all_ok = false;
      std::printf("%s: FAILED, %zu %s\n", name.c_str(), problems,
                  problems == 1 ? "problem" : "problems");
    }
  }
  std::fflush(stdout);
  return all_ok ? kExitOk : kExitInput;
}

}  // namespace casefile_cli
