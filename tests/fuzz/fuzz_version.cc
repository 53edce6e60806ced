// Fuzz target: the version reports (lib/parse/version) on an arbitrary file
// body, and the environment-dump facts. The body's lines, through the line
// layer as ingest runs it (ingest_lines.h), go to a ReportDispatcher (what
// VersionExtractor forwards every line to; used directly for HeldBytes),
// under a file name picked by the first byte: the names that select the
// banner-less reports (which_nvcc, cuda_dirs, ls_cuda) and an ordinary
// one. Then the body as an environment dump: ParseConfig(kEnv) with
// EnvVersionFacts on each variable, as ingest does for env.txt. Checked:
// facts name a line of the file, a component and a source; readers hold
// bounded memory between lines (report_dispatcher.h); env facts are of the
// four environment components only.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/error.h"
#include "fuzz_abort.h"
#include "ingest_lines.h"
#include "parse/config/config_parser.h"
#include "parse/version/report_dispatcher.h"
#include "parse/version/version_facts.h"

namespace {

namespace v = casefile::version;

// Two readers hold a HeldFact (collect_env's cuDNN fallback, pip's editable
// install), each at most three strings of kMaxHeldText.
constexpr size_t kMaxHeld = 2 * 4 * v::kMaxHeldText;

constexpr std::string_view kPaths[] = {"hosts/h1/versions/collect_env.txt",
                                       "hosts/h1/versions/which_nvcc.txt",
                                       "hosts/h1/versions/cuda_dirs.txt", "hosts/h1/ls_cuda.out"};

void CheckFact(const v::VersionFact& f, int64_t lines) {
  if (f.line_no < 1 || f.line_no > lines) FUZZ_ABORT();
  if (f.component.empty() || f.source == nullptr || *f.source == '\0') FUZZ_ABORT();
  if (f.version.size() > 64 * 1024 || f.detail.size() > 64 * 1024) FUZZ_ABORT();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string_view path = kPaths[size > 0 ? data[0] % 4 : 0];

  int64_t lines = 0;
  std::vector<v::VersionFact> facts;
  {
    v::ReportDispatcher dispatcher(path, [&](const v::VersionFact& f) { facts.push_back(f); });
    lines = casefile::fuzz::FeedLikeIngest(
        input, 9, [&](const casefile::LineRecord& rec, const casefile::LinePrefix&) {
          dispatcher.AddLine(rec.line_no, rec.text);
          if (dispatcher.HeldBytes() > kMaxHeld) FUZZ_ABORT();
        });
    dispatcher.Finish();
  }
  for (const v::VersionFact& f : facts) CheckFact(f, lines);

  // The body as an environment dump (env.txt is a config of format kEnv).
  int64_t env_lines = 1;
  for (char c : input) env_lines += c == '\n';
  try {
    casefile::ParseConfig(casefile::ConfigFormat::kEnv, input,
                          [&](std::string_view key, std::string_view value, int64_t line_no) {
                            v::EnvVersionFacts(key, value, line_no, [&](const v::VersionFact& f) {
                              CheckFact(f, env_lines);
                              const std::string_view c = f.component;
                              if (c != v::kCudaHome && c != v::kPathCuda && c != v::kLdPathCuda &&
                                  c != v::kTorchCudaArchList)
                                FUZZ_ABORT();
                              if (f.line_no != line_no) FUZZ_ABORT();
                            });
                          });
  } catch (const casefile::Error&) {
    // Ingest records these as config_invalid; anything else escapes ingest.
  }
  return 0;
}
