// ClassifyFile: the rules of classify.h, in order, on heads written from the
// formats reference (formats.md sections named per test).
#include <gtest/gtest.h>

#include <string>

#include "parse/classify/classify.h"

namespace casefile {
namespace {

TEST(ClassifyKindTest, KindNamesRoundTrip) {
  EXPECT_STREQ(FileKindName(FileKind::kLog), "log");
  EXPECT_STREQ(FileKindName(FileKind::kHlo), "hlo");
  EXPECT_STREQ(FileKindName(FileKind::kTrace), "trace");
  EXPECT_STREQ(FileKindName(FileKind::kConfig), "config");
  EXPECT_STREQ(FileKindName(FileKind::kVersion), "version");
  EXPECT_STREQ(FileKindName(FileKind::kSysinfo), "sysinfo");
  EXPECT_STREQ(FileKindName(FileKind::kManifest), "manifest");
  EXPECT_STREQ(FileKindName(FileKind::kBinary), "binary");
  EXPECT_STREQ(FileKindName(FileKind::kOther), "other");
  EXPECT_EQ(FileKindFromName("sysinfo"), FileKind::kSysinfo);
  EXPECT_EQ(FileKindFromName("trace"), FileKind::kTrace);
  EXPECT_FALSE(FileKindFromName("logs").has_value());
  EXPECT_FALSE(FileKindFromName("").has_value());
}

TEST(ClassifyKindTest, ManifestOnlyAtTheRoot) {
  EXPECT_EQ(ClassifyFile("casefile.json", "{\"format_version\": 1}"), FileKind::kManifest);
  EXPECT_EQ(ClassifyFile("host-1/casefile.json", "{\"format_version\": 1}"), FileKind::kConfig);
}

TEST(ClassifyKindTest, BinaryByContent) {
  std::string xplane("\x0a\x12/host:CPU\x00\x01\x02", 13);
  EXPECT_EQ(ClassifyFile("plugins/profile/2023_01_22_17_22_49/taurusi8017.xplane.pb", xplane),
            FileKind::kBinary);
  // Control bytes without NUL, more than 30% of the head.
  EXPECT_EQ(ClassifyFile("blob",
                         "\x01\x02\x03\x04\x05"
                         "abcd"),
            FileKind::kBinary);
  // gzip data that was not decompressed.
  EXPECT_EQ(ClassifyFile("x.txt", "\x1f\x8b\x08"), FileKind::kBinary);
  // An empty file is binary only by a binary name.
  EXPECT_EQ(ClassifyFile("dump/module_0001.jit_f.hlo.pb", ""), FileKind::kBinary);
  EXPECT_EQ(ClassifyFile("nccl_trace_rank_0", ""), FileKind::kLog);
}

// A host that lost power leaves zero-filled blocks where the last writes
// were: the log around them is the evidence and must stay a log.
// `lines` lines of about 80 bytes, then a 4 KiB zeroed block, then one more.
std::string CrashedLog(int lines) {
  std::string log;
  for (int i = 0; i < lines; ++i) {
    log += "[rank3]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 3] step " +
           std::to_string(i) + "\n";
  }
  log += std::string(4096, '\0');
  log += "[rank3]: Traceback (most recent call last):\n";
  return log;
}

TEST(ClassifyKindTest, LogNamesWithNulBlocksStayLogs) {
  // 40 lines and 4 KiB of zeros: more than half of the head is NUL.
  const std::string log = CrashedLog(40);
  EXPECT_EQ(ClassifyFile("host-3/rank3.log", log), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("host-3/train.out", log), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("slurm-1234.err", log), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("attempt_0/3/stderr.log", log), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("host-3/stdout", log), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("job.stderr", log), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("host-3/rank3.log.gz", log), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("kern.log.1", "x" + log), FileKind::kSysinfo);
  // No extension under logs/: a log name too.
  EXPECT_EQ(ClassifyFile("host-3/logs/worker3", log), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("rank0.log", std::string("ok\0\0\0", 5)), FileKind::kLog);
  // Even a head that is all zeros (the block lost was the first one).
  EXPECT_EQ(ClassifyFile("rank0.log", std::string(kClassifyHeadBytes, '\0')), FileKind::kLog);
}

TEST(ClassifyKindTest, LogNamesCountOnlyNonNulControlBytes) {
  // 70 letters and 30 control bytes among the non-NUL ones: 30%, not more.
  std::string head = std::string(70, 'a') + std::string(30, '\x01') + std::string(500, '\0');
  EXPECT_EQ(ClassifyFile("x.log", head), FileKind::kLog);
  head = std::string(69, 'a') + std::string(31, '\x01') + std::string(500, '\0');
  EXPECT_EQ(ClassifyFile("x.log", head), FileKind::kBinary);
  EXPECT_EQ(ClassifyFile("x.txt",
                         "\x01\x02\x03\x04\x05"
                         "abcd"),
            FileKind::kBinary);
}

TEST(ClassifyKindTest, OtherNamesAreBinaryAboveThirtyPercentNonText) {
  // No extension outside logs/: NUL and control bytes count alike.
  std::string head = std::string(70, 'a') + std::string(30, '\0');
  EXPECT_EQ(ClassifyFile("host-3/console", head), FileKind::kLog);
  head = std::string(69, 'a') + std::string(16, '\0') + std::string(15, '\x02');
  EXPECT_EQ(ClassifyFile("host-3/console", head), FileKind::kBinary);
  // 400 lines (32 KiB) and 4 KiB of zeros: about 11% NUL.
  EXPECT_EQ(ClassifyFile("host-3/console", CrashedLog(400)), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("host-3/console", CrashedLog(40)), FileKind::kBinary);
  EXPECT_EQ(ClassifyFile("data/worker3", std::string(600, '\0') + "tail\n"), FileKind::kBinary);
  // DEL counts as control; tab, CR, FF, VT, BS and ESC do not.
  EXPECT_EQ(ClassifyFile("blob", std::string(4, '\x7f') + "abcdefg"), FileKind::kBinary);
  EXPECT_EQ(ClassifyFile("blob", "\t\r\f\v\b\x1b[0m"), FileKind::kLog);
  // Bytes >= 0x80 are text, valid UTF-8 or not.
  EXPECT_EQ(ClassifyFile("blob", "\xff\xfe\xe2\x96\x88\x80"), FileKind::kLog);
}

TEST(ClassifyKindTest, BinaryMagicWinsOverALogName) {
  EXPECT_EQ(ClassifyFile("a.out", std::string("\x7f"
                                              "ELF\x02\x01\x01\0",
                                              8)),
            FileKind::kBinary);
  EXPECT_EQ(ClassifyFile("plot.txt", "\x89PNG\r\n\x1a\nxxxx"), FileKind::kBinary);
  EXPECT_EQ(ClassifyFile("photo.log", "\xff\xd8\xff\xe0"), FileKind::kBinary);
  EXPECT_EQ(ClassifyFile("rank0.log", "\x28\xb5\x2f\xfd\x04"), FileKind::kBinary);
  EXPECT_EQ(ClassifyFile("logs/old.log", std::string("\xfd"
                                                     "7zXZ\0\0",
                                                     7)),
            FileKind::kBinary);
  EXPECT_EQ(ClassifyFile("logs/old", "BZh91AY&SYxx"), FileKind::kBinary);
  EXPECT_EQ(ClassifyFile("logs/old", "7z\xbc\xaf\x27\x1c"), FileKind::kBinary);
  EXPECT_EQ(ClassifyFile("logs/bundle", "PK\x03\x04"), FileKind::kBinary);
  EXPECT_EQ(ClassifyFile("logs/arr", "\x93NUMPY\x01\x00"), FileKind::kBinary);
  EXPECT_EQ(ClassifyFile("logs/db", std::string("SQLite format 3\0", 16)), FileKind::kBinary);
  // The NCCL flight recorder dumps pickles with no extension (formats.md).
  EXPECT_EQ(ClassifyFile("logs/nccl_trace_rank_0", "\x80\x04\x95\x10"), FileKind::kBinary);
  // Prefixes of magics are text.
  EXPECT_EQ(ClassifyFile("notes.txt", "BZh is not bzip2\n"), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("notes.txt", "PK is not zip\n"), FileKind::kLog);
}

TEST(ClassifyKindTest, BinaryNamesNeedOneNonTextByte) {
  // A protobuf: field 1, length 5, then bytes; no magic, one control byte.
  EXPECT_EQ(ClassifyFile("dump/module_0001.jit_f.hlo.pb", "\x0a\x05jit_f"), FileKind::kBinary);
  EXPECT_EQ(ClassifyFile("w.safetensors", std::string("H\0\0\0{\"a\":1}", 10)), FileKind::kBinary);
  // Text under a binary name is read as text.
  EXPECT_EQ(ClassifyFile("notes.bin", "just words\n"), FileKind::kLog);
}

TEST(ClassifyKindTest, TextWithAnsiAndTabsIsNotBinary) {
  EXPECT_EQ(ClassifyFile("ds.log", "\x1b[92m[OKAY]\x1b[0m\tfused_adam\r\n"), FileKind::kLog);
}

TEST(ClassifyKindTest, HloByFirstLine) {
  const std::string hlo =
      "HloModule jit_contract_2, entry_computation_layout={(f32[3,8]{1,0})->f32[8]{0}}, "
      "allow_spmd_sharding_propagation_to_output={true}, num_partitions=3\n\nENTRY %main.4 {\n";
  EXPECT_EQ(ClassifyFile("dump/module_0007.jit_contract_2.before_optimizations.txt", hlo),
            FileKind::kHlo);
  EXPECT_EQ(ClassifyFile("misnamed.log", hlo), FileKind::kHlo);
  // The buffer assignment beside it is not a module.
  EXPECT_EQ(ClassifyFile("dump/module_0007.jit_contract_2.sm_9.0_gpu_after_optimizations-buffer-"
                         "assignment.txt",
                         "BufferAssignment:\nallocation 0: size 32, parameter 0\n"),
            FileKind::kLog);
  // A log quoting an HLO header mid-file stays a log.
  EXPECT_EQ(ClassifyFile("rank0.log", "I0101 compile\nHloModule jit_f\n"), FileKind::kLog);
}

TEST(ClassifyKindTest, TslTraceJson) {
  const std::string head =
      "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},\"traceEvents\":["
      "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"D1\"}},";
  EXPECT_EQ(ClassifyFile("plugins/profile/2023_01_22_17_22_49/taurusi8017.trace.json.gz", head),
            FileKind::kTrace);
  EXPECT_EQ(ClassifyFile("perfetto_trace.json.gz", head), FileKind::kTrace);
}

TEST(ClassifyKindTest, KinetoTraceWithLargeDevicePropertiesFirst) {
  // traceEvents beyond the head: schemaVersion + deviceProperties suffice.
  std::string head = "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n";
  while (head.size() < 64 * 1024) {
    head +=
        "    {\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85029158912},\n";
  }
  EXPECT_EQ(ClassifyFile("traces/node3_4242.1700000000000000000.pt.trace.json", head),
            FileKind::kTrace);
}

TEST(ClassifyKindTest, BareArrayTrace) {
  EXPECT_EQ(ClassifyFile("chrome.json",
                         "[\n{\"name\": \"step\", \"ph\": \"B\", \"pid\": 1, "
                         "\"tid\": 1, \"ts\": 0},\n"),
            FileKind::kTrace);
  // A list of objects without "ph" is a config (e.g. a list of records).
  EXPECT_EQ(ClassifyFile("records.json", "[{\"name\": \"a\", \"value\": 1}]"), FileKind::kConfig);
}

TEST(ClassifyKindTest, TraceNeedsTheKeyNotTheWord) {
  EXPECT_EQ(ClassifyFile("notes.json", "{\"comment\": \"see traceEvents\", \"n\": 1}"),
            FileKind::kConfig);
  // Trace content under a non-JSON name is read as a log.
  EXPECT_EQ(ClassifyFile("trace.txt", "{\"traceEvents\": ["), FileKind::kLog);
}

TEST(ClassifyKindTest, JsonConfigs) {
  EXPECT_EQ(ClassifyFile("ds_config.json", "{\n  \"fp16\": {\"enabled\": \"auto\"}\n}\n"),
            FileKind::kConfig);
  EXPECT_EQ(ClassifyFile("out/checkpoint-35000/trainer_state.json",
                         "{\n  \"best_metric\": null,\n  \"epoch\": 4.13,\n"),
            FileKind::kConfig);
  EXPECT_EQ(ClassifyFile("model/config.json", "{\"torch_dtype\": \"bfloat16\"}"),
            FileKind::kConfig);
  EXPECT_EQ(ClassifyFile("empty.json", ""), FileKind::kConfig);
  // JSON lines, or anything that does not open as a JSON value, is a log.
  EXPECT_EQ(ClassifyFile("metrics.json", "step=1 loss=2.3\n"), FileKind::kLog);
}

TEST(ClassifyKindTest, VersionReportsByContent) {
  EXPECT_EQ(ClassifyFile("stdout.log",
                         "Collecting environment information...\nPyTorch version: 2.9.1+cu126\n"),
            FileKind::kVersion);
  EXPECT_EQ(ClassifyFile("out.txt",
                         "PyTorch version: 2.1.0\nIs debug build: False\nCUDA used to build "
                         "PyTorch: 12.1\n"),
            FileKind::kVersion);
  EXPECT_EQ(ClassifyFile("gpu.txt",
                         "Tue Mar 12 10:11:12 2024\n+------------------------------------------+\n"
                         "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA "
                         "Version: 12.5     |\n"),
            FileKind::kVersion);
  EXPECT_EQ(ClassifyFile("toolkit.txt",
                         "nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2022 NVIDIA "
                         "Corporation\nCuda compilation tools, release 11.8, V11.8.89\n"),
            FileKind::kVersion);
  EXPECT_EQ(ClassifyFile("report.txt",
                         "[WARNING] async_io requires the dev libaio .so object\n"
                         "--------------------------------------------------\n"
                         "DeepSpeed C++/CUDA extension op report\n"),
            FileKind::kVersion);
  EXPECT_EQ(ClassifyFile("env.log", "jax:    0.4.35\njaxlib: 0.4.35\nnumpy:  1.26.4\n"),
            FileKind::kVersion);
  EXPECT_EQ(ClassifyFile("hf.txt",
                         "Copy-and-paste the text below in your GitHub issue and FILL OUT the "
                         "two last points.\n\n- `transformers` version: 4.44.0\n"),
            FileKind::kVersion);
  EXPECT_EQ(ClassifyFile("cc.txt",
                         "gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0\nCopyright (C) 2021 Free "
                         "Software Foundation, Inc.\n"),
            FileKind::kVersion);
  EXPECT_EQ(ClassifyFile("packages.txt",
                         "Package    Version\n---------- -------\ntorch      2.1.0+cu121\n"),
            FileKind::kVersion);
  EXPECT_EQ(ClassifyFile("requirements.txt",
                         "deepspeed==0.15.5\ntorch==2.1.0+cu121\ntransformers @ "
                         "git+https://github.com/x/y@abc\n"),
            FileKind::kVersion);
}

TEST(ClassifyKindTest, LogThatMentionsAVersionStaysALog) {
  EXPECT_EQ(ClassifyFile("train.log", "PyTorch version: 2.1.0\nstep 1 loss 2.3\nstep 2 loss 2.2\n"),
            FileKind::kLog);
  // A banner deep in the file does not count.
  std::string log;
  for (int i = 0; i < 20; ++i) log += "step " + std::to_string(i) + " loss 1.0\n";
  log += "Collecting environment information...\n";
  EXPECT_EQ(ClassifyFile("train.log", log), FileKind::kLog);
}

TEST(ClassifyKindTest, VersionByName) {
  EXPECT_EQ(ClassifyFile("host-1/collect_env.txt", "anything\n"), FileKind::kVersion);
  EXPECT_EQ(ClassifyFile("nvidia-smi.txt", "No devices were found\n"), FileKind::kVersion);
  EXPECT_EQ(ClassifyFile("versions/torch.txt", "2.1.0\n"), FileKind::kVersion);
  EXPECT_EQ(ClassifyFile("nvcc.out", "sh: nvcc: not found\n"), FileKind::kVersion);
  EXPECT_EQ(ClassifyFile("pip-freeze.txt", ""), FileKind::kVersion);
  // A build log named after the compiler is not a version report.
  EXPECT_EQ(ClassifyFile("nvcc_build.log", "error: identifier \"x\" is undefined\n"),
            FileKind::kLog);
}

TEST(ClassifyKindTest, SysinfoByContent) {
  EXPECT_EQ(ClassifyFile("kernel.txt",
                         "[    0.000000] Linux version 5.15.0-91-generic\n[  518.050606] "
                         "Out of memory: Killed process 7899 (python)\n"),
            FileKind::kSysinfo);
  EXPECT_EQ(
      ClassifyFile("k.txt", "[Sun Mar 30 08:24:00 2025] oom-kill:constraint=CONSTRAINT_NONE\n"),
      FileKind::kSysinfo);
  EXPECT_EQ(ClassifyFile("k.txt",
                         "2024-04-29T14:55:41,679700+02:00 Out of memory: Killed process "
                         "1440763 (perl)\n"),
            FileKind::kSysinfo);
  EXPECT_EQ(ClassifyFile("k.txt",
                         "May 15 23:09:30 node03 kernel: [  518.050606] oom_reaper: "
                         "reaped process 7899 (python)\n"),
            FileKind::kSysinfo);
  // dmesg -r keeps the priority; rsyslog and journalctl -o short-iso write
  // RFC 3339 times.
  EXPECT_EQ(ClassifyFile("k.txt", "<6>[    0.000000] Linux version 5.15.0-91-generic\n"),
            FileKind::kSysinfo);
  EXPECT_EQ(ClassifyFile("k.txt", "2024-05-01T12:00:00.123456+00:00 host-3 kernel: NVRM: Xid 79\n"),
            FileKind::kSysinfo);
  EXPECT_EQ(ClassifyFile("k.txt", "<html>[  518.050606]\n"), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("k.txt", "2024-05-01T12:00:00Z train step: loss 3.2\n"), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("mem.txt", "MemTotal:       2113741352 kB\nMemFree:  1 kB\n"),
            FileKind::kSysinfo);
  EXPECT_EQ(ClassifyFile("disk.txt", "Filesystem      Size  Used Avail Use% Mounted on\n"),
            FileKind::kSysinfo);
  EXPECT_EQ(
      ClassifyFile("limits.txt", "real-time non-blocking time  (microseconds, -R) unlimited\n"),
      FileKind::kSysinfo);
}

TEST(ClassifyKindTest, SysinfoByName) {
  EXPECT_EQ(ClassifyFile("host-3/dmesg.txt", "nothing recognisable\n"), FileKind::kSysinfo);
  EXPECT_EQ(ClassifyFile("var/log/kern.log.1", "x\n"), FileKind::kSysinfo);
  EXPECT_EQ(ClassifyFile("syslog.2.gz", "x\n"), FileKind::kSysinfo);
  EXPECT_EQ(ClassifyFile("free-m.txt", "x\n"), FileKind::kSysinfo);
  EXPECT_EQ(ClassifyFile("sysinfo/anything.txt", "x\n"), FileKind::kSysinfo);
  // A word boundary: "freeze" is not "free".
  EXPECT_EQ(ClassifyFile("freeze_layers.txt", "x\n"), FileKind::kLog);
}

TEST(ClassifyKindTest, ConfigsByName) {
  EXPECT_EQ(ClassifyFile("accelerate.yaml", "compute_environment: LOCAL_MACHINE\n"),
            FileKind::kConfig);
  EXPECT_EQ(ClassifyFile("conf/run.YML", "a: 1\n"), FileKind::kConfig);
  EXPECT_EQ(ClassifyFile("pyproject.toml", "[tool]\n"), FileKind::kConfig);
  EXPECT_EQ(ClassifyFile("setup.cfg", "[metadata]\n"), FileKind::kConfig);
  EXPECT_EQ(ClassifyFile("pip.conf", "[global]\n"), FileKind::kConfig);
  EXPECT_EQ(ClassifyFile(".env", "NCCL_DEBUG=INFO\n"), FileKind::kConfig);
  EXPECT_EQ(ClassifyFile("host-1/env.txt", "NCCL_DEBUG=INFO\n"), FileKind::kConfig);
  EXPECT_EQ(ClassifyFile("environment.yml", "name: base\n"), FileKind::kConfig);
}

TEST(ClassifyKindTest, OtherAndLog) {
  EXPECT_EQ(ClassifyFile("dump/module_0001.jit_f.before_optimizations.html", "<html>"),
            FileKind::kOther);
  EXPECT_EQ(ClassifyFile("dump/module_0001.jit_f.before_optimizations.dot", "digraph G {"),
            FileKind::kOther);
  EXPECT_EQ(ClassifyFile("logs/train_3.log", "step 1\n"), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("slurm-123.out", "srun: error\n"), FileKind::kLog);
  EXPECT_EQ(ClassifyFile("stderr", ""), FileKind::kLog);
}

}  // namespace
}  // namespace casefile
