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

}  // namespace
}  // namespace casefile
