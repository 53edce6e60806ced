// The build rules on facts built by hand: versions rows as the version
// readers store them, build_error rows as the log family stores them, and
// the compiler-error search answered from a table of lines. Each case checks
// code, severity, culprits, cited lines and the key words of the summary
// against docs/FINDINGS.md ("build"), and the look-alikes that must not fire.
#include "analyze/analyzers/build/build_rules.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "analyze/analyzers/build/compiler_errors.h"
#include "parse/dist/dist_kinds.h"
#include "parse/version/version_facts.h"

namespace casefile::build {
namespace {

namespace v = version;

class BuildRulesTest : public ::testing::Test {
 protected:
  BuildRulesTest() {
    facts_.line = [](int64_t file, int64_t line) {
      Evidence e;
      e.path = "f" + std::to_string(file);
      e.line = line;
      return e;
    };
    facts_.first_compiler_error = [this](int64_t file, int64_t from, int64_t to,
                                         const std::string& /*host*/) {
      std::optional<CompilerErrorLine> found;
      size_t count = 0;
      for (const auto& [key, text] : lines_) {
        if (key.first != file || key.second < from || key.second > to) continue;
        if (!IsCompilerErrorLine(text)) continue;
        ++count;
        if (!found) found = CompilerErrorLine{key.second, text, 0};
      }
      if (found) found->count = count;
      return found;
    };
  }

  // A version row; file ids encode the host so that evidence tells hosts apart.
  void Ver(const std::string& host, int64_t file, int64_t line, const char* component,
           std::string version, const char* source, std::string detail = "") {
    facts_.versions.push_back(
        {file, line, host, component, std::move(version), std::move(detail), source});
  }
  void Err(const std::string& host, int64_t file, int64_t line, const char* op,
           std::string detail = "", std::optional<double> value = std::nullopt,
           std::optional<int64_t> rank = std::nullopt) {
    BuildErrorRow r;
    r.host = host;
    r.file_id = file;
    r.line_no = line;
    r.op = op;
    r.detail = std::move(detail);
    r.value = value;
    r.rank = rank;
    facts_.errors.push_back(std::move(r));
  }
  // The usual healthy host: torch 2.3.1 for CUDA 12.1, nvcc 12.1, gcc 11.
  void HealthyHost(const std::string& host, int64_t file) {
    Ver(host, file, 2, v::kTorch, "2.3.1+cu121", v::kSourceCollectEnv);
    Ver(host, file, 4, v::kTorchCuda, "12.1", v::kSourceCollectEnv);
    Ver(host, file, 8, v::kGcc, "11.4.0", v::kSourceCollectEnv);
    Ver(host, file, 18, v::kNvcc, "12.1.105", v::kSourceCollectEnv);
    Ver(host, file, 22, v::kDriver, "535.104.05", v::kSourceCollectEnv);
    Ver(host, file, 20, v::kGpuName, "NVIDIA H100 80GB HBM3", v::kSourceCollectEnv, "GPU 0");
    Ver(host, file + 1, 3, v::kNccl, "2.20.5", v::kSourcePip);
  }

  static std::set<std::string> Hosts(const Finding& f) {
    std::set<std::string> out;
    for (const Culprit& c : f.culprits) out.insert(c.host.value_or(""));
    return out;
  }
  static std::set<std::pair<std::string, int64_t>> Cited(const Finding& f) {
    std::set<std::pair<std::string, int64_t>> out;
    for (const Evidence& e : f.evidence) out.insert({e.path, e.line});
    return out;
  }

  BuildFacts facts_;
  std::map<std::pair<int64_t, int64_t>, std::string> lines_;
};

// ---- build.cuda_mismatch ----------------------------------------------------

TEST_F(BuildRulesTest, CudaMismatchMajorIsAnError) {
  HealthyHost("node-0", 10);
  Ver("node-1", 20, 4, v::kTorchCuda, "12.1", v::kSourceCollectEnv);
  Ver("node-1", 21, 4, v::kNvcc, "11.8.89", v::kSourceNvcc);
  const auto f = BuildCudaMismatch(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(Hosts(*f), (std::set<std::string>{"node-1"}));
  EXPECT_EQ(Cited(*f), (std::set<std::pair<std::string, int64_t>>{{"f20", 4}, {"f21", 4}}));
  EXPECT_NE(f->summary.find("CUDA 12.1 for torch, nvcc 11.8"), std::string::npos) << f->summary;
}

TEST_F(BuildRulesTest, CudaMismatchMinorIsAWarning) {
  Ver("node-0", 10, 4, v::kTorchCuda, "12.1", v::kSourceCollectEnv);
  Ver("node-0", 10, 18, v::kNvcc, "12.4.131", v::kSourceCollectEnv);
  const auto f = BuildCudaMismatch(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kWarning);
}

TEST_F(BuildRulesTest, CudaMismatchFromTheBuildMessage) {
  Err("node-3", 40, 812, dist::kBuildCudaMismatch, "installed=11.8 torch=12.1", std::nullopt, 5);
  const auto f = BuildCudaMismatch(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kError);
  // An environment problem: the host is the culprit, not the rank that printed it.
  ASSERT_EQ(f->culprits.size(), 1u);
  EXPECT_EQ(f->culprits[0].host, "node-3");
  EXPECT_FALSE(f->culprits[0].rank.has_value());
  EXPECT_EQ(Cited(*f), (std::set<std::pair<std::string, int64_t>>{{"f40", 812}}));
}

TEST_F(BuildRulesTest, NoCudaMismatchWithoutNvccOrWhenEqual) {
  HealthyHost("node-0", 10);                                          // equal releases
  Ver("node-1", 20, 4, v::kTorchCuda, "12.1", v::kSourceCollectEnv);  // no nvcc: pip wheels
  EXPECT_FALSE(BuildCudaMismatch(facts_));
}

TEST_F(BuildRulesTest, PreferredSourceDecides) {
  // collect_env's nvcc (what torch ran) wins over a ds_report line of the same host.
  Ver("node-0", 10, 4, v::kTorchCuda, "12.1", v::kSourceCollectEnv);
  Ver("node-0", 10, 18, v::kNvcc, "12.1.105", v::kSourceCollectEnv);
  Ver("node-0", 11, 9, v::kNvcc, "11.8", v::kSourceDsReport);
  EXPECT_FALSE(BuildCudaMismatch(facts_));
}

// ---- build.multiple_toolkits ------------------------------------------------

TEST_F(BuildRulesTest, ToolkitPointersDisagree) {
  Ver("node-0", 30, 1, v::kCudaToolkit, "", v::kSourceCudaDirs, "/usr/local/cuda");
  Ver("node-0", 30, 1, v::kCudaToolkit, "12.1", v::kSourceCudaDirs, "/usr/local/cuda");
  Ver("node-0", 30, 2, v::kCudaToolkit, "11.8", v::kSourceCudaDirs, "/usr/local/cuda-11.8");
  Ver("node-0", 30, 3, v::kCudaToolkit, "12.1", v::kSourceCudaDirs, "/usr/local/cuda-12.1");
  Ver("node-0", 31, 7, v::kPathCuda, "11.8", v::kSourceEnv, "/usr/local/cuda-11.8/bin");
  Ver("node-0", 31, 5, v::kLdPathCuda, "", v::kSourceEnv, "/usr/local/cuda/lib64");
  Ver("node-0", 31, 2, v::kCudaHome, "12.1", v::kSourceEnv, "/usr/local/cuda-12.1");
  const auto f = BuildMultipleToolkits(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(Hosts(*f), (std::set<std::string>{"node-0"}));
  EXPECT_EQ(Cited(*f),
            (std::set<std::pair<std::string, int64_t>>{{"f31", 7}, {"f31", 5}, {"f31", 2}}));
  // The unversioned /usr/local/cuda resolved through the listing's symlink.
  EXPECT_NE(f->summary.find("LD_LIBRARY_PATH -> /usr/local/cuda/lib64 (CUDA 12.1)"),
            std::string::npos)
      << f->summary;
}

TEST_F(BuildRulesTest, SeveralToolkitsAllPointersAgree) {
  Ver("node-0", 30, 2, v::kCudaToolkit, "11.8", v::kSourceCudaDirs, "/usr/local/cuda-11.8");
  Ver("node-0", 30, 3, v::kCudaToolkit, "12.1", v::kSourceCudaDirs, "/usr/local/cuda-12.1");
  Ver("node-0", 31, 7, v::kPathCuda, "12.1", v::kSourceEnv, "/usr/local/cuda-12.1/bin");
  Ver("node-0", 31, 5, v::kLdPathCuda, "12.1", v::kSourceEnv, "/usr/local/cuda-12.1/lib64");
  Ver("node-0", 31, 2, v::kCudaHome, "12.1", v::kSourceEnv, "/usr/local/cuda-12.1");
  EXPECT_FALSE(BuildMultipleToolkits(facts_));
}

TEST_F(BuildRulesTest, WhichNvccStandsForPath) {
  Ver("node-0", 32, 1, v::kNvccPath, "11.8", v::kSourceWhichNvcc, "/usr/local/cuda-11.8/bin/nvcc");
  Ver("node-0", 32, 2, v::kNvccPath, "12.1", v::kSourceWhichNvcc, "/usr/local/cuda-12.1/bin/nvcc");
  Ver("node-0", 31, 2, v::kCudaHome, "12.1", v::kSourceEnv, "/usr/local/cuda-12.1");
  const auto f = BuildMultipleToolkits(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Cited(*f), (std::set<std::pair<std::string, int64_t>>{{"f32", 1}, {"f31", 2}}));
}

TEST_F(BuildRulesTest, AMajorOnlyToolkitMatchesItsMinors) {
  Ver("node-0", 31, 2, v::kCudaHome, "12", v::kSourceEnv, "/usr/local/cuda-12");
  Ver("node-0", 31, 7, v::kPathCuda, "12.1", v::kSourceEnv, "/usr/local/cuda-12.1/bin");
  Ver("node-0", 31, 5, v::kLdPathCuda, "12.1", v::kSourceEnv, "/usr/local/cuda-12.1/lib64");
  EXPECT_FALSE(BuildMultipleToolkits(facts_));
}

TEST_F(BuildRulesTest, DistributionNvccTakesTheReleaseNvccPrinted) {
  // apt's toolkit first on PATH (/usr/bin/nvcc, 11.5), CUDA_HOME on 12.1.
  Ver("node-0", 32, 1, v::kNvccPath, "", v::kSourceWhichNvcc, "/usr/bin/nvcc");
  Ver("node-0", 32, 2, v::kNvccPath, "12.1", v::kSourceWhichNvcc, "/usr/local/cuda-12.1/bin/nvcc");
  Ver("node-0", 33, 4, v::kNvcc, "11.5.119", v::kSourceNvcc);
  Ver("node-0", 31, 2, v::kCudaHome, "12.1", v::kSourceEnv, "/usr/local/cuda-12.1");
  const auto f = BuildMultipleToolkits(facts_);
  ASSERT_TRUE(f);
  EXPECT_NE(f->summary.find("PATH -> /usr/bin/nvcc (CUDA 11.5)"), std::string::npos) << f->summary;
}

TEST_F(BuildRulesTest, ANonCudaDirectoryAheadOfPathsCudaEntryWins) {
  // A conda env's bin (cuda-nvcc 11.8) precedes /usr/local/cuda-12.1/bin on
  // PATH: PATH's first CUDA-named entry says 12.1, `which -a nvcc` and `nvcc
  // --version` say 11.8.
  Ver("node-0", 31, 7, v::kPathCuda, "12.1", v::kSourceEnv, "/usr/local/cuda-12.1/bin");
  Ver("node-0", 31, 5, v::kLdPathCuda, "12.1", v::kSourceEnv, "/usr/local/cuda-12.1/lib64");
  Ver("node-0", 31, 2, v::kCudaHome, "12.1", v::kSourceEnv, "/usr/local/cuda-12.1");
  Ver("node-0", 32, 1, v::kNvccPath, "", v::kSourceWhichNvcc, "/opt/conda/envs/train/bin/nvcc");
  Ver("node-0", 32, 2, v::kNvccPath, "12.1", v::kSourceWhichNvcc, "/usr/local/cuda-12.1/bin/nvcc");
  Ver("node-0", 33, 4, v::kNvcc, "11.8.89", v::kSourceNvcc);
  const auto f = BuildMultipleToolkits(facts_);
  ASSERT_TRUE(f);
  EXPECT_NE(f->summary.find("PATH -> /opt/conda/envs/train/bin/nvcc (CUDA 11.8)"),
            std::string::npos)
      << f->summary;
  EXPECT_TRUE(Cited(*f).count({"f32", 1}));
  // Without the conda nvcc, which's first nvcc is the toolkit PATH's CUDA
  // entry names: nothing disagrees.
  facts_.versions.erase(facts_.versions.end() - 3);
  facts_.versions.back().version = "12.1.105";
  EXPECT_FALSE(BuildMultipleToolkits(facts_));
}

// ---- build.compiler_unsupported ----------------------------------------------

TEST_F(BuildRulesTest, GccTooNewForNvcc) {
  Ver("node-0", 10, 8, v::kGcc, "12.3.0", v::kSourceCollectEnv);
  Ver("node-0", 10, 18, v::kNvcc, "11.8.89", v::kSourceCollectEnv);
  Ver("node-1", 20, 8, v::kGcc, "11.4.0", v::kSourceCollectEnv);
  Ver("node-1", 20, 18, v::kNvcc, "11.8.89", v::kSourceCollectEnv);
  auto f = BuildCompilerUnsupported(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kWarning);  // latent: nothing was built yet
  EXPECT_EQ(Hosts(*f), (std::set<std::string>{"node-0"}));
  EXPECT_NE(f->summary.find("gcc 12.3.0 with nvcc 11.8, which accepts gcc 11 at most"),
            std::string::npos)
      << f->summary;
  Err("node-0", 50, 900, dist::kBuildExtensionFailed, "fused_adam");
  f = BuildCompilerUnsupported(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kError);
}

TEST_F(BuildRulesTest, GccRefusedByHostConfig) {
  Err("node-2", 50, 431, dist::kBuildGccUnsupported, "gcc", 11.0);
  const auto f = BuildCompilerUnsupported(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(Cited(*f), (std::set<std::pair<std::string, int64_t>>{{"f50", 431}}));
  EXPECT_NE(f->summary.find("later than 11"), std::string::npos) << f->summary;
}

TEST_F(BuildRulesTest, SupportedOrUnknownCompilerIsFine) {
  Ver("node-0", 10, 8, v::kGcc, "13.2.0", v::kSourceCollectEnv);
  Ver("node-0", 10, 18, v::kNvcc, "12.4.131", v::kSourceCollectEnv);
  Ver("node-1", 20, 8, v::kGcc, "15.1.0", v::kSourceCollectEnv);
  Ver("node-1", 20, 18, v::kNvcc, "13.1.80", v::kSourceCollectEnv);  // newer than the table
  EXPECT_FALSE(BuildCompilerUnsupported(facts_));
}

// ---- build.arch_mismatch -------------------------------------------------------

TEST_F(BuildRulesTest, ArchListMissesTheGpu) {
  Ver("node-0", 31, 9, v::kTorchCudaArchList, "7.0;8.0;8.6", v::kSourceEnv);
  Ver("node-0", 33, 2, v::kGpuComputeCapability, "9.0", v::kSourceNvidiaSmiCsv, "GPU 0");
  Ver("node-0", 33, 2, v::kGpuName, "NVIDIA H100 80GB HBM3", v::kSourceNvidiaSmiCsv, "GPU 0");
  const auto f = BuildArchMismatch(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(Cited(*f), (std::set<std::pair<std::string, int64_t>>{{"f31", 9}, {"f33", 2}}));
  EXPECT_NE(f->summary.find("does not include 9.0"), std::string::npos) << f->summary;
}

TEST_F(BuildRulesTest, ArchFromGpuNameWhenNoCapabilityRow) {
  Ver("node-0", 31, 9, v::kTorchCudaArchList, "8.0", v::kSourceEnv);
  Ver("node-0", 10, 20, v::kGpuName, "NVIDIA A10", v::kSourceCollectEnv, "GPU 0");
  // 8.0 cubins run on 8.6: no finding.
  EXPECT_FALSE(BuildArchMismatch(facts_));
  Ver("node-1", 41, 9, v::kTorchCudaArchList, "8.6", v::kSourceEnv);
  Ver("node-1", 40, 20, v::kGpuName, "NVIDIA A100-SXM4-80GB", v::kSourceCollectEnv, "GPU 0");
  const auto f = BuildArchMismatch(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Hosts(*f), (std::set<std::string>{"node-1"}));
}

TEST_F(BuildRulesTest, NoKernelImageAloneFires) {
  Err("node-0", 60, 1200, kOpNoKernelImage,
      "no kernel image is available for execution on the "
      "device",
      std::nullopt, 0);
  Err("node-0", 60, 1210, kOpNoKernelImage, "no kernel image is available", std::nullopt, 1);
  const auto f = BuildArchMismatch(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->culprits.size(), 2u);
  EXPECT_NE(f->summary.find("no kernel image"), std::string::npos);
}

TEST_F(BuildRulesTest, CoveredArchListIsFine) {
  Ver("node-0", 31, 9, v::kTorchCudaArchList, "8.0;9.0+PTX", v::kSourceEnv);
  Ver("node-0", 33, 2, v::kGpuComputeCapability, "9.0", v::kSourceNvidiaSmiCsv, "GPU 0");
  EXPECT_FALSE(BuildArchMismatch(facts_));
}

// ---- build.extension_failed ----------------------------------------------------

TEST_F(BuildRulesTest, FirstCompilerErrorIsTheEvidence) {
  lines_[{70, 100}] =
      "csrc/x.cu(10): warning #177-D: variable \"i\" was declared but never referenced";
  lines_[{70, 140}] = "csrc/x.cu(45): error: identifier \"__hmax2\" is undefined";
  lines_[{70, 141}] = "csrc/x.cu(52): error: identifier \"__hmin2\" is undefined";
  lines_[{70, 150}] = "collect2: error: ld returned 1 exit status";
  Err("node-0", 70, 160, dist::kBuildExtensionFailed, "ninja", std::nullopt, 0);
  Err("node-0", 70, 175, dist::kBuildExtensionFailed, "ninja", std::nullopt, 0);
  Err("node-0", 70, 190, dist::kBuildExtensionFailed, "fused_adam", std::nullopt, 0);
  const auto f = BuildExtensionFailed(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(Cited(*f), (std::set<std::pair<std::string, int64_t>>{{"f70", 140}, {"f70", 190}}));
  EXPECT_NE(f->summary.find("'fused_adam'"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("__hmax2"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("2 error lines"), std::string::npos) << f->summary;
}

TEST_F(BuildRulesTest, TwoBuildsInOneFileSearchTheirOwnLines) {
  lines_[{70, 10}] = "a.cpp:1:1: error: first build's error";
  Err("node-0", 70, 20, dist::kBuildExtensionFailed, "ninja");
  lines_[{70, 1000}] = "b.cpp:2:2: error: second build's error";
  Err("node-0", 70, 1010, dist::kBuildExtensionFailed, "ninja");
  const auto f = BuildExtensionFailed(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Cited(*f), (std::set<std::pair<std::string, int64_t>>{
                           {"f70", 10}, {"f70", 20}, {"f70", 1000}, {"f70", 1010}}));
  EXPECT_NE(f->summary.find("2 failed build(s)"), std::string::npos) << f->summary;
}

TEST_F(BuildRulesTest, FailureWithoutCompilerOutputStillCites) {
  Err("node-0", 70, 20, dist::kBuildExtensionFailed, "flash-attn");
  const auto f = BuildExtensionFailed(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Cited(*f), (std::set<std::pair<std::string, int64_t>>{{"f70", 20}}));
  EXPECT_NE(f->summary.find("No compiler ran"), std::string::npos) << f->summary;
}

TEST_F(BuildRulesTest, BuildsOfSeveralHostsInOneFileAreKeptApart) {
  // pdsh: both workers fail in one file; each build cites its own host's error.
  facts_.first_compiler_error = [](int64_t /*file*/, int64_t from, int64_t to,
                                   const std::string& host) -> std::optional<CompilerErrorLine> {
    const int64_t line = host == "worker-0" ? 100 : 110;
    if (line < from || line > to) return std::nullopt;
    return CompilerErrorLine{line, host + ": x.cu(1): error: boom", 1};
  };
  Err("worker-0", 70, 150, dist::kBuildExtensionFailed, "fused_adam");
  Err("worker-1", 70, 160, dist::kBuildExtensionFailed, "fused_adam");
  const auto f = BuildExtensionFailed(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Hosts(*f), (std::set<std::string>{"worker-0", "worker-1"}));
  EXPECT_EQ(Cited(*f), (std::set<std::pair<std::string, int64_t>>{
                           {"f70", 100}, {"f70", 150}, {"f70", 110}, {"f70", 160}}));
  EXPECT_NE(f->summary.find("2 failed build(s)"), std::string::npos) << f->summary;
}

TEST_F(BuildRulesTest, CompilerOutputAfterTheRuntimeErrorIsSearched) {
  // A build that was not verbose: the compiler's output follows "Error
  // building extension 'my_ops':".
  lines_[{70, 19}] = "/work/my_kernel.cu(45): error: identifier \"__hmax2\" is undefined";
  Err("node-0", 70, 7, dist::kBuildExtensionFailed, "ninja");
  Err("node-0", 70, 16, dist::kBuildExtensionFailed, "my_ops");
  Err("node-0", 70, 23, dist::kBuildExtensionFailed, "ninja");
  const auto f = BuildExtensionFailed(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Cited(*f), (std::set<std::pair<std::string, int64_t>>{{"f70", 19}, {"f70", 23}}));
  EXPECT_NE(f->summary.find("'my_ops'"), std::string::npos) << f->summary;
}

TEST_F(BuildRulesTest, ASetuptoolsCommandIsNotTheExtension) {
  Err("node-0", 70, 40, dist::kBuildExtensionFailed, "command: gcc");
  Err("node-0", 70, 52, dist::kBuildExtensionFailed, "apex");
  const auto f = BuildExtensionFailed(facts_);
  ASSERT_TRUE(f);
  EXPECT_NE(f->summary.find("the extension 'apex'"), std::string::npos) << f->summary;
}

TEST_F(BuildRulesTest, AMessageNamingOneSideStillSaysWhich) {
  Err("node-0", 40, 12, dist::kBuildCudaMismatch, "installed= torch=12.1");
  const auto f = BuildCudaMismatch(facts_);
  ASSERT_TRUE(f);
  EXPECT_NE(f->summary.find("(CUDA 12.1 for torch)"), std::string::npos) << f->summary;
}

// ---- build.driver_too_old ------------------------------------------------------

TEST_F(BuildRulesTest, DriverTooOldFromTheRuntimesRefusal) {
  HealthyHost("node-0", 10);
  Err("node-1", 70, 12, dist::kBuildDriverTooOld, "found=11.4", std::nullopt, 9);
  Err("node-1", 70, 13, dist::kBuildDriverTooOld, "", std::nullopt, 10);
  const auto f = BuildDriverTooOld(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(Hosts(*f), (std::set<std::string>{"node-1"}));
  EXPECT_EQ(f->culprits.size(), 1u);
  // The host's first message.
  EXPECT_EQ(Cited(*f), (std::set<std::pair<std::string, int64_t>>{{"f70", 12}}));
  EXPECT_NE(f->summary.find("supports CUDA 11.4 at most"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("refused the driver 2 time(s)"), std::string::npos) << f->summary;
}

TEST_F(BuildRulesTest, DriverTooOldFromVersionsIsAWarning) {
  HealthyHost("node-0", 10);
  Ver("node-0", 12, 3, v::kDriverCuda, "12.2", v::kSourceNvidiaSmi);
  HealthyHost("node-1", 20);
  Ver("node-1", 22, 3, v::kDriverCuda, "11.4", v::kSourceNvidiaSmi);
  for (VersionFactRow& r : facts_.versions) {
    if (r.host == "node-1" && r.component == v::kDriver) r.version = "470.223.02";
  }
  auto f = BuildDriverTooOld(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(Hosts(*f), (std::set<std::string>{"node-1"}));
  EXPECT_EQ(Cited(*f), (std::set<std::pair<std::string, int64_t>>{{"f22", 3}, {"f20", 4}}));
  EXPECT_NE(f->summary.find("driver 470.223.02, CUDA 11.4 at most, against CUDA 12.1 for torch"),
            std::string::npos)
      << f->summary;
  // Within one major release a driver runs a newer runtime (minor version
  // compatibility): 12.0 with torch's 12.1 is fine.
  for (VersionFactRow& r : facts_.versions) {
    if (r.host == "node-1" && r.component == v::kDriverCuda) r.version = "12.0";
  }
  EXPECT_FALSE(BuildDriverTooOld(facts_));
  // Without torch, pip's CUDA runtime wheel says which CUDA is needed.
  facts_.versions.clear();
  Ver("node-2", 30, 3, v::kDriverCuda, "11.4", v::kSourceNvidiaSmi);
  Ver("node-2", 31, 7, "pip:nvidia-cuda-runtime-cu12", "12.3.101", v::kSourcePip);
  f = BuildDriverTooOld(facts_);
  ASSERT_TRUE(f);
  EXPECT_NE(f->summary.find("against CUDA 12.3 of the runtime wheel"), std::string::npos)
      << f->summary;
}

// ---- build.load_failed ---------------------------------------------------------

TEST_F(BuildRulesTest, LoadFailedNamesTheLibraryAndWhyPerHost) {
  // Every rank of node-1 fails to import apex (built against an older
  // torch); node-2 cannot find the CUDA 11 runtime xformers was built for.
  for (int64_t rank = 8; rank < 11; ++rank)
    Err("node-1", 70, 100 + rank, kOpLoadFailed,
        "ImportError: /usr/local/lib/python3.10/dist-packages/"
        "amp_C.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
        "_ZN3c104cuda20CUDACachingAllocator9allocatorE",
        std::nullopt, rank);
  Err("node-2", 80, 9, kOpLoadFailed,
      "OSError: libcudart.so.11.0: cannot open shared object file: No such file or directory");
  const auto f = BuildLoadFailed(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->code, "build.load_failed");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(Hosts(*f), (std::set<std::string>{"node-1", "node-2"}));
  // One line per library and host: the first.
  EXPECT_EQ(Cited(*f), (std::set<std::pair<std::string, int64_t>>{{"f70", 108}, {"f80", 9}}));
  EXPECT_NE(f->summary.find("The library amp_C.cpython-310-x86_64-linux-gnu.so does not load: "
                            "undefined symbol _ZN3c104cuda20CUDACachingAllocator9allocatorE, a "
                            "symbol of PyTorch"),
            std::string::npos)
      << f->summary;
  EXPECT_NE(f->summary.find("The library libcudart.so.11.0 is missing: a library was built for "
                            "CUDA 11"),
            std::string::npos)
      << f->summary;
  EXPECT_NE(f->recommendation.find("--no-build-isolation"), std::string::npos);
  EXPECT_NE(f->recommendation.find("ldconfig -p"), std::string::npos);
}

TEST_F(BuildRulesTest, LoadFailedReadsNcclSymbolsAndTheCxxRuntime) {
  Err("node-0", 10, 5, kOpLoadFailed,
      "OSError: /opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so: undefined "
      "symbol: ncclCommRegister");
  Err("node-1", 20, 6, kOpLoadFailed,
      "ImportError: /opt/conda/lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found "
      "(required by /opt/venv/lib/python3.11/site-packages/flash_attn_2_cuda.so)");
  const auto f = BuildLoadFailed(facts_);
  ASSERT_TRUE(f);
  EXPECT_NE(f->summary.find("The library libtorch_cuda.so does not load: undefined symbol "
                            "ncclCommRegister: the NCCL library loaded is older"),
            std::string::npos)
      << f->summary;
  EXPECT_NE(f->summary.find("The library flash_attn_2_cuda.so needs GLIBCXX_3.4.30"),
            std::string::npos)
      << f->summary;
  EXPECT_NE(f->recommendation.find("LD_LIBRARY_PATH"), std::string::npos);
}

TEST_F(BuildRulesTest, LoadFailedLookAlikesDoNotFire) {
  // Other crashes are the runtime analyzer's; a "version `...' not found"
  // of something that is not the C++ runtime is no ABI break.
  Err("node-0", 10, 5, kOpLoadFailed, "ModuleNotFoundError: No module named 'flash_attn'");
  Err("node-0", 10, 6, kOpLoadFailed, "RuntimeError: version `v2' not found in the registry");
  // A JIT-built extension another rank failed to build: its file is missing.
  Err("node-0", 10, 8, kOpLoadFailed,
      "ImportError: /root/.cache/torch_extensions/py310_cu121/fused_adam/fused_adam.so: cannot "
      "open shared object file: No such file or directory");
  EXPECT_FALSE(BuildLoadFailed(facts_));
  // An optional kernel that did not load, and training went on in the same
  // log (the program fell back): not the run's failure. Two steps after it
  // are not yet enough.
  Err("node-0", 10, 7, kOpLoadFailed,
      "ImportError: /opt/venv/lib/python3.11/site-packages/fused_dense_lib.so: undefined "
      "symbol: _ZN3c1017RegisterOperatorsD1Ev");
  facts_.steps_after_load[10] = {{3, 1}, {40, 1}, {41, 2}};
  EXPECT_TRUE(BuildLoadFailed(facts_));
  facts_.steps_after_load[10].emplace_back(42, 3);
  EXPECT_FALSE(BuildLoadFailed(facts_));
}

// ---- build.version_skew --------------------------------------------------------

TEST_F(BuildRulesTest, OddHostOutIsTheCulprit) {
  HealthyHost("node-0", 10);
  HealthyHost("node-1", 20);
  HealthyHost("node-2", 30);
  Ver("node-3", 40, 2, v::kTorch, "2.2.2+cu121", v::kSourceCollectEnv);
  Ver("node-3", 41, 3, v::kNccl, "2.19.3", v::kSourcePip);
  // Looked at by no rule: gcc patch levels and other packages may differ.
  Ver("node-3", 40, 8, v::kGcc, "11.4.1", v::kSourceCollectEnv);
  Ver("node-3", 41, 9, "pip:requests", "2.31.0", v::kSourcePip);
  const auto f = BuildVersionSkew(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(Hosts(*f), (std::set<std::string>{"node-3"}));
  EXPECT_EQ(Cited(*f), (std::set<std::pair<std::string, int64_t>>{
                           {"f40", 2}, {"f10", 2}, {"f41", 3}, {"f11", 3}}));
  EXPECT_NE(f->summary.find("torch 2.2.2+cu121 on node-3, 2.3.1+cu121 on node-0, node-1 and "
                            "node-2"),
            std::string::npos)
      << f->summary;
}

TEST_F(BuildRulesTest, DriverOnlySkewIsAWarning) {
  HealthyHost("node-0", 10);
  HealthyHost("node-1", 20);
  for (VersionFactRow& r : facts_.versions) {
    if (r.host == "node-1" && r.component == v::kDriver) r.version = "550.54.15";
  }
  const auto f = BuildVersionSkew(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kWarning);
  // A tie: the host left behind on the older driver (535 < 550), whichever
  // host comes first by name.
  EXPECT_EQ(Hosts(*f), (std::set<std::string>{"node-0"}));
  for (VersionFactRow& r : facts_.versions) {
    if (r.component == v::kDriver) r.version = r.host == "node-1" ? "470.223.02" : "535.104.05";
  }
  const auto g = BuildVersionSkew(facts_);
  ASSERT_TRUE(g);
  EXPECT_EQ(Hosts(*g), (std::set<std::string>{"node-1"}));
}

TEST_F(BuildRulesTest, PypiAndDownloadWheelsOfOneReleaseAreNotSkew) {
  // pip on every host: PyPI's "2.3.1" is the cu121 build that
  // download.pytorch.org calls "2.3.1+cu121".
  Ver("node-0", 11, 3, v::kTorch, "2.3.1+cu121", v::kSourcePip);
  Ver("node-1", 21, 3, v::kTorch, "2.3.1+cu121", v::kSourcePip);
  Ver("node-2", 31, 3, v::kTorch, "2.3.1", v::kSourcePip);
  EXPECT_FALSE(BuildVersionSkew(facts_));
  // Two builds that both say which CUDA they are for do differ.
  Ver("node-2", 31, 3, v::kTorch, "2.3.1+cu118", v::kSourcePip);
  facts_.versions.erase(facts_.versions.end() - 2);
  const auto f = BuildVersionSkew(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Hosts(*f), (std::set<std::string>{"node-2"}));
}

TEST_F(BuildRulesTest, OneReportSharedByAllHostsIsCompared) {
  // pip says "2.3.1" everywhere; collect_env adds "+cu121" on one host only.
  Ver("node-0", 11, 3, v::kTorch, "2.3.1", v::kSourcePip);
  Ver("node-1", 21, 3, v::kTorch, "2.3.1", v::kSourcePip);
  Ver("node-1", 20, 2, v::kTorch, "2.3.1+cu121", v::kSourceCollectEnv);
  EXPECT_FALSE(BuildVersionSkew(facts_));
}

TEST_F(BuildRulesTest, LocalTagsAcrossReportsAreNotSkew) {
  // node-0: collect_env and ds_report; node-1: pip only. Same builds.
  Ver("node-0", 10, 2, v::kTorch, "2.3.1+cu121", v::kSourceCollectEnv);
  Ver("node-0", 12, 5, v::kDeepspeed, "0.14.4+a3f2c1d", v::kSourceDsReport);
  Ver("node-1", 21, 3, v::kTorch, "2.3.1", v::kSourcePip);
  Ver("node-1", 21, 4, v::kDeepspeed, "0.14.4", v::kSourcePip);
  // A report without a host is not a host of its own.
  Ver("", 5, 1, v::kTorch, "2.1.0", v::kSourcePip);
  EXPECT_FALSE(BuildVersionSkew(facts_));
}

TEST_F(BuildRulesTest, HealthyHostsAreNotSkewed) {
  HealthyHost("node-0", 10);
  HealthyHost("node-1", 20);
  EXPECT_FALSE(BuildVersionSkew(facts_));
  EXPECT_TRUE(BuildBuildFindings(facts_).empty());
}

}  // namespace
}  // namespace casefile::build
