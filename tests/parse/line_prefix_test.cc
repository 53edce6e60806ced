// Expected times were computed with `date -u -d '<date> UTC' +%s`; every other
// expected value is read off the format descriptions in
// shared/reference/formats.md and real-logs.md.
#include "parse/line/line_prefix.h"

#include <gtest/gtest.h>

#include <string>

namespace casefile {
namespace {

constexpr int64_t kUs = 1000000;

LinePrefix Parse(std::string_view line, int year = 2025) {
  return ParseLinePrefix(line, TimeContext{year});
}

std::string_view Msg(std::string_view line, const LinePrefix& p) {
  return line.substr(p.msg_start);
}

void ExpectNoWrapper(std::string_view line) {
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.msg_start, 0u) << line;
  EXPECT_EQ(p.wrappers, 0u) << line;
  EXPECT_EQ(p.ts_us, kNoTimestamp) << line;
  EXPECT_EQ(p.level, Level::kUnknown) << line;
  EXPECT_EQ(p.rank, -1) << line;
  EXPECT_EQ(p.local_rank, -1) << line;
  EXPECT_EQ(p.pid, -1) << line;
  EXPECT_TRUE(p.host.empty()) << line;
}

// --- No wrapper -------------------------------------------------------------

TEST(LinePrefix, PlainLinesHaveNoWrapper) {
  ExpectNoWrapper("");
  ExpectNoWrapper("Traceback (most recent call last):");
  ExpectNoWrapper("  File \"/x/train.py\", line 12, in <module>");
  ExpectNoWrapper("terminate called after throwing an instance of 'c10::DistBackendError'");
  ExpectNoWrapper("NCCL version 2.19.3+cuda12.3");
}

TEST(LinePrefix, LookAlikesAreNotStripped) {
  ExpectNoWrapper("Error: file not found");
  ExpectNoWrapper("INFO: started");
  ExpectNoWrapper("Traceback: none");
  ExpectNoWrapper("INFO started");  // a bare level word counts only after a time
  ExpectNoWrapper("train.py: error: unrecognized arguments: --foo");
  ExpectNoWrapper("torch.distributed.run: something");
  ExpectNoWrapper("model_v2: loaded");
  ExpectNoWrapper("python3: can't open file '/x/train.py': [Errno 2] No such file or directory");
  ExpectNoWrapper("collect2: error: ld returned 1 exit status");
  ExpectNoWrapper("cc1plus: warning: command-line option '-Wno-x' is valid for C only");
  ExpectNoWrapper("gcc-12: error: unrecognized command-line option");
  ExpectNoWrapper("slurmstepd-gpu017: error: Detected 1 oom-kill event(s)");
  ExpectNoWrapper("[Rank 0] Watchdog caught collective operation timeout");
  ExpectNoWrapper("[PG ID 1 PG GUID 1 Rank 2] Process group watchdog thread terminated");
  ExpectNoWrapper("[c10d] The client socket has failed to connect");
  ExpectNoWrapper("[W socket.cpp] no line number");
  ExpectNoWrapper("[1234]x no space");
  ExpectNoWrapper("[10m] waited");
  ExpectNoWrapper("12:34:56 hello");
  ExpectNoWrapper("2024-05-01 hello");
  ExpectNoWrapper("2024-05-01T12:00:00Zjunk");
  ExpectNoWrapper("E1234 foo");
  ExpectNoWrapper("(see above) for details");
  ExpectNoWrapper("(raylet) no pid nor ip");
  ExpectNoWrapper("(autoscaler +1m30s) Resized to 8 CPUs.");
  ExpectNoWrapper("[E1218]: not a role");
  ExpectNoWrapper("[0]:");
  ExpectNoWrapper("100 steps done");
  ExpectNoWrapper("Map: 100%|##########| 10/10 [00:05<00:00, 155.57 examples/s]");
  ExpectNoWrapper("host:123:456 no device and no NCCL");
  ExpectNoWrapper("Foo 29 09:21:26 host kernel: x");
}

// --- Each wrapper alone -----------------------------------------------------

TEST(LinePrefix, CloudExportTable) {
  const std::string_view line = "  | 2024-05-01T12:00:00.000Z | Starting training";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapCloudExport);
  EXPECT_EQ(p.ts_us, 1714564800 * kUs);
  EXPECT_EQ(Msg(line, p), "Starting training");
}

TEST(LinePrefix, CloudExportSeverityAndLabels) {
  const std::string_view line =
      "ERROR 2024-05-01T12:00:00Z [resource.labels.instance_id=1234567] RuntimeError: boom";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapCloudExport);
  EXPECT_EQ(p.level, Level::kError);
  EXPECT_EQ(p.ts_us, 1714564800 * kUs);
  EXPECT_EQ(Msg(line, p), "RuntimeError: boom");
}

TEST(LinePrefix, ViewerLineNumber) {
  const std::string_view line = "[80746] hello";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapViewerLineNo);
  EXPECT_EQ(p.rank, -1);
  EXPECT_EQ(Msg(line, p), "hello");
}

TEST(LinePrefix, SrunLabel) {
  LinePrefix p = Parse("1: hello");
  EXPECT_EQ(p.wrappers, kWrapSrunLabel);
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.msg_start, 3u);
  p = Parse("  12: hello");
  EXPECT_EQ(p.rank, 12);
  EXPECT_EQ(p.msg_start, 6u);
}

TEST(LinePrefix, Mpirun) {
  std::string_view line = "[1,0]<stdout>:hello";
  LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapMpirun);
  EXPECT_EQ(p.rank, 0);
  EXPECT_EQ(Msg(line, p), "hello");
  line = "[1,3]<stderr>:Traceback (most recent call last):";
  p = Parse(line);
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(Msg(line, p), "Traceback (most recent call last):");
}

TEST(LinePrefix, PdshHost) {
  for (std::string_view host : {"node-12", "gpu017", "10.0.0.1", "a1.cluster.local"}) {
    const std::string line = std::string(host) + ": hello";
    const LinePrefix p = Parse(line);
    EXPECT_EQ(p.wrappers, kWrapPdshHost) << line;
    EXPECT_EQ(p.host, host);
    EXPECT_EQ(Msg(line, p), "hello");
  }
}

TEST(LinePrefix, Ray) {
  std::string_view line = "(RayWorkerWrapper pid=3490362) INFO 1 x";
  LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapRay);
  EXPECT_EQ(p.pid, 3490362);
  EXPECT_EQ(Msg(line, p), "INFO 1 x");

  line = "(WorkerDict pid=12, ip=10.0.0.1) hello";
  p = Parse(line);
  EXPECT_EQ(p.pid, 12);
  EXPECT_EQ(p.host, "10.0.0.1");
  EXPECT_EQ(Msg(line, p), "hello");

  line = "(pid=77) bare";
  p = Parse(line);
  EXPECT_EQ(p.pid, 77);
  EXPECT_EQ(Msg(line, p), "bare");
}

TEST(LinePrefix, RayWithEscLessColourRemnant) {
  const std::string_view line = "[36m(RayWorkerWrapper pid=1)[0m hello";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapRay);
  EXPECT_EQ(p.pid, 1);
  EXPECT_EQ(Msg(line, p), "hello");
}

TEST(LinePrefix, ColourAloneIsNotAWrapper) { ExpectNoWrapper("[36mjust coloured text[0m"); }

TEST(LinePrefix, TorchRank) {
  std::string_view line = "[rank3]: Traceback (most recent call last):";
  LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapTorchRank);
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(Msg(line, p), "Traceback (most recent call last):");

  // torch's own space is dropped; Python's two-space indent stays.
  line = "[rank0]:   File \"/x.py\", line 3, in <module>";
  EXPECT_EQ(Msg(line, Parse(line)), "  File \"/x.py\", line 3, in <module>");

  EXPECT_EQ(p.local_rank, -1);
}

TEST(LinePrefix, TorchrunTagIsTheLocalRank) {
  // torchrun --tee writes "[<role>N]:" with N the local rank (tail_log.py:
  // f"[{name}{local_rank}]:", role "default" unless --role): every host has
  // a "[default0]:", so it must not pass for global rank 0.
  std::string_view line = "[default3]:Traceback (most recent call last):";
  LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapTorchRank);
  EXPECT_EQ(p.rank, -1);
  EXPECT_EQ(p.local_rank, 3);
  EXPECT_EQ(Msg(line, p), "Traceback (most recent call last):");

  line = "[trainer12]:  File \"/x.py\", line 3";
  p = Parse(line);
  EXPECT_EQ(p.rank, -1);
  EXPECT_EQ(p.local_rank, 12);
  EXPECT_EQ(Msg(line, p), "  File \"/x.py\", line 3");

  // Under a launcher that names the global rank, both are known.
  line = "[1,13]<stderr>:[default5]:[rank13]: RuntimeError: CUDA error";
  p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapMpirun | kWrapTorchRank);
  EXPECT_EQ(p.rank, 13);
  EXPECT_EQ(p.local_rank, 5);
  EXPECT_EQ(Msg(line, p), "RuntimeError: CUDA error");

  line = "  7: [default1]:x";
  p = Parse(line);
  EXPECT_EQ(p.rank, 7);
  EXPECT_EQ(p.local_rank, 1);
  EXPECT_EQ(Msg(line, p), "x");
}

TEST(LinePrefix, GroupRankInsideMessageIsNotTheRank) {
  const std::string_view line =
      "[E1218 20:27:21.484903450 ProcessGroupNCCL.cpp:2168] [PG ID 1 PG GUID 1 Rank 2]  failure "
      "detected by watchdog";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.rank, -1);
  EXPECT_EQ(Msg(line, p), "[PG ID 1 PG GUID 1 Rank 2]  failure detected by watchdog");
}

TEST(LinePrefix, NcclInfo) {
  const std::string_view line = "gpu-node-07:2017630:2017671 [2] NCCL INFO Init timings: rank 2";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapNcclHost);
  EXPECT_EQ(p.host, "gpu-node-07");
  EXPECT_EQ(p.pid, 2017630);
  EXPECT_EQ(p.device, 2);
  EXPECT_EQ(p.rank, -1);  // the device is not the rank
  EXPECT_EQ(p.level, Level::kInfo);
  EXPECT_EQ(Msg(line, p), "NCCL INFO Init timings: rank 2");
}

TEST(LinePrefix, NcclWarnWithSourceLocation) {
  const std::string_view line =
      "gpu-node-07:2017630:2017671 [2] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.level, Level::kWarning);
  EXPECT_EQ(p.device, 2);
  EXPECT_EQ(Msg(line, p), "NCCL WARN Call to ibv_modify_qp failed");
}

TEST(LinePrefix, NcclWarnWithTimestamp) {
  const std::string_view line =
      "[2025-03-12 10:11:12] gpu-node-07:2017630:2017671 [2] misc/ibvwrap.cc:187 NCCL WARN Call "
      "to ibv_modify_qp failed with error Network is unreachable";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapIsoTime | kWrapNcclHost);
  EXPECT_EQ(p.ts_us, 1741774272 * kUs);
  EXPECT_EQ(p.level, Level::kWarning);
  EXPECT_EQ(p.host, "gpu-node-07");
  EXPECT_EQ(p.pid, 2017630);
  EXPECT_EQ(p.device, 2);
  EXPECT_EQ(Msg(line, p),
            "NCCL WARN Call to ibv_modify_qp failed with error Network is unreachable");
}

TEST(LinePrefix, NcclWarnWithFunction) {
  const std::string_view line =
      "node1:10:11 [0] transport/net.cc:900 (ncclProxyConnect) NCCL WARN Connection closed";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.level, Level::kWarning);
  EXPECT_EQ(Msg(line, p), "NCCL WARN Connection closed");
}

TEST(LinePrefix, NcclTraceAndCall) {
  std::string_view line = "node1:10:11 [3] 1234.567890 ncclProxyProgress:100 NCCL TRACE x";
  LinePrefix p = Parse(line);
  EXPECT_EQ(p.level, Level::kTrace);
  EXPECT_EQ(p.device, 3);
  EXPECT_EQ(Msg(line, p), "NCCL TRACE x");
  line = "node1:10:11 NCCL CALL ncclAllReduce(0x1)";
  p = Parse(line);
  EXPECT_EQ(p.level, Level::kTrace);
  EXPECT_EQ(p.device, -1);
  EXPECT_EQ(p.pid, 10);
  EXPECT_EQ(Msg(line, p), "NCCL CALL ncclAllReduce(0x1)");
}

TEST(LinePrefix, Glog) {
  const std::string_view line = "I1129 09:21:26.123456  1234 file.cc:12] started";
  const LinePrefix p = Parse(line, 2026);
  EXPECT_EQ(p.wrappers, kWrapGlog);
  EXPECT_EQ(p.level, Level::kInfo);
  EXPECT_EQ(p.ts_us, 1795944086 * kUs + 123456);
  EXPECT_EQ(p.pid, 1234);
  EXPECT_EQ(Msg(line, p), "started");
}

// absl-py (JAX, orbax, MaxText) prints Python's thread ident, 15 digits,
// where C++ glog prints the thread id: the header is read, the ident is no
// pid.
TEST(LinePrefix, GlogFromAbslPyWithALongThreadIdent) {
  const std::string_view line =
      "I1203 10:17:26.461198 140144586008614 checkpoint_manager.py:1283] [process=5] Saving "
      "checkpoint at step 1000";
  const LinePrefix p = Parse(line, 2026);
  EXPECT_EQ(p.wrappers, kWrapGlog);
  EXPECT_EQ(p.level, Level::kInfo);
  EXPECT_NE(p.ts_us, kNoTimestamp);
  EXPECT_EQ(p.pid, -1);
  EXPECT_EQ(Msg(line, p), "[process=5] Saving checkpoint at step 1000");
  // A run of digits longer than any ident is no thread id.
  ExpectNoWrapper("I1203 10:17:26.461198 1401445860086141234567 f.py:1] x");
}

// kubectl logs --prefix --timestamps: the pod names the host, then the
// container's own time and glog header.
TEST(LinePrefix, KubectlPodPrefix) {
  const std::string_view line =
      "[pod/llm-jobset-slice-job-0-0-d4f1x/jax-tpu] 2026-12-03T10:13:54.661205427Z E1203 "
      "10:13:54.661000    4471 coordination_service.cc:1047] /job:jax_worker/replica:0/task:3 "
      "has been set to ERROR";
  const LinePrefix p = Parse(line, 2026);
  EXPECT_EQ(p.host, "llm-jobset-slice-job-0-0-d4f1x");
  EXPECT_EQ(p.level, Level::kError);
  EXPECT_NE(p.ts_us, kNoTimestamp);
  EXPECT_EQ(Msg(line, p), "/job:jax_worker/replica:0/task:3 has been set to ERROR");
  ExpectNoWrapper("[pod/] x");
  ExpectNoWrapper("[pod/name] x");
}

TEST(LinePrefix, GlogLevels) {
  EXPECT_EQ(Parse("W1129 09:21:26.123456 1 f.cc:1] x").level, Level::kWarning);
  EXPECT_EQ(Parse("E1129 09:21:26.123456 1 f.cc:1] x").level, Level::kError);
  EXPECT_EQ(Parse("F1129 09:21:26.123456 1 f.cc:1] x").level, Level::kFatal);
  ExpectNoWrapper("X1129 09:21:26.123456 1 f.cc:1] x");
}

TEST(LinePrefix, GlogFromTorchElastic) {
  const std::string_view line =
      "E0325 20:57:27.620000 2606 site-packages/torch/distributed/elastic/multiprocessing/"
      "api.py:869] failed (exitcode: -9) local_rank: 5 (pid: 2630) of binary: /bin/python";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.level, Level::kError);
  EXPECT_EQ(p.ts_us, 1742936247 * kUs + 620000);
  EXPECT_EQ(p.pid, 2606);
  EXPECT_EQ(Msg(line, p), "failed (exitcode: -9) local_rank: 5 (pid: 2630) of binary: /bin/python");
}

TEST(LinePrefix, GlogWithTheDefaultYear) {
  EXPECT_EQ(Parse("I0101 00:00:01.000000 1 f.cc:1] x", 1970).ts_us, 1 * kUs);
  EXPECT_EQ(ParseLinePrefix("I0101 00:00:01.000000 1 f.cc:1] x", TimeContext{}).ts_us, 1 * kUs);
}

TEST(LinePrefix, GlogLeapDayInACommonDefaultYearKeepsTheHeader) {
  const std::string_view line = "I0229 09:21:26.123456 1 f.cc:1] msg";
  LinePrefix p = Parse(line, 2025);
  EXPECT_EQ(p.level, Level::kInfo);
  EXPECT_EQ(p.ts_us, kNoTimestamp);
  EXPECT_EQ(Msg(line, p), "msg");
  p = Parse(line, 2024);
  EXPECT_EQ(p.ts_us, 1709198486 * kUs + 123456);
}

TEST(LinePrefix, TorchBracketedGlogWithNanoseconds) {
  const std::string_view line =
      "[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective "
      "operation timeout";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapGlog);
  EXPECT_EQ(p.level, Level::kError);
  EXPECT_EQ(p.ts_us, 1766089641 * kUs + 426415);
  EXPECT_EQ(p.pid, -1);
  EXPECT_EQ(Msg(line, p), "[Rank 0] Watchdog caught collective operation timeout");
}

TEST(LinePrefix, TorchUnpaddedMonth) {
  const std::string_view line =
      "[E321 02:07:08.465150152 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0] Exception";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.ts_us, 1742522828 * kUs + 465150);
  EXPECT_EQ(Msg(line, p), "[PG 1 Rank 0] Exception");
}

TEST(LinePrefix, OldTorchBracketedWithoutTime) {
  const std::string_view line = "[E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapGlog);
  EXPECT_EQ(p.level, Level::kError);
  EXPECT_EQ(p.ts_us, kNoTimestamp);
  EXPECT_EQ(Msg(line, p), "[Rank 0] Watchdog caught");
  EXPECT_EQ(Parse("[W socket.cpp:663] [c10d] The client socket").level, Level::kWarning);
}

TEST(LinePrefix, IsoTimeAlone) {
  std::string_view line = "2026-11-29T09:21:26.123Z hello";
  LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapIsoTime);
  EXPECT_EQ(p.ts_us, 1795944086 * kUs + 123000);
  EXPECT_EQ(p.level, Level::kUnknown);
  EXPECT_EQ(Msg(line, p), "hello");

  line = "2024-05-01T12:00:00+02:00 shifted";
  p = Parse(line);
  EXPECT_EQ(p.ts_us, 1714557600 * kUs);
  EXPECT_EQ(Msg(line, p), "shifted");
}

TEST(LinePrefix, PythonLoggingLevelForms) {
  struct Case {
    std::string_view line;
    Level level;
    std::string_view msg;
  };
  const int64_t ts = 1795944086 * kUs + 123000;
  for (const Case& c : {
           Case{"2026-11-29 09:21:26,123 - transformers.trainer - WARNING - msg", Level::kWarning,
                "msg"},
           Case{"2026-11-29 09:21:26,123 - ERROR - msg", Level::kError, "msg"},
           Case{"2026-11-29 09:21:26,123 [ERROR] msg", Level::kError, "msg"},
           Case{"2026-11-29 09:21:26,123 INFO msg", Level::kInfo, "msg"},
           Case{"2026-11-29 09:21:26,123 INFO     padded", Level::kInfo, "padded"},
           Case{"2026-11-29 09:21:26,123 ERROR:root:msg", Level::kError, "msg"},
           Case{"2026-11-29 09:21:26,123 DEBUG: msg", Level::kDebug, "msg"},
           Case{"2026-11-29 09:21:26,123 CRITICAL msg", Level::kFatal, "msg"},
           Case{"2026-11-29 09:21:26,123 FATAL msg", Level::kFatal, "msg"},
           Case{"2026-11-29 09:21:26,123 TRACE msg", Level::kTrace, "msg"},
           Case{"2026-11-29 09:21:26,123 WARN msg", Level::kWarning, "msg"},
           Case{"2026-11-29 09:21:26.123 | INFO     | __main__:main:12 - msg", Level::kInfo,
                "__main__:main:12 - msg"},
       }) {
    const LinePrefix p = Parse(c.line);
    EXPECT_EQ(p.wrappers, kWrapIsoTime | kWrapLevelWord) << c.line;
    EXPECT_EQ(p.ts_us, ts) << c.line;
    EXPECT_EQ(p.level, c.level) << c.line;
    EXPECT_EQ(Msg(c.line, p), c.msg) << c.line;
  }
}

TEST(LinePrefix, LevelWordsAreUpperCaseWholeWords) {
  std::string_view line = "2026-11-29 09:21:26,123 info lower case";
  LinePrefix p = Parse(line);
  EXPECT_EQ(p.level, Level::kUnknown);
  EXPECT_EQ(Msg(line, p), "info lower case");
  line = "2026-11-29 09:21:26,123 INFORMATION follows";
  p = Parse(line);
  EXPECT_EQ(p.level, Level::kUnknown);
  EXPECT_EQ(Msg(line, p), "INFORMATION follows");
}

TEST(LinePrefix, BarePythonLevelAndLogger) {
  std::string_view line = "WARNING:torch.distributed.run:";
  LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapLevelWord);
  EXPECT_EQ(p.level, Level::kWarning);
  EXPECT_EQ(p.ts_us, kNoTimestamp);
  EXPECT_EQ(p.msg_start, line.size());
  line = "INFO:root:hello";
  p = Parse(line);
  EXPECT_EQ(p.level, Level::kInfo);
  EXPECT_EQ(Msg(line, p), "hello");
  line = "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9)";
  EXPECT_EQ(Msg(line, Parse(line)), "failed (exitcode: -9)");
}

TEST(LinePrefix, BracketedLevel) {
  std::string_view line = "[WARNING]  sparse_attn requires a torch version >= 1.5";
  LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapLevelWord);
  EXPECT_EQ(p.level, Level::kWarning);
  EXPECT_EQ(Msg(line, p), " sparse_attn requires a torch version >= 1.5");
  line = "[INFO] [real_accelerator.py:161:get_accelerator] Setting ds_accelerator to cuda";
  p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapLevelWord | kWrapDeepSpeed);
  EXPECT_EQ(Msg(line, p), "Setting ds_accelerator to cuda");
}

TEST(LinePrefix, DeepSpeed) {
  const std::string_view line =
      "[2025-12-18 20:27:22,783] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 748089";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapDeepSpeed);
  EXPECT_EQ(p.ts_us, 1766089642 * kUs + 783000);
  EXPECT_EQ(p.level, Level::kInfo);
  EXPECT_EQ(Msg(line, p), "Killing subprocess 748089");
}

TEST(LinePrefix, DeepSpeedOlderWithoutFunction) {
  const std::string_view line = "[2025-12-18 20:27:22,783] [ERROR] [launch.py:325] exits";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapDeepSpeed);
  EXPECT_EQ(p.level, Level::kError);
  EXPECT_EQ(Msg(line, p), "exits");
}

TEST(LinePrefix, TorchElasticBracketedTimeLoggerLevel) {
  const std::string_view line =
      "[2024-05-08 08:47:31,877] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
      "(exitcode: 1) local_rank: 2";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapIsoTime | kWrapLevelWord);
  EXPECT_EQ(p.ts_us, 1715158051 * kUs + 877000);
  EXPECT_EQ(p.level, Level::kError);
  EXPECT_EQ(Msg(line, p), "failed (exitcode: 1) local_rank: 2");
}

TEST(LinePrefix, Vllm) {
  std::string_view line = "INFO 10-18 09:59:56 gpu_executor.py:122] # GPU blocks: 2575";
  LinePrefix p = Parse(line, 2026);
  EXPECT_EQ(p.wrappers, kWrapLevelWord);
  EXPECT_EQ(p.level, Level::kInfo);
  EXPECT_EQ(p.ts_us, 1792317596 * kUs);
  EXPECT_EQ(Msg(line, p), "# GPU blocks: 2575");
  line = "WARNING 10-18 09:59:56 [core.py:1] newer form";
  p = Parse(line, 2026);
  EXPECT_EQ(p.level, Level::kWarning);
  EXPECT_EQ(Msg(line, p), "newer form");
}

TEST(LinePrefix, Syslog) {
  std::string_view line = "Nov 29 09:21:26 host-3 kernel: Out of memory";
  LinePrefix p = Parse(line, 2024);
  EXPECT_EQ(p.wrappers, kWrapSyslog);
  EXPECT_EQ(p.ts_us, 1732872086 * kUs);
  EXPECT_EQ(p.host, "host-3");
  EXPECT_EQ(p.pid, -1);
  EXPECT_EQ(Msg(line, p), "Out of memory");

  line = "May 15 23:09:30 host python[1234]: Killed";
  p = Parse(line, 2024);
  EXPECT_EQ(p.ts_us, 1715814570 * kUs);
  EXPECT_EQ(p.host, "host");
  EXPECT_EQ(p.pid, 1234);
  EXPECT_EQ(Msg(line, p), "Killed");
}

TEST(LinePrefix, DmesgRaw) {
  const std::string_view line = "[  518.050606] Out of memory: Killed process 1440763 (perl)";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapDmesg);
  EXPECT_DOUBLE_EQ(p.monotonic_s, 518.050606);
  EXPECT_EQ(p.ts_us, kNoTimestamp);
  EXPECT_EQ(Msg(line, p), "Out of memory: Killed process 1440763 (perl)");
}

TEST(LinePrefix, DmesgCallerId) {
  const std::string_view line = "[    0.000000][    T0] Linux version 6.8.0";
  const LinePrefix p = Parse(line);
  EXPECT_DOUBLE_EQ(p.monotonic_s, 0.0);
  EXPECT_EQ(Msg(line, p), "Linux version 6.8.0");
}

TEST(LinePrefix, DmesgHumanTime) {
  const std::string_view line =
      "[Sun Mar 30 08:24:00 2025] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null)";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapDmesg);
  EXPECT_EQ(p.ts_us, 1743323040 * kUs);
  EXPECT_EQ(Msg(line, p), "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null)");
}

TEST(LinePrefix, DmesgIsoTime) {
  const std::string_view line =
      "2024-04-29T14:55:41,679700+02:00 Out of memory: Killed process 1440763 (perl)";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapDmesg);
  EXPECT_EQ(p.ts_us, 1714395341 * kUs + 679700);
  EXPECT_EQ(Msg(line, p), "Out of memory: Killed process 1440763 (perl)");
}

TEST(LinePrefix, SyslogRfc3339) {
  // rsyslog's RSYSLOG_FileFormat and journalctl -o short-iso(-precise).
  std::string_view line = "2024-05-01T12:00:00.123456+00:00 host-3 kernel: Out of memory";
  LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapSyslog);
  EXPECT_EQ(p.ts_us, 1714564800 * kUs + 123456);
  EXPECT_EQ(p.host, "host-3");
  EXPECT_EQ(p.pid, -1);
  EXPECT_EQ(Msg(line, p), "Out of memory");

  line = "2024-05-01T14:00:00+02:00 node-7 python3[4242]: Killed";
  p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapSyslog);
  EXPECT_EQ(p.ts_us, 1714564800 * kUs);
  EXPECT_EQ(p.host, "node-7");
  EXPECT_EQ(p.pid, 4242);
  EXPECT_EQ(Msg(line, p), "Killed");

  line = "2024-05-01T12:00:00+0000 gpu017 kernel: [  518.050606] NVRM: Xid 79";
  p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapSyslog | kWrapDmesg);
  EXPECT_EQ(p.ts_us, 1714564800 * kUs);
  EXPECT_EQ(p.host, "gpu017");
  EXPECT_DOUBLE_EQ(p.monotonic_s, 518.050606);
  EXPECT_EQ(Msg(line, p), "NVRM: Xid 79");
}

TEST(LinePrefix, IsoTimeBeforeAnOrdinaryMessageIsNotSyslog) {
  // Without the kernel's tag or a pid, "word word:" after an ISO time is the
  // program's own message.
  std::string_view line = "2024-05-01T12:00:00Z train step: loss 3.2";
  LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapIsoTime);
  EXPECT_EQ(p.ts_us, 1714564800 * kUs);
  EXPECT_TRUE(p.host.empty());
  EXPECT_EQ(Msg(line, p), "train step: loss 3.2");
  // No zone: not the syslog form.
  line = "2024-05-01T12:00:00.123 host-3 kernel: x";
  p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapIsoTime);
  EXPECT_TRUE(p.host.empty());
  EXPECT_EQ(Msg(line, p), "host-3 kernel: x");
  // Python logging's space-separated time.
  line = "2024-05-01 12:00:00+00:00 host-3 kernel: x";
  p = Parse(line);
  EXPECT_TRUE(p.host.empty());
}

TEST(LinePrefix, DmesgPriority) {
  // dmesg -r: "<level>" (or "<facility*8+level>") before the stamp.
  std::string_view line = "<3>[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off";
  LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapPriority | kWrapDmesg);
  EXPECT_EQ(p.level, Level::kError);
  EXPECT_DOUBLE_EQ(p.monotonic_s, 1234.56789);
  EXPECT_EQ(Msg(line, p), "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off");

  struct Case {
    std::string_view line;
    Level level;
  };
  const Case cases[] = {
      {"<0>[    1.000000] x", Level::kFatal},   {"<1>[    1.000000] x", Level::kFatal},
      {"<2>[    1.000000] x", Level::kFatal},   {"<3>[    1.000000] x", Level::kError},
      {"<4>[    1.000000] x", Level::kWarning}, {"<5>[    1.000000] x", Level::kInfo},
      {"<6>[    1.000000] x", Level::kInfo},    {"<7>[    1.000000] x", Level::kDebug},
      {"<30>[    1.000000] x", Level::kInfo},   {"<191>[    1.000000] x", Level::kDebug},
  };
  for (const Case& c : cases) {
    p = Parse(c.line);
    EXPECT_EQ(p.level, c.level) << c.line;
    EXPECT_EQ(Msg(c.line, p), "x") << c.line;
  }
  // sd-daemon: a program under systemd tags its stderr lines.
  line = "<4>Failed to bind to port";
  p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapPriority);
  EXPECT_EQ(p.level, Level::kWarning);
  EXPECT_EQ(Msg(line, p), "Failed to bind to port");
}

TEST(LinePrefix, PriorityLookAlikes) {
  ExpectNoWrapper("<html>");
  ExpectNoWrapper("<3 hearts");
  ExpectNoWrapper("<192>[    1.000000] x");
  ExpectNoWrapper("<1234>x");
  ExpectNoWrapper("<3> spaced");
  ExpectNoWrapper("<>x");
  ExpectNoWrapper("<3>");
}

// --- Stacked wrappers -------------------------------------------------------

TEST(LinePrefix, ViewerRayRankGlogStack) {
  const std::string_view line =
      "[80746] (WorkerDict pid=3490362) [rank1]:[E1118 08:33:21.123456789 "
      "ProcessGroupNCCL.cpp:1664] [PG ID 0 PG GUID 0(default_pg) Rank 1] Exception (either an "
      "error or timeout) detected by watchdog at work: 808";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapViewerLineNo | kWrapRay | kWrapTorchRank | kWrapGlog);
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.pid, 3490362);
  EXPECT_EQ(p.level, Level::kError);
  EXPECT_EQ(p.ts_us, 1763454801 * kUs + 123456);
  EXPECT_EQ(Msg(line, p),
            "[PG ID 0 PG GUID 0(default_pg) Rank 1] Exception (either an error or timeout) "
            "detected by watchdog at work: 808");
}

TEST(LinePrefix, CloudSrunRankStack) {
  const std::string_view line =
      "  | 2024-05-01T12:00:00.000Z | 3: [rank3]: Traceback (most recent call last):";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapCloudExport | kWrapSrunLabel | kWrapTorchRank);
  EXPECT_EQ(p.ts_us, 1714564800 * kUs);
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(Msg(line, p), "Traceback (most recent call last):");
}

TEST(LinePrefix, PdshMpirunRankGlogStack) {
  const std::string_view line =
      "node-12: [1,5]<stderr>:[rank5]:[W1218 20:27:21.426415540 socket.cpp:12] retrying";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapPdshHost | kWrapMpirun | kWrapTorchRank | kWrapGlog);
  EXPECT_EQ(p.host, "node-12");
  EXPECT_EQ(p.rank, 5);
  EXPECT_EQ(p.level, Level::kWarning);
  EXPECT_EQ(Msg(line, p), "retrying");
}

TEST(LinePrefix, SrunAndPdshInEitherOrder) {
  std::string_view line = "0: node-3: x";
  LinePrefix p = Parse(line);
  EXPECT_EQ(p.rank, 0);
  EXPECT_EQ(p.host, "node-3");
  EXPECT_EQ(Msg(line, p), "x");
  line = "node-3: 0: x";
  p = Parse(line);
  EXPECT_EQ(p.rank, 0);
  EXPECT_EQ(p.host, "node-3");
  EXPECT_EQ(Msg(line, p), "x");
}

TEST(LinePrefix, MpirunAroundNccl) {
  const std::string_view line = "[1,2]<stdout>:gpu-node-07:2017630:2017671 [2] NCCL INFO Ring 00";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapMpirun | kWrapNcclHost);
  EXPECT_EQ(p.rank, 2);
  EXPECT_EQ(p.device, 2);
  EXPECT_EQ(p.host, "gpu-node-07");
  EXPECT_EQ(Msg(line, p), "NCCL INFO Ring 00");
}

TEST(LinePrefix, SyslogAroundDmesg) {
  const std::string_view line =
      "May 15 23:09:30 host-3 kernel: [  518.050606] Out of memory: Killed process 1 (python)";
  const LinePrefix p = Parse(line, 2024);
  EXPECT_EQ(p.wrappers, kWrapSyslog | kWrapDmesg);
  EXPECT_EQ(p.ts_us, 1715814570 * kUs);
  EXPECT_DOUBLE_EQ(p.monotonic_s, 518.050606);
  EXPECT_EQ(p.host, "host-3");
  EXPECT_EQ(Msg(line, p), "Out of memory: Killed process 1 (python)");
}

TEST(LinePrefix, InnermostTimeAndLevelWin) {
  // The export says ERROR at 12:00:00 for anything on stderr; the program
  // logged INFO half a second earlier.
  const std::string_view line =
      "ERROR 2024-05-01T12:00:00Z [k=v] 2024-05-01 11:59:59,500 - app - INFO - loaded";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapCloudExport | kWrapIsoTime | kWrapLevelWord);
  EXPECT_EQ(p.level, Level::kInfo);
  EXPECT_EQ(p.ts_us, 1714564799 * kUs + 500000);
  EXPECT_EQ(Msg(line, p), "loaded");
}

TEST(LinePrefix, RayAroundVllm) {
  const std::string_view line =
      "(VllmWorkerProcess pid=4242) INFO 10-18 09:59:56 worker.py:7] ready";
  const LinePrefix p = Parse(line, 2026);
  EXPECT_EQ(p.wrappers, kWrapRay | kWrapLevelWord);
  EXPECT_EQ(p.pid, 4242);
  EXPECT_EQ(p.level, Level::kInfo);
  EXPECT_EQ(Msg(line, p), "ready");
}

TEST(LinePrefix, AtMostTenWrappers) {
  std::string line;
  for (int i = 0; i < 12; ++i) line += "[1] ";
  line += "msg";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.msg_start, 40u);  // ten "[1] " of four bytes each
}

// --- Broken lines -----------------------------------------------------------

TEST(LinePrefix, TqdmBarGluedToWatchdog) {
  const std::string_view line =
      "Map: 100%|##########| 10/10 [00:05<00:00, 155.57 examples/s][E ProcessGroupNCCL.cpp:475] "
      "[Rank 2] Watchdog caught collective operation timeout";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapProgressBar | kWrapGlog);
  EXPECT_EQ(p.level, Level::kError);
  EXPECT_EQ(p.rank, -1);
  EXPECT_EQ(Msg(line, p), "[Rank 2] Watchdog caught collective operation timeout");
}

TEST(LinePrefix, TqdmBarGluedToRankTag) {
  const std::string_view line =
      " 50%|\xE2\x96\x88\xE2\x96\x88   | 5/10 [00:03<00:03, 1.57it/s][rank1]:[E1218 "
      "20:27:21.426415540 ProcessGroupNCCL.cpp:629] timeout";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapProgressBar | kWrapTorchRank | kWrapGlog);
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(Msg(line, p), "timeout");
}

TEST(LinePrefix, CutInsideAGlogHeader) {
  ExpectNoWrapper("I1129 09:21:2");
  ExpectNoWrapper("I1129 09:21:26.123456  1234 file.cc");
  ExpectNoWrapper("I1129 09:21:26.123456  1234 file.cc:12");
  ExpectNoWrapper("[E1218 20:27:21.4264");
  ExpectNoWrapper("[E ProcessGroupNCCL.cpp:45");
  const std::string_view line = "[rank0]:[E1218 20:27:21.4264";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapTorchRank);
  EXPECT_EQ(p.rank, 0);
  EXPECT_EQ(p.ts_us, kNoTimestamp);
  EXPECT_EQ(p.level, Level::kUnknown);
  EXPECT_EQ(Msg(line, p), "[E1218 20:27:21.4264");
}

TEST(LinePrefix, CutInsideOtherWrappers) {
  ExpectNoWrapper("gpu-node-07:2017630:20176");
  ExpectNoWrapper("gpu-node-07:2017630:2017671 [2");
  ExpectNoWrapper("(RayWorkerWrapper pid=34903");
  ExpectNoWrapper("[2025-12-18 20:27:2");
  ExpectNoWrapper("  | 2024-05-01T12:00:00.000Z");
  ExpectNoWrapper("May 15 23:09:30 host");
  ExpectNoWrapper("[  518.0506");
  ExpectNoWrapper("[rank1");
  ExpectNoWrapper("[1,0]<std");
  const std::string_view line = "[2025-12-18 20:27:22,783] [INF";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.wrappers, kWrapIsoTime);
  EXPECT_EQ(p.level, Level::kUnknown);
  EXPECT_EQ(Msg(line, p), "[INF");
}

TEST(LinePrefix, InvalidUtf8) {
  ExpectNoWrapper("\xFF\xFE[rank0]: x");
  const std::string_view line = "[rank0]: \xFF\xFE bad bytes";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.rank, 0);
  EXPECT_EQ(Msg(line, p), "\xFF\xFE bad bytes");
  ExpectNoWrapper("\xC3\xA9l\xC3\xA8ve: bonjour");
}

TEST(LinePrefix, OnlyWrapperNoMessage) {
  const std::string_view line = "[rank2]:";
  const LinePrefix p = Parse(line);
  EXPECT_EQ(p.rank, 2);
  EXPECT_EQ(p.msg_start, line.size());
}

TEST(LinePrefix, EveryCutOfEveryWrapperIsSafe) {
  // Cut each sample at every length and flip bytes: the parser must stay
  // inside the text and never claim more than it was given.
  const std::string_view samples[] = {
      "[80746] (WorkerDict pid=3490362, ip=10.0.0.1) [rank1]:[E1118 08:33:21.123456789 "
      "ProcessGroupNCCL.cpp:1664] x",
      "  | 2024-05-01T12:00:00.000Z | 12: node-3: [1,0]<stdout>:[default0]:y",
      "ERROR 2024-05-01T12:00:00Z [k=v] 2024-05-01 11:59:59,500 - app - INFO - z",
      "[2025-03-12 10:11:12] gpu-node-07:2017630:2017671 [2] misc/ibvwrap.cc:187 NCCL WARN w",
      "[2025-12-18 20:27:22,783] [INFO] [launch.py:319:sigkill_handler] k",
      "May 15 23:09:30 host python[1234]: [  518.050606] [ T12] o",
      "[Sun Mar 30 08:24:00 2025] 2024-04-29T14:55:41,679700+02:00 p",
      "I1129 09:21:26.123456  1234 file.cc:12] INFO 10-18 09:59:56 [core.py:1] q",
      "[36m(RayWorkerWrapper pid=1)[0m WARNING:torch.distributed.run:r",
      "Map: 100%|##| 1/1 [00:05<00:00, 1.5it/s][E ProcessGroupNCCL.cpp:475] s",
      "<3>[ 1234.567890] 2024-05-01T12:00:00.123456+00:00 host-3 python3[42]: t",
  };
  for (std::string_view sample : samples) {
    std::string text(sample);
    for (size_t len = 0; len <= text.size(); ++len) {
      const std::string cut = text.substr(0, len);
      EXPECT_LE(Parse(cut).msg_start, cut.size()) << cut;
    }
    for (size_t i = 0; i < text.size(); ++i) {
      for (char c : {'\0', '\xFF', '[', ']', ':', ' ', '\x1b'}) {
        std::string mutated = text;
        mutated[i] = c;
        EXPECT_LE(Parse(mutated).msg_start, mutated.size());
      }
    }
  }
}

}  // namespace
}  // namespace casefile
