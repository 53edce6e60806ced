// Build and set-up failures of CUDA extensions (kind build_error; op says
// which, see dist_kinds.h). They are printed by torch.utils.cpp_extension,
// DeepSpeed's op builder, ninja, setuptools, pip and nvcc's host_config.h,
// usually in the first minutes of a job (JIT builds) or in a pip build log.
// The compiler error that caused a failed build is not read here: the build
// analyzer looks for it in the lines before the failure, since only files
// with a failure need that search.
#include <string>
#include <string_view>

#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/line/scan.h"

namespace casefile::dist {
namespace {

constexpr size_t kNpos = std::string_view::npos;
constexpr size_t kMaxDetail = 160;

bool Has(std::string_view s, std::string_view part) { return s.find(part) != kNpos; }

// The release "X.Y" (or "X.Y.Z") at s[i], or "".
std::string_view ReleaseAt(std::string_view s, size_t i) {
  const size_t start = i;
  while (i < s.size() && (scan::IsDigit(s[i]) || s[i] == '.')) ++i;
  std::string_view r = s.substr(start, i - start);
  while (!r.empty() && r.back() == '.') r.remove_suffix(1);
  return r.find('.') == kNpos ? std::string_view() : r;
}

// The release after the first `key` in `s` (blanks and '(' skipped).
std::string_view ReleaseAfter(std::string_view s, std::string_view key) {
  const size_t at = s.find(key);
  if (at == kNpos) return {};
  size_t i = at + key.size();
  while (i < s.size() && (scan::IsBlank(s[i]) || s[i] == '(')) ++i;
  return ReleaseAt(s, i);
}

// The text between the first quote at or after `from` and the next one.
std::string_view Quoted(std::string_view s, size_t from) {
  const size_t open = s.find_first_of("'\"", from);
  if (open == kNpos) return {};
  const size_t close = s.find(s[open], open + 1);
  if (close == kNpos) return {};
  return s.substr(open + 1, close - open - 1);
}

std::string Capped(std::string_view s) {
  size_t n = std::min(s.size(), kMaxDetail);
  while (n < s.size() && n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n));
}

// "sm_90" from "capability sm_90", or "".
std::string_view SmToken(std::string_view s) {
  const size_t at = s.find("sm_");
  if (at == kNpos) return {};
  size_t i = at + 3;
  while (i < s.size() && (scan::IsAlnum(s[i]))) ++i;
  return s.substr(at, i - at);
}

// gcc's echo of the source line under a diagnostic ("  132 | #error --
// unsupported GNU version! ..."): the message above it was read already.
bool IsSourceEcho(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && scan::IsBlank(s[i])) ++i;
  const size_t digits = i;
  while (i < s.size() && scan::IsDigit(s[i])) ++i;
  if (i == digits) return false;
  while (i < s.size() && s[i] == ' ') ++i;
  return i < s.size() && s[i] == '|' && (i + 1 == s.size() || s[i + 1] == ' ');
}

// The name uv gives a failed build: "`flash-attn==2.5.8`" -> "flash-attn".
std::string_view BacktickedName(std::string_view s) {
  if (!s.starts_with("`")) return {};
  s.remove_prefix(1);
  size_t end = 0;
  while (end < s.size() && s[end] != '`' && s[end] != '=' && s[end] != ' ' && s[end] != '@' &&
         s[end] != '<' && s[end] != '>' && s[end] != '~' && s[end] != '[')
    ++end;
  return s.substr(0, end);
}

class BuildLinesFamily : public DistFamily {
 public:
  // "xte" / "nsu" (kAnchorBuild) for "Error building extension" and the
  // unsupported compiler / architecture messages; "cud" for the CUDA release
  // and capability messages; "fai" and "xit" for ninja, setuptools and pip.
  BuildLinesFamily() : DistFamily(kAnchorBuild | kAnchorCuda | kAnchorFail | kAnchorExit) {}

  bool ReadLine(const LineRecord& line, uint32_t /*anchors*/, const DistEmitter& out) override {
    const std::string_view msg = line.message();
    if (pending_ != Pending::kNone) {
      const Pending was = pending_;
      pending_ = Pending::kNone;
      // torch prints the capabilities it was built for on the next line;
      // its CUDA mismatch message wraps before "PyTorch (12.1).".
      const bool done = was == Pending::kArch ? AddSupported(msg) : AddTorchRelease(msg);
      out.Emit(pending_row_);
      if (done) return false;
    }
    return Read(line, msg, out);
  }

  void Finish(const DistEmitter& out) override {
    if (pending_ != Pending::kNone) out.Emit(pending_row_);
    pending_ = Pending::kNone;
  }

 private:
  bool Read(const LineRecord& line, std::string_view msg, const DistEmitter& out) {
    if (IsSourceEcho(msg)) return false;
    // torch.utils.cpp_extension: RuntimeError: Error building extension 'fused_adam'
    // (also "...: Error building extension 'x': <compiler output>" when the
    // build was not verbose: the compiler's output follows this line).
    size_t at = msg.find("Error building extension");
    if (at != kNpos) {
      Emit(line, kBuildExtensionFailed, Quoted(msg, at), out);
      return false;
    }
    // The same failure under setuptools (BuildExtension, pip builds):
    // "RuntimeError: Error compiling objects for extension".
    if (Has(msg, "Error compiling objects for extension")) {
      Emit(line, kBuildExtensionFailed, {}, out);
      return false;
    }
    // torch.utils.cpp_extension without ninja installed.
    if (Has(msg, "Ninja is required to load C++ extensions")) {
      Emit(line, kBuildExtensionFailed, "ninja", out);
      return false;
    }
    // No toolkit to build with: torch's "OSError: CUDA_HOME environment
    // variable is not set. Please set it to your CUDA install root.",
    // DeepSpeed's "MissingCUDAException: CUDA_HOME does not exist, unable to
    // compile CUDA op(s)" (an AssertionError in older releases).
    if (Has(msg, "CUDA_HOME environment variable is not set") ||
        Has(msg, "CUDA_HOME does not exist, unable to compile")) {
      Emit(line, kBuildExtensionFailed, {}, out);
      return false;
    }
    if (Has(msg, "ninja: build stopped")) {
      Emit(line, kBuildExtensionFailed, "ninja", out);
      return false;
    }
    // subprocess.CalledProcessError: Command '['ninja', '-v']' returned
    // non-zero exit status 1.
    if (Has(msg, "CalledProcessError") && Has(msg, "'ninja'") && Has(msg, "non-zero exit")) {
      Emit(line, kBuildExtensionFailed, "ninja", out);
      return false;
    }
    // setuptools: "error: command '/usr/local/cuda/bin/nvcc' failed with
    // exit code 1" (older "... exit status 1"), and "error: command 'g++'
    // failed: No such file or directory" when the compiler is missing.
    at = msg.find("error: command ");
    if (at != kNpos) {
      const size_t open = msg.find_first_of("'\"", at);
      const size_t close = open == kNpos ? kNpos : msg.find(msg[open], open + 1);
      if (close != kNpos && msg.substr(close + 1).starts_with(" failed")) {
        // The command is not the extension: "command: gcc" (the build
        // analyzer takes a name only from rows without this prefix).
        Emit(line, kBuildExtensionFailed,
             "command: " + std::string(msg.substr(open + 1, close - open - 1)), out);
        return false;
      }
    }
    // pip: "ERROR: Failed building wheel for deepspeed" (the "Failed to
    // build flash-attn" summary that follows it is not read again).
    at = msg.find("Failed building wheel for ");
    if (at != kNpos) {
      Emit(line, kBuildExtensionFailed, Word(msg, at + 26), out);
      return false;
    }
    // uv: "× Failed to build `flash-attn==2.5.8`", older "error: Failed to
    // download and build `flash-attn==2.6.3`" / "Failed to build: `...`".
    at = msg.find("Failed to ");
    if (at != kNpos) {
      for (std::string_view form : {"build `", "build: `", "download and build `"}) {
        if (msg.substr(at + 10).starts_with(form)) {
          const std::string_view name = BacktickedName(msg.substr(at + 10 + form.size() - 1));
          Emit(line, kBuildExtensionFailed, name, out);
          return false;
        }
      }
    }
    // DeepSpeed's op builder: "Installed CUDA version 11.8 does not match the
    // version torch was compiled with 12.1, unable to compile ..." (also the
    // accepted-minor warning "... but since the APIs are compatible, accepting").
    if (Has(msg, "does not match the version torch was compiled with")) {
      CudaMismatch(line, ReleaseAfter(msg, "Installed CUDA version"),
                   ReleaseAfter(msg, "torch was compiled with"), out);
      return false;
    }
    // torch.utils.cpp_extension's refusal (majors differ), whose template
    // wraps after "compile": "The detected CUDA version (11.8) mismatches the
    // version that was used to compile" / "PyTorch (12.1). Please make sure
    // to use the same CUDA versions."; and its warning on one line: "The
    // detected CUDA version (12.2) has a minor version mismatch with the
    // version that was used to compile PyTorch (12.1). Most likely this
    // shouldn't be a problem."
    if (Has(msg, "detected CUDA version") && Has(msg, "the version that was used to compile")) {
      const std::string_view torch = ReleaseAfter(msg, "compile PyTorch");
      CudaMismatchRow(line, ReleaseAfter(msg, "detected CUDA version"), torch, out);
      if (!torch.empty() || !Has(msg, "mismatches the version")) {
        out.Emit(pending_row_);
        return false;
      }
      pending_ = Pending::kTorchRelease;
      return true;
    }
    // apex's setup.py: "Cuda extensions are being compiled with a version of
    // Cuda that does not match the version used to compile Pytorch
    // binaries.  Pytorch binaries were compiled with Cuda 12.1."
    if (Has(msg, "does not match the version used to compile Pytorch binaries")) {
      CudaMismatch(line, {}, ReleaseAfter(msg, "compiled with Cuda"), out);
      return false;
    }
    // host_config.h: "#error -- unsupported GNU version! gcc versions later
    // than 11 are not supported!"; clang: "unsupported clang version! clang
    // version must be less than 16 and greater than 3.2".
    at = msg.find("unsupported GNU version");
    if (at != kNpos) {
      CompilerRefused(line, msg, at, "gcc", "later than", 0, out);
      return false;
    }
    at = msg.find("unsupported clang version");
    if (at != kNpos) {
      // "less than 16": the newest accepted is 15.
      CompilerRefused(line, msg, at, "clang", "less than", 1, out);
      return false;
    }
    // nvcc older than the architecture asked for:
    // "nvcc fatal   : Unsupported gpu architecture 'compute_90'".
    at = msg.find("Unsupported gpu architecture");
    if (at != kNpos) {
      Emit(line, kBuildArchUnsupported, Quoted(msg, at), out);
      return false;
    }
    // torch.cuda: "NVIDIA H100 80GB HBM3 with CUDA capability sm_90 is not
    // compatible with the current PyTorch installation." then, on the next
    // line, "The current PyTorch install supports CUDA capabilities sm_50 ...".
    at = msg.find("with CUDA capability");
    if (at != kNpos && Has(msg, "is not compatible with the current PyTorch")) {
      pending_row_ = out.Start(line, kBuildError);
      pending_row_.op = kBuildArchUnsupported;
      std::string_view gpu = msg.substr(0, at);
      while (!gpu.empty() && scan::IsBlank(gpu.back())) gpu.remove_suffix(1);
      // Warnings arrive as "…/torch/cuda/__init__.py:215: UserWarning: NVIDIA …".
      const size_t colon = gpu.rfind(": ");
      if (colon != kNpos) gpu.remove_prefix(colon + 2);
      pending_row_.detail =
          Capped(std::string(SmToken(msg.substr(at))) + " (" + std::string(gpu) + ")");
      if (AddSupported(msg)) {
        out.Emit(pending_row_);
        return false;
      }
      pending_ = Pending::kArch;
      return true;
    }
    // A driver older than the CUDA runtime needs. torch: "The NVIDIA driver
    // on your system is too old (found version 11040). Please update your
    // GPU driver ..." (as a RuntimeError, and in the "CUDA initialization:"
    // UserWarning); the runtime's own words (cudaErrorInsufficientDriver,
    // cudaErrorSystemDriverMismatch, cudaErrorCompatNotSupportedOnDevice).
    at = msg.find("driver on your system is too old");
    if (at != kNpos) {
      std::string detail;
      const size_t found = msg.find("found version ", at);
      uint64_t v = 0;
      if (found != kNpos && scan::ReadUint(msg, found + 14, 6, &v) >= 4) {
        // CUDA encodes 11.4 as 11040.
        detail = "found=" + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
      }
      Emit(line, kBuildDriverTooOld, detail, out);
      return false;
    }
    if (Has(msg, "driver version is insufficient for CUDA runtime version") ||
        Has(msg, "unsupported display driver / cuda driver combination") ||
        Has(msg, "forward compatibility was attempted on non supported HW") ||
        Has(msg, "cudaErrorInsufficientDriver") || Has(msg, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH") ||
        Has(msg, "cudaErrorSystemDriverMismatch") ||
        Has(msg, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE")) {
      Emit(line, kBuildDriverTooOld, {}, out);
      return false;
    }
    // torch.cuda on a GPU older than any it was built for: "Found GPU0
    // GeForce GTX 770 which is of cuda capability 3.0." (then "PyTorch no
    // longer supports this GPU because it is too old.").
    at = msg.find("which is of cuda capability ");
    if (at != kNpos) {
      const size_t found = msg.find("Found GPU");
      std::string_view gpu;
      if (found != kNpos && found < at) {
        size_t i = found + 9;
        while (i < at && scan::IsDigit(msg[i])) ++i;
        gpu = msg.substr(i, at - i);
        while (!gpu.empty() && scan::IsBlank(gpu.front())) gpu.remove_prefix(1);
        while (!gpu.empty() && scan::IsBlank(gpu.back())) gpu.remove_suffix(1);
      }
      const std::string_view cc = ReleaseAt(msg, at + 28);
      std::string sm = "sm_";
      for (char c : cc) {
        if (c != '.') sm.push_back(c);
      }
      Emit(line, kBuildArchUnsupported, sm + " (" + std::string(gpu) + ") too old", out);
      return false;
    }
    return false;
  }

  // Appends torch's "supports CUDA capabilities sm_50 sm_60." list, when
  // `msg` holds it, to the pending architecture row.
  bool AddSupported(std::string_view msg) {
    constexpr std::string_view kKey = "supports CUDA capabilities";
    const size_t at = msg.find(kKey);
    if (at == kNpos) return false;
    std::string_view list = msg.substr(at + kKey.size());
    while (!list.empty() && scan::IsBlank(list.front())) list.remove_prefix(1);
    while (!list.empty() && (list.back() == '.' || scan::IsBlank(list.back())))
      list.remove_suffix(1);
    pending_row_.detail = Capped(*pending_row_.detail + " supported: " + std::string(list));
    return true;
  }

  // Completes the pending CUDA mismatch from the line its message wrapped
  // onto: "PyTorch (12.1). Please make sure to use the same CUDA versions."
  bool AddTorchRelease(std::string_view msg) {
    while (!msg.empty() && scan::IsBlank(msg.front())) msg.remove_prefix(1);
    if (!msg.starts_with("PyTorch")) return false;
    const std::string_view torch = ReleaseAfter(msg, "PyTorch");
    if (torch.empty()) return false;
    pending_row_.detail = Capped(*pending_row_.detail + std::string(torch));
    return true;
  }

  // The package name at s[i] (up to a blank or the end).
  static std::string_view Word(std::string_view s, size_t i) {
    const size_t start = i;
    while (i < s.size() && !scan::IsBlank(s[i])) ++i;
    return s.substr(start, i - start);
  }

  void Emit(const LineRecord& line, const char* op, std::string_view detail,
            const DistEmitter& out) {
    DistEventRow row = out.Start(line, kBuildError);
    row.op = op;
    if (!detail.empty()) row.detail = Capped(detail);
    out.Emit(row);
  }

  // The row of a CUDA mismatch into pending_row_, detail "installed=X
  // torch=Y" ("" for a release the message does not name).
  void CudaMismatchRow(const LineRecord& line, std::string_view installed, std::string_view torch,
                       const DistEmitter& out) {
    pending_row_ = out.Start(line, kBuildError);
    pending_row_.op = kBuildCudaMismatch;
    pending_row_.detail =
        Capped("installed=" + std::string(installed) + " torch=" + std::string(torch));
  }

  // host_config.h's refusal of the host compiler: value = the newest major
  // it accepts, read after `bound` ("later than N", "less than N" minus one).
  void CompilerRefused(const LineRecord& line, std::string_view msg, size_t at,
                       const char* compiler, std::string_view bound, uint64_t minus,
                       const DistEmitter& out) {
    DistEventRow row = out.Start(line, kBuildError);
    row.op = kBuildGccUnsupported;
    row.detail = compiler;
    const size_t b = msg.find(bound, at);
    uint64_t v = 0;
    if (b != kNpos && scan::ReadUint(msg, scan::SkipSpaces(msg, b + bound.size()), 3, &v) > 0 &&
        v > minus)
      row.value = static_cast<double>(v - minus);
    out.Emit(row);
  }

  void CudaMismatch(const LineRecord& line, std::string_view installed, std::string_view torch,
                    const DistEmitter& out) {
    CudaMismatchRow(line, installed, torch, out);
    out.Emit(pending_row_);
  }

  // A message whose end is on the next line: torch's architecture warning
  // (its supported list) or CUDA mismatch (torch's release).
  enum class Pending { kNone, kArch, kTorchRelease };
  Pending pending_ = Pending::kNone;
  DistEventRow pending_row_;
};

}  // namespace

std::unique_ptr<DistFamily> MakeBuildLinesFamily() { return std::make_unique<BuildLinesFamily>(); }

}  // namespace casefile::dist
