// Versions read from version reports (torch collect_env, nvcc, nvidia-smi,
// gcc, pip, ds_report, transformers env, jax.print_environment_info(),
// `which -a nvcc`, `ls -ld /usr/local/cuda*`) and from environment dumps
// (PATH, LD_LIBRARY_PATH, CUDA_HOME, TORCH_CUDA_ARCH_LIST). Ingest stores
// each fact as a row of the `versions` table (docs/SCHEMA.md); the build
// analyzer compares them within a host and across hosts, the comm analyzer
// and the diff read them too.
//
// This header is the contract: the component vocabulary below is stored as
// text, so a name is never changed once released; the readers behind
// VersionExtractor live in one file per report format (parse/version/).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace casefile::version {

// ---- components -----------------------------------------------------------
// `version` is the text the report printed, trimmed, with decorations the
// format adds removed (a leading "V"/"v" of nvcc's "V12.1.105", transformers'
// " (True)" / " (CUDA)", "glibc-" of "glibc-2.35"); a local tag such as
// "+cu121" is kept. Multi-valued components (one per GPU, toolkit, path
// entry) say which in `detail`.
inline constexpr const char* kTorch = "torch";  // "2.3.0+cu121"
// The CUDA release torch was built with ("12.1"): collect_env's "CUDA used to
// build PyTorch", ds_report's "torch cuda version", else a pip/conda local
// tag "+cu121" (detail "local tag"), a conda build string's "cuda12.1"
// (detail "conda build") or conda's pytorch-cuda package (detail
// "pytorch-cuda").
inline constexpr const char* kTorchCuda = "torch_cuda";
// The system CUDA compiler's release: `nvcc --version` ("12.1.105" from
// "V12.1.105", else "12.1" from "release 12.1"), collect_env's "CUDA runtime
// version" (torch runs nvcc --version for it), ds_report's "nvcc version".
inline constexpr const char* kNvcc = "nvcc";
inline constexpr const char* kDriver = "driver";           // NVIDIA driver "550.54.15"
inline constexpr const char* kDriverCuda = "driver_cuda";  // nvidia-smi "CUDA Version: 12.4"
inline constexpr const char* kGpuName = "gpu_name";        // detail "GPU <index>"
// "9.0", from nvidia-smi --query-gpu=...compute_cap CSV; detail "GPU <index>".
inline constexpr const char* kGpuComputeCapability = "gpu_compute_capability";
inline constexpr const char* kGcc = "gcc";        // host compiler "11.4.0"
inline constexpr const char* kPython = "python";  // "3.10.12"
inline constexpr const char* kOs = "os";          // "Ubuntu 22.04.4 LTS (x86_64)"
inline constexpr const char* kGlibc = "glibc";    // "2.35"
inline constexpr const char* kCmake = "cmake";
inline constexpr const char* kCudnn = "cudnn";  // "8.9.2"; detail the library path when listed
inline constexpr const char* kNccl = "nccl";    // "2.18.1" (pip nvidia-nccl-cu12, ...)
inline constexpr const char* kDeepspeed = "deepspeed";
// ds_report's "deepspeed wheel compiled w." ("torch 2.3, cuda 12.1").
inline constexpr const char* kDeepspeedBuild = "deepspeed_build";
inline constexpr const char* kTransformers = "transformers";
inline constexpr const char* kAccelerate = "accelerate";
inline constexpr const char* kJax = "jax";
inline constexpr const char* kJaxlib = "jaxlib";
inline constexpr const char* kLibtpu = "libtpu";  // libtpu, libtpu-nightly
inline constexpr const char* kNumpy = "numpy";
inline constexpr const char* kTriton = "triton";  // triton, pytorch-triton
// Any other Python package: "pip:" + its PEP 503 name (lowercase, runs of
// '_', '.', '-' as one '-'): "pip:flash-attn".
inline constexpr std::string_view kPipPrefix = "pip:";
// A CUDA toolkit installed on the host (`ls -ld /usr/local/cuda*`): version
// "12.1" from the directory name ("cuda-12.1", "cuda12.1") or its symlink
// target; "" when neither says; detail = the path ("/usr/local/cuda").
inline constexpr const char* kCudaToolkit = "cuda_toolkit";
// An nvcc on PATH (`which -a nvcc`), in PATH order: detail = the path,
// version = the toolkit release its path names ("" when it names none).
inline constexpr const char* kNvccPath = "nvcc_path";
// Environment: the CUDA toolkit that CUDA_HOME (or CUDA_PATH), the first
// CUDA entry of PATH, and the first CUDA entry of LD_LIBRARY_PATH point at:
// version = the release the path names ("" when none), detail = the path.
inline constexpr const char* kCudaHome = "cuda_home";
inline constexpr const char* kPathCuda = "path_cuda";
inline constexpr const char* kLdPathCuda = "ld_library_path_cuda";
// TORCH_CUDA_ARCH_LIST as set ("8.0;8.6+PTX", spaces or ';' separated).
inline constexpr const char* kTorchCudaArchList = "torch_cuda_arch_list";

// ---- sources --------------------------------------------------------------
// Which report a fact came from (versions.source). When two reports of one
// host disagree, readers prefer the earlier of this list.
inline constexpr const char* kSourceCollectEnv = "collect_env";
inline constexpr const char* kSourceNvcc = "nvcc";
inline constexpr const char* kSourceNvidiaSmi = "nvidia_smi";
inline constexpr const char* kSourceNvidiaSmiCsv = "nvidia_smi_csv";
inline constexpr const char* kSourceDsReport = "ds_report";
inline constexpr const char* kSourceJaxEnv = "jax_env";
inline constexpr const char* kSourceTransformersEnv = "transformers_env";
inline constexpr const char* kSourceGcc = "gcc";
inline constexpr const char* kSourcePip = "pip";      // pip list, pip freeze, collect_env [pip3]
inline constexpr const char* kSourceConda = "conda";  // collect_env [conda], conda list
inline constexpr const char* kSourceWhichNvcc = "which_nvcc";
inline constexpr const char* kSourceCudaDirs = "cuda_dirs";
inline constexpr const char* kSourceEnv = "env";
// The version a process's NCCL printed at run time (ingest reads it from
// NCCL INFO lines into nccl_ranks and versions).
inline constexpr const char* kSourceNcclLog = "nccl_log";

// How direct a source is: 0 for the version a process printed at run time
// (nccl_log), then collect_env, nvcc, nvidia_smi, nvidia_smi_csv, ds_report,
// jax_env, transformers_env, gcc, pip, conda, which_nvcc, cuda_dirs, env;
// anything else after them. Readers that must pick one report of several
// prefer the smallest.
int SourcePreference(std::string_view source);

struct VersionFact {
  std::string component;
  std::string version;
  std::string detail;   // "" when none
  int64_t line_no = 0;  // the line of the file that printed it (1-based)
  const char* source = "";
};

using VersionSink = std::function<void(const VersionFact&)>;

// Reads one file of kind `version` line by line. A file may hold several
// reports one after another (a collector's concatenation, jax's report with
// the nvidia-smi table it runs): each report's banner switches the reader.
// Lines are given in order, ANSI colours already removed, without their line
// terminator. Memory is bounded whatever the file's size.
class VersionExtractor {
 public:
  // `path`: the bundle path; its base name selects the reports that have no
  // banner (which_nvcc*, cuda_dirs*, cuda_toolkits*, ls_cuda*).
  VersionExtractor(std::string_view path, VersionSink sink);
  ~VersionExtractor();
  VersionExtractor(const VersionExtractor&) = delete;
  VersionExtractor& operator=(const VersionExtractor&) = delete;

  void AddLine(int64_t line_no, std::string_view text);
  // Emits what a pending multi-line value holds.
  void Finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The facts one environment variable gives (from a config row of an
// environment dump: PATH, LD_LIBRARY_PATH, CUDA_HOME / CUDA_PATH,
// TORCH_CUDA_ARCH_LIST); nothing for other keys. `line_no` is the
// variable's line.
void EnvVersionFacts(std::string_view key, std::string_view value, int64_t line_no,
                     const VersionSink& sink);

}  // namespace casefile::version
