// CUDA failure texts: which fault a message names, and the numbers of
// PyTorch's out-of-memory messages of both eras. Numbers written by hand
// from the messages.
#include <gtest/gtest.h>

#include "analyze/analyzers/runtime/cuda_text.h"

namespace casefile::runtime {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

TEST(RuntimeCudaText, Classification) {
  struct Case {
    std::string_view text;
    CudaFault fault;
  };
  const Case cases[] = {
      {"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", CudaFault::kOom},
      {"RuntimeError: HIP out of memory. Tried to allocate 1.00 GiB", CudaFault::kOom},
      {"out of memory", CudaFault::kOom},  // a cuda_error detail
      {"RuntimeError: CUDA error: out of memory", CudaFault::kOom},
      {"RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
       CudaFault::kOom},
      {"an illegal memory access was encountered", CudaFault::kIllegalAddress},
      {"RuntimeError: CUDA error: an illegal memory access was encountered",
       CudaFault::kIllegalAddress},
      {"cudaErrorIllegalAddress", CudaFault::kIllegalAddress},
      {"RuntimeError: CUDA error: device-side assert triggered", CudaFault::kDeviceAssert},
      {"c10::Error: CUDA error: unspecified launch failure", CudaFault::kLaunchFailure},
      {"an illegal instruction was encountered", CudaFault::kIllegalInstruction},
      {"misaligned address", CudaFault::kMisalignedAddress},
      {"uncorrectable ECC error encountered", CudaFault::kEcc},
      {"the launch timed out and was terminated", CudaFault::kLaunchTimeout},
      {"RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( "
       "handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, "
       "CUDA_R_16BF, ldc, CUDA_R_32F, CUBLAS_GEMM_DFALT_TENSOR_OP)`",
       CudaFault::kLibrary},
      {"RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR", CudaFault::kLibrary},
      {"RuntimeError: CUDA error: unknown error", CudaFault::kUnknownError},
      {"unknown error", CudaFault::kUnknownError},
      // Set-up and usage errors are not runtime faults.
      {"RuntimeError: CUDA error: no kernel image is available for execution on the device",
       CudaFault::kNone},
      {"CUDA driver version is insufficient for CUDA runtime version", CudaFault::kNone},
      {"RuntimeError: CUDA error: invalid device ordinal", CudaFault::kNone},
      {"RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you "
       "passed in a non-contiguous input.",
       CudaFault::kNone},
      {"RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx`",
       CudaFault::kNone},
      {"CUDA kernel errors might be asynchronously reported at some other API call",
       CudaFault::kNone},
      {"ValueError: DebugUnderflowOverflow: inf/nan detected", CudaFault::kNone},
      {"MemoryError: Unable to allocate 3.2 GiB for an array", CudaFault::kNone},
  };
  for (const Case& c : cases) EXPECT_EQ(ClassifyCudaText(c.text), c.fault) << c.text;
}

TEST(RuntimeCudaText, FaultWords) {
  EXPECT_EQ(CudaFaultWords(CudaFault::kIllegalAddress, ""), "an illegal memory access");
  EXPECT_EQ(CudaFaultWords(CudaFault::kLibrary,
                           "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling"),
            "cuBLAS error CUBLAS_STATUS_EXECUTION_FAILED");
  EXPECT_EQ(CudaFaultWords(CudaFault::kLibrary, "cuDNN error: CUDNN_STATUS_MAPPING_ERROR"),
            "cuDNN error CUDNN_STATUS_MAPPING_ERROR");
}

TEST(RuntimeCudaText, OomNumbersOfTheOlderMessage) {
  const CudaOomNumbers n = ParseCudaOom(
      "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total "
      "capacity; 14.50 GiB already allocated; 3.19 MiB free; 14.70 GiB reserved in total by "
      "PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid "
      "fragmentation.");
  ASSERT_TRUE(n.requested && n.gpu && n.total && n.allocated && n.free && n.reserved_unallocated);
  EXPECT_DOUBLE_EQ(*n.requested, 20.0 * kMiB);
  EXPECT_EQ(*n.gpu, 0);
  EXPECT_NEAR(*n.total, 15.78 * kGiB, 1.0);
  EXPECT_NEAR(*n.allocated, 14.50 * kGiB, 1.0);
  EXPECT_NEAR(*n.free, 3.19 * kMiB, 1.0);
  EXPECT_NEAR(*n.reserved_unallocated, 0.20 * kGiB, 1e3);  // 14.70 - 14.50
}

TEST(RuntimeCudaText, OomNumbersOfTheNewerMessage) {
  const CudaOomNumbers n = ParseCudaOom(
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 2 has a total "
      "capacity of 79.15 GiB of which 2.06 GiB is free. Process 294086 has 77.08 GiB memory in "
      "use. Of the allocated memory 72.64 GiB is allocated by PyTorch, and 3.67 GiB is reserved "
      "by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.");
  ASSERT_TRUE(n.requested && n.gpu && n.total && n.allocated && n.free && n.reserved_unallocated);
  EXPECT_NEAR(*n.requested, 3.91 * kGiB, 1.0);
  EXPECT_EQ(*n.gpu, 2);
  EXPECT_NEAR(*n.total, 79.15 * kGiB, 1.0);
  EXPECT_NEAR(*n.free, 2.06 * kGiB, 1.0);
  EXPECT_NEAR(*n.allocated, 72.64 * kGiB, 1.0);
  EXPECT_NEAR(*n.reserved_unallocated, 3.67 * kGiB, 1.0);
}

TEST(RuntimeCudaText, OomNumbersOfTorch21WithItsTypo) {
  const CudaOomNumbers n = ParseCudaOom(
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a "
      "total capacty of 23.65 GiB of which 1.06 MiB is free. Including non-PyTorch memory, this "
      "process has 23.64 GiB memory in use. Of the allocated memory 22.88 GiB is allocated by "
      "PyTorch, and 310.56 MiB is reserved by PyTorch but unallocated.");
  ASSERT_TRUE(n.total && n.reserved_unallocated && n.requested);
  EXPECT_NEAR(*n.total, 23.65 * kGiB, 1.0);
  EXPECT_NEAR(*n.reserved_unallocated, 310.56 * kMiB, 1.0);
  EXPECT_DOUBLE_EQ(*n.requested, 2.0 * kMiB);
}

TEST(RuntimeCudaText, CutMessageKeepsWhatCameBeforeTheCut) {
  const CudaOomNumbers n = ParseCudaOom(
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 7 has a to");
  ASSERT_TRUE(n.requested && n.gpu);
  EXPECT_DOUBLE_EQ(*n.requested, 512.0 * kMiB);
  EXPECT_EQ(*n.gpu, 7);
  EXPECT_FALSE(n.total || n.free || n.allocated || n.reserved_unallocated);
  EXPECT_FALSE(ParseCudaOom("CUDA out of memory").any());
}

TEST(RuntimeCudaText, Sizes) {
  EXPECT_DOUBLE_EQ(SizeAt("512 bytes", 0).value_or(-1), 512.0);
  EXPECT_DOUBLE_EQ(SizeAt("1.50 KiB", 0).value_or(-1), 1536.0);
  EXPECT_FALSE(SizeAt("1.50 kg", 0).has_value());
  EXPECT_FALSE(SizeAt("GiB", 0).has_value());
  EXPECT_EQ(SizeText(512), "512 bytes");
  EXPECT_EQ(SizeText(20.0 * kMiB), "20.00 MiB");
  EXPECT_EQ(SizeText(3.91 * kGiB), "3.91 GiB");
}

}  // namespace
TEST(CudaText, DeviceAssertionLines) {
  EXPECT_TRUE(IsDeviceAssertionLine(
      "/pytorch/aten/src/ATen/native/cuda/Loss.cu:240: nll_loss_forward_reduce_cuda_kernel_2d: "
      "block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed."));
  EXPECT_TRUE(IsDeviceAssertionLine("Assertion `idx < size` failed."));
  // The first "Assertion `" is the one followed by "` failed".
  EXPECT_TRUE(IsDeviceAssertionLine("x `a` Assertion `b` failed"));
  EXPECT_FALSE(IsDeviceAssertionLine("Assertion `idx < size` held"));
  EXPECT_FALSE(IsDeviceAssertionLine("Assertion failed: idx < size"));
  EXPECT_FALSE(IsDeviceAssertionLine("assertion `idx < size` failed"));
  EXPECT_FALSE(IsDeviceAssertionLine("` failed Assertion `"));
  EXPECT_FALSE(IsDeviceAssertionLine(""));
}

}  // namespace casefile::runtime
