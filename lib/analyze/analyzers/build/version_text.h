// Reading and comparing the versions the build rules judge: CUDA releases,
// compiler majors, GPU compute capabilities and TORCH_CUDA_ARCH_LIST.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace casefile::build {

// "12.1" of "12.1.105", "V11.8.89", "12.1", "cu121" is not read here.
// major < 0 when the text does not start with a number.
struct Release {
  int major = -1;
  int minor = -1;  // -1 when the text has only a major ("12")
  bool ok() const { return major >= 0; }
  bool operator==(const Release&) const = default;
  auto operator<=>(const Release&) const = default;
};
Release ParseRelease(std::string_view text);
std::string ReleaseText(const Release& r);  // "12.1", "12"

// The newest gcc major the nvcc of `nvcc` accepts (NVIDIA's host compiler
// support policy, docs/FINDINGS.md "build.compiler_unsupported"); nullopt
// for releases the table does not cover.
std::optional<int> MaxGccMajorForNvcc(Release nvcc);

// The compute capability of an NVIDIA GPU model from its name ("NVIDIA
// H100 80GB HBM3" -> 9.0); nullopt for names the table does not know.
std::optional<Release> ComputeCapabilityOfGpu(std::string_view name);

// One entry of TORCH_CUDA_ARCH_LIST.
struct ArchEntry {
  Release cc;
  bool ptx = false;            // "8.6+PTX": JIT-compiles for any newer GPU
  bool arch_specific = false;  // "9.0a": runs on 9.0 only ("10.0f" is a plain entry)
};
// Entries separated by ';', ' ' or ','; the named families torch accepts
// ("Ampere", "Hopper"...) expanded as torch.utils.cpp_extension does;
// unreadable entries skipped.
std::vector<ArchEntry> ParseArchList(std::string_view list);
// Whether a binary built for `list` runs on a GPU of capability `cc`: a
// cubin for X.Y runs on X.Z with Z >= Y; PTX for X.Y runs on anything newer.
bool ArchListCovers(const std::vector<ArchEntry>& list, Release cc);

}  // namespace casefile::build
