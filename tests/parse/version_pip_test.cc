// pip's listings (formats.md 6.7): freeze pins, direct-URL installs,
// editables, `pip list` columns with and without the Editable column, the
// json format; PEP 503 names and the packages with components of their
// own; a 10^5-line freeze read with bounded state.
#include <gtest/gtest.h>

#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "parse/version/package_names.h"
#include "parse/version/report_dispatcher.h"
#include "version_test_util.h"

namespace casefile::version::test {
namespace {

constexpr const char* kPath = "nodes/n1/versions/pip_freeze.txt";

TEST(VersionPip, ProjectNames) {
  EXPECT_EQ(NormalizeProjectName("Flash_Attn"), "flash-attn");
  EXPECT_EQ(NormalizeProjectName("zope.interface"), "zope-interface");
  EXPECT_EQ(NormalizeProjectName("A__b-._c"), "a-b-c");
  EXPECT_EQ(PackageComponent("torch", false), "torch");
  EXPECT_EQ(PackageComponent("libtpu-nightly", false), "libtpu");
  EXPECT_EQ(PackageComponent("pytorch-triton", false), "triton");
  EXPECT_EQ(PackageComponent("nvidia-nccl-cu11", false), "nccl");
  EXPECT_EQ(PackageComponent("nvidia-cudnn-cu12", false), "cudnn");
  EXPECT_EQ(PackageComponent("nvidia-cuda-runtime-cu12", false), "pip:nvidia-cuda-runtime-cu12");
  EXPECT_EQ(PackageComponent("nccl", false), "pip:nccl");
  EXPECT_EQ(PackageComponent("nccl", true), "nccl");
  EXPECT_EQ(PackageComponent("pytorch", true), "torch");
}

TEST(VersionPip, LocalTag) {
  EXPECT_EQ(TorchCudaOfLocalTag("2.1.0+cu121"), "12.1");
  EXPECT_EQ(TorchCudaOfLocalTag("1.13.1+cu117.with.pypi.cudnn"), "11.7");
  EXPECT_EQ(TorchCudaOfLocalTag("1.7.1+cu92"), "9.2");
  EXPECT_EQ(TorchCudaOfLocalTag("2.9.0+cu130"), "13.0");
  EXPECT_EQ(TorchCudaOfLocalTag("2.3.0+cpu"), "");
  EXPECT_EQ(TorchCudaOfLocalTag("2.3.0+rocm6.0"), "");
  EXPECT_EQ(TorchCudaOfLocalTag("2.3.0"), "");
  EXPECT_EQ(TorchCudaOfLocalTag("2.2.0a0+git8ac9b20"), "");
}

TEST(VersionPip, Freeze) {
  const std::string text =
      "accelerate==0.30.1\n"                // 1
      "Flash_Attn==2.5.8\n"                 // 2
      "libtpu-nightly==0.1.dev20240612\n"   // 3
      "nvidia-cudnn-cu12==8.9.2.26\n"       // 4
      "nvidia-nccl-cu12==2.18.1\n"          // 5
      "pytorch-triton==3.0.0+dedb7bdf33\n"  // 6
      "torch==2.1.0+cu121\n"                // 7
      "weirdpkg===2013b0\n"                 // 8
      "zope.interface==6.0\n"               // 9
      "torchvision @ https://download.pytorch.org/whl/cu118/"
      "torchvision-0.15.2%2Bcu118-cp310-cp310-linux_x86_64.whl\n"                     // 10
      "mypkg @ git+https://github.com/org/mypkg.git@1234abcd\n"                       // 11
      "apex @ file:///tmp/apex-0.1.tar.gz\n"                                          // 12
      "-e git+https://github.com/microsoft/DeepSpeed.git@4d866bd#egg=deepspeed\n"     // 13
      "# Editable install with no version control (mylib==0.2.0)\n"                   // 14
      "-e /home/u/src/mylib\n"                                                        // 15
      "WARNING: Ignoring invalid distribution ~orch (/opt/venv/lib/site-packages)\n"  // 16
      "# Editable Git install with no remote (otherlib==1.0.0)\n";                    // 17
  EXPECT_EQ(Extract(kPath, text),
            (Facts{
                "1|accelerate|0.30.1||pip",
                "2|pip:flash-attn|2.5.8||pip",
                "3|libtpu|0.1.dev20240612||pip",
                "4|cudnn|8.9.2.26||pip",
                "5|nccl|2.18.1||pip",
                "6|triton|3.0.0+dedb7bdf33||pip",
                "7|torch|2.1.0+cu121||pip",
                "7|torch_cuda|12.1|local tag|pip",
                "8|pip:weirdpkg|2013b0||pip",
                "9|pip:zope-interface|6.0||pip",
                "10|pip:torchvision|0.15.2+cu118|https://download.pytorch.org/whl/cu118/"
                "torchvision-0.15.2%2Bcu118-cp310-cp310-linux_x86_64.whl|pip",
                "12|pip:apex|0.1|file:///tmp/apex-0.1.tar.gz|pip",
                "14|pip:mylib|0.2.0|/home/u/src/mylib|pip",
                "17|pip:otherlib|1.0.0|editable|pip",
            }));
}

TEST(VersionPip, ListColumnsWithEditable) {
  const std::string text =
      "Package                  Version      Editable project location\n"      // 1
      "------------------------ ------------ ---------------------------\n"    // 2
      "accelerate               0.30.1\n"                                      // 3
      "deepspeed                0.14.3+abc12 /home/u/My Projects/DeepSpeed\n"  // 4
      "nvidia-nccl-cu12         2.20.5\n"                                      // 5
      "torch                    2.3.1\n"                                       // 6
      "\n"                                                                     // 7
      "[notice] A new release of pip is available: 23.0.1 -> 24.0\n";          // 8
  EXPECT_EQ(Extract("pip_list.txt", text),
            (Facts{
                "3|accelerate|0.30.1||pip",
                "4|deepspeed|0.14.3+abc12|/home/u/My Projects/DeepSpeed|pip",
                "5|nccl|2.20.5||pip",
                "6|torch|2.3.1||pip",
            }));
}

// `pip list -v` adds Location and Installer; those are not editables.
TEST(VersionPip, ListColumnsVerbose) {
  const std::string text =
      "Package Version Location                                Installer\n"
      "------- ------- --------------------------------------- ---------\n"
      "numpy   1.26.4  /opt/venv/lib/python3.10/site-packages  pip\n"
      "jax     0.4.30  /opt/venv/lib/python3.10/site-packages  pip\n";
  EXPECT_EQ(Extract("pip_list.txt", text), (Facts{
                                               "3|numpy|1.26.4||pip",
                                               "4|jax|0.4.30||pip",
                                           }));
}

TEST(VersionPip, ListJson) {
  const std::string text =
      "[{\"name\": \"jaxlib\", \"version\": \"0.4.30\"}, {\"name\": \"mylib\", \"version\": "
      "\"0.1.0\", \"editable_project_location\": \"/src/mylib\"}, {\"name\": \"cut\", \"vers";
  EXPECT_EQ(Extract("pip_list.json", text), (Facts{
                                                "1|jaxlib|0.4.30||pip",
                                                "1|pip:mylib|0.1.0|/src/mylib|pip",
                                            }));
}

// A name longer than the held-fact cap is dropped, not held.
TEST(VersionPip, OversizedEditableNotHeld) {
  const std::string name(kMaxHeldText + 1, 'a');
  const std::string text = "# Editable install with no version control (" + name +
                           "==1.0)\n"
                           "-e /src/a\n"
                           "b==2.0\n";
  EXPECT_EQ(Extract(kPath, text), (Facts{"3|pip:b|2.0||pip"}));
}

// Bytes the process has allocated and not freed (glibc's main arena); 0
// where unknown (another libc, or a sanitizer's allocator), which makes the
// heap check below vacuous there but never wrong.
size_t LiveHeapBytes() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  return mallinfo2().uordblks;
#else
  return 0;
#endif
}

// 10^5 lines, one editable comment every 1000: every pin is emitted, and the
// state held between lines stays the same small size from the first
// thousand lines to the last, both as the readers count it and as the heap
// sees it.
TEST(VersionPip, HugeFreezeBoundedState) {
  int64_t facts = 0;
  int64_t last_line = 0;
  ReportDispatcher d(kPath, [&](const VersionFact& f) {
    ++facts;
    last_line = f.line_no;
  });
  size_t held_after_first = 0;
  size_t held_max = 0;
  size_t heap_after_first = 0;
  constexpr int64_t kLines = 100000;
  std::string line;
  line.reserve(128);  // the test's own buffer must not grow mid-run
  for (int64_t n = 1; n <= kLines; ++n) {
    if (n % 1000 == 500) {
      line = "# Editable install with no version control (local-pkg-" + std::to_string(n % 7) +
             "==1.0.0)";
    } else if (n % 1000 == 501) {
      line = "-e /home/user/src/local-pkg";
    } else {
      line = "package-number-" + std::to_string(n) + "==1." + std::to_string(n % 97) + ".0";
    }
    d.AddLine(n, line);
    held_max = std::max(held_max, d.HeldBytes());
    if (n == 1000) {
      held_after_first = d.HeldBytes();
      heap_after_first = LiveHeapBytes();
    }
  }
  // Keeping anything per package would add megabytes here.
  EXPECT_LE(LiveHeapBytes(), heap_after_first + 1024);
  d.Finish();
  EXPECT_EQ(facts, kLines - 100);  // each comment and its -e line give one fact
  EXPECT_EQ(last_line, kLines);
  EXPECT_EQ(d.HeldBytes(), held_after_first);
  EXPECT_EQ(held_max, held_after_first);
  EXPECT_LE(held_max, 4 * kMaxHeldText);
}

}  // namespace
}  // namespace casefile::version::test
