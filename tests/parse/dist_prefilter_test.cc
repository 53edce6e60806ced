// The anchor prefilter of the distributed-run families (parse/dist/
// dist_prefilter.h): every literal a family's readers require holds that
// family's anchor (no event can be lost), the frequent lines of real logs
// hold none, every vector scan this machine runs agrees with the byte loop,
// and a family with a multi-line message open still reads the lines that
// follow, anchors or not. The literals are the ones the readers search for
// (lib/parse/dist/*.cc), written out here by hand.
#include "parse/dist/dist_prefilter.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "parse/dist/dist_extractor.h"
#include "parse/dist/dist_kinds.h"
#include "parse/line/line_prefix.h"

namespace casefile::dist {
namespace {

struct Required {
  uint32_t bits;  // the line must hold one of these
  const char* literal;
};

// What each reader searches for before it accepts a line, in the spelling
// the logs use; the anchor bit the family is gated on must be in each.
const Required kRequired[] = {
    // torch_watchdog*.cc
    {kAnchorWatchdog, "Watchdog caught collective operation timeout"},
    {kAnchorWatchdog, "ProcessGroupNCCL's watchdog got stuck for 480 seconds"},
    {kAnchorWatchdog, "detected no heartbeat of its watchdog"},
    {kAnchorEnqueued, "last enqueued NCCL work: 12"},
    {kAnchorEnqueued, "Last enqueued NCCL work: 12"},
    {kAnchorFail, "Some NCCL operations have failed or timed out."},
    {kAnchorTimeout, "Heartbeat monitor timed out!"},
    {kAnchorTimeout, "wait timeout after 300000ms, keys: /a"},
    {kAnchorTimeout, "Timed out after 901 seconds waiting for clients."},
    {kAnchorTimeout, "Timed out initializing process group in store based barrier"},
    {kAnchorTimeout, "Timeout waiting for key: default_pg/0/0 after 1800000 ms"},
    {kAnchorTimeout, "The client socket has timed out after 1800s"},
    {kAnchorTimeout, "connect() timed out. Original timeout was 60000 ms."},
    {kAnchorTimeout, "DistStoreError: Socket Timeout"},
    {kAnchorTimeout, "RendezvousTimeoutError"},
    {kAnchorTimeout, "timed out waiting for the store"},
    {kAnchorNcclError, "NCCL error in: ProcessGroupNCCL.cpp:1691, unhandled system error"},
    {kAnchorNcclError, "NCCL error: remote process exited"},
    {kAnchorNcclError | kAnchorCuda, "ncclUnhandledCudaError: Call to CUDA function failed."},
    {kAnchorNcclError, "ncclSystemError: System call (e.g. socket) failed"},
    {kAnchorNcclError, "ncclInternalError: Internal check failed."},
    {kAnchorNcclError, "ncclInvalidArgument: Invalid value"},
    {kAnchorNcclError, "ncclInvalidUsage: This usually reflects invalid usage"},
    {kAnchorNcclError, "ncclInProgress: operation in progress"},
    {kAnchorNcclError, "ncclRemoteError: A call failed possibly due to a network error"},
    {kAnchorCuda, "CUDA error: an illegal memory access was encountered"},
    {kAnchorCuda, "cuda runtime error (59) : device-side assert triggered"},
    {kAnchorCuda, "Cuda failure 'an illegal memory access'"},
    {kAnchorCuda, "cudaErrorLaunchFailure"},
    {kAnchorCuda, "CUDA kernel errors might be asynchronously reported"},
    // torch_watchdog_wrap.cc: a message cut at the end of its line.
    {kAnchorWatchdog, "[Rank 0] Watchdog caught"},
    {kAnchorWorkNccl, "Collective WorkNCCL(SeqNum=2, OpType=ALLRE"},
    {kAnchorWorkNccl, "Work WorkNCCL("},
    // crash_lines.cc, crash_traceback.cc
    {kAnchorCrash, "Traceback (most recent call last):"},
    {kAnchorCrash, "Exception ignored in: <function X.__del__ at 0x7f>"},
    {kAnchorCrash, "Exception in thread NetStatThr:"},
    {kAnchorExit, "[default] worker group successfully finished. Waiting 300 seconds"},
    {kAnchorExit, "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 s"},
    {kAnchorCrash, "Fatal Python error: Segmentation fault"},
    {kAnchorCrash, "Segmentation fault (core dumped)"},
    {kAnchorCrash, "*** SIGSEGV (@0x0) received by PID 1234"},
    {kAnchorCrash, "Caught signal 11 (Segmentation fault: address not mapped)"},
    {kAnchorCrash, "terminate called after throwing an instance of 'c10::Error'"},
    {kAnchorCrash, "  what():  CUDA error: out of memory"},
    {kAnchorCrash, "line 1: 4321 Aborted                 (core dumped) python train.py"},
    // launcher_*.cc
    {kAnchorExit, "failed (exitcode: -9) local_rank: 3 (pid: 1322) of binary: python"},
    {kAnchorExit, "exits with return code = -6"},
    {kAnchorExit | kAnchorTask, "srun: error: node-7: task 12: Exited with exit code 1"},
    {kAnchorTask, "srun: error: node-7: tasks 0-3,5: Killed"},
    {kAnchorExit | kAnchorRank, "process rank 3 with PID 1234 on node n2 exited on signal 9"},
    {kAnchorRank, "job rank 3 with PID 1234 on node n2"},
    {kAnchorRank, "MPI_ABORT was invoked on rank 3 in communicator MPI_COMM_WORLD"},
    {kAnchorExit, "mpirun has exited due to process rank 0 with PID 0"},
    {kAnchorExit, "one or more processes exited with non-zero status"},
    {kAnchorFail, "Failures:"},
    {kAnchorFail, "Root Cause (first observed failure):"},
    // jax_coordination.cc: the words its hint looks for.
    {kAnchorJax, "Terminating process because the JAX distributed service detected fatal errors"},
    {kAnchorJax, "Barrier timed out. Id: 1"},
    {kAnchorJax, "Shutdown barrier has failed."},
    {kAnchorJax, "Task /job:jax_worker/replica:0/task:3 heartbeat timeout."},
    {kAnchorJax, "Heartbeat: Incarnation ID mismatch"},
    {kAnchorJax, "has been set to ERROR in coordination service"},
    {kAnchorJax, "/tensorflow.CoordinationService/PollForError"},
    // program_progress.cc
    {kAnchorLaunch, "launch_id=13650"},
    {kAnchorLaunch, "Launch ID: 193"},
    // rank_host.cc
    {kAnchorNranks, "comm 0x55d0 rank 12 nranks 16 cudaDev 4"},
    // build_lines.cc (it reads kAnchorBuild | kAnchorCuda | kAnchorFail | kAnchorExit)
    {kAnchorBuild, "RuntimeError: Error building extension 'fused_adam'"},
    {kAnchorFail, "ninja: build stopped: subcommand failed."},
    {kAnchorExit, "Command '['ninja', '-v']' returned non-zero exit status 1."},
    {kAnchorFail | kAnchorExit, "error: command '/usr/bin/gcc' failed with exit code 1"},
    {kAnchorFail, "ERROR: Failed building wheel for flash-attn"},
    {kAnchorCuda, "Installed CUDA version 11.8 does not match the version torch was compiled"},
    {kAnchorCuda, "The detected CUDA version (11.8) mismatches the version that was used"},
    {kAnchorBuild, "#error -- unsupported GNU version! gcc versions later than 11"},
    {kAnchorBuild, "#error -- unsupported clang version! clang version must be less than 16"},
    {kAnchorBuild, "nvcc fatal   : Unsupported gpu architecture 'compute_90'"},
    {kAnchorCuda, "NVIDIA H100 with CUDA capability sm_90 is not compatible with the current"},
    {kAnchorCuda, "The detected CUDA version (12.2) has a minor version mismatch with the"},
    {kAnchorCuda, "Cuda extensions are being compiled with a version of Cuda that does not"},
    {kAnchorBuild, "RuntimeError: Error compiling objects for extension"},
    {kAnchorBuild, "RuntimeError: Ninja is required to load C++ extensions"},
    {kAnchorCuda, "OSError: CUDA_HOME environment variable is not set."},
    {kAnchorCuda, "CUDA_HOME does not exist, unable to compile CUDA op(s)"},
    {kAnchorFail, "error: command 'g++' failed: No such file or directory"},
    {kAnchorFail, "Failed to build `flash-attn==2.5.8`"},
    {kAnchorFail, "Failed to download and build `flash-attn==2.6.3`"},
    {kAnchorCuda, "Found GPU0 GeForce GTX 770 which is of cuda capability 3.0."},
};

TEST(DistPrefilter, EveryReaderLiteralHoldsItsAnchor) {
  for (const Required& r : kRequired) {
    const uint32_t bits = ScanAnchors(r.literal);
    EXPECT_NE(bits & r.bits, 0u) << r.literal;
    // Also inside a longer line, after wrappers left in front.
    const std::string wrapped = std::string("[rank3]: 12:00:01 x ") + r.literal + " (end)";
    EXPECT_NE(ScanAnchors(wrapped) & r.bits, 0u) << wrapped;
  }
}

// The literals of the comm family (comm_rendezvous.cc, comm_gpu_test.cc,
// comm_lines.cc): it reads kAnchorRendezvous | kAnchorGpuTest |
// kAnchorNcclError | kAnchorCuda | kAnchorFail and the kLineNccl fact.
TEST(DistPrefilter, CommReaderLiteralsHoldTheirAnchors) {
  constexpr uint32_t kComm = kAnchorRendezvous | kAnchorGpuTest | kAnchorNcclError | kAnchorCuda |
                             kAnchorFail | kAnchorTimeout;
  for (const char* s : {
           "The client socket has failed to connect to [node-0]:29500",
           "client socket has failed to connect to any network address of (node-0, 29500)",
           "The client socket has timed out after 1800s while trying to connect to",
           "The server socket has failed to listen on any local network address.",
           "The server socket has failed to bind to [::]:29500",
           "connect() to [node-0]:29500 failed: Connection refused",
           "RuntimeError: Connection refused",
           "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError",
           "RendezvousClosedError",
           "RendezvousConnectionError: The connection to the C10d store has failed.",
           "sendBytes failed on SocketImpl(fd=50): Connection reset by peer",
           "Failed to recv, got 0 bytes. Connection was likely closed.",
           "DistNetworkError: Connection reset by peer",
           "[../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer "
           "[10.0.0.2]:12345",
           "[gpu-node-1-0] is OK (global rank: 0/4)",
           "[gpu-node-1-2] is broken",
           "pt=2.3.1+cu121, cuda=12.1, nccl=(2, 20, 5)",
           "NCCL error in: ProcessGroupNCCL.cpp:1691, unhandled system error",
           "ncclSystemError: System call (e.g. socket, malloc) failed",
           "ncclRemoteError: A call failed possibly due to a network error",
           "ncclUnhandledCudaError: Call to CUDA function failed.",
       }) {
    EXPECT_NE(ScanAnchors(s) & kComm, 0u) << s;
    const std::string wrapped = std::string("[rank3]: 12:00:01 x ") + s + " (end)";
    EXPECT_NE(ScanAnchors(wrapped) & kComm, 0u) << wrapped;
  }
}

TEST(DistPrefilter, NcclLinesCarryTheNcclFact) {
  TimeContext tc;
  for (const char* s : {
           "node-0:1234:1300 [0] NCCL INFO Using network IB",
           "node-0:1234:1300 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: failed",
           "[2025-03-12 10:11:12] node-0:1234:1300 [0] init.cc:1521 NCCL WARN Duplicate GPU",
           "NCCL version 2.19.3+cuda12.3",
           "[rank0]:NCCL version 2.19.3+cuda12.3",
       }) {
    const LinePrefix p = ParseLinePrefix(s, tc);
    LineRecord rec;
    rec.text = s;
    rec.msg_start = p.msg_start;
    rec.host = p.host;
    rec.rank = p.rank;
    rec.level = p.level;
    EXPECT_NE(LineAnchors(rec) & kLineNccl, 0u) << s;
  }
  LineRecord user;
  user.text = "print: NCCL version is fine";
  EXPECT_EQ(LineAnchors(user) & kLineNccl, 0u);
}

TEST(DistPrefilter, StepFormsHoldBothWords) {
  // The forms step_forms.h reads: each has a time word and a step word.
  for (const char* s : {
           "step 120 | step_time=0.41s",
           "Step 120: time_per_step: 0.41",
           "iteration 10/500000 | elapsed time per iteration (ms): 4567.8",
           "global_step=119.0 train_step_timing in s=0.41",
           "step 120 (0.41 s/step)",
           "step 120, 412ms/step",
           "step 120 took 0.41s",
           "step 120 seconds: 0.412",
           "step 12 secs 3",
           "ITER 5 ms_per_step=3",
           "Iter(train) [120/1000] time: 0.41",
           "450/1000 [10:01<12:14,  1.34s/it]",
           "Epoch 3:  45%|####5     | 450/1000 [10:01<12:14,  2.95it/s]",
       }) {
    const uint32_t bits = ScanAnchors(s);
    EXPECT_EQ(bits & (kAnchorTimeWord | kAnchorStepWord), kAnchorTimeWord | kAnchorStepWord) << s;
  }
  // A step/loss line without a time is not a step time.
  EXPECT_EQ(
      ScanAnchors("step 120 loss=2.5000 grad_norm=2.021 lr=3.0e-4 optimizer") & kAnchorTimeWord,
      0u);
}

TEST(DistPrefilter, FrequentLinesHoldNoFamilyAnchor) {
  // NCCL INFO lines, step/loss lines and glog messages: no family but the
  // step family (its step word) may read them.
  for (const char* s : {
           "NCCL INFO Channel 03/0 : 484[7] -> 403[0] via NET/IB/1/GDRDMA",
           "NCCL INFO Connected all rings",
           "NCCL INFO Using network IB",
           "step 120 loss=2.5000 grad_norm=2.021 lr=3.0e-4",
           "cache backward host compile layer optimizer all-reduce checkpoint gradient",
           "device stream fusion bucket shard miss tensor attention forward",
           "Loading checkpoint shards: 100%",
       }) {
    EXPECT_EQ(ScanAnchors(s) & ~kAnchorStepWord, 0u) << s;
  }
}

TEST(DistPrefilter, LettersMatchInEitherCaseOtherBytesExactly) {
  EXPECT_NE(ScanAnchors("WATCHDOG") & kAnchorWatchdog, 0u);
  EXPECT_NE(ScanAnchors("Dog") & kAnchorWatchdog, 0u);
  EXPECT_EQ(ScanAnchors("do g"), 0u);
  // "* s" needs the blank; "():" the colon; '/' is not a letter to fold.
  EXPECT_EQ(ScanAnchors("*_s") & kAnchorCrash, 0u);
  EXPECT_EQ(ScanAnchors("()") & kAnchorCrash, 0u);
  EXPECT_NE(ScanAnchors("*** SIGABRT") & kAnchorCrash, 0u);
  EXPECT_EQ(ScanAnchors("\x0f"
                        "st"),
            0u);
  // Bytes >= 0x80 match nothing, even when their low 7 bits would.
  EXPECT_EQ(ScanAnchors("\xe4og d\xefg"), 0u);
}

TEST(DistPrefilter, GroupHeadsCutAtTheEndOfALine) {
  // Cut before any anchor of the watchdog message: inside or right after
  // the group bracket, or inside the first word after it.
  for (const char* s : {
           "[Rank 0] Watch",
           "[Rank 0] W",
           "[Rank 12]",
           "[Rank 12]   ",
           "[Rank 1",
           "[Ra",
           "[R",
           "[PG 1 Rank 0] Watchd",
           "[PG ID 0 PG GUID 0(default_pg) Rank 12] Collective WorkNC",
           "[PG ID 0 PG GU",
           "[P",
           "step 5 done [Rank 3] Watc \r",
       }) {
    EXPECT_TRUE(EndsInGroupHead(s)) << s;
  }
  for (const char* s : {
           "[Rank 0] Watchdog caught collective operation timeout",  // anchored ("dog")
           "[Rank 0] step 5",
           "[Rank x]",
           "[rank0]",
           "[PG 1] Watch",
           "[",
           "Channel 03/0 : 484[7] -> 403[0] via NET/IB/1/GDRDMA",
           "Epoch 3:  45%|####5     | 450/1000 [10:01<12:14,  2.95it/s]",
           "{'a': [",
           "",
       }) {
    EXPECT_FALSE(EndsInGroupHead(s)) << s;
  }
  // Only the last kHeadWindow bytes are looked at.
  EXPECT_FALSE(EndsInGroupHead("[Rank 0] " + std::string(kHeadWindow, 'W')));
}

TEST(DistPrefilter, LineAnchorsAddWrapperFacts) {
  LineRecord line;
  line.text = "node-3: [rank12]: hello";
  line.msg_start = 18;
  EXPECT_EQ(LineAnchors(line), 0u);
  line.host = "node-3";
  EXPECT_EQ(LineAnchors(line), 0u);
  line.rank = 12;
  EXPECT_EQ(LineAnchors(line), static_cast<uint32_t>(kLineHostRank));
  // Only the message is scanned: a wrapper that looks like an anchor is not.
  line.text = "watchdog: hello";
  line.msg_start = 10;
  EXPECT_EQ(LineAnchors(line), static_cast<uint32_t>(kLineHostRank));
  // A cut group head counts on warning and error lines only (the watchdog
  // logs with LOG(ERROR); the frequent lines skip the test).
  LineRecord head;
  head.text = "[Rank 0] Watch";
  EXPECT_EQ(LineAnchors(head), 0u);
  head.level = Level::kInfo;
  EXPECT_EQ(LineAnchors(head), 0u);
  head.level = Level::kError;
  EXPECT_EQ(LineAnchors(head), static_cast<uint32_t>(kLineOpenHead));
  head.level = Level::kWarning;
  EXPECT_EQ(LineAnchors(head), static_cast<uint32_t>(kLineOpenHead));
}

// Every scan this machine runs, checked against the byte loop.
void ExpectScansAgree(std::string_view s) {
  const uint32_t want = ScanAnchorsScalar(s);
  for (const AnchorScan& scan : AnchorScans()) {
    ASSERT_EQ(scan.scan(s), want) << scan.name << " on \"" << s << "\" (" << s.size() << ")";
  }
}

TEST(DistPrefilter, ScansHaveAScalarTwin) {
  const auto scans = AnchorScans();
  ASSERT_FALSE(scans.empty());
  EXPECT_STREQ(scans.back().name, "scalar");
}

TEST(DistPrefilter, EveryGramAtEveryPositionAndLength) {
  // Lengths across the window edges of every vector width (16, 32 and 64
  // bytes, each reading 3 bytes ahead), the gram at every position, in both
  // cases; the filler forms no gram, so the bits are the gram's own. One
  // byte short of the gram is no gram.
  for (const AnchorGram& g : kAnchorGrams) {
    const uint32_t want = ScanAnchorsScalar(g.pattern);
    ASSERT_EQ(want & g.bits, g.bits) << g.pattern;
    const std::string_view cut = g.pattern.substr(0, g.pattern.size() - 1);
    const uint32_t want_cut = ScanAnchorsScalar(cut);
    std::string upper(g.pattern);
    for (char& c : upper) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    }
    for (size_t len = g.pattern.size(); len <= 140; ++len) {
      if (len > 72 && len < 124) continue;
      for (size_t at = 0; at + g.pattern.size() <= len; ++at) {
        std::string s(len, '.'), t(len, '.'), u(len, '.');
        s.replace(at, g.pattern.size(), g.pattern);
        t.replace(at, upper.size(), upper);
        u.replace(at, cut.size(), cut);
        for (const AnchorScan& scan : AnchorScans()) {
          if (std::string_view(scan.name) == "scalar" && at % 7 != 0) continue;
          ASSERT_EQ(scan.scan(s), want) << scan.name << ": " << s;
          ASSERT_EQ(scan.scan(t), want) << scan.name << ": " << t;
          ASSERT_EQ(scan.scan(u), want_cut) << scan.name << ": " << u;
        }
      }
    }
  }
}

TEST(DistPrefilter, ScansAgreeOnRandomText) {
  std::mt19937 rng(11);
  // The bytes of the grams in both cases, and bytes that must match nothing.
  std::string alphabet = " ./_:()*\x80\xff\x01";
  for (const AnchorGram& g : kAnchorGrams) {
    for (char c : g.pattern) {
      alphabet.push_back(c);
      if (c >= 'a' && c <= 'z') alphabet.push_back(static_cast<char>(c - 32));
    }
  }
  for (int round = 0; round < 30000; ++round) {
    std::string s(rng() % 200, ' ');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    ExpectScansAgree(s);
  }
}

TEST(DistPrefilter, ReadsOnlyTheView) {
  // Grams just past the end or just before the start are not seen.
  const std::string buffer = "dog" + std::string(200, '.') + "nqu";
  for (size_t len = 0; len <= 200; ++len) {
    const std::string_view view = std::string_view(buffer).substr(3, len);
    for (const AnchorScan& scan : AnchorScans()) {
      EXPECT_EQ(scan.scan(view), 0u) << scan.name << " " << len;
    }
    const std::string_view tail = std::string_view(buffer).substr(203 - len, len);
    for (const AnchorScan& scan : AnchorScans()) {
      EXPECT_EQ(scan.scan(tail), 0u) << scan.name << " " << len;
    }
  }
}

// Lines through DistExtractor as ingest feeds them.
std::vector<DistEventRow> Extract(const std::vector<std::string>& lines) {
  std::vector<DistEventRow> rows;
  DistExtractor ex(3, [&rows](const DistEventRow& r) { rows.push_back(r); });
  int64_t n = 0;
  for (const std::string& text : lines) {
    const LinePrefix p = ParseLinePrefix(text, TimeContext{2024});
    LineRecord rec;
    rec.file_id = 3;
    rec.line_no = ++n;
    rec.ts_us = p.ts_us;
    rec.level = p.level;
    rec.rank = p.rank;
    rec.local_rank = p.local_rank;
    rec.host = p.host;
    rec.pid = p.pid;
    rec.msg_start = p.msg_start;
    rec.text = text;
    ex.AddLine(rec);
  }
  ex.Finish();
  return rows;
}

TEST(DistPrefilter, OpenMessagesReadLinesWithoutAnchors) {
  // The traceback's inner lines and its exception line hold no anchor; the
  // task list's names neither; the torchrun entry's fields neither.
  const auto rows = Extract({
      "Traceback (most recent call last):",
      "  File \"train.py\", line 3, in <module>",
      "    main()",
      "ValueError: bad shape",
      "The following tasks are unhealthy (stopped sending heartbeats):",
      "/job:jax_worker/replica:0/task:5",
      "Root Cause (first observed failure):",
      "[0]:",
      "  time      : 2024-05-19_16:39:58",
      "  host      : node-3",
      "  rank      : 12 (local_rank: 4)",
      "  exitcode  : -9 (pid: 1322)",
      "  error_file: <N/A>",
      "  traceback : Signal 9 (SIGKILL) received by PID 1322",
      "============================================================",
  });
  int crash = 0, jax = 0, launcher = 0;
  for (const DistEventRow& r : rows) {
    if (r.kind == kCrash) {
      ++crash;
      EXPECT_EQ(r.line_no, 4);
      EXPECT_EQ(r.detail.value_or(""), "ValueError: bad shape");
    } else if (r.kind == kJaxCoordination && r.seq) {
      ++jax;
      EXPECT_EQ(r.line_no, 6);
      EXPECT_EQ(*r.seq, 5);
    } else if (r.kind == kLauncherFailure) {
      ++launcher;
      EXPECT_EQ(r.line_no, 12);
      EXPECT_EQ(r.rank.value_or(-1), 12);
      EXPECT_EQ(r.value.value_or(0), -9);
    }
  }
  EXPECT_EQ(crash, 1);
  EXPECT_EQ(jax, 1);
  EXPECT_EQ(launcher, 1);
}

TEST(DistPrefilter, ExtractorRunsEveryFamilyOnItsLines) {
  const auto rows = Extract({
      "node-3: [rank12]: step 7 loss 2.0 step_time=0.41s",
      "node-3: [rank12]: NCCL INFO Channel 03/0 : 4[7] -> 3[0] via NET/IB/1/GDRDMA",
      "node-3: [rank12]: [PG 0 Rank 12] Watchdog caught collective operation timeout: "
      "WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, Timeout(ms)=600000) ran for "
      "600100 milliseconds before timing out.",
  });
  int step = 0, watchdog = 0, rank_host = 0;
  for (const DistEventRow& r : rows) {
    if (r.kind == kStepTime) {
      ++step;
      EXPECT_EQ(r.seq.value_or(-1), 7);
      EXPECT_DOUBLE_EQ(r.value.value_or(0), 0.41);
    } else if (r.kind == kWatchdogTimeout) {
      ++watchdog;
      EXPECT_EQ(r.seq.value_or(-1), 5);
      EXPECT_EQ(r.line_no, 3);
    } else if (r.kind == kRankHost) {
      ++rank_host;
      EXPECT_EQ(r.host.value_or(""), "node-3");
      EXPECT_EQ(r.rank.value_or(-1), 12);
    }
  }
  EXPECT_EQ(step, 1);
  EXPECT_EQ(watchdog, 1);
  // One pair per file, however many lines name it.
  EXPECT_EQ(rank_host, 1);
}

TEST(DistPrefilter, RowsCarryTheLocalRankOfTheirLine) {
  // torchrun --tee: "[default<k>]:" names the rank within the host only.
  const auto rows = Extract({
      "[default2]:Traceback (most recent call last):",
      "[default2]:  File \"train.py\", line 88, in <module>",
      "[default2]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 "
      "has a total capacity of 79.33 GiB of which 1.06 GiB is free.",
      "[rank5]:[E1218 20:27:21.486305774 ProcessGroupNCCL.cpp:632] [Rank 5] Watchdog caught "
      "collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, "
      "Timeout(ms)=600000) ran for 600100 milliseconds before timing out.",
  });
  int crash = 0, watchdog = 0;
  for (const DistEventRow& r : rows) {
    if (r.kind == kCrash) {
      ++crash;
      EXPECT_EQ(r.line_no, 3);
      EXPECT_EQ(r.local_rank, 2);
      EXPECT_FALSE(r.rank.has_value());
    } else if (r.kind == kWatchdogTimeout) {
      ++watchdog;
      EXPECT_EQ(r.rank, 5);
      EXPECT_FALSE(r.local_rank.has_value());
    }
  }
  EXPECT_EQ(crash, 1);
  EXPECT_EQ(watchdog, 1);
}

TEST(DistPrefilter, AWrappedHeadIsJoinedThroughTheExtractor) {
  // The first line holds no anchor at all; the extractor still gives it to
  // the torch family, which reads it with its continuation.
  const auto rows = Extract({
      "[rank0]:[E1218 20:27:21.486305774 ProcessGroupNCCL.cpp:632] [Rank 0] Watch",
      "dog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, "
      "NumelIn=131072000, NumelOut=131072000, Timeout(ms)=600000) ran for 600081 milliseconds "
      "before timing out.",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, std::string(kWatchdogTimeout));
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_EQ(rows[0].rank, 0);
  EXPECT_EQ(rows[0].op, "BROADCAST");
  EXPECT_EQ(rows[0].elapsed_ms, 600081);
}

}  // namespace
}  // namespace casefile::dist
