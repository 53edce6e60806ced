#include "parse/version/report_banner.h"

#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

bool Contains(std::string_view s, std::string_view what) {
  return s.find(what) != std::string_view::npos;
}

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool IsGccProgram(std::string_view p) {
  if (p == "gcc" || p == "g++" || p == "cc" || p == "c++") return true;
  if (p.starts_with("gcc-") || p.starts_with("g++-")) return true;
  return Contains(p, "-gcc") || Contains(p, "-g++");
}

bool IsPythonProgram(std::string_view p) {
  return p == "python" || p.starts_with("python3") || p.starts_with("python2");
}

bool IsPipProgram(std::string_view p) {
  return p == "pip" || p.starts_with("pip3") || p.starts_with("pip2");
}

}  // namespace

Report ReportOfCommand(std::string_view command) {
  size_t pos = 0;
  std::string_view program;
  // Skip wrappers and VAR=value assignments before the program.
  for (;;) {
    program = NextToken(command, &pos);
    if (program.empty()) return Report::kNone;
    if (program == "sudo" || program == "time" || program == "exec") continue;
    const size_t eq = program.find('=');
    if (eq != std::string_view::npos && program.find('/') > eq) continue;
    break;
  }
  program = BaseName(program);
  if (program.ends_with(".exe")) program.remove_suffix(4);
  const std::string_view args = command.substr(pos);

  if (program == "nvidia-smi") {
    return Contains(args, "--query-gpu") ? Report::kNvidiaSmiCsv : Report::kNvidiaSmi;
  }
  if (program == "nvcc") return Report::kNvcc;
  if (IsGccProgram(program)) return Report::kGcc;
  if (IsPipProgram(program)) return Report::kPip;
  if (program == "ds_report") return Report::kDsReport;
  if (program == "transformers-cli" || program == "transformers") return Report::kTransformersEnv;
  if (program == "which" || program == "type" || program == "command" || program == "where") {
    return Contains(args, "nvcc") ? Report::kWhichNvcc : Report::kNone;
  }
  if (program == "ls") return Report::kCudaDirs;
  // `export -p` and `declare -x` / `declare -p` print "declare -x KEY="value"".
  if (program == "env" || program == "printenv" || program == "export" || program == "declare") {
    return Report::kEnv;
  }
  if (program == "conda" || program == "mamba" || program == "micromamba") {
    return Contains(args, "list") ? Report::kCondaList : Report::kNone;
  }
  if (program == "uv") return Contains(args, "pip") ? Report::kPip : Report::kNone;
  if (program == "collect_env.py" || IsPythonProgram(program)) {
    if (program == "collect_env.py" || Contains(args, "collect_env")) return Report::kCollectEnv;
    if (Contains(args, "deepspeed.env_report")) return Report::kDsReport;
    if (Contains(args, "print_environment_info")) return Report::kJaxEnv;
    if (Contains(args, "-m pip")) return Report::kPip;
    if (Contains(args, "transformers") && Contains(args, "env")) return Report::kTransformersEnv;
  }
  return Report::kNone;
}

Report ReportOfFileName(std::string_view path) {
  const std::string_view base = BaseName(path);
  if (StartsWithNoCase(base, "which_nvcc")) return Report::kWhichNvcc;
  if (StartsWithNoCase(base, "cuda_dirs") || StartsWithNoCase(base, "cuda_toolkits") ||
      StartsWithNoCase(base, "ls_cuda")) {
    return Report::kCudaDirs;
  }
  return Report::kNone;
}

Banner DetectBanner(std::string_view line, Report current) {
  Banner b;
  if (line.empty()) return b;
  auto found = [&b](Report r) {
    b.found = true;
    b.report = r;
    return b;
  };
  if (line.size() >= 2 && line[0] == '$' && line[1] == ' ') {
    b.is_command = true;
    b.command = Trim(line.substr(2));
    return found(ReportOfCommand(b.command));
  }
  if (line.starts_with("Collecting environment information") ||
      line.starts_with("PyTorch version: ")) {
    return found(Report::kCollectEnv);
  }
  if (line.starts_with("nvcc: NVIDIA (R) Cuda compiler driver")) return found(Report::kNvcc);
  if (line.starts_with("Cuda compilation tools, release") && current != Report::kNvcc) {
    return found(Report::kNvcc);
  }
  if ((line[0] == '|' && Contains(line, "NVIDIA-SMI ")) || Contains(line, "NVSMI LOG")) {
    return found(Report::kNvidiaSmi);
  }
  if (current != Report::kNvidiaSmi && line.starts_with("GPU ") && Contains(line, "(UUID: ")) {
    return found(Report::kNvidiaSmi);  // nvidia-smi -L
  }
  if (line.starts_with("DeepSpeed C++/CUDA extension op report") ||
      line.starts_with("DeepSpeed general environment info")) {
    return found(Report::kDsReport);
  }
  if (line.starts_with("Copy-and-paste the text below in your GitHub issue")) {
    return found(Report::kTransformersEnv);
  }
  if (IsJaxEnvBanner(line)) return found(Report::kJaxEnv);
  if (line.starts_with("# packages in environment at")) return found(Report::kCondaList);
  if (IsPipListBanner(line)) return found(Report::kPip);
  if (current != Report::kPip && IsPipFreezeLine(line)) return found(Report::kPip);
  const bool weak_ok =
      current == Report::kNone || current == Report::kNvidiaSmi || current == Report::kNvidiaSmiCsv;
  if (IsNvidiaSmiCsvHeader(line, weak_ok)) return found(Report::kNvidiaSmiCsv);
  if (!GccBannerVersion(line).empty()) return found(Report::kGcc);
  return b;
}

}  // namespace casefile::version
