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

class BuildLinesFamily : public DistFamily {
 public:
  // "xte" / "nsu" (kAnchorBuild) for "Error building extension" and the
  // unsupported compiler / architecture messages; "cud" for the CUDA release
  // and capability messages; "fai" and "xit" for ninja, setuptools and pip.
  BuildLinesFamily() : DistFamily(kAnchorBuild | kAnchorCuda | kAnchorFail | kAnchorExit) {}

  bool ReadLine(const LineRecord& line, uint32_t /*anchors*/, const DistEmitter& out) override {
    const std::string_view msg = line.message();
    if (pending_arch_) {
      pending_arch_ = false;
      // torch prints the capabilities it was built for on the next line.
      if (AddSupported(msg)) {
        out.Emit(arch_row_);
        return false;
      }
      out.Emit(arch_row_);
    }
    return Read(line, msg, out);
  }

  void Finish(const DistEmitter& out) override {
    if (pending_arch_) out.Emit(arch_row_);
    pending_arch_ = false;
  }

 private:
  bool Read(const LineRecord& line, std::string_view msg, const DistEmitter& out) {
    // torch.utils.cpp_extension: RuntimeError: Error building extension 'fused_adam'
    // (also "...: Error building extension 'x': <compiler output>" in
    // newer releases).
    size_t at = msg.find("Error building extension");
    if (at != kNpos) {
      Emit(line, kBuildExtensionFailed, Quoted(msg, at), out);
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
    // setuptools: error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1
    at = msg.find("error: command ");
    if (at != kNpos && Has(msg, "failed with exit")) {
      Emit(line, kBuildExtensionFailed, Quoted(msg, at), out);
      return false;
    }
    // pip: "ERROR: Failed building wheel for deepspeed", "Failed to build flash-attn".
    at = msg.find("Failed building wheel for ");
    if (at != kNpos) {
      Emit(line, kBuildExtensionFailed, Word(msg, at + 26), out);
      return false;
    }
    // DeepSpeed's op builder: "Installed CUDA version 11.8 does not match the
    // version torch was compiled with 12.1, unable to compile ..." (also the
    // accepted-minor warning "... but since the APIs are compatible, accepting").
    if (Has(msg, "does not match the version torch was compiled with")) {
      CudaMismatch(line, ReleaseAfter(msg, "Installed CUDA version"),
                   ReleaseAfter(msg, "torch was compiled with"), out);
      return false;
    }
    // torch.utils.cpp_extension: "The detected CUDA version (11.8) mismatches
    // the version that was used to compile PyTorch (12.1)."
    if (Has(msg, "mismatches the version that was used to compile PyTorch")) {
      CudaMismatch(line, ReleaseAfter(msg, "detected CUDA version"),
                   ReleaseAfter(msg, "compile PyTorch"), out);
      return false;
    }
    // host_config.h: "#error -- unsupported GNU version! gcc versions later
    // than 11 are not supported!"; clang: "unsupported clang version! clang
    // version must be less than 16 and greater than 3.2".
    at = msg.find("unsupported GNU version");
    if (at != kNpos) {
      DistEventRow row = out.Start(line, kBuildError);
      row.op = kBuildGccUnsupported;
      row.detail = "gcc";
      const size_t later = msg.find("later than", at);
      uint64_t v = 0;
      if (later != kNpos && scan::ReadUint(msg, scan::SkipSpaces(msg, later + 10), 3, &v) > 0)
        row.value = static_cast<double>(v);
      out.Emit(row);
      return false;
    }
    at = msg.find("unsupported clang version");
    if (at != kNpos) {
      DistEventRow row = out.Start(line, kBuildError);
      row.op = kBuildGccUnsupported;
      row.detail = "clang";
      const size_t less = msg.find("less than", at);
      uint64_t v = 0;
      if (less != kNpos && scan::ReadUint(msg, scan::SkipSpaces(msg, less + 9), 3, &v) > 0 && v > 0)
        row.value = static_cast<double>(v - 1);
      out.Emit(row);
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
      arch_row_ = out.Start(line, kBuildError);
      arch_row_.op = kBuildArchUnsupported;
      std::string_view gpu = msg.substr(0, at);
      while (!gpu.empty() && scan::IsBlank(gpu.back())) gpu.remove_suffix(1);
      // Warnings arrive as "…/torch/cuda/__init__.py:215: UserWarning: NVIDIA …".
      const size_t colon = gpu.rfind(": ");
      if (colon != kNpos) gpu.remove_prefix(colon + 2);
      arch_row_.detail =
          Capped(std::string(SmToken(msg.substr(at))) + " (" + std::string(gpu) + ")");
      if (AddSupported(msg)) {
        out.Emit(arch_row_);
        return false;
      }
      pending_arch_ = true;
      return true;
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
    arch_row_.detail = Capped(*arch_row_.detail + " supported: " + std::string(list));
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

  void CudaMismatch(const LineRecord& line, std::string_view installed, std::string_view torch,
                    const DistEmitter& out) {
    DistEventRow row = out.Start(line, kBuildError);
    row.op = kBuildCudaMismatch;
    row.detail = "installed=" + std::string(installed) + " torch=" + std::string(torch);
    out.Emit(row);
  }

  bool pending_arch_ = false;
  DistEventRow arch_row_;
};

}  // namespace

std::unique_ptr<DistFamily> MakeBuildLinesFamily() { return std::make_unique<BuildLinesFamily>(); }

}  // namespace casefile::dist
