// Version reports across the releases of the tools that print them: torch
// 1.x and ROCm / CPU-only collect_env, nvidia-smi tables of several driver
// generations (MIG, failures, "ERR!" rows), nvcc 10-13, vendor gcc builds,
// pip freeze URLs, conda builds, ds_report noise, transformers env of 4.2x
// and 4.4x, jax 0.3 / 0.4 reports and shell environment dumps. Expected
// facts are written from the formats (docs: shared/reference/formats.md 6).
#include <gtest/gtest.h>

#include "parse/version/package_names.h"
#include "parse/version/version_facts.h"
#include "parse/version_test_util.h"

namespace casefile::version {
namespace {

using test::Extract;
using test::Facts;

TEST(VersionFamilies, CollectEnvTorch113) {
  const std::string text =
      "Collecting environment information...\n"                                        // 1
      "PyTorch version: 1.13.1+cu117\n"                                                // 2
      "Is debug build: False\n"                                                        // 3
      "CUDA used to build PyTorch: 11.7\n"                                             // 4
      "ROCM used to build PyTorch: N/A\n"                                              // 5
      "\n"                                                                             // 6
      "OS: Ubuntu 20.04.6 LTS (x86_64)\n"                                              // 7
      "GCC version: (Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0\n"                           // 8
      "Clang version: Could not collect\n"                                             // 9
      "CMake version: version 3.25.0\n"                                                // 10
      "Libc version: glibc-2.31\n"                                                     // 11
      "\n"                                                                             // 12
      "Python version: 3.8.10 (default, Nov 22 2023, 10:22:35)  [GCC 9.4.0] (64-bit "  // 13
      "runtime)\n"
      "Python platform: Linux-5.15.0-1051-aws-x86_64-with-glibc2.29\n"  // 14
      "Is CUDA available: True\n"                                       // 15
      "CUDA runtime version: 11.7.99\n"                                 // 16
      "GPU models and configuration: \n"                                // 17
      "GPU 0: NVIDIA A100-SXM4-40GB\n"                                  // 18
      "GPU 1: NVIDIA A100-SXM4-40GB\n"                                  // 19
      "\n"                                                              // 20
      "Nvidia driver version: 525.85.12\n"                              // 21
      "cuDNN version: Probably one of the following:\n"                 // 22
      "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.5.0\n"                   // 23
      "/usr/lib/x86_64-linux-gnu/libcudnn_adv_infer.so.8.5.0\n"         // 24
      "HIP runtime version: N/A\n"                                      // 25
      "MIOpen runtime version: N/A\n"                                   // 26
      "Is XNNPACK available: True\n"                                    // 27
      "\n"                                                              // 28
      "Versions of relevant libraries:\n"                               // 29
      "[pip3] numpy==1.24.1\n"                                          // 30
      "[pip3] torch==1.13.1+cu117\n"                                    // 31
      "[conda] Could not collect\n";                                    // 32
  EXPECT_EQ(Extract("versions/collect_env.txt", text),
            (Facts{
                "2|torch|1.13.1+cu117||collect_env",
                "4|torch_cuda|11.7||collect_env",
                "7|os|Ubuntu 20.04.6 LTS (x86_64)||collect_env",
                "8|gcc|9.4.0||collect_env",
                "10|cmake|3.25.0||collect_env",
                "11|glibc|2.31||collect_env",
                "13|python|3.8.10||collect_env",
                "16|nvcc|11.7.99||collect_env",
                "18|gpu_name|NVIDIA A100-SXM4-40GB|GPU 0|collect_env",
                "19|gpu_name|NVIDIA A100-SXM4-40GB|GPU 1|collect_env",
                "21|driver|525.85.12||collect_env",
                "23|cudnn|8.5.0|/usr/lib/x86_64-linux-gnu/libcudnn.so.8.5.0|collect_env",
                "30|numpy|1.24.1||pip",
                "31|torch|1.13.1+cu117||pip",
                "31|torch_cuda|11.7|local tag|pip",
            }));
}

// A ROCm build names no CUDA release; its GPU is the device name; ROCm's
// triton package is triton.
TEST(VersionFamilies, CollectEnvRocm) {
  const std::string text =
      "PyTorch version: 2.2.0+rocm5.7\n"                                                    // 1
      "Is debug build: False\n"                                                             // 2
      "CUDA used to build PyTorch: N/A\n"                                                   // 3
      "ROCM used to build PyTorch: 5.7.31921-d1770ee1b\n"                                   // 4
      "\n"                                                                                  // 5
      "GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0\n"                                // 6
      "Is CUDA available: True\n"                                                           // 7
      "CUDA runtime version: Could not collect\n"                                           // 8
      "CUDA_MODULE_LOADING set to: LAZY\n"                                                  // 9
      "GPU models and configuration: AMD Instinct MI250X/MI250 (gfx90a:sramecc+:xnack-)\n"  // 10
      "Nvidia driver version: Could not collect\n"                                          // 11
      "cuDNN version: Could not collect\n"                                                  // 12
      "HIP runtime version: 5.7.31921\n"                                                    // 13
      "MIOpen runtime version: 2.20.0\n"                                                    // 14
      "\n"                                                                                  // 15
      "Versions of relevant libraries:\n"                                                   // 16
      "[pip3] pytorch-triton-rocm==2.2.0\n"                                                 // 17
      "[pip3] torch==2.2.0+rocm5.7\n";                                                      // 18
  EXPECT_EQ(Extract("versions/collect_env.txt", text),
            (Facts{
                "1|torch|2.2.0+rocm5.7||collect_env",
                "6|gcc|11.4.0||collect_env",
                "10|gpu_name|AMD Instinct MI250X/MI250 (gfx90a:sramecc+:xnack-)|GPU 0|collect_env",
                "17|triton|2.2.0||pip",
                "18|torch|2.2.0+rocm5.7||pip",
            }));
}

// lscpu's block normally ends at a blank line; a dump that lost it still
// reads the package list.
TEST(VersionFamilies, CollectEnvCpuBlockWithoutBlankLine) {
  const std::string text =
      "PyTorch version: 2.4.0+cu124\n"               // 1
      "CPU:\n"                                       // 2
      "Architecture:                    x86_64\n"    // 3
      "Model name:                      AMD EPYC\n"  // 4
      "Versions of relevant libraries:\n"            // 5
      "[pip3] torch==2.4.0+cu124\n";                 // 6
  EXPECT_EQ(Extract("versions/collect_env.txt", text), (Facts{
                                                           "1|torch|2.4.0+cu124||collect_env",
                                                           "6|torch|2.4.0+cu124||pip",
                                                           "6|torch_cuda|12.4|local tag|pip",
                                                       }));
}

// conda's pytorch names the CUDA release in its build string; the
// pytorch-cuda metapackage is that release too.
TEST(VersionFamilies, CondaTorchBuildString) {
  const std::string text =
      "# packages in environment at /opt/conda:\n"                                           // 1
      "#\n"                                                                                  // 2
      "# Name                    Version                   Build  Channel\n"                 // 3
      "pytorch                   2.1.0           py3.10_cuda12.1_cudnn8.9.2_0    pytorch\n"  // 4
      "pytorch-cuda              12.1                 ha16c6d3_5    pytorch\n"               // 5
      "pytorch-mutex             1.0                        cuda    pytorch\n"               // 6
      "pytorch                   1.13.1          py3.9_cpu_0    pytorch\n";                  // 7
  EXPECT_EQ(Extract("versions/conda_list.txt", text), (Facts{
                                                          "4|torch|2.1.0||conda",
                                                          "4|torch_cuda|12.1|conda build|conda",
                                                          "5|torch_cuda|12.1|pytorch-cuda|conda",
                                                          "6|pip:pytorch-mutex|1.0||conda",
                                                          "7|torch|1.13.1||conda",
                                                      }));
}

TEST(VersionFamilies, CondaBuildStringReleases) {
  EXPECT_EQ(CudaOfCondaBuild("py3.10_cuda12.1_cudnn8.9.2_0"), "12.1");
  EXPECT_EQ(CudaOfCondaBuild("py3.7_cuda10.2.89_cudnn7.6.5_0"), "10.2");
  EXPECT_EQ(CudaOfCondaBuild("cuda120_py310h2c91c31_300"), "12.0");  // conda-forge
  EXPECT_EQ(CudaOfCondaBuild("cuda118_py311hd8ffb3d_301"), "11.8");
  EXPECT_EQ(CudaOfCondaBuild("py3.9_cpu_0"), "");
  EXPECT_EQ(CudaOfCondaBuild("cpu_generic_py310h2d2ca3e_0"), "");
  EXPECT_EQ(CudaOfCondaBuild("cudatoolkit"), "");
}

TEST(VersionFamilies, NvidiaSmi470WithMig) {
  const std::string text =
      "Mon Jan  8 10:00:00 2024       \n"                                                   // 1
      "+-----------------------------------------------------------------------------+\n"   // 2
      "| NVIDIA-SMI 470.182.03   Driver Version: 470.182.03   CUDA Version: 11.4     |\n"   // 3
      "|-------------------------------+----------------------+----------------------+\n"   // 4
      "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"   // 5
      "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"   // 6
      "|                               |                      |               MIG M. |\n"   // 7
      "|===============================+======================+======================|\n"   // 8
      "|   0  NVIDIA A100-SXM...  On   | 00000000:07:00.0 Off |                   On |\n"   // 9
      "| N/A   32C    P0    43W / 400W |     24MiB / 81251MiB |     N/A      Default |\n"   // 10
      "|                               |                      |              Enabled |\n"   // 11
      "+-------------------------------+----------------------+----------------------+\n"   // 12
      "\n"                                                                                  // 13
      "+-----------------------------------------------------------------------------+\n"   // 14
      "| MIG devices:                                                                |\n"   // 15
      "+------------------+----------------------+-----------+-----------------------+\n"   // 16
      "| GPU  GI  CI  MIG |         Memory-Usage |        Vol|         Shared        |\n"   // 17
      "|      ID  ID  Dev |           BAR1-Usage | SM     Unc| CE  ENC  DEC  OFA  JPG|\n"   // 18
      "|==================+======================+===========+=======================|\n"   // 19
      "|  0    1   0   0  |     11MiB / 40192MiB | 42      0 |  3   0    2    0    0 |\n"   // 20
      "|                  |      0MiB / 65535MiB |           |                       |\n"   // 21
      "+------------------+----------------------+-----------+-----------------------+\n"   // 22
      "\n"                                                                                  // 23
      "+-----------------------------------------------------------------------------+\n"   // 24
      "| Processes:                                                                  |\n"   // 25
      "|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |\n"   // 26
      "|  No running processes found                                                 |\n"   // 27
      "+-----------------------------------------------------------------------------+\n";  // 28
  EXPECT_EQ(Extract("versions/nvidia_smi.txt", text),
            (Facts{
                "3|driver|470.182.03||nvidia_smi",
                "3|driver_cuda|11.4||nvidia_smi",
                "9|gpu_name|NVIDIA A100-SXM...|GPU 0|nvidia_smi",
            }));
}

// A GPU that fell off the bus shows "ERR!" where its name was: no model.
TEST(VersionFamilies, NvidiaSmiErrRow) {
  const std::string text =
      "| NVIDIA-SMI 535.161.08             Driver Version: 535.161.08   CUDA Version: 12.2     "
      "|\n"  // 1
      "|   0  NVIDIA H100 80GB HBM3          On  | 00000000:18:00.0 Off |                    0 "
      "|\n"  // 2
      "|   1  ERR!                           On  | 00000000:2A:00.0 Off |                 ERR! "
      "|\n"  // 3
      "|ERR!  ERR! ERR!            ERR! / ERR! |  81559MiB / 81559MiB |    ERR!      Default "
      "|\n";  // 4
  EXPECT_EQ(Extract("versions/nvidia_smi.txt", text),
            (Facts{
                "1|driver|535.161.08||nvidia_smi",
                "1|driver_cuda|12.2||nvidia_smi",
                "2|gpu_name|NVIDIA H100 80GB HBM3|GPU 0|nvidia_smi",
            }));
}

// What nvidia-smi prints when it has nothing to report: no facts, and the
// report that follows is still read.
TEST(VersionFamilies, NvidiaSmiFailures) {
  const std::string text =
      "$ nvidia-smi\n"                                                                  // 1
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "  // 2
      "Make sure that the latest NVIDIA driver is installed and running.\n"
      "$ nvidia-smi -L\n"                                             // 3
      "No devices were found\n"                                       // 4
      "$ nvidia-smi --query-gpu=name,driver_version --format=csv\n"   // 5
      "Failed to initialize NVML: Driver/library version mismatch\n"  // 6
      "NVML library version: 550.90\n"                                // 7
      "$ nvcc --version\n"                                            // 8
      "nvcc: NVIDIA (R) Cuda compiler driver\n"                       // 9
      "Cuda compilation tools, release 12.4, V12.4.131\n";            // 10
  EXPECT_EQ(Extract("versions/all.txt", text), (Facts{"10|nvcc|12.4.131||nvcc"}));
}

// nvidia-smi's complaints under a noheader query are no GPU rows.
TEST(VersionFamilies, NvidiaSmiCsvNoheaderFailures) {
  const std::string text =
      "$ nvidia-smi --query-gpu=name --format=csv,noheader\n"                            // 1
      "No devices were found\n"                                                          // 2
      "$ nvidia-smi --query-gpu=gpu_name --format=csv,noheader\n"                        // 3
      "Failed to initialize NVML: Unknown Error\n"                                       // 4
      "$ nvidia-smi --query-gpu=name --format=csv,noheader\n"                            // 5
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"  // 6
      "$ nvidia-smi --query-gpu=name --format=csv,noheader\n"                            // 7
      "NVIDIA L4\n";                                                                     // 8
  EXPECT_EQ(Extract("versions/nvidia_smi_query.txt", text),
            (Facts{"8|gpu_name|NVIDIA L4|GPU 0|nvidia_smi_csv"}));
}

TEST(VersionFamilies, NvccReleases) {
  const std::string text =
      "nvcc: NVIDIA (R) Cuda compiler driver\n"            // 1
      "Copyright (c) 2005-2019 NVIDIA Corporation\n"       // 2
      "Built on Sun_Jul_28_19:07:16_PDT_2019\n"            // 3
      "Cuda compilation tools, release 10.1, V10.1.243\n"  // 4
      "nvcc: NVIDIA (R) Cuda compiler driver\n"            // 5
      "Copyright (c) 2005-2025 NVIDIA Corporation\n"       // 6
      "Built on Wed_Jul_16_07:30:01_PM_PDT_2025\n"         // 7
      "Cuda compilation tools, release 13.0, V13.0.48\n"   // 8
      "Build cuda_13.0.r13.0/compiler.36260728_0\n"        // 9
      "$ /usr/local/cuda-9.2/bin/nvcc -V\n"                // 10
      "Cuda compilation tools, release 9.2, V9.2.148\n"    // 11
      "$ nvcc --version\n"                                 // 12
      "bash: nvcc: command not found\n";                   // 13
  EXPECT_EQ(Extract("versions/nvcc_version.txt", text), (Facts{
                                                            "4|nvcc|10.1.243||nvcc",
                                                            "8|nvcc|13.0.48||nvcc",
                                                            "11|nvcc|9.2.148||nvcc",
                                                        }));
}

TEST(VersionFamilies, GccVendorBuilds) {
  const std::string text =
      "gcc (GCC) 11.2.1 20220127 (Red Hat 11.2.1-9)\n"                  // 1
      "x86_64-conda-linux-gnu-gcc (conda-forge gcc 12.3.0-3) 12.3.0\n"  // 2
      "g++ (GCC) 8.5.0 20210514 (Red Hat 8.5.0-20)\n"                   // 3
      "gcc (SUSE Linux) 7.5.0\n"                                        // 4
      "gcc (Alpine 13.2.1_git20231014) 13.2.1 20231014\n"               // 5
      "gcc-13 (Ubuntu 13.1.0-8ubuntu1~22.04) 13.1.0\n"                  // 6
      "Copyright (C) 2023 Free Software Foundation, Inc.\n"             // 7
      "Ubuntu clang version 14.0.0-1ubuntu1.1\n"                        // 8
      "Thread model: posix\n"                                           // 9
      "gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n";            // 10
  EXPECT_EQ(Extract("versions/gcc_version.txt", text), (Facts{
                                                           "1|gcc|11.2.1||gcc",
                                                           "2|gcc|12.3.0||gcc",
                                                           "3|gcc|8.5.0||gcc",
                                                           "4|gcc|7.5.0||gcc",
                                                           "5|gcc|13.2.1||gcc",
                                                           "6|gcc|13.1.0||gcc",
                                                           "10|gcc|11.4.0||gcc",
                                                       }));
}

TEST(VersionFamilies, PipFreezeDirectUrls) {
  const std::string text =
      "torch @ https://download.pytorch.org/whl/cu121/torch-2.1.0%2Bcu121-cp310-cp310-"
      "linux_x86_64.whl\n"                                                               // 1
      "flash_attn @ file:///tmp/wheels/flash_attn-2.5.8-cp310-cp310-linux_x86_64.whl\n"  // 2
      "numpy @ file:///croot/numpy_1700000000000/work/dist/numpy-1.26.4-cp310-cp310-"
      "linux_x86_64.whl#sha256=abc\n"                                           // 3
      "setuptools @ file:///home/conda/feedstock_root/build_artifacts/work\n";  // 4
  EXPECT_EQ(Extract("versions/pip_freeze.txt", text),
            (Facts{
                "1|torch|2.1.0+cu121|https://download.pytorch.org/whl/cu121/"
                "torch-2.1.0%2Bcu121-cp310-cp310-linux_x86_64.whl|pip",
                "1|torch_cuda|12.1|local tag|pip",
                "2|pip:flash-attn|2.5.8|file:///tmp/wheels/"
                "flash_attn-2.5.8-cp310-cp310-linux_x86_64.whl|pip",
                "3|numpy|1.26.4|file:///croot/numpy_1700000000000/work/dist/"
                "numpy-1.26.4-cp310-cp310-linux_x86_64.whl#sha256=abc|pip",
            }));
}

// ds_report of an older DeepSpeed after its warning noise (colours already
// removed), ROCm's "None" values, and the key that is longer than the
// padding.
TEST(VersionFamilies, DsReportNoiseAndOlderRelease) {
  const std::string text =
      "[2024-01-01 10:00:00,000] [INFO] [real_accelerator.py:161:get_accelerator] Setting "
      "ds_accelerator to cuda (auto detect)\n"                            // 1
      "--------------------------------------------------\n"              // 2
      "DeepSpeed C++/CUDA extension op report\n"                          // 3
      "--------------------------------------------------\n"              // 4
      "NOTE: Ops not installed will be just-in-time (JIT) compiled at\n"  // 5
      "JIT compiled ops requires ninja\n"                                 // 6
      "ninja .................. [OKAY]\n"                                 // 7
      "op name ................ installed .. compatible\n"                // 8
      " [WARNING]  async_io requires the dev libaio .so object and headers but these were "
      "not found.\n"                                                                        // 9
      "async_io ............... [NO] ....... [NO]\n"                                        // 10
      " [WARNING]  NVIDIA Inference is only supported on Ampere and newer architectures\n"  // 11
      " [WARNING]  using untested triton version (2.1.0), only 1.0.0 is known to be "
      "compatible\n"                                                                           // 12
      "fused_adam ............. [NO] ....... [OKAY]\n"                                         // 13
      "DeepSpeed general environment info:\n"                                                  // 14
      "torch install path ............... ['/usr/local/lib/python3.8/dist-packages/torch']\n"  // 15
      "torch version .................... 1.13.1+cu117\n"                                      // 16
      "deepspeed install path ........... ['/usr/local/lib/python3.8/dist-packages/"
      "deepspeed']\n"                                                 // 17
      "deepspeed info ................... 0.9.2, unknown, unknown\n"  // 18
      "torch cuda version ............... 11.7\n"                     // 19
      "torch hip version ................ None\n"                     // 20
      "nvcc version ..................... 11.7\n"                     // 21
      "deepspeed wheel compiled w. ...... torch 1.13, cuda 11.7\n";   // 22
  EXPECT_EQ(Extract("versions/ds_report.txt", text),
            (Facts{
                "16|torch|1.13.1+cu117||ds_report",
                "18|deepspeed|0.9.2||ds_report",
                "19|torch_cuda|11.7||ds_report",
                "21|nvcc|11.7||ds_report",
                "22|deepspeed_build|torch 1.13, cuda 11.7||ds_report",
            }));
}

TEST(VersionFamilies, TransformersEnv428And445) {
  const std::string text =
      "Copy-and-paste the text below in your GitHub issue and FILL OUT the two last "
      "points.\n"                                                       // 1
      "\n"                                                              // 2
      "- `transformers` version: 4.28.1\n"                              // 3
      "- Platform: Linux-5.15.0-1051-aws-x86_64-with-glibc2.31\n"       // 4
      "- Python version: 3.9.16\n"                                      // 5
      "- Huggingface_hub version: 0.14.1\n"                             // 6
      "- Safetensors version: not installed\n"                          // 7
      "- PyTorch version (GPU?): 2.0.0+cu117 (True)\n"                  // 8
      "- Tensorflow version (GPU?): not installed (NA)\n"               // 9
      "- Flax version (CPU?/GPU?/TPU?): not installed (NA)\n"           // 10
      "- Jax version: not installed\n"                                  // 11
      "- JaxLib version: not installed\n"                               // 12
      "- Using GPU in script?: <fill in>\n"                             // 13
      "- Using distributed or parallel set-up in script?: <fill in>\n"  // 14
      "Copy-and-paste the text below in your GitHub issue and FILL OUT the two last "
      "points.\n"                                                      // 15
      "\n"                                                             // 16
      "- `transformers` version: 4.45.2\n"                             // 17
      "- Accelerate version: 1.0.1\n"                                  // 18
      "- Accelerate config: \t- compute_environment: LOCAL_MACHINE\n"  // 19
      "\t- distributed_type: DEEPSPEED\n"                              // 20
      "- DeepSpeed version: 0.15.2\n"                                  // 21
      "- PyTorch version (GPU?): 2.4.1+cu121 (True)\n"                 // 22
      "- PyTorch version (accelerator?): 2.5.1 (CUDA)\n"               // 23
      "- GPU type: NVIDIA A100-SXM4-80GB\n";                           // 24
  EXPECT_EQ(Extract("versions/transformers_env.txt", text),
            (Facts{
                "3|transformers|4.28.1||transformers_env",
                "5|python|3.9.16||transformers_env",
                "6|pip:huggingface-hub|0.14.1||transformers_env",
                "8|torch|2.0.0+cu117||transformers_env",
                "8|torch_cuda|11.7|local tag|transformers_env",
                "17|transformers|4.45.2||transformers_env",
                "18|accelerate|1.0.1||transformers_env",
                "21|deepspeed|0.15.2||transformers_env",
                "22|torch|2.4.1+cu121||transformers_env",
                "22|torch_cuda|12.1|local tag|transformers_env",
                "23|torch|2.5.1||transformers_env",
                "24|gpu_name|NVIDIA A100-SXM4-80GB|GPU 0|transformers_env",
            }));
}

TEST(VersionFamilies, JaxReports03And04) {
  const std::string text =
      "jax:    0.3.25\n"                                                      // 1
      "jaxlib: 0.3.25\n"                                                      // 2
      "numpy:  1.23.5\n"                                                      // 3
      "python: 3.8.10 (default, Mar 13 2023, 10:26:41)  [GCC 9.4.0]\n"        // 4
      "jax.devices (1 total, 1 local): [GpuDevice(id=0, process_index=0)]\n"  // 5
      "process_count: 1\n"                                                    // 6
      "jax:    0.4.26\n"                                                      // 7
      "jaxlib: 0.4.26\n"                                                      // 8
      "numpy:  1.26.4\n"                                                      // 9
      "python: 3.11.8 | packaged by conda-forge | (main, Feb 16 2024, 20:53:32) [GCC "
      "12.3.0]\n"  // 10
      "jax.devices (8 total, 8 local): [TpuDevice(id=0, process_index=0, coords=(0,0,0), "
      "core_on_chip=0)]\n"  // 11
      "process_count: 1\n"  // 12
      "platform: uname_result(system='Linux', node='t1v-n-1', release='5.19.0', "
      "version='#1 SMP', machine='x86_64')\n";  // 13
  EXPECT_EQ(Extract("versions/jax_env.txt", text), (Facts{
                                                       "1|jax|0.3.25||jax_env",
                                                       "2|jaxlib|0.3.25||jax_env",
                                                       "3|numpy|1.23.5||jax_env",
                                                       "4|python|3.8.10||jax_env",
                                                       "7|jax|0.4.26||jax_env",
                                                       "8|jaxlib|0.4.26||jax_env",
                                                       "9|numpy|1.26.4||jax_env",
                                                       "10|python|3.11.8||jax_env",
                                                   }));
}

// Shell dumps of the environment inside a version file: `export -p` /
// `declare -p` print "declare -x KEY="value"", scripts "export KEY=value".
TEST(VersionFamilies, EnvDumpShellForms) {
  const std::string text =
      "$ export -p\n"                                                                        // 1
      "declare -x CUDA_HOME=\"/usr/local/cuda-12.1\"\n"                                      // 2
      "declare -x LD_LIBRARY_PATH=\"/usr/local/nvidia/lib64:/usr/local/cuda-11.8/lib64\"\n"  // 3
      "declare -x OLDPWD\n"                                                                  // 4
      "$ env\n"                                                                              // 5
      "export PATH=/usr/local/cuda-12.1/bin:$PATH\n"                                         // 6
      "export TORCH_CUDA_ARCH_LIST='8.0;9.0'\n";                                             // 7
  EXPECT_EQ(Extract("versions/shell.txt", text),
            (Facts{
                "2|cuda_home|12.1|/usr/local/cuda-12.1|env",
                "3|ld_library_path_cuda|11.8|/usr/local/cuda-11.8/lib64|env",
                "6|path_cuda|12.1|/usr/local/cuda-12.1/bin|env",
                "7|torch_cuda_arch_list|8.0;9.0||env",
            }));
}

// `ls -l /usr/local` lists relative names; an absolute symlink target is
// not the entry's name.
TEST(VersionFamilies, CudaDirsRelativeNames) {
  const std::string text =
      "lrwxrwxrwx  1 root root   21 Mar  1  2024 cuda -> /usr/local/cuda-12.1/\n"  // 1
      "drwxr-xr-x 17 root root 4096 Mar  1  2024 cuda-12.1\n"                      // 2
      "drwxr-xr-x 15 root root 4096 Jan  5  2024 cuda-11.8\n";                     // 3
  EXPECT_EQ(Extract("versions/cuda_dirs.txt", text), (Facts{
                                                         "1|cuda_toolkit|12.1|cuda|cuda_dirs",
                                                         "2|cuda_toolkit|12.1|cuda-12.1|cuda_dirs",
                                                         "3|cuda_toolkit|11.8|cuda-11.8|cuda_dirs",
                                                     }));
}

}  // namespace
}  // namespace casefile::version
