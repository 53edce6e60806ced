// The environment's CUDA pointers (PATH, LD_LIBRARY_PATH, CUDA_HOME /
// CUDA_PATH) and TORCH_CUDA_ARCH_LIST, and the path rule behind them and
// behind nvcc paths and toolkit directories (cuda_path.h).
#include <gtest/gtest.h>

#include "parse/version/cuda_path.h"
#include "version_test_util.h"

namespace casefile::version::test {
namespace {

std::string Release(std::string_view path) {
  const CudaPath p = ReadCudaPath(path);
  return p.under_toolkit ? "toolkit " + std::string(p.release) : "none";
}

TEST(VersionEnv, CudaPathRule) {
  EXPECT_EQ(Release("/usr/local/cuda-12.1/bin"), "toolkit 12.1");
  EXPECT_EQ(Release("/usr/local/cuda12.1/bin"), "toolkit 12.1");
  EXPECT_EQ(Release("/usr/local/cuda-12"), "toolkit 12");
  EXPECT_EQ(Release("/usr/local/cuda/bin"), "toolkit ");
  EXPECT_EQ(Release("/usr/local/cuda-12.1/targets/x86_64-linux/lib"), "toolkit 12.1");
  EXPECT_EQ(Release("/opt/nvidia/hpc_sdk/Linux_x86_64/23.11/cuda/12.3/lib64"), "toolkit 12.3");
  EXPECT_EQ(Release("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.1\\bin"),
            "toolkit 12.1");
  EXPECT_EQ(Release("/opt/cuda/cuda-11.8/bin"), "toolkit 11.8");
  // Not toolkits: a conda env named cuda121, pip wheels' nvidia/cuda_runtime,
  // a name with "cuda" inside.
  EXPECT_EQ(Release("/opt/conda/envs/cuda121/bin"), "none");
  EXPECT_EQ(Release("/opt/venv/lib/python3.10/site-packages/nvidia/cuda_runtime/lib"), "none");
  EXPECT_EQ(Release("/home/u/mycuda-1.0/bin"), "none");
  EXPECT_EQ(Release("/usr/local/cuda-toolkit/bin"), "none");
  EXPECT_EQ(Release("/usr/local/cuda-121/bin"), "none");
  EXPECT_EQ(Release(""), "none");
}

TEST(VersionEnv, Path) {
  EXPECT_EQ(Env("PATH",
                "/opt/venv/bin:/usr/local/sbin:/usr/local/cuda-12.1/bin:/usr/local/cuda-11.8/bin:"
                "/usr/bin",
                7),
            (Facts{"7|path_cuda|12.1|/usr/local/cuda-12.1/bin|env"}));
  EXPECT_EQ(Env("PATH", "/usr/local/cuda/bin:/usr/bin", 3),
            (Facts{"3|path_cuda||/usr/local/cuda/bin|env"}));
  EXPECT_EQ(Env("PATH", "/usr/local/bin:/usr/bin:/bin"), Facts{});
}

TEST(VersionEnv, LdLibraryPath) {
  EXPECT_EQ(
      Env("LD_LIBRARY_PATH",
          "/opt/venv/lib/python3.10/site-packages/nvidia/nccl/lib::"
          "/usr/local/cuda-11.8/targets/x86_64-linux/lib:/usr/local/cuda-12.1/lib64",
          9),
      (Facts{"9|ld_library_path_cuda|11.8|/usr/local/cuda-11.8/targets/x86_64-linux/lib|env"}));
  EXPECT_EQ(Env("LD_LIBRARY_PATH", ""), Facts{});
}

TEST(VersionEnv, CudaHome) {
  EXPECT_EQ(Env("CUDA_HOME", "/usr/local/cuda-12.1", 2),
            (Facts{"2|cuda_home|12.1|/usr/local/cuda-12.1|env"}));
  EXPECT_EQ(Env("CUDA_PATH", "\"/usr/local/cuda\"", 4),
            (Facts{"4|cuda_home||/usr/local/cuda|env"}));
  // Whatever it names is the toolkit extensions build with, even off-pattern.
  EXPECT_EQ(Env("CUDA_HOME", "/opt/nvidia/toolkit", 5),
            (Facts{"5|cuda_home||/opt/nvidia/toolkit|env"}));
  EXPECT_EQ(Env("CUDA_HOME", ""), Facts{});
}

TEST(VersionEnv, TorchCudaArchList) {
  EXPECT_EQ(Env("TORCH_CUDA_ARCH_LIST", "8.0;8.6+PTX", 11),
            (Facts{"11|torch_cuda_arch_list|8.0;8.6+PTX||env"}));
  EXPECT_EQ(Env("TORCH_CUDA_ARCH_LIST", "'7.0 7.5 8.0 9.0a'", 12),
            (Facts{"12|torch_cuda_arch_list|7.0 7.5 8.0 9.0a||env"}));
  EXPECT_EQ(Env("TORCH_CUDA_ARCH_LIST", "  \"9.0\"  \r", 13),
            (Facts{"13|torch_cuda_arch_list|9.0||env"}));
}

TEST(VersionEnv, OtherKeysIgnored) {
  EXPECT_EQ(Env("HOME", "/usr/local/cuda-12.1"), Facts{});
  EXPECT_EQ(Env("path", "/usr/local/cuda-12.1/bin"), Facts{});
  EXPECT_EQ(Env("CUDA_VISIBLE_DEVICES", "0,1"), Facts{});
}

}  // namespace
}  // namespace casefile::version::test
