#include "analyze/analyzers/runtime/cuda_text.h"

#include <cstdio>

#include "parse/line/byte_search.h"

namespace casefile::runtime {
namespace {

constexpr size_t npos = std::string_view::npos;

bool Has(std::string_view s, std::string_view part) { return s.find(part) != npos; }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

struct Pattern {
  std::string_view text;
  CudaFault fault;
};

// Searched in this order; the first that occurs wins. Each fault is named
// by the runtime's words, its cudaError_t name and the driver's CUDA_ERROR_
// name, since all three reach logs.
constexpr Pattern kPatterns[] = {
    {"CUDA out of memory", CudaFault::kOom},
    {"HIP out of memory", CudaFault::kOom},
    {"OutOfMemoryError", CudaFault::kOom},
    {"CUDA error: out of memory", CudaFault::kOom},
    {"cudaErrorMemoryAllocation", CudaFault::kOom},
    {"CUDA_ERROR_OUT_OF_MEMORY", CudaFault::kOom},
    {"CUBLAS_STATUS_ALLOC_FAILED", CudaFault::kOom},
    {"illegal memory access", CudaFault::kIllegalAddress},
    {"cudaErrorIllegalAddress", CudaFault::kIllegalAddress},
    {"CUDA_ERROR_ILLEGAL_ADDRESS", CudaFault::kIllegalAddress},
    {"device-side assert", CudaFault::kDeviceAssert},
    {"cudaErrorAssert", CudaFault::kDeviceAssert},
    {"CUDA_ERROR_ASSERT", CudaFault::kDeviceAssert},
    {"unspecified launch failure", CudaFault::kLaunchFailure},
    {"cudaErrorLaunchFailure", CudaFault::kLaunchFailure},
    {"CUDA_ERROR_LAUNCH_FAILED", CudaFault::kLaunchFailure},
    {"illegal instruction was encountered", CudaFault::kIllegalInstruction},
    {"cudaErrorIllegalInstruction", CudaFault::kIllegalInstruction},
    {"CUDA_ERROR_ILLEGAL_INSTRUCTION", CudaFault::kIllegalInstruction},
    {"misaligned address", CudaFault::kMisalignedAddress},
    {"cudaErrorMisalignedAddress", CudaFault::kMisalignedAddress},
    {"CUDA_ERROR_MISALIGNED_ADDRESS", CudaFault::kMisalignedAddress},
    {"uncorrectable ECC error", CudaFault::kEcc},
    {"cudaErrorECCUncorrectable", CudaFault::kEcc},
    {"CUDA_ERROR_ECC_UNCORRECTABLE", CudaFault::kEcc},
    {"launch timed out and was terminated", CudaFault::kLaunchTimeout},
    {"cudaErrorLaunchTimeout", CudaFault::kLaunchTimeout},
    {"CUDA_ERROR_LAUNCH_TIMEOUT", CudaFault::kLaunchTimeout},
    {"hardware stack error", CudaFault::kHardwareStack},
    {"cudaErrorHardwareStackError", CudaFault::kHardwareStack},
};

// Library statuses that are usage or set-up errors, not a failed kernel.
constexpr std::string_view kLibraryUsage[] = {
    "NOT_SUPPORTED", "BAD_PARAM", "ARCH_MISMATCH", "VERSION_MISMATCH", "LICENSE_ERROR",
};

// The "<LIB>_STATUS_<NAME>" token at `at`.
std::string_view StatusToken(std::string_view s, size_t at) {
  size_t end = at;
  while (end < s.size() && ((s[end] >= 'A' && s[end] <= 'Z') || IsDigit(s[end]) || s[end] == '_'))
    ++end;
  return s.substr(at, end - at);
}

size_t FindLibraryStatus(std::string_view s) {
  for (std::string_view lib : {"CUBLAS_STATUS_", "CUDNN_STATUS_", "CUSOLVER_STATUS_"}) {
    for (size_t at = s.find(lib); at != npos; at = s.find(lib, at + 1)) {
      const std::string_view token = StatusToken(s, at);
      bool usage = token.ends_with("_SUCCESS");
      for (std::string_view u : kLibraryUsage) usage |= token.ends_with(u);
      if (!usage) return at;
    }
  }
  return npos;
}

// The size just before `at` in "...; 15.78 GiB total capacity": the last
// field before the key.
std::optional<double> SizeBefore(std::string_view s, size_t at) {
  size_t start = at;
  while (start > 0 && s[start - 1] != ';' && s[start - 1] != '(' && at - start < 32) --start;
  while (start < at && s[start] == ' ') ++start;
  return SizeAt(s.substr(0, at), start);
}

std::optional<double> SizeAfter(std::string_view s, std::string_view key) {
  const size_t at = s.find(key);
  if (at == npos) return std::nullopt;
  return SizeAt(s, at + key.size());
}

}  // namespace

bool IsDeviceAssertionLine(std::string_view msg) {
  // From the rare pair " `": find() of "Assertion `" stops at every 'A', and
  // this runs on every line at ingest.
  constexpr std::string_view kAssertion = "Assertion `";
  size_t at = npos;
  scan::AnyOfFourPairs(msg, {' ', '`'}, {' ', '`'}, {' ', '`'}, {' ', '`'}, [&](size_t i) {
    if (i < 9 || !scan::HasAt(msg, i - 9, kAssertion)) return false;
    at = i - 9;
    return true;
  });
  return at != npos && msg.find("` failed", at + kAssertion.size()) != npos;
}

CudaFault ClassifyCudaText(std::string_view text) {
  if (text.starts_with("out of memory")) return CudaFault::kOom;
  for (const Pattern& p : kPatterns) {
    if (Has(text, p.text)) return p.fault;
  }
  if (FindLibraryStatus(text) != npos) return CudaFault::kLibrary;
  if (text.starts_with("unknown error") || Has(text, "CUDA error: unknown error") ||
      Has(text, "cudaErrorUnknown") || Has(text, "CUDA_ERROR_UNKNOWN")) {
    return CudaFault::kUnknownError;
  }
  return CudaFault::kNone;
}

std::string CudaFaultWords(CudaFault fault, std::string_view text) {
  switch (fault) {
    case CudaFault::kNone:
      return "a CUDA error";
    case CudaFault::kOom:
      return "CUDA out of memory";
    case CudaFault::kIllegalAddress:
      return "an illegal memory access";
    case CudaFault::kDeviceAssert:
      return "a device-side assert";
    case CudaFault::kLaunchFailure:
      return "an unspecified launch failure";
    case CudaFault::kIllegalInstruction:
      return "an illegal instruction";
    case CudaFault::kMisalignedAddress:
      return "a misaligned address";
    case CudaFault::kEcc:
      return "an uncorrectable ECC error";
    case CudaFault::kLaunchTimeout:
      return "a kernel launch timeout";
    case CudaFault::kHardwareStack:
      return "a hardware stack error";
    case CudaFault::kLibrary: {
      const size_t at = FindLibraryStatus(text);
      if (at == npos) return "a CUDA library error";
      const std::string_view token = StatusToken(text, at);
      const std::string_view lib = token.starts_with("CUBLAS")  ? "cuBLAS"
                                   : token.starts_with("CUDNN") ? "cuDNN"
                                                                : "cuSOLVER";
      return std::string(lib) + " error " + std::string(token);
    }
    case CudaFault::kUnknownError:
      return "an unknown CUDA error";
  }
  return "a CUDA error";
}

std::optional<double> SizeAt(std::string_view s, size_t i) {
  size_t j = i;
  double whole = 0;
  size_t digits = 0;
  while (j < s.size() && IsDigit(s[j]) && digits < 15) {
    whole = whole * 10 + (s[j] - '0');
    ++j;
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (j < s.size() && s[j] == '.') {
    ++j;
    double scale = 0.1;
    size_t frac = 0;
    while (j < s.size() && IsDigit(s[j]) && frac < 9) {
      whole += (s[j] - '0') * scale;
      scale /= 10;
      ++j;
      ++frac;
    }
  }
  if (j >= s.size() || s[j] != ' ') return std::nullopt;
  const std::string_view unit = s.substr(j + 1, 5);
  constexpr double kKi = 1024.0;
  if (unit.starts_with("bytes") || unit.starts_with("B")) return whole;
  if (unit.starts_with("KiB")) return whole * kKi;
  if (unit.starts_with("MiB")) return whole * kKi * kKi;
  if (unit.starts_with("GiB")) return whole * kKi * kKi * kKi;
  if (unit.starts_with("TiB")) return whole * kKi * kKi * kKi * kKi;
  return std::nullopt;
}

std::string SizeText(double bytes) {
  char buf[64];
  constexpr double kKi = 1024.0;
  if (bytes < kKi) {
    std::snprintf(buf, sizeof buf, "%.0f bytes", bytes);
  } else if (bytes < kKi * kKi) {
    std::snprintf(buf, sizeof buf, "%.2f KiB", bytes / kKi);
  } else if (bytes < kKi * kKi * kKi) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", bytes / (kKi * kKi));
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (kKi * kKi * kKi));
  }
  return buf;
}

CudaOomNumbers ParseCudaOom(std::string_view s) {
  CudaOomNumbers n;
  n.requested = SizeAfter(s, "Tried to allocate ");
  for (size_t at = s.find("GPU "); at != npos; at = s.find("GPU ", at + 1)) {
    size_t i = at + 4;
    int gpu = 0;
    size_t digits = 0;
    while (i < s.size() && IsDigit(s[i]) && digits < 4) gpu = gpu * 10 + (s[i++] - '0'), ++digits;
    if (digits == 0) continue;
    if (s.substr(i, 1) == ";" || s.substr(i, 4) == " has") {
      n.gpu = gpu;
      break;
    }
  }
  // The newer sentences.
  n.total = SizeAfter(s, "total capacity of ");
  if (!n.total) n.total = SizeAfter(s, "total capacty of ");
  n.free = SizeAfter(s, "of which ");
  if (const size_t at = s.find("Of the allocated memory "); at != npos) {
    n.allocated = SizeAt(s, at + 24);
    const size_t and_at = s.find(", and ", at);
    if (and_at != npos) {
      const std::optional<double> r = SizeAt(s, and_at + 6);
      const size_t words = s.find(" is reserved by PyTorch but unallocated", and_at);
      if (r && words != npos && words - and_at < 32) n.reserved_unallocated = r;
    }
  }
  // The older "(GPU 0; 15.78 GiB total capacity; ...)" fields.
  if (!n.total) {
    if (const size_t at = s.find(" total capacity"); at != npos) n.total = SizeBefore(s, at);
  }
  if (!n.allocated) {
    if (const size_t at = s.find(" already allocated"); at != npos) n.allocated = SizeBefore(s, at);
  }
  if (!n.free) {
    if (const size_t at = s.find(" free;"); at != npos) n.free = SizeBefore(s, at);
  }
  if (!n.reserved_unallocated) {
    if (const size_t at = s.find(" reserved in total by PyTorch"); at != npos) {
      const std::optional<double> reserved = SizeBefore(s, at);
      if (reserved && n.allocated && *reserved >= *n.allocated)
        n.reserved_unallocated = *reserved - *n.allocated;
    }
  }
  return n;
}

}  // namespace casefile::runtime
