// The crash family (parse/dist/crash_lines.cc, crash_traceback.cc). Lines go
// through StripAnsi and ParseLinePrefix as ingest sends them, so the stream
// of a line is told by its real wrappers. Expected values follow the shape
// of Python tracebacks, the C++ runtime's terminate message, glog's and
// faulthandler's fatal lines and bash's job reports; the samples are written
// for these tests.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dist_test_util.h"
#include "parse/dist/crash_traceback.h"
#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/line/ansi.h"
#include "parse/line/line_prefix.h"

namespace casefile::dist {
namespace {

std::vector<DistEventRow> Feed(const std::vector<std::string>& lines) {
  auto rows = test::FeedFamily(*MakeCrashFamily(), lines, 3, 2024);
  // Events of tracebacks left open leave at the end; sort by line to compare.
  std::sort(rows.begin(), rows.end(),
            [](const DistEventRow& a, const DistEventRow& b) { return a.line_no < b.line_no; });
  return rows;
}

// --- tracebacks ------------------------------------------------------------------

TEST(DistCrashTraceback, OneEventOnTheExceptionLine) {
  const auto rows = Feed({
      "Traceback (most recent call last):",
      "  File \"/work/train.py\", line 88, in <module>",
      "    main()",
      "  File \"/work/train.py\", line 70, in main",
      "    loss.backward()",
      "    ~~~~~~~~~~~~~^^",
      "RuntimeError: CUDA error: an illegal memory access was encountered",
      "CUDA kernel errors might be asynchronously reported at some other API call.",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, kCrash);
  EXPECT_EQ(rows[0].file_id, 3);
  EXPECT_EQ(rows[0].line_no, 7);
  EXPECT_EQ(rows[0].detail, "RuntimeError: CUDA error: an illegal memory access was encountered");
  EXPECT_FALSE(rows[0].rank.has_value());
}

// Python's own words for an exception the process survived: one in a
// finaliser at exit, one that ended a thread. No crash; a traceback of the
// same stream that comes later is one again.
TEST(DistCrashTraceback, ExceptionsIgnoredOrInAThreadAreNoCrash) {
  const auto rows = Feed({
      "[rank0]:Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at "
      "0x7f3a2c1d0e50>",
      "[rank0]:Traceback (most recent call last):",
      "[rank0]:  File \"/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py\", "
      "line 1479, in __del__",
      "[rank0]:    self._shutdown_workers()",
      "[rank0]:AssertionError: can only join a child process",
      "[rank1]:Exception in thread NetStatThr:",
      "[rank1]:Traceback (most recent call last):",
      "[rank1]:  File \"/usr/lib/python3.10/threading.py\", line 1016, in _bootstrap_inner",
      "[rank1]:wandb.sdk.interface.router.MessageRouterClosedError",
      "[rank0]:Traceback (most recent call last):",
      "[rank0]:  File \"/work/train.py\", line 88, in <module>",
      "[rank0]:RuntimeError: real failure",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line_no, 12);
  EXPECT_EQ(rows[0].detail, "RuntimeError: real failure");
}

TEST(DistCrashTraceback, TwoRanksInterleavedLineByLine) {
  const auto rows = Feed({
      "[rank0]:Traceback (most recent call last):",
      "[rank1]:Traceback (most recent call last):",
      "[rank0]:  File \"/work/train.py\", line 88, in <module>",
      "[rank1]:  File \"/work/train.py\", line 88, in <module>",
      "[rank0]:    trainer.step()",
      "[rank1]: step 12 loss 2.5",  // a stray line of rank 1 does not end it
      "[rank1]:    trainer.step()",
      "[rank1]:    ^^^^^^^^^^^^^^",
      "[rank0]:torch.distributed.DistBackendError: [Rank 0] Watchdog caught collective operation "
      "timeout",
      "[rank1]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has "
      "a total capacity of 79.15 GiB of which 1.02 GiB is free.",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].line_no, 9);
  EXPECT_EQ(rows[0].rank, 0);
  EXPECT_EQ(rows[0].detail,
            "torch.distributed.DistBackendError: [Rank 0] Watchdog caught collective operation "
            "timeout");
  EXPECT_EQ(rows[1].line_no, 10);
  EXPECT_EQ(rows[1].rank, 1);
  EXPECT_EQ(rows[1].detail,
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a "
            "total capacity of 79.15 GiB of which 1.02 GiB is free.");
}

TEST(DistCrashTraceback, LocalRankTagsAreSeparateStreams) {
  // torchrun --tee: "[defaultN]:" names a local rank only; the two streams
  // still must not mix.
  const auto rows = Feed({
      "node-2: [default0]:Traceback (most recent call last):",
      "node-2: [default1]:Traceback (most recent call last):",
      "node-2: [default0]:  File \"/work/train.py\", line 5, in <module>",
      "node-2: [default1]:  File \"/work/train.py\", line 5, in <module>",
      "node-2: [default1]:KeyError: 'labels'",
      "node-2: [default0]:ValueError: bad batch",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].line_no, 5);
  EXPECT_EQ(rows[0].host, "node-2");
  EXPECT_EQ(rows[0].detail, "KeyError: 'labels'");
  EXPECT_EQ(rows[1].line_no, 6);
  EXPECT_EQ(rows[1].detail, "ValueError: bad batch");
}

TEST(DistCrashTraceback, HostAndRankComeFromTheLine) {
  const auto rows = Feed({
      "node-7: [rank5]: Traceback (most recent call last):",
      "node-7: [rank5]:   File \"/work/train.py\", line 5, in <module>",
      "node-7: [rank5]: AssertionError",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].host, "node-7");
  EXPECT_EQ(rows[0].rank, 5);
  EXPECT_EQ(rows[0].line_no, 3);
  EXPECT_EQ(rows[0].detail, "AssertionError");
}

TEST(DistCrashTraceback, AChainIsOneCrashThatKeepsItsFirstException) {
  const auto rows = Feed({
      "[rank3]:Traceback (most recent call last):",
      "[rank3]:  File \"/work/train.py\", line 40, in step",
      "[rank3]:    dist.all_reduce(t)",
      "[rank3]:torch.distributed.DistBackendError: [Rank 3] Watchdog caught collective operation "
      "timeout",
      "[rank3]:",
      "[rank3]:The above exception was the direct cause of the following exception:",
      "[rank3]:",
      "[rank3]:Traceback (most recent call last):",
      "[rank3]:  File \"/work/train.py\", line 90, in <module>",
      "[rank3]:RuntimeError: training step failed",
      "[rank3]: step 13",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line_no, 10);
  EXPECT_EQ(rows[0].rank, 3);
  EXPECT_EQ(rows[0].detail,
            "RuntimeError: training step failed (after: torch.distributed.DistBackendError: [Rank "
            "3] Watchdog caught collective operation timeout)");
}

TEST(DistCrashTraceback, DuringHandlingChain) {
  const auto rows = Feed({
      "Traceback (most recent call last):",
      "  File \"/work/data.py\", line 3, in load",
      "ValueError: x",
      "",
      "During handling of the above exception, another exception occurred:",
      "",
      "Traceback (most recent call last):",
      "  File \"/work/data.py\", line 5, in load",
      "KeyError: 'y'",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line_no, 9);
  EXPECT_EQ(rows[0].detail, "KeyError: 'y' (after: ValueError: x)");
}

TEST(DistCrashTraceback, NeverEndedGetsItsEventOnTheTracebackLine) {
  const auto rows = Feed({
      "[rank2]: step 1",
      "[rank2]:Traceback (most recent call last):",
      "[rank2]:  File \"/work/train.py\", line 88, in <module>",
      "[rank1]: step 2",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line_no, 2);
  EXPECT_EQ(rows[0].rank, 2);
  EXPECT_FALSE(rows[0].detail.has_value());
}

TEST(DistCrashTraceback, CutShortByTheStreamsOwnLines) {
  std::vector<std::string> lines = {"Traceback (most recent call last):",
                                    "  File \"/work/train.py\", line 88, in <module>"};
  for (int i = 0; i < 12; ++i) lines.push_back("step " + std::to_string(i) + " loss 1.0");
  lines.push_back("ValueError: later, unrelated");
  const auto rows = Feed(lines);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_FALSE(rows[0].detail.has_value());
}

TEST(DistCrashTraceback, AChildsOutputIndentedWhole) {
  // pip and setuptools indent the output of the build they ran: the
  // exception line is indented as much as the Traceback line, frames more.
  const auto rows = Feed({
      "  Running setup.py install for apex ... error",
      "    Traceback (most recent call last):",
      "      File \"<string>\", line 2, in <module>",
      "      File \"/tmp/pip-req-build-x/setup.py\", line 171, in <module>",
      "        check_cuda_torch_binary_vs_bare_metal(CUDA_HOME)",
      "    RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not "
      "match the version used to compile Pytorch binaries.",
      "    error: subprocess-exited-with-error",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line_no, 6);
  EXPECT_EQ(rows[0].detail.value_or("").substr(0, 44),
            "RuntimeError: Cuda extensions are being comp");
}

TEST(DistCrashTraceback, AnsiAndCarriageReturns) {
  const auto rows = Feed({
      "\x1b[31mTraceback (most recent call last):\x1b[0m",
      "  File \"/work/train.py\", line 1, in <module>\r",
      "\x1b[1;31mRuntimeError\x1b[0m: boom\r",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line_no, 3);
  EXPECT_EQ(rows[0].detail, "RuntimeError: boom");
}

TEST(DistCrashTraceback, DetailIsCappedAt512Bytes) {
  const std::string long_text(2000, 'x');
  const auto rows = Feed({"Traceback (most recent call last):", "  File \"a.py\", line 1, in f",
                          "RuntimeError: " + long_text});
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_TRUE(rows[0].detail.has_value());
  EXPECT_EQ(rows[0].detail->size(), 512u);
  EXPECT_EQ(rows[0].detail->substr(0, 16), "RuntimeError: xx");
}

TEST(DistCrashTraceback, AtMost256OpenAndAllStillReported) {
  std::vector<std::string> lines;
  for (int r = 0; r < 300; ++r) {
    lines.push_back("[rank" + std::to_string(r) + "]:Traceback (most recent call last):");
  }
  // Rank 0's was dropped as the oldest when rank 256's opened: this line is
  // no longer read as its exception.
  lines.push_back("[rank0]:RuntimeError: late");
  lines.push_back("[rank299]:RuntimeError: last");
  const auto rows = Feed(lines);
  ASSERT_EQ(rows.size(), 300u);
  for (size_t i = 0; i < 299; ++i) {
    EXPECT_EQ(rows[i].line_no, static_cast<int64_t>(i + 1));
    EXPECT_FALSE(rows[i].detail.has_value()) << i;
  }
  EXPECT_EQ(rows[299].line_no, 302);
  EXPECT_EQ(rows[299].detail, "RuntimeError: last");
}

TEST(DistCrashTraceback, AStreamSilentForLongIsClosed) {
  // A traceback whose stream says nothing for more than 10000 lines is
  // taken as cut: it is not left open for the rest of the file.
  std::vector<std::string> lines = {"[rank0]:Traceback (most recent call last):"};
  for (int i = 0; i < 11000; ++i) lines.push_back("[rank1]: step " + std::to_string(i));
  lines.push_back("[rank0]:RuntimeError: much later");
  const auto rows = Feed(lines);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_FALSE(rows[0].detail.has_value());
}

TEST(DistCrashTraceback, ExceptionLineShapes) {
  using crash::IsExceptionLine;
  EXPECT_TRUE(IsExceptionLine("RuntimeError: x"));
  EXPECT_TRUE(IsExceptionLine("torch.OutOfMemoryError: CUDA out of memory."));
  EXPECT_TRUE(IsExceptionLine("KeyboardInterrupt"));
  EXPECT_TRUE(IsExceptionLine("_queue.Empty"));
  EXPECT_TRUE(IsExceptionLine("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: failed"));
  EXPECT_TRUE(
      IsExceptionLine("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "));
  EXPECT_TRUE(IsExceptionLine("socket.gaierror: [Errno -3] Temporary failure in name resolution"));
  EXPECT_TRUE(IsExceptionLine("socket.timeout: timed out"));
  EXPECT_FALSE(IsExceptionLine("gaierror: x"));
  EXPECT_FALSE(IsExceptionLine("model.layers: 32"));
  EXPECT_FALSE(IsExceptionLine("INFO:root:loaded"));
  EXPECT_FALSE(IsExceptionLine("WARNING: x"));
  EXPECT_FALSE(IsExceptionLine("loss: 0.31"));
  EXPECT_FALSE(IsExceptionLine("main()"));
  EXPECT_FALSE(IsExceptionLine("x = 1"));
  EXPECT_FALSE(IsExceptionLine("2024-01-01 12:00:00"));
  EXPECT_FALSE(IsExceptionLine("Segmentation fault (core dumped)"));
  EXPECT_FALSE(IsExceptionLine(""));
}

TEST(DistCrashTraceback, LookAlikesOpenNothing) {
  const auto rows = Feed({
      "Traceback printing is enabled (faulthandler)",
      "  + Exception Group Traceback (most recent call last):",
      "Current thread 0x00007f (most recent call first):",
      "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/x.cpp:1 (most recent "
      "call first):",
      "Run Aborted by user request",
      "the segmentation fault handler is installed",
      "[rank0]: step 100 | loss 2.31",
  });
  for (const auto& r : rows) ADD_FAILURE() << r.line_no << ": " << r.detail.value_or("");
}

// --- fatal lines ----------------------------------------------------------------------

TEST(DistCrashFatal, TerminateThenWhatThenAbort) {
  const auto rows = Feed({
      "[rank0]:terminate called after throwing an instance of 'c10::DistBackendError'",
      "[rank1]: step 5",
      "[rank0]:  what():  [PG ID 1 PG GUID 1 Rank 0] Process group watchdog thread terminated "
      "with exception: [Rank 0] Watchdog caught collective operation timeout",
      "[rank0]:Exception raised from ncclCommWatchdog at ../torch/csrc/x.cpp:1 (most recent call "
      "first):",
      "Aborted (core dumped)",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].line_no, 3);
  EXPECT_EQ(rows[0].rank, 0);
  EXPECT_EQ(rows[0].detail,
            "c10::DistBackendError: [PG ID 1 PG GUID 1 Rank 0] Process group watchdog thread "
            "terminated with exception: [Rank 0] Watchdog caught collective operation timeout");
  EXPECT_EQ(rows[1].line_no, 5);
  EXPECT_FALSE(rows[1].rank.has_value());
  EXPECT_EQ(rows[1].detail,
            "Aborted (core dumped) after: c10::DistBackendError: [PG ID 1 PG GUID 1 Rank 0] "
            "Process group watchdog thread terminated with exception: [Rank 0] Watchdog caught "
            "collective operation timeout");
}

TEST(DistCrashFatal, TerminateWithoutWhat) {
  const auto rows = Feed({
      "terminate called after throwing an instance of 'std::bad_alloc'",
      "some other line",
      "terminate called without an active exception",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_EQ(rows[0].detail, "std::bad_alloc");
  EXPECT_EQ(rows[1].line_no, 3);
  EXPECT_EQ(rows[1].detail, "terminate called without an active exception");
}

TEST(DistCrashFatal, SignalsAndShellReports) {
  const auto rows = Feed({
      "*** SIGSEGV (@0x0) received by PID 4242 (TID 0x7f3a) from PID 0; stack trace: ***",
      "Fatal Python error: Segmentation fault",
      "[node-4:5555:0:5560] Caught signal 11 (Segmentation fault: address not mapped to object "
      "at address 0x8)",
      "bash: line 1:   777 Segmentation fault      (core dumped) python train.py",
      "Segmentation fault",
  });
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].detail, "SIGSEGV (@0x0) received by PID 4242");
  EXPECT_EQ(rows[1].detail, "Fatal Python error: Segmentation fault");
  EXPECT_EQ(rows[2].detail,
            "Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8)");
  EXPECT_EQ(rows[3].detail, "Segmentation fault (core dumped)");
  EXPECT_EQ(rows[4].detail, "Segmentation fault");
}

TEST(DistCrashFatal, AnAbortWithNothingBeforeIt) {
  const auto rows = Feed({"step 1", "Aborted"});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line_no, 2);
  EXPECT_EQ(rows[0].detail, "Aborted");
}

TEST(DistCrashFatal, AtMost64PerRank) {
  std::vector<std::string> lines;
  for (int i = 0; i < 70; ++i) lines.push_back("[rank1]:Fatal Python error: Segmentation fault");
  lines.push_back("[rank2]:Fatal Python error: Segmentation fault");
  const auto rows = Feed(lines);
  ASSERT_EQ(rows.size(), 65u);
  EXPECT_EQ(rows[63].rank, 1);
  EXPECT_EQ(rows[63].line_no, 64);
  EXPECT_EQ(rows[64].rank, 2);
  EXPECT_EQ(rows[64].line_no, 71);
}

}  // namespace
}  // namespace casefile::dist
