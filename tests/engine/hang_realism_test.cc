// The hang analyzer fed the way a real failure reaches it: a bundle directory
// of hand-written log lines (message variants and situations that the corpus
// does not hold), indexed and analyzed through the engine's Session. Each
// test names the real-world shape it stands for (docs/reference
// formats.md sections 3 and 5, real-logs.md) and checks the codes, culprits,
// evidence lines and the words of the summary that a reader acts on.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "engine/session.h"
#include "test_util.h"

namespace casefile {
namespace {

class Bundle {
 public:
  Bundle() : root_(tmp_.Join("bundle")) {}
  void Write(const std::string& rel, const std::string& text) {
    test::WriteFile(root_ + "/" + rel, text);
  }
  Report Analyze() {
    SessionOptions o;
    o.index_path = tmp_.Join("i.db");
    Session s({root_}, o);
    return s.Analyze({"hang"}, false);
  }

 private:
  test::TempDir tmp_;
  std::string root_;
};

std::string Describe(const Report& r) {
  std::string s;
  for (const Finding& f : r.findings) {
    s += "\n[" + f.code + "] " + f.summary + "\n  culprits:";
    for (const Culprit& c : f.culprits) {
      s += " {";
      if (c.rank) s += "rank " + std::to_string(*c.rank) + " ";
      if (c.host) s += "host " + *c.host + " ";
      if (c.task) s += "task " + *c.task;
      s += "}";
    }
    for (const Evidence& e : f.evidence) {
      s += "\n  " + e.path + ":" + std::to_string(e.line) + " " + e.text.substr(0, 100);
    }
  }
  return s.empty() ? "(no findings)" : s;
}

const Finding* Find(const Report& r, const std::string& code) {
  for (const Finding& f : r.findings) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

std::vector<std::string> Codes(const Report& r) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings) out.push_back(f.code);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int64_t> Ranks(const Finding& f) {
  std::vector<int64_t> out;
  for (const Culprit& c : f.culprits) out.push_back(c.rank.value_or(-1));
  std::sort(out.begin(), out.end());
  return out;
}

const Culprit* CulpritOf(const Finding& f, int64_t rank) {
  for (const Culprit& c : f.culprits) {
    if (c.rank == rank) return &c;
  }
  return nullptr;
}

// The host of the culprit of `rank`; "(no culprit)" when none names it.
std::optional<std::string> HostOf(const Finding& f, int64_t rank) {
  const Culprit* c = CulpritOf(f, rank);
  return c ? c->host : std::optional<std::string>("(no culprit)");
}

bool Cites(const Finding& f, const std::string& path, int64_t line) {
  for (const Evidence& e : f.evidence) {
    if (e.path == path && e.line == line) return true;
  }
  return false;
}

bool Says(const Finding& f, const std::string& words) {
  return f.summary.find(words) != std::string::npos;
}

// Numbered lines, so a test can name the line of each message.
class Lines {
 public:
  int64_t Add(const std::string& line) {
    text_ += line + "\n";
    return ++count_;
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  int64_t count_ = 0;
};

std::string S(int64_t v) { return std::to_string(v); }

// NCCL 2.18+ "comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx
// commId 0x%llx - Init COMPLETE" behind its host:pid:tid [dev] header.
std::string CommInit(const std::string& host, int pid, int dev, int rank, int nranks) {
  return host + ":" + S(pid) + ":" + S(pid + 61) + " [" + S(dev) + "] NCCL INFO comm 0x55d0c4e0" +
         S(dev) + " rank " + S(rank) + " nranks " + S(nranks) + " cudaDev " + S(dev) + " nvmlDev " +
         S(dev) + " busId " + S(dev + 1) + "8000 commId 0x7a3f19e2c4d5b601 - " + "Init COMPLETE";
}

// torch >= 2.4: "[PG ID 0 PG GUID 0(default_pg) Rank R] Watchdog caught ...".
std::string Timeout24(int rank, int64_t seq, const std::string& op, int64_t numel,
                      const std::string& pg = "0 PG GUID 0(default_pg)",
                      const std::string& clock = "E1218 20:27:21.486305774") {
  return "[rank" + S(rank) + "]:[" + clock + " ProcessGroupNCCL.cpp:632] [PG ID " + pg + " Rank " +
         S(rank) + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" + S(seq) +
         ", OpType=" + op + ", NumelIn=" + S(numel) + ", NumelOut=" + S(numel) +
         ", Timeout(ms)=600000) ran for 600081 milliseconds before timing out.";
}

// ---------------------------------------------------------------------------
// Wrappers in front of the watchdog line.

// vLLM on Ray: every worker line carries "(RayWorkerWrapper pid=N) " (one
// also ", ip=A"), NCCL's own header after it. Ranks 0, 1 and 3 of 4 time out;
// rank 2 logged its communicator and nothing after.
TEST(HangRealism, RayPrefixedWorkers) {
  Bundle b;
  Lines l;
  const int pid[4] = {3490360, 3490361, 3490362, 3490363};
  auto ray = [&](int r) {
    return "(RayWorkerWrapper pid=" + S(pid[r]) + (r == 1 ? ", ip=10.20.0.7" : "") + ") ";
  };
  for (int r = 0; r < 4; ++r) l.Add(ray(r) + CommInit("gpu-a17", pid[r], r, r, 4));
  l.Add(ray(2) + "INFO 11-18 10:31:02 model_runner.py:1008] Loading model weights took 7.6 GiB");
  int64_t line_of[4] = {0, 0, 0, 0};
  for (int r : {0, 1, 3}) {
    line_of[r] = l.Add(ray(r) + "[rank" + S(r) +
                       "]:[E1118 10:42:17.532814402 ProcessGroupNCCL.cpp:616] [Rank " + S(r) +
                       "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, "
                       "OpType=ALLREDUCE, NumelIn=8388608, NumelOut=8388608, Timeout(ms)=600000) "
                       "ran for 600043 milliseconds before timing out.");
  }
  b.Write("logs/gpu-a17/driver.log", l.text());

  const Report r = b.Analyze();
  EXPECT_EQ(Codes(r), std::vector<std::string>{"hang.collective_timeout"}) << Describe(r);
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{2}) << Describe(r);
  ASSERT_NE(CulpritOf(*f, 2), nullptr);
  // The host is NCCL's, not the Ray ip of another worker.
  EXPECT_EQ(HostOf(*f, 2), "gpu-a17") << Describe(r);
  for (int r2 : {0, 1, 3}) EXPECT_TRUE(Cites(*f, "logs/gpu-a17/driver.log", line_of[r2]));
  EXPECT_TRUE(Says(*f,
                   "never reached SeqNum 77: 3 ranks wait at SeqNum 77 (ALLREDUCE, 8388608 "
                   "elements, timeout 600000 ms)"))
      << f->summary;
}

// A log viewer's line numbers ("[80746] ") in front of torch's "[rankN]:"
// and the 2.4 "[PG ID 0 PG GUID 0(default_pg) Rank N]" prefix. Ranks 0-2
// time out at SeqNum 1580 and say they enqueued it; rank 3 only receives the
// dump signal and says its last enqueued work was 1579: it is behind.
TEST(HangRealism, ViewerLineNumbersAndARankBehind) {
  Bundle b;
  Lines l;
  int64_t n = 80741;
  auto viewer = [&](const std::string& s) { return l.Add("[" + S(n++) + "] " + s); };
  viewer("[rank0]:[I321 01:56:59.104829134 ProcessGroupNCCL.cpp:852] step 41900 done");
  int64_t timeout_line[3];
  for (int r = 0; r < 3; ++r) {
    timeout_line[r] = viewer(Timeout24(r, 1580, "ALLREDUCE", 25690112, "0 PG GUID 0(default_pg)",
                                       "E321 02:07:08.46515015" + S(r)));
    viewer("[rank" + S(r) + "]:[E321 02:07:08.465150152 ProcessGroupNCCL.cpp:1664] [PG ID 0 PG " +
           "GUID 0(default_pg) Rank " + S(r) +
           "] Exception (either an error or timeout) detected by watchdog at work: 1580, last "
           "enqueued NCCL work: 1580, last completed NCCL work: 1579.");
  }
  const int64_t dump = viewer(
      "[rank3]:[E321 02:07:09.102938475 ProcessGroupNCCL.cpp:1438] [PG ID 0 PG GUID "
      "0(default_pg) Rank 3] Received a dump signal due to a collective timeout from rank 0 and "
      "we will try our best to dump the debug info. Last enqueued NCCL work: 1579, last completed "
      "NCCL work: 1579.");
  b.Write("logs/node-0/train.log", l.text());

  const Report r = b.Analyze();
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(r.findings.size(), 1u) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{3}) << Describe(r);
  EXPECT_EQ(HostOf(*f, 3), "node-0");
  EXPECT_TRUE(Cites(*f, "logs/node-0/train.log", dump)) << Describe(r);
  for (int64_t line : timeout_line) EXPECT_TRUE(Cites(*f, "logs/node-0/train.log", line));
  EXPECT_TRUE(Says(*f,
                   "rank 3 (host node-0) last enqueued SeqNum 1579; 3 ranks wait at SeqNum "
                   "1580 (ALLREDUCE, 25690112 elements, timeout 600000 ms)"))
      << f->summary;
}

// The old format ("[E ProcessGroupNCCL.cpp:475] [Rank 2] ...", no SeqNum
// sizes) glued to the end of a tqdm bar, with an earlier '\r' frame of the
// bar on the same line. Rank 2 is waiting like ranks 0 and 1; rank 3 is not.
TEST(HangRealism, WatchdogLineGluedToAProgressBar) {
  Bundle b;
  Lines l;
  for (int r = 0; r < 4; ++r) l.Add(CommInit("node-0", 2201 + r, r, r, 4));
  auto old = [](int r) {
    return "[E ProcessGroupNCCL.cpp:475] [Rank " + S(r) +
           "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=469508, "
           "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800567 milliseconds before timing "
           "out.";
  };
  const int64_t glued = l.Add(
      "Map:  50%|\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88     | 500/1000 "
      "[00:03<00:03, 150.12 examples/s]\rMap: 100%|\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96"
      "\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88| 1000/1000 "
      "[00:06<00:00, 155.57 examples/s]" +
      old(2));
  const int64_t r0 = l.Add(old(0));
  l.Add(old(1));
  b.Write("logs/node-0/train.log", l.text());

  const Report r = b.Analyze();
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{3}) << Describe(r);
  EXPECT_TRUE(Cites(*f, "logs/node-0/train.log", glued)) << Describe(r);
  EXPECT_TRUE(Cites(*f, "logs/node-0/train.log", r0));
  EXPECT_TRUE(Says(*f, "3 ranks wait at SeqNum 469508 (ALLREDUCE, timeout 1800000 ms)"))
      << f->summary;
}

// The oldest format names no SeqNum ("WorkNCCL(OpType=ALLREDUCE,
// TensorShape=[...], Timeout(ms)=1800000)", torch 1.x): the ranks still wait
// in one collective, and the rank that never logged is still named.
TEST(HangRealism, OldestFormatWithoutSeqNum) {
  Bundle b;
  Lines l;
  for (int r = 0; r < 4; ++r) l.Add(CommInit("node-0", 3300 + r, r, r, 4));
  int64_t first = 0;
  for (int r = 0; r < 3; ++r) {
    const int64_t at =
        l.Add("[E ProcessGroupNCCL.cpp:587] [Rank " + S(r) +
              "] Watchdog caught collective operation timeout: "
              "WorkNCCL(OpType=ALLREDUCE, TensorShape=[1024, 4096], "
              "Timeout(ms)=1800000) ran for 1803112 milliseconds before timing out.");
    if (r == 0) first = at;
  }
  b.Write("logs/node-0/train.log", l.text());

  const Report r = b.Analyze();
  EXPECT_EQ(Codes(r), std::vector<std::string>{"hang.collective_timeout"}) << Describe(r);
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{3}) << Describe(r);
  EXPECT_TRUE(Cites(*f, "logs/node-0/train.log", first));
  EXPECT_TRUE(Says(*f,
                   "rank 3 (host node-0) never reached the collective: 3 ranks timed out "
                   "waiting (ALLREDUCE, timeout 1800000 ms)"))
      << f->summary;
}

// A terminal paste hard-wrapped inside a token: rank 0's line ends at
// "OpTy" and "pe=BROADCAST, ..." starts the next line. Rank 0 still waits
// at SeqNum 1 with the others; a cut op is no other op, so no mismatch.
TEST(HangRealism, HardWrappedPasteIsNoMismatch) {
  Bundle b;
  Lines l;
  for (int r = 0; r < 4; ++r) l.Add(CommInit("node-0", 5100 + r, r, r, 4));
  const int64_t cut = l.Add(
      "[rank0]:[E1218 20:27:21.486305774 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught "
      "collective operation timeout: WorkNCCL(SeqNum=1, OpTy");
  l.Add(
      "pe=BROADCAST, NumelIn=131072000, NumelOut=131072000, Timeout(ms)=600000) ran for 600081 "
      "milliseconds before timing out.");
  for (int r = 1; r < 3; ++r) {
    l.Add("[rank" + S(r) + "]:[E1218 20:27:21.48630577" + S(r) +
          " ProcessGroupNCCL.cpp:632] [Rank " + S(r) +
          "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, "
          "NumelIn=131072000, NumelOut=131072000, Timeout(ms)=600000) ran for 600081 "
          "milliseconds before timing out.");
  }
  b.Write("logs/node-0/train.log", l.text());

  const Report r = b.Analyze();
  EXPECT_EQ(Codes(r), std::vector<std::string>{"hang.collective_timeout"}) << Describe(r);
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{3}) << Describe(r);
  EXPECT_TRUE(Cites(*f, "logs/node-0/train.log", cut)) << Describe(r);
  EXPECT_TRUE(Says(*f, "3 ranks wait at SeqNum 1 (BROADCAST, 131072000 elements")) << f->summary;
}

// ---------------------------------------------------------------------------
// Where ranks and hosts come from.

// One log per rank (logs/rank_<N>.log), no host anywhere: Python logging
// lines with a date, then torch's line. Rank 7's log stops at 12:00:01, ten
// minutes before the others time out.
TEST(HangRealism, PerRankFilesAndASilentRank) {
  Bundle b;
  for (int r = 0; r < 8; ++r) {
    Lines l;
    l.Add("2024-03-04 12:00:00,000 - INFO - train.py:88 - rank " + S(r) +
          ": step 1000 loss 2.3141");
    l.Add("2024-03-04 12:00:01,000 - INFO - train.py:88 - rank " + S(r) +
          ": step 1001 loss 2.3127");
    if (r == 7) {
      l.Add("2024-03-04 12:00:01,500 - INFO - train.py:120 - rank 7: writing checkpoint shard 7");
    } else {
      l.Add("[E304 12:10:02.00012345" + S(r) +
            " ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 0(default_pg) Rank " + S(r) +
            "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2044, "
            "OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for "
            "600012 milliseconds before timing out.");
    }
    b.Write("logs/rank_" + S(r) + ".log", l.text());
  }

  const Report r = b.Analyze();
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{7}) << Describe(r);
  EXPECT_FALSE(HostOf(*f, 7).has_value());
  EXPECT_TRUE(Cites(*f, "logs/rank_7.log", 3)) << Describe(r);
  for (int r2 = 0; r2 < 7; ++r2) EXPECT_TRUE(Cites(*f, "logs/rank_" + S(r2) + ".log", 3));
  EXPECT_TRUE(Says(*f, "rank 7 never reached SeqNum 2044: 7 ranks wait at SeqNum 2044"))
      << f->summary;
  EXPECT_TRUE(Says(*f,
                   "Rank 7's log, logs/rank_7.log, ends at 2024-03-04 12:00:01 UTC, 10 min 1 s "
                   "before the first timeout."))
      << f->summary;
}

// NCCL's sub-communicators (ncclCommSplit for tensor and data parallel
// groups, nranks 2 and 4) print "rank r" for the rank inside the group: on
// node-1, global ranks 4 and 5 are rank 2 of their data-parallel group.
// Global rank 2 (node-0) is the silent one; its host must stay node-0.
TEST(HangRealism, SubCommunicatorsDoNotMoveARank) {
  Bundle b;
  int64_t first_timeout = 0;
  for (int node = 0; node < 2; ++node) {
    const std::string host = "node-" + S(node);
    Lines l;
    for (int k = 0; k < 4; ++k) {
      const int g = node * 4 + k;
      const int pid = 7000 + g;
      l.Add(host + ":" + S(pid) + ":" + S(pid + 40) + " [" + S(k) +
            "] NCCL INFO ncclCommInitRank comm 0x5601a0" + S(k) + " rank " + S(g) +
            " nranks 8 cudaDev " + S(k) + " nvmlDev " + S(k) +
            " busId 18000 commId 0x49bbd7790311d5eb - Init COMPLETE");
      // Tensor parallel {2i, 2i+1}; data parallel {0,2,4,6} and {1,3,5,7}.
      l.Add(host + ":" + S(pid) + ":" + S(pid + 40) + " [" + S(k) +
            "] NCCL INFO ncclCommSplit comm 0x5601b0" + S(k) + " rank " + S(g % 2) +
            " nranks 2 cudaDev " + S(k) + " nvmlDev " + S(k) + " busId 18000 parent 0x5601a0" +
            S(k) + " color " + S(g / 2) + " key " + S(g % 2) + " - Init COMPLETE");
      l.Add(host + ":" + S(pid) + ":" + S(pid + 40) + " [" + S(k) +
            "] NCCL INFO ncclCommSplit comm 0x5601c0" + S(k) + " rank " + S(g / 2) +
            " nranks 4 cudaDev " + S(k) + " nvmlDev " + S(k) + " busId 18000 parent 0x5601a0" +
            S(k) + " color " + S(g % 2) + " key " + S(g / 2) + " - Init COMPLETE");
    }
    for (int k = 0; k < 4; ++k) {
      const int g = node * 4 + k;
      if (g == 2) continue;
      const int64_t at = l.Add(Timeout24(g, 3310, "ALLREDUCE", 2097152));
      if (g == 0) first_timeout = at;
    }
    b.Write("logs/" + host + "/train.log", l.text());
  }

  const Report r = b.Analyze();
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{2}) << Describe(r);
  EXPECT_EQ(HostOf(*f, 2), "node-0") << Describe(r);
  EXPECT_TRUE(Cites(*f, "logs/node-0/train.log", first_timeout));
  EXPECT_TRUE(Says(*f, "rank 2 (host node-0) never reached SeqNum 3310: 7 ranks wait"))
      << f->summary;
}

// Only the sub-communicators' lines survive (a log cut at its head kept the
// data-parallel groups' init, not the world's): their nranks (4) is not the
// world, as the ranks up to 7 that the timeouts name show, and their "rank
// 3" (global ranks 6 and 7, on node-1) is not global rank 3. Global rank 3
// (node-0) never arrived: it is named, and no host is better than node-1.
TEST(HangRealism, OnlySubCommunicatorLinesAreNotTheWorld) {
  Bundle b;
  for (int node = 0; node < 2; ++node) {
    const std::string host = "node-" + S(node);
    Lines l;
    for (int k = 0; k < 4; ++k) {
      const int g = node * 4 + k;
      l.Add(host + ":" + S(7000 + g) + ":" + S(7040 + g) + " [" + S(k) +
            "] NCCL INFO ncclCommSplit comm 0x5601c0" + S(k) + " rank " + S(g / 2) +
            " nranks 4 cudaDev " + S(k) + " nvmlDev " + S(k) + " busId 18000 parent 0x5601a0" +
            S(k) + " color " + S(g % 2) + " key " + S(g / 2) + " - Init COMPLETE");
    }
    for (int k = 0; k < 4; ++k) {
      const int g = node * 4 + k;
      if (g != 3) l.Add(Timeout24(g, 3310, "ALLREDUCE", 2097152));
    }
    b.Write("logs/" + host + "/train.log", l.text());
  }

  const Report r = b.Analyze();
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{3}) << Describe(r);
  ASSERT_NE(CulpritOf(*f, 3), nullptr);
  EXPECT_FALSE(HostOf(*f, 3).has_value()) << Describe(r);
  EXPECT_TRUE(Says(*f, "rank 3 never reached SeqNum 3310: 7 ranks wait")) << f->summary;
  EXPECT_TRUE(Says(*f,
                   "No log of rank 3 is in the bundle: it may have died without a word, or "
                   "its log was not collected."))
      << f->summary;
}

// torchrun --tee: "[default<local rank>]:" in front of everything, so only
// the old "[Rank N]" inside the watchdog message gives the global rank.
// Global rank 6 (node-1, local rank 2) dies of an out-of-memory error whose
// traceback lines carry only "[default2]:"; torchrun's root cause names
// rank 6. The agent tears down node-1's other workers; node-0's ranks time
// out half an hour later.
TEST(HangRealism, TorchrunLocalRankPrefixes) {
  Bundle b;
  Lines n0;
  n0.Add("[2024-05-08 08:40:00,000] [INFO] [train.py:201] step 3000 loss 1.982");
  int64_t wait_line[4];
  for (int k = 0; k < 4; ++k) {
    wait_line[k] =
        n0.Add("[default" + S(k) + "]:[E ProcessGroupNCCL.cpp:475] [Rank " + S(k) +
               "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9120, "
               "OpType=ALLREDUCE, NumelIn=16777216, NumelOut=16777216, Timeout(ms)=1800000) ran "
               "for 1800324 milliseconds before timing out.");
  }
  b.Write("logs/node-0/train.log", n0.text());

  Lines n1;
  n1.Add("[2024-05-08 08:40:00,000] [INFO] [train.py:201] step 3000 loss 1.982");
  n1.Add("[default2]:Traceback (most recent call last):");
  n1.Add("[default2]:  File \"/workspace/train.py\", line 311, in <module>");
  n1.Add("[default2]:    main()");
  n1.Add("[default2]:  File \"/workspace/train.py\", line 287, in main");
  n1.Add("[default2]:    loss = model(**batch).loss");
  const int64_t oom = n1.Add(
      "[default2]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 "
      "has a total capacity of 79.15 GiB of which 1.21 GiB is free.");
  n1.Add(
      "[2024-05-08 08:47:31,877] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending "
      "process 5937 closing signal SIGTERM");
  n1.Add(
      "[2024-05-08 08:47:32,102] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
      "(exitcode: 1) local_rank: 2 (pid: 5939) of binary: /usr/bin/python3");
  n1.Add("============================================================");
  n1.Add("train.py FAILED");
  n1.Add("------------------------------------------------------------");
  n1.Add("Failures:");
  n1.Add("  <NO_OTHER_FAILURES>");
  n1.Add("------------------------------------------------------------");
  n1.Add("Root Cause (first observed failure):");
  n1.Add("[0]:");
  n1.Add("  time      : 2024-05-08_08:47:31");
  n1.Add("  host      : node-1");
  n1.Add("  rank      : 6 (local_rank: 2)");
  const int64_t exit_line = n1.Add("  exitcode  : 1 (pid: 5939)");
  n1.Add("  error_file: <N/A>");
  n1.Add(
      "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html");
  n1.Add("============================================================");
  b.Write("logs/node-1/train.log", n1.text());

  const Report r = b.Analyze();
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{6}) << Describe(r);
  EXPECT_EQ(HostOf(*f, 6), "node-1");
  EXPECT_TRUE(Cites(*f, "logs/node-1/train.log", exit_line)) << Describe(r);
  for (int64_t line : wait_line) EXPECT_TRUE(Cites(*f, "logs/node-0/train.log", line));
  // The error line names only the local rank; on the culprit's host it is
  // the one error that the hang did not cause, so it is the culprit's.
  EXPECT_TRUE(Cites(*f, "logs/node-1/train.log", oom)) << Describe(r);
  EXPECT_TRUE(Says(*f,
                   "rank 6 (host node-1) failed first: torch.OutOfMemoryError: CUDA out of "
                   "memory."))
      << f->summary;
  EXPECT_TRUE(Says(*f, "the collective timeouts of 4 ranks are the symptom")) << f->summary;
}

// torch 2.2-2.3 under torchrun --tee: "[default<k>]:" and the "[PG 0 Rank
// N]" prefix. PG 0 is the default group on every rank (it is created
// first), so N is the global rank. Rank 6 never arrived.
TEST(HangRealism, LocalRankPrefixesWithTheDefaultGroupPrefix) {
  Bundle b;
  for (int node = 0; node < 2; ++node) {
    const std::string host = "node-" + S(node);
    Lines l;
    for (int k = 0; k < 4; ++k) l.Add(CommInit(host, 4100 + node * 4 + k, k, node * 4 + k, 8));
    for (int k = 0; k < 4; ++k) {
      const int g = node * 4 + k;
      if (g == 6) continue;
      l.Add("[default" + S(k) + "]:[E508 09:17:31.48630577" + S(k) +
            " ProcessGroupNCCL.cpp:1316] [PG 0 Rank " + S(g) +
            "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9120, "
            "OpType=ALLREDUCE, NumelIn=16777216, NumelOut=16777216, Timeout(ms)=600000) ran for "
            "600324 milliseconds before timing out.");
    }
    b.Write("logs/" + host + "/train.log", l.text());
  }

  const Report r = b.Analyze();
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{6}) << Describe(r);
  EXPECT_EQ(HostOf(*f, 6), "node-1");
  EXPECT_TRUE(Says(*f,
                   "rank 6 (host node-1) never reached SeqNum 9120: 7 ranks wait at SeqNum "
                   "9120 (ALLREDUCE, 16777216 elements, timeout 600000 ms)"))
      << f->summary;
}

// Only local ranks and a group other than the default: "[default<k>]:"
// and "[PG ID 2 PG GUID 6 Rank <rank in the group>]" (a group of all eight
// ranks created after the default one). No line gives a global rank, so
// nobody can be named; the finding still says what the ranks wait in.
TEST(HangRealism, LocalRanksOnlyInASubGroup) {
  Bundle b;
  for (int node = 0; node < 2; ++node) {
    const std::string host = "node-" + S(node);
    Lines l;
    for (int k = 0; k < 4; ++k) {
      l.Add("[default" + S(k) + "]:[E0612 03:14:07.22015" + S(k) +
            " ProcessGroupNCCL.cpp:632] [PG ID 2 PG GUID 6 Rank " + S(node * 4 + k) +
            "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=120, "
            "OpType=ALLREDUCE, NumelIn=33554432, NumelOut=33554432, Timeout(ms)=600000) ran for "
            "600011 milliseconds before timing out.");
    }
    b.Write("logs/" + host + "/train.log", l.text());
  }

  const Report r = b.Analyze();
  EXPECT_EQ(Codes(r), std::vector<std::string>{"hang.collective_timeout"}) << Describe(r);
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_TRUE(f->culprits.empty()) << Describe(r);
  EXPECT_TRUE(Says(*f,
                   "8 ranks wait at SeqNum 120 (ALLREDUCE, 33554432 elements, timeout "
                   "600000 ms) in process group 6 (their lines name no global rank)"))
      << f->summary;
  EXPECT_TRUE(Cites(*f, "logs/node-0/train.log", 1));
}

// DeepSpeed's launcher names only the local rank of the worker that died
// ("--local_rank=2" in its command, return code -9) and kills the others
// of its node; node-0's ranks time out later. NCCL's lines place ranks 4-7
// on node-1, so its local rank 2 is global rank 6.
TEST(HangRealism, DeepSpeedLauncherNamesALocalRank) {
  Bundle b;
  Lines n0;
  for (int k = 0; k < 4; ++k) n0.Add(CommInit("node-0", 81200 + k, k, k, 8));
  n0.Add(
      "[2024-06-02 11:10:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=4000, "
      "skipped=0, lr=[0.0001], mom=[(0.9, 0.95)]");
  for (int k = 0; k < 4; ++k) n0.Add(Timeout24(k, 61211, "ALLREDUCE", 4194304));
  b.Write("logs/node-0/train.log", n0.text());

  Lines n1;
  for (int k = 0; k < 4; ++k) n1.Add(CommInit("node-1", 81230 + k, k, 4 + k, 8));
  for (int pid : {81230, 81231, 81233}) {
    n1.Add("[2024-06-02 11:20:14,101] [INFO] [launch.py:319:sigkill_handler] Killing subprocess " +
           S(pid));
  }
  const int64_t exits = n1.Add(
      "[2024-06-02 11:20:15,533] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', "
      "'-u', 'train.py', '--local_rank=2', '--deepspeed', '--deepspeed_config', "
      "'ds_config.json'] exits with return code = -9");
  b.Write("logs/node-1/train.log", n1.text());

  const Report r = b.Analyze();
  EXPECT_EQ(Codes(r), std::vector<std::string>{"hang.collective_timeout"}) << Describe(r);
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{6}) << Describe(r);
  EXPECT_EQ(HostOf(*f, 6), "node-1");
  EXPECT_TRUE(Cites(*f, "logs/node-1/train.log", exits)) << Describe(r);
  EXPECT_TRUE(Says(*f, "rank 6 (host node-1) failed first: deepspeed reports signal 9 (SIGKILL)"))
      << f->summary;
}

// torchrun's summary was cut off; only the agent's one-line report is left
// ("failed (exitcode: -9) local_rank: 1"), ten minutes before node-0's
// ranks time out. NCCL places ranks 4-7 on node-1.
TEST(HangRealism, TorchrunAgentLineWithoutItsSummary) {
  Bundle b;
  Lines n0;
  for (int k = 0; k < 4; ++k) n0.Add(CommInit("node-0", 4100 + k, k, k, 8));
  int64_t first = 0;
  for (int k = 0; k < 4; ++k) {
    const int64_t at = n0.Add(Timeout24(k, 25787, "ALLREDUCE", 13107200, "0 PG GUID 0(default_pg)",
                                        "E0508 08:57:31.48630577" + S(k)));
    if (k == 0) first = at;
  }
  b.Write("logs/node-0/train.log", n0.text());
  Lines n1;
  for (int k = 0; k < 4; ++k) n1.Add(CommInit("node-1", 5937 + k, k, 4 + k, 8));
  const int64_t agent = n1.Add(
      "E0508 08:47:31.877000 5901 site-packages/torch/distributed/elastic/multiprocessing/"
      "api.py:869] failed (exitcode: -9) local_rank: 1 (pid: 5938) of binary: /usr/bin/python3");
  b.Write("logs/node-1/train.log", n1.text());

  const Report r = b.Analyze();
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{5}) << Describe(r);
  EXPECT_EQ(HostOf(*f, 5), "node-1");
  EXPECT_TRUE(Cites(*f, "logs/node-1/train.log", agent)) << Describe(r);
  EXPECT_TRUE(Cites(*f, "logs/node-0/train.log", first));
  EXPECT_TRUE(Says(*f, "rank 5 (host node-1) failed first: torchrun reports signal 9 (SIGKILL)"))
      << f->summary;
}

// ---------------------------------------------------------------------------
// Situations.

// Tensor-parallel pairs and data-parallel groups time out at once. Rank 5
// never reached either: its data-parallel peers 1, 3, 7 wait in their group
// (PG GUID 6) at SeqNum 120, and ranks 0, 2, 4, 6 wait in their own
// tensor-parallel pairs (GUIDs 1-4: the local PG ID 1 is the same on every
// rank, the GUID names the group) at SeqNum 300. The prefix's rank is the
// rank inside the group.
TEST(HangRealism, TwoProcessGroupsTimeOutAtOnce) {
  Bundle b;
  std::vector<std::pair<std::string, int64_t>> waiting;
  for (int node = 0; node < 2; ++node) {
    const std::string host = "node-" + S(node);
    Lines l;
    for (int k = 0; k < 4; ++k) l.Add(CommInit(host, 4100 + node * 4 + k, k, node * 4 + k, 8));
    for (int k = 0; k < 4; ++k) {
      const int g = node * 4 + k;
      if (g == 5) continue;
      const std::string head =
          "[rank" + S(g) + "]:[E0612 03:14:07.22015" + S(g) + " ProcessGroupNCCL.cpp:632] [PG ID ";
      const std::string work =
          g % 2 == 1 ? "2 PG GUID 6 Rank " + S(g / 2) +
                           "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=120, "
                           "OpType=ALLREDUCE, NumelIn=33554432, NumelOut=33554432, "
                           "Timeout(ms)=600000) ran for 600011 milliseconds before timing out."
                     : "1 PG GUID " + S(g / 2 + 1) +
                           " Rank 0] Watchdog caught collective operation timeout: "
                           "WorkNCCL(SeqNum=300, OpType=_ALLGATHER_BASE, NumelIn=524288, "
                           "NumelOut=1048576, Timeout(ms)=600000) ran for 600007 milliseconds "
                           "before timing out.";
      waiting.push_back({"logs/" + host + "/train.log", l.Add(head + work)});
    }
    b.Write("logs/" + host + "/train.log", l.text());
  }

  const Report r = b.Analyze();
  EXPECT_EQ(Codes(r), std::vector<std::string>{"hang.collective_timeout"}) << Describe(r);
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{5}) << Describe(r);
  EXPECT_EQ(HostOf(*f, 5), "node-1");
  // The group with the most waiting ranks is described; the others counted.
  EXPECT_TRUE(Says(*f,
                   "rank 5 (host node-1) never reached SeqNum 120: 3 ranks wait at SeqNum "
                   "120 (ALLREDUCE, 33554432 elements, timeout 600000 ms) in process group "
                   "6; 4 more timeouts in other groups"))
      << f->summary;
  for (const auto& [path, line] : waiting) EXPECT_TRUE(Cites(*f, path, line)) << path << line;
}

// Every rank times out at the same SeqNum and their progress lines agree:
// nothing singles a rank out. A finding without culprits that says so.
TEST(HangRealism, EveryRankWaitsAndNobodyIsBehind) {
  Bundle b;
  int64_t first_line = 0;
  for (int node = 0; node < 2; ++node) {
    const std::string host = "node-" + S(node);
    Lines l;
    for (int k = 0; k < 4; ++k) l.Add(CommInit(host, 4100 + node * 4 + k, k, node * 4 + k, 8));
    for (int k = 0; k < 4; ++k) {
      const int g = node * 4 + k;
      const int64_t at = l.Add(Timeout24(g, 500, "ALLREDUCE", 4194304));
      if (g == 0) first_line = at;
      l.Add("[rank" + S(g) +
            "]:[E1218 20:27:21.486305774 ProcessGroupNCCL.cpp:1664] [PG ID 0 PG GUID "
            "0(default_pg) Rank " +
            S(g) +
            "] Exception (either an error or timeout) detected by watchdog at work: 500, last "
            "enqueued NCCL work: 500, last completed NCCL work: 499.");
    }
    b.Write("logs/" + host + "/train.log", l.text());
  }

  const Report r = b.Analyze();
  EXPECT_EQ(Codes(r), std::vector<std::string>{"hang.collective_timeout"}) << Describe(r);
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_TRUE(f->culprits.empty()) << Describe(r);
  EXPECT_TRUE(Says(*f,
                   "8 ranks wait at SeqNum 500 (ALLREDUCE, 4194304 elements, timeout 600000 "
                   "ms) in process group 0 (default_pg). Nothing in the logs shows who is "
                   "behind"))
      << f->summary;
  EXPECT_EQ(f->evidence.size(), 8u);
  EXPECT_TRUE(Cites(*f, "logs/node-0/train.log", first_line));
  EXPECT_NE(f->recommendation.find("TORCH_NCCL_TRACE_BUFFER_SIZE"), std::string::npos);
}

// The OOM killer takes rank 6 (SIGKILL, exit code -9): no traceback, no
// error line of its own, only torchrun's report on node-1 (the agent then
// stops its other workers with SIGTERM: exit code -15, a consequence). The
// ranks of node-0 time out ten minutes later.
TEST(HangRealism, SigkilledRankWithoutTraceback) {
  Bundle b;
  Lines n0;
  n0.Add("[2024-05-08 08:47:00,000] [INFO] [train.py:201] step 3000 loss 1.982");
  int64_t wait_line[4];
  for (int k = 0; k < 4; ++k) {
    wait_line[k] = n0.Add(
        "[rank" + S(k) + "]:[E508 08:57:31.48630577" + S(k) +
        " ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 0(default_pg) Rank " + S(k) +
        "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=25787, OpType=ALLREDUCE, "
        "NumelIn=13107200, NumelOut=13107200, Timeout(ms)=600000) ran for 600104 milliseconds "
        "before timing out.");
  }
  b.Write("logs/node-0/train.log", n0.text());

  Lines n1;
  n1.Add("[2024-05-08 08:47:00,000] [INFO] [train.py:201] step 3000 loss 1.982");
  const int64_t agent = n1.Add(
      "[2024-05-08 08:47:31,877] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
      "(exitcode: -9) local_rank: 2 (pid: 5939) of binary: /usr/bin/python3");
  for (int pid : {5937, 5938, 5940}) {
    n1.Add(
        "[2024-05-08 08:47:31,878] torch.distributed.elastic.multiprocessing.api: [WARNING] "
        "Sending process " +
        S(pid) + " closing signal SIGTERM");
  }
  n1.Add("============================================================");
  n1.Add("train.py FAILED");
  n1.Add("------------------------------------------------------------");
  n1.Add("Failures:");
  n1.Add("[1]:");
  n1.Add("  time      : 2024-05-08_08:47:33");
  n1.Add("  host      : node-1");
  n1.Add("  rank      : 4 (local_rank: 0)");
  n1.Add("  exitcode  : -15 (pid: 5937)");
  n1.Add("  error_file: <N/A>");
  n1.Add("  traceback : Signal 15 (SIGTERM) received by PID 5937");
  n1.Add("------------------------------------------------------------");
  n1.Add("Root Cause (first observed failure):");
  n1.Add("[0]:");
  n1.Add("  time      : 2024-05-08_08:47:31");
  n1.Add("  host      : node-1");
  n1.Add("  rank      : 6 (local_rank: 2)");
  const int64_t exit_line = n1.Add("  exitcode  : -9 (pid: 5939)");
  n1.Add("  error_file: <N/A>");
  n1.Add("  traceback : Signal 9 (SIGKILL) received by PID 5939");
  n1.Add("============================================================");
  b.Write("logs/node-1/train.log", n1.text());

  const Report r = b.Analyze();
  EXPECT_EQ(Codes(r), std::vector<std::string>{"hang.collective_timeout"}) << Describe(r);
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{6}) << Describe(r);
  EXPECT_EQ(HostOf(*f, 6), "node-1");
  EXPECT_TRUE(Cites(*f, "logs/node-1/train.log", exit_line)) << Describe(r);
  for (int64_t line : wait_line) EXPECT_TRUE(Cites(*f, "logs/node-0/train.log", line));
  EXPECT_TRUE(Says(*f, "rank 6 (host node-1) failed first: torchrun reports signal 9 (SIGKILL)"))
      << f->summary;
  EXPECT_TRUE(Says(*f, "the collective timeouts of 4 ranks are the symptom")) << f->summary;
  (void)agent;
}

// The watchdog thread dies of a CUDA error (illegal memory access) on rank
// 3, wrapped in "Process group watchdog thread terminated with exception"
// and in what(); no collective timed out anywhere. A runtime error, not a
// hang: the hang analyzer says nothing.
TEST(HangRealism, WrappedCudaErrorWithoutTimeoutsIsNoHang) {
  Bundle b;
  Lines l;
  for (int r = 0; r < 4; ++r) l.Add(CommInit("node-0", 6100 + r, r, r, 4));
  const std::string pg = "[PG ID 0 PG GUID 0(default_pg) Rank 3]";
  l.Add("[rank3]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:1895] " + pg +
        " Process group watchdog thread terminated with exception: CUDA error: an illegal memory "
        "access was encountered");
  l.Add(
      "[rank3]:CUDA kernel errors might be asynchronously reported at some other API call, so the "
      "stacktrace below might be incorrect.");
  l.Add("[rank3]:For debugging consider passing CUDA_LAUNCH_BLOCKING=1");
  l.Add("[rank3]:Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.");
  l.Add("[rank3]:");
  l.Add(
      "[rank3]:Exception raised from c10_cuda_check_implementation at "
      "../c10/cuda/CUDAException.cpp:43 (most recent call first):");
  l.Add("terminate called after throwing an instance of 'c10::DistBackendError'");
  l.Add("  what():  " + pg +
        " Process group watchdog thread terminated with exception: CUDA error: an illegal memory "
        "access was encountered");
  l.Add(
      "[2024-05-08 08:47:31,877] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
      "(exitcode: -6) local_rank: 3 (pid: 6103) of binary: /usr/bin/python3");
  b.Write("logs/node-0/train.log", l.text());

  const Report r = b.Analyze();
  EXPECT_TRUE(r.findings.empty()) << Describe(r);
}

// The same CUDA error on rank 3, but this time the three other ranks time
// out waiting for it: rank 3 failed first, and its CUDA error is the cause.
TEST(HangRealism, WrappedCudaErrorBeforeTheTimeouts) {
  Bundle b;
  Lines l;
  for (int r = 0; r < 4; ++r) l.Add(CommInit("node-0", 6100 + r, r, r, 4));
  const std::string pg = "[PG ID 0 PG GUID 0(default_pg) Rank 3]";
  const int64_t cuda = l.Add(
      "[rank3]:[E1218 20:17:21.426415540 ProcessGroupNCCL.cpp:1895] " + pg +
      " Process group watchdog thread terminated with exception: CUDA error: an illegal memory "
      "access was encountered");
  l.Add("terminate called after throwing an instance of 'c10::DistBackendError'");
  l.Add("  what():  " + pg +
        " Process group watchdog thread terminated with exception: CUDA error: an illegal memory "
        "access was encountered");
  for (int r = 0; r < 3; ++r) l.Add(Timeout24(r, 811, "ALLREDUCE", 4194304));
  b.Write("logs/node-0/train.log", l.text());

  const Report r = b.Analyze();
  EXPECT_EQ(Codes(r), std::vector<std::string>{"hang.collective_timeout"}) << Describe(r);
  const Finding* f = Find(r, "hang.collective_timeout");
  ASSERT_NE(f, nullptr) << Describe(r);
  EXPECT_EQ(Ranks(*f), std::vector<int64_t>{3}) << Describe(r);
  EXPECT_TRUE(Cites(*f, "logs/node-0/train.log", cuda)) << Describe(r);
  EXPECT_TRUE(Says(*f,
                   "rank 3 (host node-0) failed first: CUDA error: an illegal memory access "
                   "was encountered"))
      << f->summary;
}

// A JAX barrier that timed out: every surviving task raises the same
// status, which names the task that never reached the barrier (task 5) on a
// line of its own; the first task at the barrier (task 0) is no culprit.
TEST(HangRealism, JaxBarrierTimeoutNamesTheTask) {
  Bundle b;
  int64_t named_line = 0;
  for (int w = 0; w < 8; ++w) {
    Lines l;
    l.Add("I0425 10:00:00.000000  3190 train.py:212] step 500, loss=2.3114");
    if (w == 5) {
      l.Add("I0425 10:00:05.000000  3190 train.py:230] evaluating on 4096 examples");
    } else {
      l.Add(
          "E0425 10:30:05.123456  3190 pjit.py:1] jaxlib.xla_extension.XlaRuntimeError: "
          "DEADLINE_EXCEEDED: Barrier timed out. Id: PjitFunction::Barrier::3. This usually "
          "happens because a task triggered the barrier too early or too slowly. Please look at "
          "the task logs (both timed out and first task) to debug further.");
      l.Add("# of tasks that reached the barrier: 7/8.");
      l.Add(
          "The first task at the barrier: /job:jax_worker/replica:0/task:0. Some timed out task "
          "names:");
      const int64_t at = l.Add("/job:jax_worker/replica:0/task:5");
      if (w == 0) named_line = at;
    }
    b.Write("logs/t1v-n-3f0a91c2-w-" + S(w) + "/worker.log", l.text());
  }

  const Report r = b.Analyze();
  EXPECT_EQ(Codes(r), std::vector<std::string>{"hang.task_lost"}) << Describe(r);
  const Finding* f = Find(r, "hang.task_lost");
  ASSERT_NE(f, nullptr) << Describe(r);
  ASSERT_EQ(f->culprits.size(), 1u) << Describe(r);
  EXPECT_EQ(f->culprits[0].task, "jax_worker/5");
  EXPECT_EQ(f->culprits[0].host, "t1v-n-3f0a91c2-w-5");
  EXPECT_TRUE(Cites(*f, "logs/t1v-n-3f0a91c2-w-0/worker.log", named_line)) << Describe(r);
  EXPECT_TRUE(Cites(*f, "logs/t1v-n-3f0a91c2-w-5/worker.log", 2)) << Describe(r);
  EXPECT_TRUE(Says(*f,
                   "task 5 (host t1v-n-3f0a91c2-w-5) left the job: 7 coordination-service "
                   "messages name it as failed (barrier)"))
      << f->summary;
}

// A JAX task preempted without a word: its log just ends. The survivors
// report the coordination service's error but none names the task (the
// coordinator's own log, which would, is not in the bundle). The task
// that reported nothing is the lost one, not the first survivor to speak.
TEST(HangRealism, JaxSilentTaskWhenNoMessageNamesIt) {
  Bundle b;
  const char* clock[4] = {"10:01:02.500000", "10:01:02.100000", "", "10:01:01.900000"};
  for (int w = 0; w < 4; ++w) {
    Lines l;
    l.Add("I0425 10:00:00.000000  3190 train.py:212] step 500, loss=2.3114");
    if (w != 2) {
      l.Add("E0425 " + std::string(clock[w]) +
            "  3190 coordination_service_agent.cc:332] Polled an error from coordination "
            "service (this can be an error from this or another task).");
      l.Add("F0425 " + std::string(clock[w]) +
            "  3190 client.h:77] Terminating process because the JAX distributed service "
            "detected fatal errors. This most likely indicates that another task died; see the "
            "other task logs for more details. absl::Status: UNAVAILABLE: Failed to send RPC to "
            "coordination service. Either the leader task died or there was a network issue.");
    }
    b.Write("logs/t1v-n-3f0a91c2-w-" + S(w) + "/worker.log", l.text());
  }

  const Report r = b.Analyze();
  EXPECT_EQ(Codes(r), std::vector<std::string>{"hang.task_lost"}) << Describe(r);
  const Finding* f = Find(r, "hang.task_lost");
  ASSERT_NE(f, nullptr) << Describe(r);
  ASSERT_EQ(f->culprits.size(), 1u) << Describe(r);
  EXPECT_EQ(f->culprits[0].host, "t1v-n-3f0a91c2-w-2") << Describe(r);
  EXPECT_EQ(f->culprits[0].task, "jax_worker/2");
  EXPECT_TRUE(Cites(*f, "logs/t1v-n-3f0a91c2-w-2/worker.log", 1)) << Describe(r);
  EXPECT_TRUE(Says(*f,
                   "host t1v-n-3f0a91c2-w-2 (task 2) reported no coordination error while 3 "
                   "hosts did"))
      << f->summary;
}

// A healthy run talks about the watchdog, timeouts and heartbeats in its
// ordinary INFO lines: torch's options and environment dump, the
// watchdog's clean exit, JAX's heartbeat and barrier success, NCCL's
// periodic progress. None of it is a hang.
TEST(HangRealism, HealthyRunThatMentionsTimeoutsIsQuiet) {
  Bundle b;
  for (int node = 0; node < 2; ++node) {
    const std::string host = "node-" + S(node);
    Lines l;
    for (int k = 0; k < 4; ++k) {
      const int g = node * 4 + k;
      const std::string head = "[rank" + S(g) + "]:[I1218 10:00:0" + S(k) +
                               ".000000000 ProcessGroupNCCL.cpp:852] [PG ID 0 PG GUID "
                               "0(default_pg) Rank " +
                               S(g) + "] ";
      l.Add(CommInit(host, 4100 + g, k, g, 8));
      l.Add(head + "ProcessGroupNCCL initialization options: size: 8, global rank: " + S(g) +
            ", TIMEOUT(ms): 600000, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, "
            "PG Name: 0");
      l.Add(head +
            "ProcessGroupNCCL environments: NCCL version: 2.20.5, "
            "TORCH_NCCL_ASYNC_ERROR_HANDLING: 3, TORCH_NCCL_DUMP_ON_TIMEOUT: 0, "
            "TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC: 60000, TORCH_NCCL_DESYNC_DEBUG: 0, "
            "TORCH_NCCL_ENABLE_TIMING: 0, TORCH_NCCL_BLOCKING_WAIT: 0, TORCH_DISTRIBUTED_DEBUG: "
            "OFF, TORCH_NCCL_ENABLE_MONITORING: 1, TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC: 480, "
            "TORCH_NCCL_TRACE_BUFFER_SIZE: 0, TORCH_NCCL_COORD_CHECK_MILSEC: 1000");
      l.Add(head +
            "NCCL Work update periodically: last enqueued NCCL work: 2000, last "
            "completed NCCL work: 2000.");
    }
    l.Add("[INFO|trainer.py:2078] ddp_timeout=1800, save_steps=500, eval_steps=500");
    l.Add(
        "I1218 10:05:00.000000  3190 coordination_service_agent.cc:512] Heartbeat to "
        "coordination service ok (seq 71)");
    l.Add(
        "I1218 10:05:01.000000  3190 coordination_service_agent.cc:640] Barrier "
        "(PjitFunction::Barrier::1) passed with status: OK");
    l.Add("[INFO] Watchdog: no stall detected in the last 300 s (timeout 1800 s)");
    for (int step = 1; step <= 12; ++step) {
      for (int k = 0; k < 4; ++k) {
        l.Add("[rank" + S(node * 4 + k) + "]: step " + S(step) + " loss 2." + S(40 - step) +
              " step_time=1." + S(10 + (k + step) % 4) + "s");
      }
    }
    for (int k = 0; k < 4; ++k) {
      l.Add("[rank" + S(node * 4 + k) +
            "]:[I1218 11:00:00.000000000 ProcessGroupNCCL.cpp:1243] [PG ID 0 PG GUID "
            "0(default_pg) Rank " +
            S(node * 4 + k) + "] Process group watchdog thread terminated normally");
    }
    b.Write("logs/" + host + "/train.log", l.text());
  }

  const Report r = b.Analyze();
  EXPECT_TRUE(r.findings.empty()) << Describe(r);
}

}  // namespace
}  // namespace casefile
