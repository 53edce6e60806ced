// torch's collect_env report (formats.md 6.1): the recent template, an
// older one (no Libc / Python platform lines, "Python version: 3.6
// (64-bit runtime)", one GPU on the field's own line), CPU-only values that
// mean "nothing known", the two multi-line values, CRLF leftovers.
#include <gtest/gtest.h>

#include "version_test_util.h"

namespace casefile::version::test {
namespace {

constexpr const char* kPath = "nodes/n1/versions/collect_env.txt";

TEST(VersionCollectEnv, RecentTemplate) {
  const std::string text =
      "<frozen runpy>:128: RuntimeWarning: 'torch.utils.collect_env' found in sys.modules\n"  // 1
      "Collecting environment information...\n"                                               // 2
      "PyTorch version: 2.4.1+cu124\n"                                                        // 3
      "Is debug build: False\n"                                                               // 4
      "CUDA used to build PyTorch: 12.4\n"                                                    // 5
      "ROCM used to build PyTorch: N/A\n"                                                     // 6
      "\n"                                                                                    // 7
      "OS: Ubuntu 22.04.4 LTS (x86_64)\n"                                                     // 8
      "GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0\n"                                  // 9
      "Clang version: Could not collect\n"                                                    // 10
      "CMake version: version 3.27.9\n"                                                       // 11
      "Libc version: glibc-2.35\n"                                                            // 12
      "\n"                                                                                    // 13
      "Python version: 3.11.14 | packaged by conda-forge | (main, Oct 22 2025, 22:46:25) "
      "[GCC 14.3.0] (64-bit runtime)\n"                                                  // 14
      "Python platform: Linux-5.15.0-1063-aws-x86_64-with-glibc2.35\n"                   // 15
      "Is CUDA available: True\n"                                                        // 16
      "CUDA runtime version: 12.4.131\n"                                                 // 17
      "CUDA_MODULE_LOADING set to: LAZY\n"                                               // 18
      "GPU models and configuration: \n"                                                 // 19
      "GPU 0: NVIDIA A100-SXM4-80GB\n"                                                   // 20
      "GPU 1: NVIDIA A100-SXM4-80GB\n"                                                   // 21
      "\n"                                                                               // 22
      "Nvidia driver version: 550.90.07\n"                                               // 23
      "cuDNN version: Probably one of the following:\n"                                  // 24
      "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0\n"                                    // 25
      "/usr/lib/x86_64-linux-gnu/libcudnn_adv.so.9.1.0\n"                                // 26
      "/usr/lib/x86_64-linux-gnu/libcudnn_cnn.so.9.1.0\n"                                // 27
      "HIP runtime version: N/A\n"                                                       // 28
      "MIOpen runtime version: N/A\n"                                                    // 29
      "Is XNNPACK available: True\n"                                                     // 30
      "\n"                                                                               // 31
      "CPU:\n"                                                                           // 32
      "Architecture:                       x86_64\n"                                     // 33
      "Model name:                         AMD EPYC 7R13 Processor\n"                    // 34
      "\n"                                                                               // 35
      "Versions of relevant libraries:\n"                                                // 36
      "[pip3] numpy==1.26.4\n"                                                           // 37
      "[pip3] nvidia-nccl-cu12==2.20.5\n"                                                // 38
      "[pip3] torch==2.4.1+cu124\n"                                                      // 39
      "[pip3] triton==3.0.0\n"                                                           // 40
      "[conda] blas                      1.0                         mkl\n"              // 41
      "[conda] pytorch-cuda              12.4                 hc786d27_6    pytorch\n";  // 42
  EXPECT_EQ(Extract(kPath, text),
            (Facts{
                "3|torch|2.4.1+cu124||collect_env",
                "5|torch_cuda|12.4||collect_env",
                "8|os|Ubuntu 22.04.4 LTS (x86_64)||collect_env",
                "9|gcc|11.4.0||collect_env",
                "11|cmake|3.27.9||collect_env",
                "12|glibc|2.35||collect_env",
                "14|python|3.11.14||collect_env",
                "17|nvcc|12.4.131||collect_env",
                "20|gpu_name|NVIDIA A100-SXM4-80GB|GPU 0|collect_env",
                "21|gpu_name|NVIDIA A100-SXM4-80GB|GPU 1|collect_env",
                "23|driver|550.90.07||collect_env",
                "25|cudnn|9.1.0|/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0|collect_env",
                "37|numpy|1.26.4||pip",
                "38|nccl|2.20.5||pip",
                "39|torch|2.4.1+cu124||pip",
                "39|torch_cuda|12.4|local tag|pip",
                "40|triton|3.0.0||pip",
                "41|pip:blas|1.0||conda",
                "42|torch_cuda|12.4|pytorch-cuda|conda",
            }));
}

TEST(VersionCollectEnv, OlderTemplate) {
  const std::string text =
      "Collecting environment information...\n"                       // 1
      "PyTorch version: 1.7.1\n"                                      // 2
      "Is debug build: No\n"                                          // 3
      "CUDA used to build PyTorch: 10.2\n"                            // 4
      "\n"                                                            // 5
      "OS: Ubuntu 18.04.5 LTS (x86_64)\n"                             // 6
      "GCC version: (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0\n"            // 7
      "Clang version: Could not collect\n"                            // 8
      "CMake version: version 3.10.2\n"                               // 9
      "\n"                                                            // 10
      "Python version: 3.6 (64-bit runtime)\n"                        // 11
      "Is CUDA available: Yes\n"                                      // 12
      "CUDA runtime version: 10.2.89\n"                               // 13
      "GPU models and configuration: GPU 0: Tesla V100-SXM2-16GB\n"   // 14
      "Nvidia driver version: 450.80.02\n"                            // 15
      "cuDNN version: /usr/lib/x86_64-linux-gnu/libcudnn.so.7.6.5\n"  // 16
      "HIP runtime version: N/A\n"                                    // 17
      "MIOpen runtime version: N/A\n"                                 // 18
      "\n"                                                            // 19
      "Versions of relevant libraries:\n"                             // 20
      "[pip] numpy==1.19.2\n"                                         // 21
      "[pip] torch==1.7.1\n"                                          // 22
      "[conda] Could not collect\n";                                  // 23
  EXPECT_EQ(Extract(kPath, text),
            (Facts{
                "2|torch|1.7.1||collect_env",
                "4|torch_cuda|10.2||collect_env",
                "6|os|Ubuntu 18.04.5 LTS (x86_64)||collect_env",
                "7|gcc|7.5.0||collect_env",
                "9|cmake|3.10.2||collect_env",
                "11|python|3.6||collect_env",
                "13|nvcc|10.2.89||collect_env",
                "14|gpu_name|Tesla V100-SXM2-16GB|GPU 0|collect_env",
                "15|driver|450.80.02||collect_env",
                "16|cudnn|7.6.5|/usr/lib/x86_64-linux-gnu/libcudnn.so.7.6.5|collect_env",
                "21|numpy|1.19.2||pip",
                "22|torch|1.7.1||pip",
            }));
}

// A CPU-only build: every "nothing known" spelling gives no fact, and an
// empty value other than the GPU list's does not swallow the next line.
TEST(VersionCollectEnv, NothingKnownValues) {
  const std::string text =
      "Collecting environment information...\n"                                                // 1
      "PyTorch version: 2.3.0+cpu\n"                                                           // 2
      "Is debug build: False\n"                                                                // 3
      "CUDA used to build PyTorch: Could not collect\n"                                        // 4
      "ROCM used to build PyTorch: N/A\n"                                                      // 5
      "OS: Debian GNU/Linux 12 (bookworm) (x86_64)\n"                                          // 6
      "GCC version: Could not collect\n"                                                       // 7
      "CMake version: Could not collect\n"                                                     // 8
      "Libc version: N/A\n"                                                                    // 9
      "Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)\n"  // 10
      "CUDA runtime version: No CUDA\n"                                                        // 11
      "CUDA_MODULE_LOADING set to:\n"                                                          // 12
      "GPU models and configuration: No CUDA\n"                                                // 13
      "Nvidia driver version: No CUDA\n"                                                       // 14
      "cuDNN version: No CUDA\n"                                                               // 15
      "Caching allocator config: N/A\n";                                                       // 16
  EXPECT_EQ(Extract(kPath, text), (Facts{
                                      "2|torch|2.3.0+cpu||collect_env",
                                      "6|os|Debian GNU/Linux 12 (bookworm) (x86_64)||collect_env",
                                      "10|python|3.10.12||collect_env",
                                  }));
}

// CRLF files keep a '\r' on each line; blanks pad values oddly.
TEST(VersionCollectEnv, CrlfAndOddWhitespace) {
  const std::string text =
      "Collecting environment information...\r\n"  // 1
      "PyTorch version:    2.1.0  \r\n"            // 2
      "CUDA used to build PyTorch:\t12.1\r\n"      // 3
      "GPU models and configuration: \r\n"         // 4
      "GPU 0: NVIDIA H100 80GB HBM3 \r\n"          // 5
      "\r\n"                                       // 6
      "Nvidia driver version: 535.104.05\r\n"      // 7
      "Libc version: glibc-2.31\r\n";              // 8
  EXPECT_EQ(Extract(kPath, text), (Facts{
                                      "2|torch|2.1.0||collect_env",
                                      "3|torch_cuda|12.1||collect_env",
                                      "5|gpu_name|NVIDIA H100 80GB HBM3|GPU 0|collect_env",
                                      "7|driver|535.104.05||collect_env",
                                      "8|glibc|2.31||collect_env",
                                  }));
}

// The GPU list ends at a blank line or at the next field; nvidia-smi -L's
// indented MIG lines stay inside it.
TEST(VersionCollectEnv, GpuListEnds) {
  const std::string text =
      "PyTorch version: 2.2.0\n"             // 1
      "GPU models and configuration:\n"      // 2
      "GPU 0: NVIDIA A100-SXM4-40GB\n"       // 3
      "  MIG 3g.20gb     Device  0:\n"       // 4
      "GPU 1: NVIDIA A100-SXM4-40GB\n"       // 5
      "Nvidia driver version: 535.54.03\n"   // 6
      "GPU 2: not a list entry any more\n";  // 7
  EXPECT_EQ(Extract(kPath, text), (Facts{
                                      "1|torch|2.2.0||collect_env",
                                      "3|gpu_name|NVIDIA A100-SXM4-40GB|GPU 0|collect_env",
                                      "5|gpu_name|NVIDIA A100-SXM4-40GB|GPU 1|collect_env",
                                      "6|driver|535.54.03||collect_env",
                                  }));
}

// ROCm and macOS builds print one device name on the field's line.
TEST(VersionCollectEnv, BareDeviceName) {
  EXPECT_EQ(Extract(kPath,
                    "PyTorch version: 2.3.0+rocm6.0\n"
                    "GPU models and configuration: AMD Instinct MI250X\n"),
            (Facts{"1|torch|2.3.0+rocm6.0||collect_env",
                   "2|gpu_name|AMD Instinct MI250X|GPU 0|collect_env"}));
}

// cuDNN 8 lists sub-libraries beside libcudnn.so: only libcudnn.so's
// version counts; a list holding only sub-libraries gives its first one,
// emitted when the list ends (here, at the end of the file).
TEST(VersionCollectEnv, CudnnLists) {
  const std::string text =
      "PyTorch version: 2.0.1\n"                                 // 1
      "cuDNN version: Probably one of the following:\n"          // 2
      "/usr/lib/x86_64-linux-gnu/libcudnn_adv_infer.so.8.9.2\n"  // 3
      "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.2\n"            // 4
      "/usr/local/cuda-11.8/lib64/libcudnn.so.8.6.0\n"           // 5
      "/usr/lib/x86_64-linux-gnu/libcudnn_ops_train.so.8.9.2\n"  // 6
      "HIP runtime version: N/A\n"                               // 7
      "PyTorch version: 2.0.1\n"                                 // 8
      "cuDNN version: Probably one of the following:\n"          // 9
      "/opt/cudnn/lib/libcudnn_ops_infer.so.8.5.0\n"             // 10
      "/opt/cudnn/lib/libcudnn_cnn_infer.so.8.5.0\n";            // 11
  EXPECT_EQ(Extract(kPath, text),
            (Facts{
                "1|torch|2.0.1||collect_env",
                "4|cudnn|8.9.2|/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.2|collect_env",
                "5|cudnn|8.6.0|/usr/local/cuda-11.8/lib64/libcudnn.so.8.6.0|collect_env",
                "8|torch|2.0.1||collect_env",
                "10|cudnn|8.5.0|/opt/cudnn/lib/libcudnn_ops_infer.so.8.5.0|collect_env",
            }));
}

// The sub-library fallback is also emitted when the list ends at the next
// field, before that field's own fact.
TEST(VersionCollectEnv, CudnnFallbackBeforeNextField) {
  const std::string text =
      "Collecting environment information...\n"          // 1
      "cuDNN version: Probably one of the following:\n"  // 2
      "/usr/lib/libcudnn_graph.so.9.0.0\n"               // 3
      "Nvidia driver version: 550.54.15\n";              // 4
  EXPECT_EQ(Extract(kPath, text), (Facts{
                                      "3|cudnn|9.0.0|/usr/lib/libcudnn_graph.so.9.0.0|collect_env",
                                      "4|driver|550.54.15||collect_env",
                                  }));
}

}  // namespace
}  // namespace casefile::version::test
