// The build-failure lines (kind build_error) as torch.utils.cpp_extension,
// DeepSpeed's op builder, ninja, setuptools, pip, nvcc and torch.cuda print
// them, behind the prefixes real logs add; and the normal build chatter that
// must not become an event.
#include <gtest/gtest.h>

#include "parse/dist/dist_kinds.h"
#include "parse/dist_test_util.h"

namespace casefile::dist {
namespace {

std::vector<DistEventRow> Feed(const std::vector<std::string>& lines) {
  auto family = MakeBuildLinesFamily();
  return test::FeedFamily(*family, lines, 7, 2024);
}

TEST(DistBuildLines, ExtensionFailureLines) {
  const auto rows = Feed({
      "[rank0]: FAILED: multi_tensor_adam.cuda.o",
      "[rank0]: ninja: build stopped: subcommand failed.",
      "[rank0]: subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero "
      "exit status 1.",
      "[rank0]: RuntimeError: Error building extension 'fused_adam'",
      "      error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1",
      "  ERROR: Failed building wheel for flash-attn",
  });
  ASSERT_EQ(rows.size(), 5u);
  for (const auto& r : rows) {
    EXPECT_EQ(r.kind, kBuildError);
    EXPECT_EQ(r.op, kBuildExtensionFailed);
  }
  EXPECT_EQ(rows[0].line_no, 2);
  EXPECT_EQ(rows[0].rank, 0);
  EXPECT_EQ(rows[0].detail, "ninja");
  EXPECT_EQ(rows[1].line_no, 3);
  EXPECT_EQ(rows[2].detail, "fused_adam");
  EXPECT_EQ(rows[3].detail, "command: /usr/local/cuda/bin/nvcc");
  EXPECT_EQ(rows[4].detail, "flash-attn");
}

TEST(DistBuildLines, CudaMismatchBothWordings) {
  const auto rows = Feed({
      "[default3]:Exception: >- DeepSpeed Op Builder: Installed CUDA version 11.8 does not "
      "match the version torch was compiled with 12.1, unable to compile cuda/cpp extensions "
      "without a matching cuda version.",
      "UserWarning: The detected CUDA version (12.2) mismatches the version that was used to "
      "compile PyTorch (12.1). Please make sure to use the same CUDA versions.",
      "Installed CUDA version 12.4 does not match the version torch was compiled with 12.1 but "
      "since the APIs are compatible, accepting this combination",
  });
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].op, kBuildCudaMismatch);
  EXPECT_EQ(rows[0].detail, "installed=11.8 torch=12.1");
  EXPECT_EQ(rows[0].local_rank, 3);
  EXPECT_EQ(rows[1].detail, "installed=12.2 torch=12.1");
  EXPECT_EQ(rows[2].detail, "installed=12.4 torch=12.1");
}

TEST(DistBuildLines, UnsupportedCompilers) {
  const auto rows = Feed({
      "/usr/local/cuda-11.8/include/crt/host_config.h:132:2: error: #error -- unsupported GNU "
      "version! gcc versions later than 11 are not supported! The nvcc flag "
      "'-allow-unsupported-compiler' can be used to override this version check",
      "/usr/local/cuda/include/crt/host_config.h:151:2: error: -- unsupported clang version! "
      "clang version must be less than 16 and greater than 3.2 . The nvcc flag",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].op, kBuildGccUnsupported);
  EXPECT_EQ(rows[0].detail, "gcc");
  EXPECT_EQ(rows[0].value, 11.0);
  EXPECT_EQ(rows[1].detail, "clang");
  EXPECT_EQ(rows[1].value, 15.0);
}

TEST(DistBuildLines, ArchitectureMessages) {
  const auto rows = Feed({
      "/opt/venv/lib/python3.10/site-packages/torch/cuda/__init__.py:215: UserWarning: ",
      "NVIDIA H100 80GB HBM3 with CUDA capability sm_90 is not compatible with the current "
      "PyTorch installation.",
      "The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.",
      "If you want to use the NVIDIA H100 80GB HBM3 GPU with PyTorch, please check the "
      "instructions at https://pytorch.org/get-started/locally/",
      "nvcc fatal   : Unsupported gpu architecture 'compute_90'",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].op, kBuildArchUnsupported);
  EXPECT_EQ(rows[0].line_no, 2);
  EXPECT_EQ(rows[0].detail, "sm_90 (NVIDIA H100 80GB HBM3) supported: sm_37 sm_50 sm_60 sm_70");
  EXPECT_EQ(rows[1].line_no, 5);
  EXPECT_EQ(rows[1].detail, "compute_90");
}

TEST(DistBuildLines, ArchitectureWarningAtEndOfFile) {
  const auto rows =
      Feed({"UserWarning: NVIDIA A10 with CUDA capability sm_86 is not compatible "
            "with the current PyTorch installation."});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].detail, "sm_86 (NVIDIA A10)");
}

// torch's refusal wraps after "compile" (its template holds a newline);
// the minor-only warning is one line; apex names only torch's release.
TEST(DistBuildLines, CudaMismatchAsTorchAndApexPrintIt) {
  const auto rows = Feed({
      "      RuntimeError:",  // 1
      "      The detected CUDA version (11.8) mismatches the version that was used to compile",  // 2
      "      PyTorch (12.1). Please make sure to use the same CUDA versions.",  // 3
      "/opt/venv/lib/python3.10/site-packages/torch/utils/cpp_extension.py:424: UserWarning: "
      "The detected CUDA version (12.2) has a minor version mismatch with the version that "
      "was used to compile PyTorch (12.1). Most likely this shouldn't be a problem.",      // 4
      "The detected CUDA version (11.7) mismatches the version that was used to compile",  // 5
      "Traceback (most recent call last):",                                                // 6
      "RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not "
      "match the version used to compile Pytorch binaries.  Pytorch binaries were compiled "
      "with Cuda 12.1.",  // 7
  });
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& r : rows) EXPECT_EQ(r.op, kBuildCudaMismatch);
  EXPECT_EQ(rows[0].line_no, 2);
  EXPECT_EQ(rows[0].detail, "installed=11.8 torch=12.1");
  EXPECT_EQ(rows[1].line_no, 4);
  EXPECT_EQ(rows[1].detail, "installed=12.2 torch=12.1");
  // The wrap was lost: torch's release is unknown.
  EXPECT_EQ(rows[2].line_no, 5);
  EXPECT_EQ(rows[2].detail, "installed=11.7 torch=");
  EXPECT_EQ(rows[3].line_no, 7);
  EXPECT_EQ(rows[3].detail, "installed= torch=12.1");
}

TEST(DistBuildLines, CudaMismatchWrapAtEndOfFile) {
  const auto rows =
      Feed({"The detected CUDA version (11.8) mismatches the version that was used to compile"});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].detail, "installed=11.8 torch=");
}

// Builds that stop before any compiler runs, and the other tools' wording.
TEST(DistBuildLines, MoreExtensionFailures) {
  const auto rows = Feed({
      "RuntimeError: Error compiling objects for extension",     // 1
      "RuntimeError: Ninja is required to load C++ extensions",  // 2
      "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA "
      "install root.",  // 3
      "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, "
      "unable to compile CUDA op(s)",                                                   // 4
      "      error: command 'x86_64-linux-gnu-g++' failed: No such file or directory",  // 5
      "  \xC3\x97 Failed to build `flash-attn==2.5.8`",                                 // 6
      "error: command 'gcc' failed with exit status 1",                                 // 7
      "error: Failed to download and build `flash-attn==2.6.3`",                        // 8
  });
  ASSERT_EQ(rows.size(), 8u);
  for (const auto& r : rows) EXPECT_EQ(r.op, kBuildExtensionFailed);
  EXPECT_FALSE(rows[0].detail.has_value());
  EXPECT_EQ(rows[1].detail, "ninja");
  EXPECT_FALSE(rows[2].detail.has_value());
  EXPECT_EQ(rows[3].line_no, 4);
  EXPECT_FALSE(rows[3].detail.has_value());
  EXPECT_EQ(rows[4].detail, "command: x86_64-linux-gnu-g++");
  EXPECT_EQ(rows[5].detail, "flash-attn");
  EXPECT_EQ(rows[6].detail, "command: gcc");
  EXPECT_EQ(rows[7].detail, "flash-attn");
}

// gcc echoes the source line under its diagnostic: one refusal, not two.
TEST(DistBuildLines, SourceEchoIsNotASecondEvent) {
  const auto rows = Feed({
      "/usr/local/cuda/include/crt/host_config.h:132:2: error: #error -- unsupported GNU "
      "version! gcc versions later than 11 are not supported!",
      "  132 | #error -- unsupported GNU version! gcc versions later than 11 are not supported!",
      "      |  ^~~~~",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_EQ(rows[0].op, kBuildGccUnsupported);
}

// torch on a GPU older than its oldest architecture.
TEST(DistBuildLines, GpuTooOld) {
  const auto rows = Feed({
      "/opt/venv/lib/python3.8/site-packages/torch/cuda/__init__.py:83: UserWarning: ",
      "    Found GPU0 GeForce GTX 770 which is of cuda capability 3.0.",
      "    PyTorch no longer supports this GPU because it is too old.",
      "    The minimum cuda capability supported by this library is 3.7.",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line_no, 2);
  EXPECT_EQ(rows[0].op, kBuildArchUnsupported);
  EXPECT_EQ(rows[0].detail, "sm_30 (GeForce GTX 770) too old");
}

// A GPU driver older than the CUDA runtime: torch's words (the warning at
// CUDA initialisation, then the error), the runtime's through nccl-tests
// and torch, a container whose libcuda is not the host driver's.
TEST(DistBuildLines, DriverTooOld) {
  const auto rows = Feed({
      "[rank3]:/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:138: UserWarning: "
      "CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). "
      "Please update your GPU driver by downloading and installing a new version from the URL: "
      "http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to "
      "install a PyTorch version that has been compiled with your version of the CUDA driver. "
      "(Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)",
      "[rank3]: RuntimeError: The NVIDIA driver on your system is too old (found version 11080). "
      "Please update your GPU driver by downloading and installing a new version from the URL: "
      "http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to "
      "install a PyTorch version that has been compiled with your version of the CUDA driver.",
      "a100-jx-2: Test CUDA failure common.cu:892 'CUDA driver version is insufficient for CUDA "
      "runtime version'",
      "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
      "before calling NumCudaDevices() that might have already set an error? Error 803: system "
      "has unsupported display driver / cuda driver combination",
      "cuda_check.cu:41: code=35(cudaErrorInsufficientDriver) \"cudaGetDeviceCount(&n)\"",
      "| NVIDIA-SMI 470.223.02   Driver Version: 470.223.02   CUDA Version: 11.4     |",
      "Please update your GPU driver if training is slow",
  });
  ASSERT_EQ(rows.size(), 5u);
  for (const auto& r : rows) EXPECT_EQ(r.op, kBuildDriverTooOld);
  EXPECT_EQ(rows[0].detail, "found=11.4");
  EXPECT_EQ(rows[0].rank, 3);
  EXPECT_EQ(rows[1].detail, "found=11.8");
  EXPECT_EQ(rows[2].detail, std::nullopt);
  EXPECT_EQ(rows[3].line_no, 4);
}

// pip's and DeepSpeed's chatter around builds: the failure is read once,
// from "Failed building wheel"; the rest is no event.
TEST(DistBuildLines, PipAndDeepSpeedChatter) {
  const auto rows = Feed({
      "  Building wheel for flash-attn (setup.py) ... error",
      "  error: subprocess-exited-with-error",
      "  \xC3\x97 python setup.py bdist_wheel did not run successfully.",
      "  \xE2\x94\x82 exit code: 1",
      "  note: This error originates from a subprocess, and is likely not a problem with pip.",
      "  ERROR: Failed building wheel for flash-attn",
      "Failed to build flash-attn",
      "ERROR: Could not build wheels for flash-attn, which is required to install "
      "pyproject.toml-based projects",
      "\x1b[93m [WARNING] \x1b[0m NVIDIA Inference is only supported on Ampere and newer "
      "architectures",
      "\x1b[93m [WARNING] \x1b[0m using untested triton version (2.1.0), only 1.0.0 is known "
      "to be compatible",
      "Using envvar MAX_JOBS (8) as the number of workers...",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line_no, 6);
  EXPECT_EQ(rows[0].detail, "flash-attn");
}

TEST(DistBuildLines, SuccessfulBuildsAndLookalikesAreNotEvents) {
  const auto rows = Feed({
      "Using /root/.cache/torch_extensions/py310_cu121 as PyTorch extensions root...",
      "Detected CUDA files, patching ldflags",
      "Emitting ninja build file "
      "/root/.cache/torch_extensions/py310_cu121/fused_adam/build.ninja...",
      "Building extension module fused_adam...",
      "Allowing ninja to set a default number of workers... (overridable by setting the "
      "environment variable MAX_JOBS=N)",
      "ninja: no work to do.",
      "Loading extension module fused_adam...",
      "Time to load fused_adam op: 0.10 seconds",
      "[1/3] /usr/local/cuda/bin/nvcc -DTORCH_EXTENSION_NAME=fused_adam -c multi_tensor_adam.cu",
      "CUDA extension build finished; exit code 0",
      "INFO: 12 tests failed to match the expected version of torch",
      "error_rate=0.01 failed_requests=0 exit_code=0",
  });
  EXPECT_TRUE(rows.empty()) << rows.front().line_no;
}

}  // namespace
}  // namespace casefile::dist
