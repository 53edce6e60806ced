// Python packages as version facts: PEP 503 names, the packages that have a
// component of their own (torch, nccl, cudnn, ...), and torch's "+cu121"
// local tag. Shared by pip freeze / pip list, conda list, collect_env's
// [pip3] / [conda] lines and transformers' env report.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "parse/version/version_reader.h"

namespace casefile::version {

// PEP 503: lower case, each run of '-', '_', '.' as one '-'.
std::string NormalizeProjectName(std::string_view name);

// True for a project name as pip prints it: letters, digits, '-', '_', '.',
// starting with a letter or digit (conda also allows a leading '_').
bool IsProjectName(std::string_view name, bool conda);

// The component of a normalized name: "torch", "nccl" (nvidia-nccl-cu12),
// "triton" (pytorch-triton), ..., else "pip:<name>". `conda` adds conda's own
// package names (pytorch, nccl, cudnn).
std::string PackageComponent(std::string_view normalized, bool conda);

// The CUDA release of a local tag: "2.1.0+cu121" -> "12.1",
// "1.13.1+cu117.with.pypi.cudnn" -> "11.7", "+cu92" -> "9.2"; "" otherwise.
std::string TorchCudaOfLocalTag(std::string_view version);

// Splits a pip requirement pin "name==1.0" / "name===1.0" (pip freeze,
// collect_env's "[pip3] name==1.0"). Anything after the version (a space, a
// ';' environment marker) is dropped. False for other forms.
bool SplitPin(std::string_view text, std::string_view* name, std::string_view* version);

// Emits `name`'s fact when `version` starts with a digit (a PEP 440
// release); for torch, also torch_cuda from a local tag (detail "local
// tag"). Returns false when nothing was emitted.
bool EmitPackage(const FactOut& out, int64_t line_no, std::string_view name,
                 std::string_view version, std::string_view detail, const char* source);

// A conda package row ("name version build channel"): EmitPackage, plus
// the CUDA release of conda's own torch builds, which carry no local tag:
// the build string's "cuda12.1" (pytorch channel, "py3.10_cuda12.1_cudnn8.9.2_0";
// older "cuda10.2.89") or "cuda120" (conda-forge) gives torch_cuda with
// detail "conda build"; the pytorch-cuda metapackage's version is that
// release (torch_cuda, detail "pytorch-cuda").
bool EmitCondaPackage(const FactOut& out, int64_t line_no, std::string_view name,
                      std::string_view version, std::string_view build);

// The CUDA release a conda build string names ("py3.10_cuda12.1_cudnn8.9.2_0"
// -> "12.1", "cuda120_py310h_300" -> "12.0"); "" when none.
std::string CudaOfCondaBuild(std::string_view build);

}  // namespace casefile::version
