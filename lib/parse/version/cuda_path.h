// Which CUDA toolkit a path points into, read from its components:
// "cuda" (then an optional "X.Y" / "vX.Y" component: HPC SDK's
// .../cuda/12.3, Windows' ...\CUDA\v12.1), "cuda-X.Y", "cuda-X" or "cudaX.Y".
// "cuda121" (a conda env's name) or "cuda_runtime" (a pip wheel's folder) is
// no toolkit. Used for nvcc paths, `ls -ld /usr/local/cuda*` entries and the
// environment's PATH / LD_LIBRARY_PATH / CUDA_HOME.
#pragma once

#include <string_view>

namespace casefile::version {

struct CudaPath {
  bool under_toolkit = false;  // a component names a CUDA toolkit directory
  std::string_view release;    // "12.1", "12"; "" when no component names one
};

// Separators '/' and '\\'. When several components name a release, the
// innermost one wins (/opt/cuda/cuda-12.1/bin -> "12.1").
CudaPath ReadCudaPath(std::string_view path);

}  // namespace casefile::version
