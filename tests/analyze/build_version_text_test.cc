// Releases, the nvcc -> gcc table, GPU capabilities and TORCH_CUDA_ARCH_LIST
// coverage, against NVIDIA's published tables and torch's arch-list syntax.
#include <gtest/gtest.h>

#include "analyze/analyzers/build/compiler_errors.h"
#include "analyze/analyzers/build/version_text.h"

namespace casefile::build {
namespace {

TEST(BuildVersionText, Releases) {
  EXPECT_EQ(ParseRelease("12.1.105"), (Release{12, 1}));
  EXPECT_EQ(ParseRelease("V11.8.89"), (Release{11, 8}));
  EXPECT_EQ(ParseRelease("12"), (Release{12, -1}));
  EXPECT_FALSE(ParseRelease("N/A").ok());
  EXPECT_FALSE(ParseRelease("").ok());
  EXPECT_EQ(ReleaseText(Release{12, 4}), "12.4");
  EXPECT_LT((Release{11, 8}), (Release{12, 0}));
}

TEST(BuildVersionText, MaxGccPerNvcc) {
  EXPECT_EQ(MaxGccMajorForNvcc({10, 0}), 7);
  EXPECT_EQ(MaxGccMajorForNvcc({10, 2}), 8);
  EXPECT_EQ(MaxGccMajorForNvcc({11, 0}), 9);
  EXPECT_EQ(MaxGccMajorForNvcc({11, 3}), 10);
  EXPECT_EQ(MaxGccMajorForNvcc({11, 8}), 11);
  EXPECT_EQ(MaxGccMajorForNvcc({12, 1}), 12);
  EXPECT_EQ(MaxGccMajorForNvcc({12, 6}), 13);
  EXPECT_EQ(MaxGccMajorForNvcc({12, 8}), 14);
  EXPECT_FALSE(MaxGccMajorForNvcc({13, 0}).has_value());  // newer than the table
  EXPECT_FALSE(MaxGccMajorForNvcc({9, 2}).has_value());   // older than the table
  EXPECT_FALSE(MaxGccMajorForNvcc({12, -1}).has_value());
}

TEST(BuildVersionText, GpuCapabilities) {
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA H100 80GB HBM3"), (Release{9, 0}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA A100-SXM4-80GB"), (Release{8, 0}));
  EXPECT_EQ(ComputeCapabilityOfGpu("Tesla V100-SXM2-32GB"), (Release{7, 0}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA A10"), (Release{8, 6}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA L40S"), (Release{8, 9}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA L4"), (Release{8, 9}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA GeForce RTX 4090"), (Release{8, 9}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA GeForce RTX 3090"), (Release{8, 6}));
  EXPECT_EQ(ComputeCapabilityOfGpu("Tesla T4"), (Release{7, 5}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA B200"), (Release{10, 0}));
  EXPECT_FALSE(ComputeCapabilityOfGpu("NVIDIA A1000X").has_value());
  EXPECT_FALSE(ComputeCapabilityOfGpu("AMD Instinct MI300X").has_value());
}

// Model names of other families and generations, and look-alikes.
TEST(BuildVersionText, GpuCapabilitiesMoreModels) {
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA A10G"), (Release{8, 6}));  // AWS g5
  EXPECT_EQ(ComputeCapabilityOfGpu("Tesla V100S-PCIE-32GB"), (Release{7, 0}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA RTX A5000"), (Release{8, 6}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA RTX 4000 Ada Generation"), (Release{8, 9}));
  EXPECT_EQ(ComputeCapabilityOfGpu("Quadro RTX 8000"), (Release{7, 5}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA GeForce RTX 5090"), (Release{12, 0}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA RTX PRO 6000 Blackwell Server Edition"),
            (Release{12, 0}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA GeForce GTX 1080 Ti"), (Release{6, 1}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA GeForce GTX 1660 SUPER"), (Release{7, 5}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA H20"), (Release{9, 0}));
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA H200 NVL"), (Release{9, 0}));
  EXPECT_EQ(ComputeCapabilityOfGpu("Tesla K80"), (Release{3, 7}));
  // nvidia-smi 470 cuts long names.
  EXPECT_EQ(ComputeCapabilityOfGpu("NVIDIA A100-SXM..."), (Release{8, 0}));
  // A family row needs its digits; a model needs its word end.
  EXPECT_FALSE(ComputeCapabilityOfGpu("NVIDIA RTX Anything").has_value());
  EXPECT_FALSE(ComputeCapabilityOfGpu("NVIDIA T400").has_value());
  EXPECT_FALSE(ComputeCapabilityOfGpu("ERR!").has_value());
}

// "10.0f" (family-specific, CUDA 12.9+) runs on the family's later minors;
// "9.0a" on 9.0 only.
TEST(BuildVersionText, ArchListFamilySpecific) {
  const auto family = ParseArchList("9.0a;10.0f");
  ASSERT_EQ(family.size(), 2u);
  EXPECT_TRUE(ArchListCovers(family, {10, 3}));
  EXPECT_TRUE(ArchListCovers(family, {9, 0}));
  EXPECT_FALSE(ArchListCovers(family, {12, 0}));
  EXPECT_FALSE(ArchListCovers(ParseArchList("9.0a"), {9, 1}));
}

TEST(BuildVersionText, ArchListCoverage) {
  const auto list = ParseArchList("7.0;8.0 8.6");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_TRUE(ArchListCovers(list, {8, 0}));
  EXPECT_TRUE(ArchListCovers(list, {8, 9}));   // an 8.6 cubin runs on 8.9
  EXPECT_TRUE(ArchListCovers(list, {7, 5}));   // a 7.0 cubin runs on 7.5
  EXPECT_FALSE(ArchListCovers(list, {9, 0}));  // no cubin for 9.x, no PTX
  const auto ptx = ParseArchList("\"8.0;8.6+PTX\"");
  EXPECT_TRUE(ArchListCovers(ptx, {9, 0}));  // PTX JIT-compiles for newer GPUs
  EXPECT_FALSE(ArchListCovers(ptx, {7, 5}));
  const auto specific = ParseArchList("9.0a");
  EXPECT_TRUE(ArchListCovers(specific, {9, 0}));
  const auto named = ParseArchList("Ampere;Hopper");
  EXPECT_TRUE(ArchListCovers(named, {8, 6}));
  EXPECT_TRUE(ArchListCovers(named, {9, 0}));
  EXPECT_TRUE(ParseArchList("all-the-things").empty());
}

TEST(BuildCompilerErrors, RealErrorLines) {
  for (const char* line : {
           "csrc/adam/multi_tensor_adam.cu(45): error: identifier \"__hmax2\" is undefined",
           "csrc/x.cu(12): error #20014-D: calling a __host__ function from a __device__ function",
           "/usr/include/c++/12/bits/std_function.h:435:145: error: parameter packs not expanded",
           "csrc/includes/context.h:8:10: fatal error: cublas_v2.h: No such file or directory",
           "/usr/local/cuda/include/crt/host_config.h:132:2: error: #error -- unsupported GNU "
           "version!",
           "cc1plus: fatal error: csrc/x.cpp: No such file or directory",
           "nvcc fatal   : Unsupported gpu architecture 'compute_90'",
           "/usr/bin/ld: cannot find -lcurand: No such file or directory",
           "fused.o: In function `launch': undefined reference to `cublasLtMatmul'",
       }) {
    EXPECT_TRUE(IsCompilerErrorLine(line)) << line;
  }
}

// The driver, pass and linker forms, nvcc's front end and its killed
// passes (a build that ran out of memory).
TEST(BuildCompilerErrors, ToolAndFrontEndErrors) {
  for (const char* line : {
           "csrc/flash_attn/flash_api.cpp(3): catastrophic error: cannot open source file "
           "\"cute/tensor.hpp\"",
           "nvcc error   : 'cicc' died due to signal 9 (Kill signal)",
           "nvcc error   : 'ptxas' died due to signal 9 (Kill signal)",
           "g++: fatal error: Killed signal terminated program cc1plus",
           "x86_64-linux-gnu-gcc: error: unrecognized command-line option '-mavx512fp16'",
           "gcc-12: error: csrc/x.cpp: No such file or directory",
           "gcc: error trying to exec 'cc1plus': execvp: No such file or directory",
           "clang++: error: no such file or directory: 'csrc/x.cpp'",
           "ld.lld: error: undefined symbol: cublasLtMatmul",
           "/usr/bin/ld.gold: error: cannot find -lcudart",
           "mold: error: library not found: cuda",
           "      /tmp/pip-install-x/csrc/x.h:7:10: fatal error: cute/copy.hpp: No such file",
       }) {
    EXPECT_TRUE(IsCompilerErrorLine(line)) << line;
  }
}

TEST(BuildCompilerErrors, NotErrors) {
  for (const char* line : {
           "csrc/x.cu(12): warning #177-D: variable \"idx\" was declared but never referenced",
           "2 errors detected in the compilation of \"csrc/adam/multi_tensor_adam.cu\".",
           "FAILED: multi_tensor_adam.cuda.o",
           "error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1",
           "RuntimeError: Error building extension 'fused_adam'",
           "collect2: error: ld returned 1 exit status",
           "step 10: error_rate: 0.1",
           "2024-05-01 12:00:00 ERROR: something else",
           "clang: error: linker command failed with exit code 1 (use -v to see invocation)",
           "  132 | #error -- unsupported GNU version! gcc versions later than 11 are not",
           "train.py: error: unrecognized arguments: --fp8",
           "pip: error: no such option: --foo",
           "ninja: error: loading 'build.ninja': No such file or directory",
           "nvcc warning : The 'compute_35' architecture is deprecated",
       }) {
    EXPECT_FALSE(IsCompilerErrorLine(line)) << line;
  }
}

}  // namespace
}  // namespace casefile::build
