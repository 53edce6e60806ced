// The build analyzer end to end: version reports, environment dumps and
// build logs written here go through ingest (classification, the version
// readers, the build_error family) into an index, and the analyzer reads
// them back. Expected codes, culprits and cited lines are written by hand
// from docs/FINDINGS.md ("build").
#include "analyze/analyzers/build/build_analyzer.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "analyze/analyzer_test_util.h"

namespace casefile {
namespace {

std::unique_ptr<IndexReader> Index(const test::TempDir& tmp, const std::string& root) {
  return test::IndexOf(tmp, root);
}

AnalysisResult RunBuild(const IndexReader& index) {
  return test::RunOne(index, MakeBuildAnalyzer());
}

const Finding* Find(const AnalysisResult& r, const std::string& code) {
  return test::FindCode(r, code);
}

std::set<std::pair<std::string, int64_t>> Cited(const Finding& f) {
  std::set<std::pair<std::string, int64_t>> out;
  for (const Evidence& e : f.evidence) out.insert({e.path, e.line});
  return out;
}

std::string Codes(const AnalysisResult& r) {
  std::string s;
  for (const Finding& f : r.findings) s += f.code + ": " + f.summary + "\n";
  return s;
}

std::string CollectEnv(const std::string& torch, const std::string& torch_cuda,
                       const std::string& nvcc, const std::string& gcc) {
  return "Collecting environment information...\n"  // 1
         "PyTorch version: " +
         torch +
         "\n"                       // 2
         "Is debug build: False\n"  // 3
         "CUDA used to build PyTorch: " +
         torch_cuda +
         "\n"                                 // 4
         "ROCM used to build PyTorch: N/A\n"  // 5
         "\n"                                 // 6
         "OS: Ubuntu 22.04.4 LTS (x86_64)\n"  // 7
         "GCC version: (Ubuntu " +
         gcc + "-1ubuntu1~22.04) " + gcc +
         "\n"                                  // 8
         "Clang version: Could not collect\n"  // 9
         "CMake version: version 3.29.2\n"     // 10
         "Libc version: glibc-2.35\n"          // 11
         "\n"                                  // 12
         "Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)\n"  // 13
         "Python platform: Linux-5.15.0-105-generic-x86_64-with-glibc2.35\n"  // 14
         "Is CUDA available: True\n"                                          // 15
         "CUDA runtime version: " +
         nvcc +
         "\n"                                   // 16
         "CUDA_MODULE_LOADING set to: LAZY\n"   // 17
         "GPU models and configuration: \n"     // 18
         "GPU 0: NVIDIA H100 80GB HBM3\n"       // 19
         "GPU 1: NVIDIA H100 80GB HBM3\n"       // 20
         "\n"                                   // 21
         "Nvidia driver version: 535.161.08\n"  // 22
         "cuDNN version: Could not collect\n"   // 23
         "\n"                                   // 24
         "Versions of relevant libraries:\n"    // 25
         "[pip3] numpy==1.26.4\n"               // 26
         "[pip3] torch==" +
         torch + "\n";  // 27
}

TEST(BuildAnalyzer, CudaMismatchAndFailedExtensionFromAReport) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  test::WriteFile(root + "/nodes/node-0/versions/collect_env.txt",
                  CollectEnv("2.1.2+cu121", "12.1", "11.8.89", "11.4.0"));
  test::WriteFile(root + "/nodes/node-1/versions/collect_env.txt",
                  CollectEnv("2.1.2+cu121", "12.1", "12.1.105", "11.4.0"));
  std::string log;
  for (int i = 1; i <= 40; ++i)
    log += "[1/" + std::to_string(i) + "] /usr/local/cuda/bin/nvcc -c csrc/k" + std::to_string(i) +
           ".cu -o k.o\n";  // 1-40
  log +=
      "csrc/adam/multi_tensor_adam.cu(45): warning #177-D: variable \"i\" was declared but "
      "never referenced\n";                                                                   // 41
  log += "csrc/adam/multi_tensor_adam.cu(88): error: identifier \"__hmax2\" is undefined\n";  // 42
  log += "1 error detected in the compilation of \"csrc/adam/multi_tensor_adam.cu\".\n";      // 43
  log += "FAILED: multi_tensor_adam.cuda.o\n";                                                // 44
  log += "ninja: build stopped: subcommand failed.\n";                                        // 45
  log += "Traceback (most recent call last):\n";                                              // 46
  log +=
      "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit "
      "status 1.\n";                                               // 47
  log += "RuntimeError: Error building extension 'fused_adam'\n";  // 48
  test::WriteFile(root + "/nodes/node-0/train.log", log);
  const auto index = Index(tmp, root);
  const AnalysisResult r = RunBuild(*index);

  const Finding* mismatch = Find(r, "build.cuda_mismatch");
  ASSERT_NE(mismatch, nullptr) << Codes(r);
  EXPECT_EQ(mismatch->severity, Severity::kError);
  ASSERT_EQ(mismatch->culprits.size(), 1u);
  EXPECT_EQ(mismatch->culprits[0].host, "node-0");
  EXPECT_EQ(Cited(*mismatch), (std::set<std::pair<std::string, int64_t>>{
                                  {"nodes/node-0/versions/collect_env.txt", 4},
                                  {"nodes/node-0/versions/collect_env.txt", 16}}));

  const Finding* ext = Find(r, "build.extension_failed");
  ASSERT_NE(ext, nullptr) << Codes(r);
  EXPECT_EQ(Cited(*ext), (std::set<std::pair<std::string, int64_t>>{
                             {"nodes/node-0/train.log", 42}, {"nodes/node-0/train.log", 48}}));
  EXPECT_NE(ext->summary.find("'fused_adam'"), std::string::npos) << ext->summary;
  EXPECT_EQ(r.findings.size(), 2u) << Codes(r);
}

TEST(BuildAnalyzer, EnvironmentToolkitsArchAndSkew) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  for (int h = 0; h < 3; ++h) {
    const std::string dir = root + "/nodes/node-" + std::to_string(h);
    test::WriteFile(
        dir + "/versions/collect_env.txt",
        CollectEnv(h == 2 ? "2.2.2+cu121" : "2.3.1+cu121", "12.1", "12.1.105", "11.4.0"));
    test::WriteFile(dir + "/versions/nvidia_smi_query.txt",
                    "index, name, compute_cap, driver_version, memory.total [MiB]\n"
                    "0, NVIDIA H100 80GB HBM3, 9.0, 535.161.08, 81559 MiB\n"
                    "1, NVIDIA H100 80GB HBM3, 9.0, 535.161.08, 81559 MiB\n");
    const bool bad_env = h == 1;
    test::WriteFile(dir + "/env/env.txt",
                    std::string("HOME=/root\n") +                                   // 1
                        "CUDA_HOME=/usr/local/cuda-12.1\n" +                        // 2
                        "HOSTNAME=node-" + std::to_string(h) + "\n" +               // 3
                        "LD_LIBRARY_PATH=/usr/local/cuda-12.1/lib64:/usr/lib\n" +   // 4
                        (bad_env ? "PATH=/usr/local/cuda-11.8/bin:/usr/bin:/bin\n"  // 5
                                 : "PATH=/usr/local/cuda-12.1/bin:/usr/bin:/bin\n") +
                        (h == 0 ? "TORCH_CUDA_ARCH_LIST=7.0;8.0;8.6\n"  // 6
                                : "TORCH_CUDA_ARCH_LIST=8.0;9.0+PTX\n"));
  }
  const auto index = Index(tmp, root);
  const AnalysisResult r = RunBuild(*index);

  const Finding* toolkits = Find(r, "build.multiple_toolkits");
  ASSERT_NE(toolkits, nullptr) << Codes(r);
  ASSERT_EQ(toolkits->culprits.size(), 1u);
  EXPECT_EQ(toolkits->culprits[0].host, "node-1");
  EXPECT_EQ(Cited(*toolkits),
            (std::set<std::pair<std::string, int64_t>>{{"nodes/node-1/env/env.txt", 2},
                                                       {"nodes/node-1/env/env.txt", 4},
                                                       {"nodes/node-1/env/env.txt", 5}}));

  const Finding* arch = Find(r, "build.arch_mismatch");
  ASSERT_NE(arch, nullptr) << Codes(r);
  ASSERT_EQ(arch->culprits.size(), 1u);
  EXPECT_EQ(arch->culprits[0].host, "node-0");
  EXPECT_EQ(Cited(*arch), (std::set<std::pair<std::string, int64_t>>{
                              {"nodes/node-0/env/env.txt", 6},
                              {"nodes/node-0/versions/nvidia_smi_query.txt", 2}}));

  const Finding* skew = Find(r, "build.version_skew");
  ASSERT_NE(skew, nullptr) << Codes(r);
  ASSERT_EQ(skew->culprits.size(), 1u);
  EXPECT_EQ(skew->culprits[0].host, "node-2");
  EXPECT_EQ(Cited(*skew), (std::set<std::pair<std::string, int64_t>>{
                              {"nodes/node-2/versions/collect_env.txt", 2},
                              {"nodes/node-0/versions/collect_env.txt", 2}}));
  EXPECT_EQ(r.findings.size(), 3u) << Codes(r);
}

TEST(BuildAnalyzer, AJobLogThatStartsWithAVersionReportKeepsItsFailures) {
  // A SLURM job script that prints `nvcc --version` first: the file is
  // classified as a version report, and its build failure is still read.
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  test::WriteFile(root + "/node-3/slurm-88121.out",
                  "nvcc: NVIDIA (R) Cuda compiler driver\n"                             // 1
                  "Copyright (c) 2005-2023 NVIDIA Corporation\n"                        // 2
                  "Built on Tue_Feb__7_19:32:13_PST_2023\n"                             // 3
                  "Cuda compilation tools, release 12.1, V12.1.66\n"                    // 4
                  "Build cuda_12.1.r12.1/compiler.32415258_0\n"                         // 5
                  "Building extension module fused_adam...\n"                           // 6
                  "csrc/fused_adam.cu(12): error: identifier \"half2\" is undefined\n"  // 7
                  "ninja: build stopped: subcommand failed.\n"                          // 8
                  "RuntimeError: Error building extension 'fused_adam'\n");             // 9
  const auto index = Index(tmp, root);
  const AnalysisResult r = RunBuild(*index);
  const Finding* ext = Find(r, "build.extension_failed");
  ASSERT_NE(ext, nullptr) << Codes(r);
  EXPECT_EQ(Cited(*ext), (std::set<std::pair<std::string, int64_t>>{
                             {"node-3/slurm-88121.out", 7}, {"node-3/slurm-88121.out", 9}}));
  int nvcc_rows = 0;
  index->Query("SELECT version, line_no FROM versions WHERE component = 'nvcc'",
               [&](const QueryRow& row) {
                 EXPECT_EQ(row.values[0], "12.1.66");
                 EXPECT_EQ(row.values[1], "4");
                 ++nvcc_rows;
                 return true;
               });
  EXPECT_EQ(nvcc_rows, 1);
}

TEST(BuildAnalyzer, ConsistentHostsAndSuccessfulBuildsAreQuiet) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  for (int h = 0; h < 2; ++h) {
    const std::string dir = root + "/nodes/node-" + std::to_string(h);
    test::WriteFile(dir + "/versions/collect_env.txt",
                    CollectEnv("2.3.1+cu121", "12.1", "12.1.105", h ? "11.4.1" : "11.4.0"));
    test::WriteFile(dir + "/env/env.txt",
                    "CUDA_HOME=/usr/local/cuda-12.1\nPATH=/usr/local/cuda-12.1/bin:/usr/bin\n"
                    "LD_LIBRARY_PATH=/usr/local/cuda/lib64\nTORCH_CUDA_ARCH_LIST=8.0;9.0\n");
    test::WriteFile(dir + "/train.log",
                    "Building extension module fused_adam...\n"
                    "ninja: no work to do.\n"
                    "Loading extension module fused_adam...\n"
                    "Time to load fused_adam op: 0.1 seconds\n"
                    "step 1 loss=2.0 error_rate=0.0\n");
  }
  const auto index = Index(tmp, root);
  const AnalysisResult r = RunBuild(*index);
  EXPECT_TRUE(r.findings.empty()) << Codes(r);
}

}  // namespace
}  // namespace casefile
