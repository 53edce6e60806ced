// The smaller reports (formats.md 6.2-6.6): nvcc, gcc, ds_report,
// transformers env, jax.print_environment_info(), conda list, `which -a
// nvcc`, `ls -ld /usr/local/cuda*`; and files that hold several reports one
// after another, switched by banners and "$ <command>" lines.
#include <gtest/gtest.h>

#include "common/error.h"
#include "version_test_util.h"

namespace casefile::version::test {
namespace {

TEST(VersionReports, Nvcc) {
  const std::string text =
      "nvcc: NVIDIA (R) Cuda compiler driver\n"
      "Copyright (c) 2005-2022 NVIDIA Corporation\n"
      "Built on Wed_Sep_21_10:33:58_PDT_2022\n"
      "Cuda compilation tools, release 11.8, V11.8.89\n"
      "Build cuda_11.8.r11.8/compiler.31833905_0\n";
  EXPECT_EQ(Extract("nvcc_version.txt", text), (Facts{"4|nvcc|11.8.89||nvcc"}));
  // Without the "V" build number the release is the version; a report
  // missing its first line is still found by the release line.
  EXPECT_EQ(Extract("nvcc_version.txt", "Cuda compilation tools, release 10.1\r\n"),
            (Facts{"1|nvcc|10.1||nvcc"}));
}

TEST(VersionReports, Gcc) {
  const std::string text =
      "gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0\n"                              // 1
      "Copyright (C) 2021 Free Software Foundation, Inc.\n"                      // 2
      "Dies ist freie Software; die Kopierbedingungen stehen in den Quellen.\n"  // 3
      "\n"                                                                       // 4
      "gcc (GCC) 14.2.1 20250207\n"                                              // 5
      "gcc-9 (Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0\n"                            // 6
      "cc (Debian 12.2.0-14) 12.2.0\n"                                           // 7
      "g++ (GCC) 8.5.0 20210514 (Red Hat 8.5.0-18)\n"                            // 8
      "x86_64-conda-linux-gnu-gcc (conda-forge gcc 12.3.0-7) 12.3.0\n"           // 9
      "Ubuntu clang version 14.0.0-1ubuntu1.1\n"                                 // 10
      "clang version 17.0.6\n"                                                   // 11
      "gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n";                     // 12
  EXPECT_EQ(Extract("gcc_version.txt", text), (Facts{
                                                  "1|gcc|11.4.0||gcc",
                                                  "5|gcc|14.2.1||gcc",
                                                  "6|gcc|9.4.0||gcc",
                                                  "7|gcc|12.2.0||gcc",
                                                  "8|gcc|8.5.0||gcc",
                                                  "9|gcc|12.3.0||gcc",
                                                  "12|gcc|11.4.0||gcc",
                                              }));
  // clang alone: no fact.
  EXPECT_EQ(Extract("gcc_version.txt",
                    "Apple clang version 15.0.0 (clang-1500.1.0.2.5)\n"
                    "Target: arm64-apple-darwin23.2.0\n"),
            Facts{});
}

TEST(VersionReports, DsReport) {
  const std::string text =
      "[2024-05-01 10:00:00,000] [INFO] [real_accelerator.py:203:get_accelerator] Setting "
      "ds_accelerator to cuda (auto detect)\n"                                                 // 1
      "--------------------------------------------------\n"                                   // 2
      "DeepSpeed C++/CUDA extension op report\n"                                               // 3
      "--------------------------------------------------\n"                                   // 4
      "async_io ............... [NO] ....... [OKAY]\n"                                         // 5
      "fused_adam ............. [NO] ....... [OKAY]\n"                                         // 6
      "DeepSpeed general environment info:\n"                                                  // 7
      "torch install path ............... ['/opt/venv/lib/python3.10/site-packages/torch']\n"  // 8
      "torch version .................... 2.3.0+cu121\n"                                       // 9
      "deepspeed install path ........... ['/opt/venv/lib/python3.10/site-packages/deepspeed']\n"
      "deepspeed info ................... 0.15.5+46d7d0d1, 46d7d0d1, patch-1\n"  // 11
      "torch cuda version ............... 12.1\n"                                // 12
      "torch hip version ................ None\n"                                // 13
      "nvcc version ..................... 12.0\n"                                // 14
      "deepspeed wheel compiled w. ...... torch 2.3, cuda 12.1\n"                // 15
      "shared memory (/dev/shm) size .... 125.77 GB\n";                          // 16
  EXPECT_EQ(Extract("ds_report.txt", text),
            (Facts{
                "9|torch|2.3.0+cu121||ds_report",
                "11|deepspeed|0.15.5+46d7d0d1||ds_report",
                "12|torch_cuda|12.1||ds_report",
                "14|nvcc|12.0||ds_report",
                "15|deepspeed_build|torch 2.3, cuda 12.1||ds_report",
            }));
  // A CPU-only torch: "None" values give nothing.
  EXPECT_EQ(Extract("ds_report.txt",
                    "DeepSpeed general environment info:\n"
                    "torch cuda version ............... None\n"
                    "nvcc version ..................... None\n"
                    "deepspeed info ................... 0.9.2, unknown, unknown\n"),
            (Facts{"4|deepspeed|0.9.2||ds_report"}));
}

TEST(VersionReports, TransformersEnv) {
  const std::string older =
      "Copy-and-paste the text below in your GitHub issue and FILL OUT the two last points.\n"  // 1
      "\n"                                                                                      // 2
      "- `transformers` version: 4.31.0\n"                                                      // 3
      "- Platform: Linux-5.15.0-76-generic-x86_64-with-glibc2.35\n"                             // 4
      "- Python version: 3.10.12\n"                                                             // 5
      "- Huggingface_hub version: 0.16.4\n"                                                     // 6
      "- Safetensors version: 0.3.1\n"                                                          // 7
      "- Accelerate version: 0.21.0\n"                                                          // 8
      "- Accelerate config: \t- compute_environment: LOCAL_MACHINE\n"                           // 9
      "\t- distributed_type: MULTI_GPU\n"                                // 10
      "- PyTorch version (GPU?): 2.0.1+cu117 (True)\n"                   // 11
      "- Tensorflow version (GPU?): not installed (NA)\n"                // 12
      "- Flax version (CPU?/GPU?/TPU?): 0.7.0 (gpu)\n"                   // 13
      "- Jax version: 0.4.13\n"                                          // 14
      "- JaxLib version: 0.4.13\n"                                       // 15
      "- Using GPU in script?: <fill in>\n"                              // 16
      "- Using distributed or parallel set-up in script?: <fill in>\n";  // 17
  EXPECT_EQ(Extract("transformers_env.txt", older),
            (Facts{
                "3|transformers|4.31.0||transformers_env",
                "5|python|3.10.12||transformers_env",
                "6|pip:huggingface-hub|0.16.4||transformers_env",
                "7|pip:safetensors|0.3.1||transformers_env",
                "8|accelerate|0.21.0||transformers_env",
                "11|torch|2.0.1+cu117||transformers_env",
                "11|torch_cuda|11.7|local tag|transformers_env",
                "13|pip:flax|0.7.0||transformers_env",
                "14|jax|0.4.13||transformers_env",
                "15|jaxlib|0.4.13||transformers_env",
            }));
  const std::string newer =
      "Copy-and-paste the text below in your GitHub issue and FILL OUT the last point.\n"  // 1
      "\n"                                                                                 // 2
      "- `transformers` version: 4.46.3\n"                                                 // 3
      "- DeepSpeed version: 0.15.4\n"                                                      // 4
      "- PyTorch version (accelerator?): 2.5.1 (CUDA)\n"                                   // 5
      "- GPU type: NVIDIA H100 80GB HBM3\n";                                               // 6
  EXPECT_EQ(Extract("transformers_env.txt", newer),
            (Facts{
                "3|transformers|4.46.3||transformers_env",
                "4|deepspeed|0.15.4||transformers_env",
                "5|torch|2.5.1||transformers_env",
                "6|gpu_name|NVIDIA H100 80GB HBM3|GPU 0|transformers_env",
            }));
}

TEST(VersionReports, JaxEnvWithNvidiaSmi) {
  const std::string text =
      "jax:    0.4.35\n"                                              // 1
      "jaxlib: 0.4.35\n"                                              // 2
      "numpy:  1.26.4\n"                                              // 3
      "python: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0]\n"  // 4
      "device info: NVIDIA H100 80GB HBM3-8, 8 local devices\"\n"     // 5
      "process_count: 1\n"                                            // 6
      "platform: uname_result(system='Linux', node='n1', release='5.15.0', "
      "version='#1 SMP', machine='x86_64')\n"  // 7
      "XLA_FLAGS=--xla_dump_to=/tmp/dump\n"    // 8
      "\n"                                     // 9
      "$ nvidia-smi\n"                         // 10
      "Fri Nov  1 12:00:00 2024       \n"      // 11
      "+---------------------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 550.54.15            Driver Version: 550.54.15      CUDA Version: 12.4     |\n"
      "|   0  NVIDIA H100 80GB HBM3        On  |   00000000:18:00.0 Off |                    0 |\n";
  EXPECT_EQ(Extract("jax_env.txt", text), (Facts{
                                              "1|jax|0.4.35||jax_env",
                                              "2|jaxlib|0.4.35||jax_env",
                                              "3|numpy|1.26.4||jax_env",
                                              "4|python|3.10.12||jax_env",
                                              "5|gpu_name|NVIDIA H100 80GB HBM3|GPU 0|jax_env",
                                              "13|driver|550.54.15||nvidia_smi",
                                              "13|driver_cuda|12.4||nvidia_smi",
                                              "14|gpu_name|NVIDIA H100 80GB HBM3|GPU 0|nvidia_smi",
                                          }));
}

// The pre-2024-10 device line names no model; TPU and CPU kinds are not
// GPUs; libtpu is read when printed.
TEST(VersionReports, JaxEnvOlderAndTpu) {
  EXPECT_EQ(Extract("jax_env.txt",
                    "jax:    0.4.23\n"
                    "jaxlib: 0.4.23\n"
                    "numpy:  1.24.3\n"
                    "python: 3.9.18 (main, Aug 25 2023, 13:20:04)  [GCC 9.4.0]\n"
                    "jax.devices (8 total, 8 local): [CudaDevice(id=0) CudaDevice(id=1) ... "
                    "CudaDevice(id=7)]\n"),
            (Facts{"1|jax|0.4.23||jax_env", "2|jaxlib|0.4.23||jax_env", "3|numpy|1.24.3||jax_env",
                   "4|python|3.9.18||jax_env"}));
  EXPECT_EQ(Extract("jax_env.txt",
                    "jax:    0.4.31\n"
                    "jaxlib: 0.4.31\n"
                    "libtpu: 0.0.1\n"
                    "device info: TPU v4-8, 4 local devices\"\n"
                    "jax:    0.4.31\n"
                    "device info: cpu-1, 1 local devices\"\n"),
            (Facts{"1|jax|0.4.31||jax_env", "2|jaxlib|0.4.31||jax_env", "3|libtpu|0.0.1||jax_env",
                   "5|jax|0.4.31||jax_env"}));
}

TEST(VersionReports, CondaList) {
  const std::string text =
      "# packages in environment at /opt/conda/envs/train:\n"                                // 1
      "#\n"                                                                                  // 2
      "# Name                    Version                   Build  Channel\n"                 // 3
      "_libgcc_mutex             0.1                        main\n"                          // 4
      "nccl                      2.21.5.1             h6103f9b_0    conda-forge\n"           // 5
      "pytorch                   2.1.0           py3.10_cuda12.1_cudnn8.9.2_0    pytorch\n"  // 6
      "torch                     2.1.0+cu121              pypi_0    pypi\n";                 // 7
  EXPECT_EQ(Extract("conda_list.txt", text), (Facts{
                                                 "4|pip:-libgcc-mutex|0.1||conda",
                                                 "5|nccl|2.21.5.1||conda",
                                                 "6|torch|2.1.0||conda",
                                                 "6|torch_cuda|12.1|conda build|conda",
                                                 "7|torch|2.1.0+cu121||conda",
                                                 "7|torch_cuda|12.1|local tag|conda",
                                             }));
}

TEST(VersionReports, WhichNvcc) {
  const std::string text =
      "/usr/local/cuda-12.1/bin/nvcc\n"
      "/usr/local/cuda/bin/nvcc\n"
      "/usr/bin/nvcc\n"
      "/opt/nvidia/hpc_sdk/Linux_x86_64/23.11/cuda/12.3/bin/nvcc\r\n"
      "which: no nvcc in (/usr/sbin:/usr/bin)\n";
  EXPECT_EQ(Extract("nodes/n1/versions/which_nvcc.txt", text),
            (Facts{
                "1|nvcc_path|12.1|/usr/local/cuda-12.1/bin/nvcc|which_nvcc",
                "2|nvcc_path||/usr/local/cuda/bin/nvcc|which_nvcc",
                "3|nvcc_path||/usr/bin/nvcc|which_nvcc",
                "4|nvcc_path|12.3|/opt/nvidia/hpc_sdk/Linux_x86_64/23.11/cuda/12.3/bin/nvcc|"
                "which_nvcc",
            }));
  // The same lines in a file of another name have no banner: skipped.
  EXPECT_EQ(Extract("nodes/n1/versions/misc.txt", text), Facts{});
}

TEST(VersionReports, CudaDirs) {
  const std::string text =
      "lrwxrwxrwx  1 root root   22 Jan 10  2024 /usr/local/cuda -> /usr/local/cuda-12.1\n"  // 1
      "lrwxrwxrwx  1 root root   25 Jan 10  2024 /usr/local/cuda-12 -> "
      "/etc/alternatives/cuda-12\n"                                                            // 2
      "drwxr-xr-x 17 root root 4096 Mar  3 09:12 /usr/local/cuda-11.8\n"                       // 3
      "drwxr-xr-x. 17 root root 4096 2024-03-03 09:12 /usr/local/cuda-12.1\n"                  // 4
      "lrwxrwxrwx  1 root root   20 Jan 10  2024 /usr/local/cuda-12.4 -> cuda-12.4.1\n"        // 5
      "lrwxrwxrwx  1 root root   22 Jan 10  2024 /usr/local/cuda -> /etc/alternatives/cuda\n"  // 6
      "drwxr-xr-x  2 root root 4096 Jan 10  2024 /usr/local/cuda_backup\n"                     // 7
      "ls: cannot access '/usr/local/cuda*': No such file or directory\n";                     // 8
  EXPECT_EQ(Extract("cuda_dirs.txt", text),
            (Facts{
                "1|cuda_toolkit|12.1|/usr/local/cuda|cuda_dirs",
                "2|cuda_toolkit|12|/usr/local/cuda-12|cuda_dirs",
                "3|cuda_toolkit|11.8|/usr/local/cuda-11.8|cuda_dirs",
                "4|cuda_toolkit|12.1|/usr/local/cuda-12.1|cuda_dirs",
                "5|cuda_toolkit|12.4.1|/usr/local/cuda-12.4|cuda_dirs",
                "6|cuda_toolkit||/usr/local/cuda|cuda_dirs",
            }));
  // `ls -d`: plain paths, one or several per line; relative names.
  EXPECT_EQ(Extract("ls_cuda.txt",
                    "/usr/local/cuda  /usr/local/cuda-11.8\n"
                    "cuda12.2\n"),
            (Facts{
                "1|cuda_toolkit||/usr/local/cuda|cuda_dirs",
                "1|cuda_toolkit|11.8|/usr/local/cuda-11.8|cuda_dirs",
                "2|cuda_toolkit|12.2|cuda12.2|cuda_dirs",
            }));
}

// A collector's concatenation: lines before the first banner are skipped;
// each banner (or "$ command") ends the report before it.
TEST(VersionReports, ConcatenatedReports) {
  const std::string text =
      "=== host n1, collected 2024-05-01 ===\n"                           // 1
      "torch 2.3.0 is what we expect\n"                                   // 2
      "nvcc: NVIDIA (R) Cuda compiler driver\n"                           // 3
      "Cuda compilation tools, release 12.1, V12.1.105\n"                 // 4
      "gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0\n"                       // 5
      "Copyright (C) 2021 Free Software Foundation, Inc.\n"               // 6
      "Collecting environment information...\n"                           // 7
      "PyTorch version: 2.3.0+cu121\n"                                    // 8
      "GPU models and configuration:\n"                                   // 9
      "GPU 0: NVIDIA H100 80GB HBM3\n"                                    // 10
      "$ which -a nvcc\n"                                                 // 11
      "/usr/local/cuda-12.1/bin/nvcc\n"                                   // 12
      "$ ls -ld /usr/local/cuda*\n"                                       // 13
      "drwxr-xr-x 17 root root 4096 Mar  3 09:12 /usr/local/cuda-12.1\n"  // 14
      "$ pip freeze\n"                                                    // 15
      "deepspeed==0.14.2\n"                                               // 16
      "$ uptime\n"                                                        // 17
      " 10:00:00 up 3 days,  2 users,  load average: 0.00, 0.01, 0.05\n"  // 18
      "numpy==1.26.4\n"                                                   // 19
      "$ env\n"                                                           // 20
      "CUDA_HOME=/usr/local/cuda-12.1\n"                                  // 21
      "TORCH_CUDA_ARCH_LIST=\"8.0;9.0+PTX\"\n";                           // 22
  EXPECT_EQ(Extract("nodes/n1/versions/all.txt", text),
            (Facts{
                "4|nvcc|12.1.105||nvcc",
                "5|gcc|11.4.0||gcc",
                "8|torch|2.3.0+cu121||collect_env",
                "10|gpu_name|NVIDIA H100 80GB HBM3|GPU 0|collect_env",
                "12|nvcc_path|12.1|/usr/local/cuda-12.1/bin/nvcc|which_nvcc",
                "14|cuda_toolkit|12.1|/usr/local/cuda-12.1|cuda_dirs",
                "16|deepspeed|0.14.2||pip",
                "19|numpy|1.26.4||pip",
                "21|cuda_home|12.1|/usr/local/cuda-12.1|env",
                "22|torch_cuda_arch_list|8.0;9.0+PTX||env",
            }));
}

// A report's banner ends a pending multi-line value of the report before:
// the cuDNN fallback is emitted before the next report's first fact.
TEST(VersionReports, BannerEndsPendingValue) {
  const std::string text =
      "PyTorch version: 2.1.0\n"                           // 1
      "cuDNN version: Probably one of the following:\n"    // 2
      "/usr/lib/libcudnn_ops_infer.so.8.9.0\n"             // 3
      "nvcc: NVIDIA (R) Cuda compiler driver\n"            // 4
      "Cuda compilation tools, release 12.1, V12.1.66\n";  // 5
  EXPECT_EQ(Extract("versions.txt", text),
            (Facts{
                "1|torch|2.1.0||collect_env",
                "3|cudnn|8.9.0|/usr/lib/libcudnn_ops_infer.so.8.9.0|collect_env",
                "5|nvcc|12.1.66||nvcc",
            }));
}

TEST(VersionReports, EmptySinkRejected) {
  EXPECT_THROW(VersionExtractor("x.txt", VersionSink()), Error);
  EXPECT_THROW(EnvVersionFacts("PATH", "/usr/local/cuda/bin", 1, VersionSink()), Error);
}

}  // namespace
}  // namespace casefile::version::test
