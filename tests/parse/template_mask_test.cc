// The masking rules of template signatures (parse/template/template_mask.h):
// each variable kind on its own, whole message families as they reach the
// masker after the line layer, and lookalikes that must stay apart.
#include "parse/template/template_mask.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "parse/line/ansi.h"
#include "parse/line/line_prefix.h"
#include "parse/template/signature_table.h"

namespace casefile::templates {
namespace {

std::string Mask(std::string_view message) { return MaskedPattern(message, 512); }

// The pattern of a whole log line as ingest computes it: ANSI removed, the
// wrappers stripped by the line layer, then the message masked.
std::string LinePattern(std::string_view line) {
  std::string clean;
  if (StripAnsi(line, clean)) line = clean;
  TimeContext tc;
  tc.default_year = 2026;
  LinePrefix p = ParseLinePrefix(line, tc);
  return Mask(line.substr(std::min<size_t>(p.msg_start, line.size())));
}

TEST(TemplateMask, NumbersIntegersDecimalsExponentsSigns) {
  EXPECT_EQ(Mask("step 10 loss=2.5000 grad_norm=1.753 lr=3.0e-4"),
            "step <NUM> loss=<NUM> grad_norm=<NUM> lr=<NUM>");
  EXPECT_EQ(Mask("lr=-3e-4 delta -17 +5"), "lr=<NUM> delta <NUM> <NUM>");
  EXPECT_EQ(Mask("loss scale 65536.0, reducing to 32768.0"), "loss scale <NUM>, reducing to <NUM>");
  EXPECT_EQ(Mask("NCCL version 2.19.3+cuda12.3"), "NCCL version <NUM>+cuda<NUM>");
}

TEST(TemplateMask, DigitsInsideWordsKeepTheWord) {
  EXPECT_EQ(Mask("rank3 on host-017 took 12.5ms"), "rank<NUM> on host-<NUM> took <NUM>ms");
  // A '-' after a letter is a separator, not a sign.
  EXPECT_EQ(Mask("node-3 node-12"), "node-<NUM> node-<NUM>");
  // The ranges of "5-10" are two numbers.
  EXPECT_EQ(Mask("layers 5-10"), "layers <NUM>-<NUM>");
  EXPECT_EQ(Mask("dtype fp16 bf16"), "dtype fp<NUM> bf<NUM>");
}

TEST(TemplateMask, DatesAndTimesAreOneMask) {
  EXPECT_EQ(Mask("saved at 2024-05-01T12:00:00.123Z ok"), "saved at <NUM> ok");
  EXPECT_EQ(Mask("saved at 2024-05-01T12:00:00+02:00 ok"), "saved at <NUM> ok");
  EXPECT_EQ(Mask("at 12:00:00,123 and 7:05:09"), "at <NUM> and <NUM>");
  EXPECT_EQ(Mask("day 2024/05/01 and 2024-05-01"), "day <NUM> and <NUM>");
  // Date and time separated by a space are two tokens, one mask each.
  EXPECT_EQ(Mask("[2024-05-01 12:00:00]"), "[<NUM> <NUM>]");
}

TEST(TemplateMask, CLibraryDatesOverSeveralWordsAreOneMask) {
  // nvidia-smi's first line, date(1), asctime (day padded with a space).
  EXPECT_EQ(Mask("Wed Jul 15 01:55:44 2026"), "<NUM>");
  EXPECT_EQ(Mask("Thu Jun  4 07:26:38 2026"), "<NUM>");
  EXPECT_EQ(MaskedHash("Tue Jul 14 01:55:00 2026", 1), MaskedHash("Wed Jul 15 01:55:44 2026", 1));
  // Without the weekday or the year, inside a message.
  EXPECT_EQ(Mask("started May 15 23:09:30 on node-1"), "started <NUM> on node-<NUM>");
  EXPECT_EQ(Mask("at Dec  1 00:00:01, done"), "at <NUM>, done");
  // Not dates: no time after the day, a month-like word inside another word.
  EXPECT_EQ(Mask("Jul 15 items"), "Jul <NUM> items");
  EXPECT_EQ(Mask("xJul 15 01:55:44"), "xJul <NUM> <NUM>");
  EXPECT_EQ(Mask("Julia 15 01:55:44"), "Julia <NUM> <NUM>");
}

TEST(TemplateMask, HexIdsPointersUuids) {
  EXPECT_EQ(Mask("comm 0x55d3c0a0b000 commId 0x49bbd7790311d5eb"), "comm <HEX> commId <HEX>");
  EXPECT_EQ(Mask("fingerprint 1ecf5621c56c9f3861571058e268ab5d"), "fingerprint <HEX>");
  EXPECT_EQ(Mask("run 123e4567-e89b-12d3-a456-426614174000 started"), "run <HEX> started");
  EXPECT_EQ(Mask("worker t1v-n-3f2a1b0c-w-0"), "worker t<NUM>v-n-<HEX>-w-<NUM>");
  // Eight digits with no letter are a number; letters with no digit a word.
  EXPECT_EQ(Mask("id 12345678 deadbeef"), "id <NUM> deadbeef");
  // Seven hex characters are too short for an id: the digits are masked.
  EXPECT_EQ(Mask("abc1234"), "abc<NUM>");
}

TEST(TemplateMask, ShortHexWordsFromADigit) {
  // NCCL prints its counters in hex without 0x: every value must give the
  // same signature, not one per arrangement of letters and digits.
  EXPECT_EQ(Mask("AllReduce: opCount 1a2f sendbuff 0x7f3c5a000000 count 262144"),
            "AllReduce: opCount <HEX> sendbuff <HEX> count <NUM>");
  EXPECT_EQ(MaskedHash("opCount 9ff62 done", 1), MaskedHash("opCount 3f done", 1));
  EXPECT_EQ(Mask("opCount 3f, 2d conv, 4B"), "opCount <HEX>, <HEX> conv, <HEX>");
  // Exponents stay numbers; words from a letter keep their letters.
  EXPECT_EQ(Mask("lr=3e-4 scale 1e6 x 2E+3"), "lr=<NUM> scale <NUM> x <NUM>");
  EXPECT_EQ(Mask("bf16 fp16 fe80 a100"), "bf<NUM> fp<NUM> fe<NUM> a<NUM>");
  // Not a whole hex word: a non-hex letter, a dot or an underscore follows.
  EXPECT_EQ(Mask("64bit 2nd 3f.5 1a_x"), "<NUM>bit <NUM>nd <NUM>f.<NUM> <NUM>a_x");
}

TEST(TemplateMask, Addresses) {
  EXPECT_EQ(Mask("connect to 10.0.0.1:29500 failed"), "connect to <IP> failed");
  EXPECT_EQ(Mask("init_method tcp://10.1.2.3:29500"), "init_method tcp://<IP>");
  EXPECT_EQ(Mask("peer 192.168.1.20,"), "peer <IP>,");
  EXPECT_EQ(Mask("addr fe80::1a2b:3c4d%ib0"), "addr <IP>%ib<NUM>");
  EXPECT_EQ(Mask("[2001:db8::1]:29500"), "[<IP>]:<NUM>");
  // A fifth dotted group makes it a number (a version), not an address.
  EXPECT_EQ(Mask("v 1.2.3.4.5"), "v <NUM>");
}

TEST(TemplateMask, Paths) {
  EXPECT_EQ(Mask("File \"/usr/lib/python3.10/site-packages/torch/nn/modules/module.py\", "
                 "line 1501, in _call_impl"),
            "File \"<PATH>\", line <NUM>, in _call_impl");
  EXPECT_EQ(Mask("loading ./configs/ds_config.json"), "loading <PATH>");
  EXPECT_EQ(Mask("cache in ~/.cache/huggingface"), "cache in <PATH>");
  EXPECT_EQ(Mask("see ../logs/run.txt."), "see <PATH>.");
  EXPECT_EQ(Mask("at torch/distributed/run.py:12: error"), "at <PATH>:<NUM>: error");
  EXPECT_EQ(Mask("[/src/xla/service/gpu/gpu_compiler.cc:1234]"), "[<PATH>:<NUM>]");
  EXPECT_EQ(Mask("--output_dir=/tmp/run1 --seed=7"), "--output_dir=<PATH> --seed=<NUM>");
  EXPECT_EQ(Mask("libs lib/x86_64-linux-gnu/libnccl.so.2"), "libs <PATH>");
  // Digits before the first '/' are masked first, and a token with a mask
  // is not taken for a path (so 10/100 stays two numbers).
  EXPECT_EQ(Mask("libs x86_64/libnccl.so.2"), "libs x<NUM>_<NUM>/libnccl.so.<NUM>");
}

TEST(TemplateMask, SlashLookalikesAreNotPaths) {
  EXPECT_EQ(Mask("via NET/IB/0/GDRDMA"), "via NET/IB/<NUM>/GDRDMA");
  EXPECT_EQ(Mask("3.45it/s"), "<NUM>it/s");
  EXPECT_EQ(Mask("step 10/100"), "step <NUM>/<NUM>");
  EXPECT_EQ(Mask("read and/or write TCP/IP"), "read and/or write TCP/IP");
  EXPECT_EQ(Mask("GET https://example.com/a/b.json"), "GET https://example.com/a/b.json");
  EXPECT_EQ(Mask("a lone / slash"), "a lone / slash");
}

TEST(TemplateMask, WhitespaceIsCollapsed) {
  EXPECT_EQ(Mask("  a  b\tc \t d   "), "a b c d");
  EXPECT_EQ(Mask("x \t"), "x");
  EXPECT_EQ(Mask(""), "");
  EXPECT_EQ(Mask(" \t "), "");
  EXPECT_EQ(MaskedHash("loss:  2.5", 1), MaskedHash("loss: 12.5", 1));
  EXPECT_EQ(MaskedHash("a\tb", 1), MaskedHash("a b", 1));
}

TEST(TemplateMask, HashFollowsThePattern) {
  // Same masked form, same hash; the hash of a line and of its pattern agree
  // when masking the pattern changes nothing.
  EXPECT_EQ(MaskedHash("step 1 loss=2.5", 3), MaskedHash("step 9999 loss=0.001", 3));
  EXPECT_NE(MaskedHash("step 1 loss=2.5", 3), MaskedHash("step 1 lose=2.5", 3));
  EXPECT_NE(MaskedHash("dtype fp16", 3), MaskedHash("dtype bf16", 3));
  EXPECT_NE(MaskedHash("step 1", 3), MaskedHash("step 1", 4));  // the level is part of it
  // Pieces that end at different places still hash alike (a long literal
  // run against runs broken by masks at other offsets).
  std::string a = "x" + std::string(200, 'a') + " 1 " + std::string(300, 'b');
  std::string b = "x" + std::string(200, 'a') + " 22222 " + std::string(300, 'b');
  EXPECT_EQ(MaskedHash(a, 1), MaskedHash(b, 1));
}

TEST(TemplateMask, LongMessagesAreCutButHashedWhole) {
  std::string base(600, 'w');
  std::string one = base + " tail one";
  std::string two = base + " tail two";
  EXPECT_EQ(Mask(one).size(), 512u);
  EXPECT_EQ(Mask(one), Mask(two));
  EXPECT_NE(MaskedHash(one, 1), MaskedHash(two, 1));
  // The cut never splits a mask: 510 bytes then a number leave "<NUM>" out.
  std::string near(510, 'q');
  EXPECT_EQ(MaskedPattern(near + " 5", 512), near + " ");
}

TEST(TemplateMaskFamily, NcclInfoLinesAcrossHosts) {
  std::string a = LinePattern(
      "node-042:200042:200142 [1] NCCL INFO Channel 03/0 : 484[7] -> 403[0] via NET/IB/1/GDRDMA");
  std::string b = LinePattern(
      "gpu-host-7:31337:31400 [0] NCCL INFO Channel 17/0 : 12[3] -> 13[4] via NET/IB/0/GDRDMA");
  EXPECT_EQ(a, b);
  EXPECT_TRUE(
      a.ends_with("Channel <NUM>/<NUM> : <NUM>[<NUM>] -> <NUM>[<NUM>] via "
                  "NET/IB/<NUM>/GDRDMA"))
      << a;
  std::string init1 = LinePattern(
      "node-1:1234:1250 [0] NCCL INFO comm 0x55d3c0a0b000 rank 0 nranks 16 cudaDev 0 nvmlDev 0 "
      "busId 7000 commId 0x49bbd7790311d5eb - Init COMPLETE");
  std::string init2 = LinePattern(
      "[rank5]:node-2:4321:4400 [5] NCCL INFO comm 0x7f00aa001230 rank 5 nranks 16 cudaDev 5 "
      "nvmlDev 5 busId 41000 commId 0x49bbd7790311d5eb - Init COMPLETE");
  EXPECT_EQ(init1, init2);
  EXPECT_TRUE(
      init1.ends_with("comm <HEX> rank <NUM> nranks <NUM> cudaDev <NUM> nvmlDev <NUM> "
                      "busId <NUM> commId <HEX> - Init COMPLETE"))
      << init1;
}

TEST(TemplateMaskFamily, TorchWatchdogWithRankAndGlogHeaders) {
  const char* tail =
      "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=42, "
      "OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for 600012 "
      "milliseconds before timing out.";
  std::string a = LinePattern(std::string("[rank3]:[E1129 09:21:00.584101123 "
                                          "ProcessGroupNCCL.cpp:616] ") +
                              tail);
  std::string b = LinePattern(std::string("[E1129 10:00:01.000000001 ProcessGroupNCCL.cpp:632] ") +
                              "[Rank 12] Watchdog caught collective operation timeout: "
                              "WorkNCCL(SeqNum=7, OpType=BROADCAST, NumelIn=1, NumelOut=1, "
                              "Timeout(ms)=1800000) ran for 1800345 milliseconds before timing "
                              "out.");
  EXPECT_TRUE(
      a.ends_with("[Rank <NUM>] Watchdog caught collective operation timeout: "
                  "WorkNCCL(SeqNum=<NUM>, OpType=ALLREDUCE, NumelIn=<NUM>, "
                  "NumelOut=<NUM>, Timeout(ms)=<NUM>) ran for <NUM> milliseconds "
                  "before timing out."))
      << a;
  // Another collective type is another shape (the merge may group them).
  EXPECT_NE(a, b);
  EXPECT_NE(b.find("OpType=BROADCAST, NumelIn=<NUM>"), std::string::npos) << b;
}

TEST(TemplateMaskFamily, GlogXlaLinesAndTheirAnsiColouredForm) {
  std::string a = LinePattern(
      "I1129 09:21:00.547340  4042 gpu_compiler.cc:1234] Compiled module jit_train_step in 12.5s");
  std::string b = LinePattern(
      "\x1b[32mI1130 23:59:59.000001 77 gpu_compiler.cc:99] Compiled module jit_train_step in "
      "0.25s\x1b[0m");
  EXPECT_EQ(a, b);
  EXPECT_TRUE(a.ends_with("Compiled module jit_train_step in <NUM>s")) << a;
}

TEST(TemplateMaskFamily, TqdmFragments) {
  EXPECT_EQ(Mask("Epoch 1:  45%|     | 450/1000 [00:12<00:15, 36.50it/s]"),
            "Epoch <NUM>: <NUM>%| | <NUM>/<NUM> [<NUM>:<NUM><<NUM>:<NUM>, <NUM>it/s]");
  EXPECT_EQ(MaskedHash("Epoch 2:  46%|     | 460/1000 [00:13<00:14, 36.60it/s]", 1),
            MaskedHash("Epoch 1:  45%|     | 450/1000 [00:12<00:15, 36.50it/s]", 1));
}

TEST(TemplateMaskFamily, DeepSpeedLines) {
  std::string a = LinePattern(
      "[2024-05-01 12:00:00,123] [INFO] [logging.py:96:log_dist] [Rank 0] step=100, skipped=0, "
      "lr=[0.0001], mom=[(0.9, 0.999)]");
  std::string b = LinePattern(
      "[2024-05-02 01:02:03,004] [INFO] [logging.py:96:log_dist] [Rank 0] step=200, skipped=3, "
      "lr=[5e-05], mom=[(0.9, 0.95)]");
  EXPECT_EQ(a, b);
  EXPECT_TRUE(
      a.ends_with("[Rank <NUM>] step=<NUM>, skipped=<NUM>, lr=[<NUM>], "
                  "mom=[(<NUM>, <NUM>)]"))
      << a;
}

TEST(TemplateMaskFamily, PythonTracebacks) {
  EXPECT_EQ(Mask("Traceback (most recent call last):"), "Traceback (most recent call last):");
  EXPECT_EQ(Mask("  File \"/opt/conda/lib/python3.11/site-packages/torch/distributed/"
                 "distributed_c10d.py\", line 2050, in all_reduce"),
            "File \"<PATH>\", line <NUM>, in all_reduce");
  EXPECT_EQ(Mask("  File \"train.py\", line 88, in <module>"),
            "File \"train.py\", line <NUM>, in <module>");
  EXPECT_EQ(Mask("torch.distributed.DistBackendError: NCCL error in: "
                 "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system "
                 "error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3"),
            "torch.distributed.DistBackendError: NCCL error in: <PATH>:<NUM>, unhandled system "
            "error (run with NCCL_DEBUG=INFO for details), NCCL version <NUM>");
}

TEST(TemplateMaskFamily, TruncatedLinesKeepTheirShapeUpToTheCut) {
  EXPECT_EQ(Mask("step 12 loss=2.5"), Mask("step 1 loss=2.50001"));
  EXPECT_EQ(Mask("step 12 loss=2."), "step <NUM> loss=<NUM>.");
}

TEST(TemplateMaskLookalikes, StayDistinct) {
  EXPECT_NE(Mask("dtype fp16"), Mask("dtype bf16"));
  EXPECT_NE(Mask("connection refused"), Mask("connection reset"));
  EXPECT_NE(Mask("timeout 10"), Mask("timeout 10s"));
  EXPECT_NE(Mask("to 10.0.0.1"), Mask("to 10.0.0"));  // an address, a dotted number
  EXPECT_NE(Mask("id 0x1f"), Mask("id 31"));
}

TEST(TemplateMaskLookalikes, LevelSeparatesSignatures) {
  SignatureTable table;
  bool overflow = false;
  uint32_t info =
      table.Observe(Level::kInfo, "NCCL WARN Call to connect returned 5", 1, 1, overflow);
  uint32_t warn =
      table.Observe(Level::kWarning, "NCCL WARN Call to connect returned 5", 1, 2, overflow);
  uint32_t info_again =
      table.Observe(Level::kInfo, "NCCL WARN Call to connect returned 7", 1, 3, overflow);
  EXPECT_EQ(info, 1u);
  EXPECT_EQ(warn, 2u);
  EXPECT_EQ(info_again, 1u);
  EXPECT_FALSE(overflow);
}

}  // namespace
}  // namespace casefile::templates
