// Errors a collective or a rank reports that are not timeouts: NCCL errors
// (kCollectiveError) and CUDA errors (kCudaError). Either can be the first
// failure that leaves the other ranks waiting, so their text is kept.
#include <algorithm>
#include <string>

#include "parse/dist/torch_watchdog_fields.h"
#include "parse/dist/torch_watchdog_kinds.h"

namespace casefile::dist::torch {
namespace {

constexpr size_t npos = std::string_view::npos;
constexpr size_t kMaxClassBytes = 128;
constexpr size_t kMaxCudaBytes = 200;

// NCCL's result codes and the words ncclGetErrorString gives them, the
// words "NCCL error in: ..." prints: a result-name line ("ncclSystemError:
// System call ...") and the error line of the same failure share a detail.
struct NcclResult {
  std::string_view name;
  std::string_view words;
};
constexpr NcclResult kNcclResults[] = {
    {"ncclUnhandledCudaError", "unhandled cuda error"},
    {"ncclSystemError", "unhandled system error"},
    {"ncclInternalError", "internal error"},
    {"ncclInvalidArgument", "invalid argument"},
    {"ncclInvalidUsage", "invalid usage"},
    {"ncclRemoteError", "remote process exited or there was a network error"},
    {"ncclInProgress", "NCCL operation in progress"},
};

// The error class at the start of `s`, without the advice and version that
// follow it: "unhandled system error (run with NCCL_DEBUG=INFO for details),
// NCCL version 2.19.3" -> "unhandled system error".
std::string_view ErrorClass(std::string_view s) {
  size_t end = s.size();
  for (std::string_view stop :
       {" (run with", ", NCCL version", " - please report", ". Last error", "\n"}) {
    end = std::min(end, s.find(stop));
  }
  return Clip(s.substr(0, end), kMaxClassBytes);
}

// The text of a CUDA error up to the advice torch appends to it.
std::string_view CudaText(std::string_view s) {
  size_t end = s.size();
  for (std::string_view stop :
       {"CUDA kernel errors", "For debugging consider", "Compile with", "\n", " at /", " at ../"}) {
    end = std::min(end, s.find(stop));
  }
  s = Clip(s.substr(0, end), kMaxCudaBytes);
  while (!s.empty() && (s.back() == '.' || s.back() == ' ')) s.remove_suffix(1);
  return s;
}

bool IsIdentChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

bool ReadCollectiveError(std::string_view msg, DistEventRow& row) {
  if (const size_t at = msg.find("NCCL error"); at != npos) {
    const std::string_view after = msg.substr(at + 10);
    std::string_view cls;
    bool matched = false;
    if (after.substr(0, 5) == " in: ") {
      // "in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, <class>"
      matched = true;
      const size_t comma = after.find(", ", 5);
      if (comma != npos) cls = after.substr(comma + 2);
    } else if (after.substr(0, 1) == ":") {
      matched = true;
      cls = after.substr(1);
    }
    if (matched) {
      const std::string_view before = msg.substr(0, at);
      ApplyGroupRank(before, row);
      // "Collective WorkNCCL(SeqNum=2, OpType=ALLREDUCE, ...) raised the
      // following async exception: NCCL error: ...": the failed collective.
      if (before.find("WorkNCCL(") != npos) ReadWorkNccl(before, row);
      const std::string_view c = ErrorClass(cls);
      row.detail = std::string(c.empty() ? std::string_view("NCCL error") : c);
      return true;
    }
  }
  for (size_t from = 0, n = 0; n < 8; ++n) {
    const size_t at = msg.find("nccl", from);
    if (at == npos) break;
    from = at + 4;
    for (const NcclResult& r : kNcclResults) {
      if (msg.substr(at, r.name.size()) != r.name) continue;
      // "ncclSystemError: System call ...": the name as the subject, not a
      // word inside an identifier or a sentence.
      const size_t end = at + r.name.size();
      if (end >= msg.size() || msg[end] != ':') continue;
      if (at > 0 && IsIdentChar(msg[at - 1])) continue;
      ApplyGroupRank(msg.substr(0, at), row);
      row.detail = std::string(r.words);
      return true;
    }
  }
  return false;
}

CudaLine ReadCudaError(std::string_view msg, DistEventRow& row) {
  std::string_view text;
  size_t at = msg.find("CUDA error:");
  if (at != npos) {
    text = CudaText(msg.substr(at + 11));
  } else if ((at = msg.find("cuda runtime error (")) != npos) {
    // THC era: "cuda runtime error (59) : device-side assert triggered at
    // /pytorch/aten/src/THC/generic/THCTensorMath.cu:26"
    const size_t colon = msg.find(") : ", at);
    if (colon != npos) text = CudaText(msg.substr(colon + 4));
  } else if ((at = msg.find("Cuda failure ")) != npos) {
    // NCCL: "Cuda failure 'an illegal memory access was encountered'" (newer
    // versions print the code first: "Cuda failure 700 '...'").
    const size_t open = msg.find('\'', at);
    if (open != npos) {
      const size_t close = msg.find('\'', open + 1);
      text = Clip(msg.substr(open + 1, close == npos ? npos : close - open - 1), kMaxCudaBytes);
    }
  } else if ((at = msg.find("cudaError")) != npos && at + 9 < msg.size() && msg[at + 9] >= 'A' &&
             msg[at + 9] <= 'Z') {
    size_t end = at + 9;
    while (end < msg.size() && IsIdentChar(msg[end])) ++end;
    text = msg.substr(at, std::min(end - at, kMaxCudaBytes));
  } else if ((at = msg.find("CUDA kernel errors might be asynchronously reported")) != npos) {
    ApplyGroupRank(msg.substr(0, at), row);
    row.detail = "CUDA kernel errors might be asynchronously reported";
    return CudaLine::kAsyncNotice;
  } else {
    return CudaLine::kNone;
  }
  ApplyGroupRank(msg.substr(0, at), row);
  row.detail = std::string(text.empty() ? std::string_view("CUDA error") : text);
  return CudaLine::kError;
}

}  // namespace casefile::dist::torch
