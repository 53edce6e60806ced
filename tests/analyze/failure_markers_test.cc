// Which error texts name a consequence of another failure (failure_markers.h).
#include "analyze/failure_markers.h"

#include <gtest/gtest.h>

namespace casefile {
namespace {

TEST(FailureMarkers, ConsequencesOfAnotherFailure) {
  for (const char* text : {
           "torch.distributed.DistBackendError: [Rank 3] Watchdog caught collective operation "
           "timeout",
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
           "subprocess.CalledProcessError: Command '['/usr/bin/python3', '-u', 'train.py', "
           "'--local_rank=0']' returned non-zero exit status 1.",
           "KeyboardInterrupt",
           "ImportError: /root/.cache/torch_extensions/py310_cu121/fused_adam/fused_adam.so: "
           "cannot open shared object file: No such file or directory",
       }) {
    EXPECT_TRUE(NamesConsequence(text)) << text;
  }
}

TEST(FailureMarkers, FailedBuildsAreCauses) {
  for (const char* text : {
           "RuntimeError: Error building extension 'fused_adam' (after: "
           "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit "
           "status 1.)",
           "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit "
           "status 1.",
           "subprocess.CalledProcessError: Command '['/usr/local/cuda/bin/nvcc', '-c', 'k.cu']' "
           "returned non-zero exit status 1.",
           "ImportError: libcublas.so.11: cannot open shared object file",
       }) {
    EXPECT_FALSE(NamesConsequence(text)) << text;
  }
}

TEST(FailureMarkers, CudaFaultsCaughtByTheWatchdogAreCauses) {
  // The watchdog wraps CUDA faults as well as timeouts: the fault is what
  // failed first, for hang and runtime alike.
  for (const char* text : {
           "c10::DistBackendError: [PG 0 Rank 6] Process group watchdog thread terminated with "
           "exception: CUDA error: an illegal memory access was encountered",
           "[Rank 2] NCCL watchdog thread terminated with exception: CUDA error: device-side "
           "assert triggered",
           "Process group watchdog thread terminated with exception: CUDA error: unspecified "
           "launch failure",
       }) {
    EXPECT_FALSE(NamesConsequence(text)) << text;
  }
  EXPECT_TRUE(
      NamesConsequence("Process group watchdog thread terminated with exception: [Rank "
                       "1] Watchdog caught collective operation timeout"));
}

}  // namespace
}  // namespace casefile
