// The texts of CUDA failures, as a crash's exception line or a cuda_error
// row's detail carries them: which failure it is, and the numbers of a CUDA
// out-of-memory message.
//
// Out-of-memory messages of PyTorch's caching allocator, two eras:
//   "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total
//    capacity; 14.50 GiB already allocated; 3.19 MiB free; 14.70 GiB
//    reserved in total by PyTorch) If reserved memory is >> allocated ..."
//   "CUDA out of memory. Tried to allocate 3.91 GiB. GPU 2 has a total
//    capacity of 79.15 GiB of which 2.06 GiB is free. Process 294086 has
//    77.08 GiB memory in use. Of the allocated memory 72.64 GiB is allocated
//    by PyTorch, and 4.31 GiB is reserved by PyTorch but unallocated. ..."
//   (2.1 wrote "total capacty"; ROCm builds say "HIP out of memory").
// Sizes are torch's format_size: "N bytes", "X.XX KiB|MiB|GiB" (TiB
// accepted).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace casefile::runtime {

enum class CudaFault {
  kNone,                // not a CUDA failure this analyzer reports
  kOom,                 // out of device memory
  kIllegalAddress,      // "an illegal memory access was encountered"
  kDeviceAssert,        // "device-side assert triggered"
  kLaunchFailure,       // "unspecified launch failure"
  kIllegalInstruction,  // "an illegal instruction was encountered"
  kMisalignedAddress,   // "misaligned address"
  kEcc,                 // "uncorrectable ECC error encountered"
  kLaunchTimeout,       // "the launch timed out and was terminated"
  kHardwareStack,       // "hardware stack error"
  kLibrary,             // CUBLAS_STATUS_*, CUDNN_STATUS_*, CUSOLVER_STATUS_* execution errors
  kUnknownError,        // "CUDA error: unknown error"
};

// Classifies a crash detail ("RuntimeError: CUDA error: an illegal memory
// access was encountered"), an exception line, or a cuda_error detail
// ("an illegal memory access was encountered"). Set-up errors (no kernel
// image, driver too old, invalid device ordinal, device busy) and library
// usage errors (NOT_SUPPORTED, BAD_PARAM, ARCH_MISMATCH) give kNone.
CudaFault ClassifyCudaText(std::string_view text);

// Whether a message is a device-side assertion line ("... Assertion `cond`
// failed."). Runtime's line scan cites such lines, and ingest marks their
// blocks with this same test (analyze/line_marks.h).
bool IsDeviceAssertionLine(std::string_view msg);

// "an illegal memory access", "a device-side assert", ... ; for kLibrary
// the status token of `text` ("cuBLAS CUBLAS_STATUS_EXECUTION_FAILED").
std::string CudaFaultWords(CudaFault fault, std::string_view text);

struct CudaOomNumbers {
  std::optional<double> requested;  // bytes
  std::optional<int> gpu;
  std::optional<double> total;
  std::optional<double> free;
  std::optional<double> allocated;             // allocated by PyTorch
  std::optional<double> reserved_unallocated;  // reserved by PyTorch but unallocated
  bool any() const {
    return requested || gpu || total || free || allocated || reserved_unallocated;
  }
};

// The numbers of either era's message; fields the text lacks (or a cut
// text lost) stay empty. The older "reserved in total" gives
// reserved_unallocated = reserved - allocated.
CudaOomNumbers ParseCudaOom(std::string_view text);

// A size torch printed at s[i] ("3.91 GiB", "512 bytes"), in bytes.
std::optional<double> SizeAt(std::string_view s, size_t i);

// "3.91 GiB", "20.00 MiB", "512 bytes" (torch's format_size, so that a
// summary repeats the numbers the log shows).
std::string SizeText(double bytes);

}  // namespace casefile::runtime
