// The CUDA toolkit the environment points at (PATH, LD_LIBRARY_PATH,
// CUDA_HOME / CUDA_PATH) and TORCH_CUDA_ARCH_LIST, from an environment dump
// (EnvVersionFacts, called by ingest for config rows) or from `env` output
// inside a version file (the "$ env" reader below).
#include "common/error.h"
#include "parse/version/cuda_path.h"
#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

// The first entry of a search path that lies under a CUDA toolkit. Windows
// paths ("C:\...;D:\...") separate entries with ';'.
void FirstCudaEntry(std::string_view value, const char* component, int64_t line_no,
                    const VersionSink& sink) {
  const bool windows = value.size() > 2 && value[1] == ':' && value[2] == '\\';
  const char sep = windows ? ';' : ':';
  size_t i = 0;
  while (i <= value.size()) {
    size_t end = value.find(sep, i);
    if (end == std::string_view::npos) end = value.size();
    const std::string_view entry = Trim(value.substr(i, end - i));
    i = end + 1;
    if (entry.empty()) continue;
    const CudaPath p = ReadCudaPath(entry);
    if (!p.under_toolkit) continue;
    sink(VersionFact{component, std::string(p.release), std::string(entry), line_no, kSourceEnv});
    return;
  }
}

class EnvReader final : public ReportReader {
 public:
  explicit EnvReader(const FactOut* out) : out_(*out) {}

  void Begin(std::string_view) override {}
  void Line(int64_t line_no, std::string_view text) override {
    // Shell forms: "export KEY=value" (scripts), "declare -x KEY="value""
    // (`export -p`, `declare -p`).
    for (std::string_view lead : {"export ", "declare -x ", "declare -rx ", "typeset -x "}) {
      if (text.starts_with(lead)) {
        text = TrimLeft(text.substr(lead.size()));
        break;
      }
    }
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) return;
    EnvVersionFacts(text.substr(0, eq), text.substr(eq + 1), line_no, [this](const VersionFact& f) {
      out_.Emit(f.line_no, f.component, f.version, f.detail, f.source);
    });
  }

 private:
  const FactOut& out_;
};

}  // namespace

void EnvVersionFacts(std::string_view key, std::string_view value, int64_t line_no,
                     const VersionSink& sink) {
  if (!sink) throw Error(ErrorCode::kArgument, "EnvVersionFacts: the fact sink is empty");
  key = Trim(key);
  value = Trim(Unquote(Trim(value)));
  if (value.empty()) return;
  if (key == "PATH") {
    FirstCudaEntry(value, kPathCuda, line_no, sink);
  } else if (key == "LD_LIBRARY_PATH") {
    FirstCudaEntry(value, kLdPathCuda, line_no, sink);
  } else if (key == "CUDA_HOME" || key == "CUDA_PATH") {
    // Whatever it names is the toolkit torch's cpp_extension builds with.
    sink(VersionFact{kCudaHome, std::string(ReadCudaPath(value).release), std::string(value),
                     line_no, kSourceEnv});
  } else if (key == "TORCH_CUDA_ARCH_LIST") {
    sink(VersionFact{kTorchCudaArchList, std::string(value), "", line_no, kSourceEnv});
  }
}

std::unique_ptr<ReportReader> MakeEnvReader(const FactOut* out) {
  return std::make_unique<EnvReader>(out);
}

}  // namespace casefile::version
