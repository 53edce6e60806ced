// The comm log rules on facts built by hand: nccl_ranks rows as the NCCL
// family stores them, dist_events rows of the comm kinds, and the lines the
// rules look up answered from a table. Each case checks code, severity,
// culprits, cited lines and the key words of the summary against
// docs/_comm_commlog.md, and the look-alikes that must not fire.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "analyze/analyzers/comm/comm_log_common.h"
#include "analyze/analyzers/comm/comm_log_findings.h"
#include "parse/dist/dist_kinds.h"

namespace casefile::comm {
namespace {

class CommLogRulesTest : public ::testing::Test {
 protected:
  CommLogRulesTest() {
    facts_.line = [](int64_t file, int64_t line) {
      Evidence e;
      e.path = "f" + std::to_string(file);
      e.line = line;
      return e;
    };
    facts_.lines_in = [this](int64_t file, int64_t from, int64_t to,
                             const std::function<bool(const LogLine&)>& cb) {
      for (const auto& [key, l] : lines_) {
        if (key.first != file || key.second < from || key.second > to) continue;
        if (!cb(l)) return;
      }
    };
  }

  // A stored line of file `file`.
  void Line(int64_t file, int64_t line_no, std::string host, int64_t pid, std::string message,
            int64_t ts = kNoTimestamp) {
    LogLine l;
    l.line_no = line_no;
    l.ts_us = ts;
    l.host = std::move(host);
    l.pid = pid;
    l.message = std::move(message);
    lines_[{file, line_no}] = std::move(l);
  }

  // An NCCL process of a communicator, with the usual facts of a healthy
  // IB rank: net IB, channels over P2P and NET/IB, init completed.
  NcclProc& Proc(int64_t file, int64_t line, const std::string& host, int64_t pid, int64_t rank,
                 int64_t nranks, const std::string& comm_id = "0x49bbd7790311d5eb") {
    NcclProc p;
    p.file_id = file;
    p.line_no = line;
    p.host = host;
    p.pid = pid;
    p.rank = rank;
    p.nranks = nranks;
    p.comm = "0x55d3c0a0b" + std::to_string(rank);
    p.comm_id = comm_id;
    p.net = "IB";
    p.net_devices = "IB:mlx5_0,mlx5_1";
    p.transports = "NET/IB,P2P/CUMEM";
    p.init_line = line + 5;
    p.complete_line = line + 60;
    p.last_line = line + 70;
    p.cuda_driver = "12040";
    facts_.procs.push_back(p);
    return facts_.procs.back();
  }

  CommEvent& Event(EventKind kind, int64_t file, int64_t line, const std::string& host,
                   std::string op, std::string detail = "",
                   std::optional<int64_t> rank = std::nullopt, int64_t ts = kNoTimestamp) {
    CommEvent e;
    e.kind = kind;
    e.file_id = file;
    e.line_no = line;
    e.host = host;
    e.op = std::move(op);
    e.detail = std::move(detail);
    e.rank = rank;
    e.ts_us = ts;
    facts_.events.push_back(e);
    return facts_.events.back();
  }

  static std::set<std::pair<std::string, std::optional<int64_t>>> Culprits(const Finding& f) {
    std::set<std::pair<std::string, std::optional<int64_t>>> out;
    for (const Culprit& c : f.culprits) out.insert({c.host.value_or(""), c.rank});
    return out;
  }
  static std::set<std::pair<std::string, int64_t>> Cited(const Finding& f) {
    std::set<std::pair<std::string, int64_t>> out;
    for (const Evidence& e : f.evidence) out.insert({e.path, e.line});
    return out;
  }
  static bool Says(const Finding& f, const std::string& words) {
    return f.summary.find(words) != std::string::npos;
  }

  CommLogFacts facts_;
  std::map<std::pair<int64_t, int64_t>, LogLine> lines_;
};

using CulpritSet = std::set<std::pair<std::string, std::optional<int64_t>>>;
using CiteSet = std::set<std::pair<std::string, int64_t>>;

// ---- comm.nccl_error --------------------------------------------------------

TEST_F(CommLogRulesTest, NcclErrorNamesFirstReporterClassErrnoAndPeer) {
  // Two hosts, four ranks each; node-1's rank 1 reports a reset connection
  // from node-2's address first, node-2 reports the remote error later.
  for (int r = 0; r < 8; ++r)
    Proc(r < 4 ? 1 : 2, 10 + r, r < 4 ? "node-1" : "node-2", 100 + r, r, 8);
  Line(2, 14, "node-2", 104, "NCCL INFO Bootstrap : Using bond0:10.20.0.13<0>");
  Line(1, 900, "node-1", 101, "[rank1]:step 10 loss 2.1", 1'000'000'000);
  Line(1, 1000, "node-1", 101,
       "NCCL WARN socketProgressOpt: Call to recv from 10.20.0.13<36112> failed : Connection "
       "reset by peer");
  Event(EventKind::kNcclWarn, 1, 1000, "node-1", dist::kNcclClassSystem,
        "socketProgressOpt: Call to recv from 10.20.0.13<36112> failed : Connection reset by peer");
  Event(EventKind::kCollectiveError, 2, 2000, "node-2", "",
        "remote process exited or there was a network error", 6, 1'003'000'000);
  Event(EventKind::kNcclWarn, 2, 2001, "node-2", dist::kNcclClassRemote,
        "NET/IB : Got completion from peer 10.20.0.12<51233> with status=12", std::nullopt);
  // Benign and class-less WARNs are no errors.
  Event(EventKind::kNcclWarn, 2, 3, "node-2", dist::kNcclBenign, "NET/Plugin: could not load");
  const auto f = BuildNcclError(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"node-1", 1}, {"node-2", std::nullopt}}));
  EXPECT_TRUE(Cited(*f).count({"f1", 1000}));
  EXPECT_TRUE(Cited(*f).count({"f2", 2000}));
  EXPECT_TRUE(Says(*f, "ncclSystemError")) << f->summary;
  EXPECT_TRUE(Says(*f, "Connection reset by peer")) << f->summary;
  EXPECT_TRUE(Says(*f, "10.20.0.13<36112> (node-2)")) << f->summary;
}

TEST_F(CommLogRulesTest, AFlushedIbCompletionIsNotTheFirstError) {
  // dgx-07's flush (status 5) is stamped 4 ms before dgx-12's retry-exceeded
  // completion (12) that put the connection into error.
  Proc(1, 10, "dgx-07", 100, 3, 16);
  Proc(2, 10, "dgx-12", 200, 6, 16);
  Event(EventKind::kNcclWarn, 1, 500, "dgx-07", dist::kNcclClassRemote,
        "NET/IB : Got completion with error 5, opcode 0, len 32768, vendor err 249", 3, 31'506'000);
  Event(EventKind::kNcclWarn, 2, 700, "dgx-12", dist::kNcclClassRemote,
        "NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129", 6, 31'510'000);
  auto f = BuildNcclError(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Culprits(*f).begin()->first, "dgx-12") << f->summary;
  EXPECT_TRUE(Cited(*f).count({"f2", 700}));
  // The newer form, "with status=5", and the verbs name alike.
  facts_.events[0].detail =
      "NET/IB : Got completion from peer 10.0.0.12<51233> with status=5 "
      "opcode=0 len=0 vendor err 249 (Recv)";
  f = BuildNcclError(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Culprits(*f).begin()->first, "dgx-12") << f->summary;
  // Status 52 is not a flush: the earlier report is first again.
  facts_.events[0].detail = "NET/IB : Got completion with error 52, opcode 0";
  f = BuildNcclError(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Culprits(*f).begin()->first, "dgx-07") << f->summary;
}

TEST_F(CommLogRulesTest, NcclErrorErrnoOnTheLastErrorLine) {
  Proc(1, 10, "node-0", 100, 0, 2);
  Event(EventKind::kCollectiveError, 1, 500, "node-0", "",
        "unhandled system error (run with NCCL_DEBUG=INFO for details)", 0, 5'000'000);
  Line(1, 500, "node-0", -1, "NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error");
  Line(1, 501, "node-0", -1, "ncclSystemError: System call (e.g. socket, malloc) failed.");
  Line(1, 502, "node-0", -1, "Last error:");
  Line(1, 503, "node-0", -1,
       "socketStartConnect: Connect to 10.1.0.7<41235> failed : Network is unreachable");
  const auto f = BuildNcclError(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Cited(*f), (CiteSet{{"f1", 500}, {"f1", 503}}));
  EXPECT_TRUE(Says(*f, "Network is unreachable")) << f->summary;
  EXPECT_TRUE(Says(*f, "10.1.0.7<41235>")) << f->summary;
}

TEST_F(CommLogRulesTest, NcclErrorBenignAndClasslessWarnsDoNotFire) {
  Proc(1, 10, "node-0", 100, 0, 2);
  Event(EventKind::kNcclWarn, 1, 20, "node-0", dist::kNcclBenign,
        "NET/Plugin : Plugin load (libnccl-net.so) returned 2");
  Event(EventKind::kNcclWarn, 1, 21, "node-0", dist::kNcclWarnOther, "Some odd warning");
  EXPECT_FALSE(BuildNcclError(facts_));
}

TEST_F(CommLogRulesTest, NcclErrorRemoteAfterAnotherRanksCrashIsAConsequence) {
  Event(EventKind::kCrash, 3, 40, "node-1", "", "torch.OutOfMemoryError: CUDA out of memory.", 6,
        1'000'000);
  Event(EventKind::kLauncher, 3, 90, "node-1", "torchrun", "root cause", 6, 2'000'000).value = 1;
  Event(EventKind::kNcclWarn, 1, 70, "node-0", dist::kNcclClassRemote,
        "Net : Connection closed by remote peer 10.0.0.2<56340>", 1, 1'500'000);
  Event(EventKind::kCollectiveError, 1, 72, "node-0", "",
        "remote process exited or there was a network error", 1, 1'600'000);
  EXPECT_FALSE(BuildNcclError(facts_));
  // Without the crash, the same reports are the first news of a failure.
  facts_.events.erase(facts_.events.begin(), facts_.events.begin() + 2);
  const auto f = BuildNcclError(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"node-0", 1}}));
}

TEST_F(CommLogRulesTest, NcclErrorOwnErrorBeatsAnEarlierRemoteReport) {
  // Clocks: node-0's remote report is stamped earlier than node-3's own
  // system error, but a peer that went away is never the first cause.
  Event(EventKind::kNcclWarn, 1, 70, "node-0", dist::kNcclClassRemote,
        "remote process exited or there was a network error", 0, 1'000'000);
  Event(EventKind::kNcclWarn, 4, 90, "node-3", dist::kNcclClassSystem,
        "Call to ibv_modify_qp failed with error Network is unreachable", 12, 1'400'000);
  const auto f = BuildNcclError(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"node-3", 12}}));
  EXPECT_TRUE(Says(*f, "Network is unreachable")) << f->summary;
}

// ---- comm.transport_fallback ------------------------------------------------

TEST_F(CommLogRulesTest, TransportFallbackSocketWhileIbDisabled) {
  for (int r = 0; r < 4; ++r) {
    NcclProc& p = Proc(r < 2 ? 1 : 2, 10 + r, r < 2 ? "node-0" : "node-1", 100 + r, r, 4);
    p.net = "Socket";
    p.net_devices = "Socket:eth0";
    p.transports = "NET/Socket,P2P/CUMEM";
    p.env = "NCCL_IB_DISABLE=1,NCCL_SOCKET_IFNAME=eth0";
  }
  Line(1, 12, "node-0", 100, "NCCL INFO NCCL_IB_DISABLE set by environment to 1");
  Line(1, 40, "node-0", 100, "NCCL INFO Channel 00/0 : 3[1] -> 0[0] [receive] via NET/Socket/0");
  // NCCL_IB_DISABLE=1 alone is how Ethernet-only clusters run: no finding
  // until something says the hardware is there.
  EXPECT_FALSE(BuildTransportFallback(facts_));
  facts_.ib_ports.push_back({9, 7, "node-1"});
  const auto f = BuildTransportFallback(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"node-0", std::nullopt}, {"node-1", std::nullopt}}));
  EXPECT_EQ(Cited(*f), (CiteSet{{"f1", 40}, {"f1", 12}, {"f9", 7}}));
  EXPECT_TRUE(Says(*f, "NCCL_IB_DISABLE=1")) << f->summary;
  EXPECT_TRUE(Says(*f, "bandwidth")) << f->summary;
}

TEST_F(CommLogRulesTest, TransportFallbackOneHostWithoutItsHca) {
  // node-1 lost its HCA: its ranks use sockets, node-0's use IB.
  for (int r = 0; r < 4; ++r) {
    NcclProc& p = Proc(r < 2 ? 1 : 2, 10 + r, r < 2 ? "node-0" : "node-1", 100 + r, r, 4);
    if (r >= 2) {
      p.net = "Socket";
      p.net_devices = "Socket:bond0";
      p.transports = "NET/Socket,P2P/CUMEM";
    }
  }
  Line(1, 11, "node-0", 100, "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB bond0:10.0.0.1<0>");
  const auto f = BuildTransportFallback(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"node-1", std::nullopt}}));
  EXPECT_TRUE(Cited(*f).count({"f1", 11}));
  EXPECT_TRUE(Says(*f, "InfiniBand on node-0")) << f->summary;
}

TEST_F(CommLogRulesTest, TransportFallbackActivePortInSysinfo) {
  for (int r = 0; r < 2; ++r) {
    NcclProc& p = Proc(1 + r, 10, "node-" + std::to_string(r), 100, r, 2);
    p.net = "Socket";
    p.net_devices = "Socket:eth0";
    p.transports = "NET/Socket";
  }
  facts_.ib_ports.push_back({9, 12, "node-1"});
  const auto f = BuildTransportFallback(facts_);
  ASSERT_TRUE(f);
  EXPECT_TRUE(Cited(*f).count({"f9", 12}));
}

TEST_F(CommLogRulesTest, TransportFallbackLookalikesDoNotFire) {
  // Ethernet-only cluster, no sign of IB, with and without the variables
  // such clusters set on purpose.
  for (int r = 0; r < 2; ++r) {
    NcclProc& p = Proc(1 + r, 10, "node-" + std::to_string(r), 100, r, 2);
    p.net = "Socket";
    p.net_devices = "Socket:eth0";
    p.transports = "NET/Socket";
    p.cuda_driver.clear();
  }
  EXPECT_FALSE(BuildTransportFallback(facts_));
  for (NcclProc& p : facts_.procs) p.env = "NCCL_IB_DISABLE=1,NCCL_P2P_DISABLE=1";
  EXPECT_FALSE(BuildTransportFallback(facts_));
  // One node: "Using network Socket" but only P2P/SHM channels, with IB_DISABLE set.
  facts_.procs.clear();
  for (int r = 0; r < 4; ++r) {
    NcclProc& p = Proc(1, 10 + r, "node-0", 100 + r, r, 4);
    p.net = "Socket";
    p.net_devices = "Socket:eth0";
    p.transports = "P2P/CUMEM,SHM";
    p.nnodes = 1;
    p.env = "NCCL_IB_DISABLE=1";
  }
  EXPECT_FALSE(BuildTransportFallback(facts_));
  // Healthy IB on two nodes.
  facts_.procs.clear();
  for (int r = 0; r < 4; ++r)
    Proc(r < 2 ? 1 : 2, 10 + r, r < 2 ? "node-0" : "node-1", 100 + r, r, 4);
  EXPECT_FALSE(BuildTransportFallback(facts_));
}

// ---- comm.version_mismatch ---------------------------------------------------

TEST_F(CommLogRulesTest, VersionMismatchMinorityHostIsTheCulprit) {
  const char* hosts[] = {"node-0", "node-1", "node-2"};
  for (int h = 0; h < 3; ++h) {
    for (int l = 0; l < 2; ++l) {
      NcclProc& p = Proc(1 + h, 10 + l, hosts[h], 100 * (h + 1) + l, h * 2 + l, 6);
      if (l == 0) {
        p.nccl_version = h == 2 ? "2.19.3" : "2.21.5";
        p.cuda_runtime = "12.4";
        p.version_line = 9;
      }
    }
  }
  const auto f = BuildVersionMismatch(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"node-2", 4}}));
  EXPECT_EQ(Cited(*f), (CiteSet{{"f3", 9}, {"f1", 9}}));
  EXPECT_TRUE(Says(*f, "2.19.3 on node-2")) << f->summary;
  EXPECT_TRUE(Says(*f, "2.21.5 on node-0 and node-1")) << f->summary;
}

TEST_F(CommLogRulesTest, VersionMismatchIsAnErrorWhenCommunicationFailed) {
  Proc(1, 10, "node-0", 100, 0, 2).nccl_version = "2.21.5";
  Proc(2, 10, "node-1", 200, 1, 2).nccl_version = "2.18.1";
  Event(EventKind::kNcclWarn, 2, 50, "node-1", dist::kNcclClassInvalidUsage, "invalid usage");
  const auto f = BuildVersionMismatch(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kError);
}

TEST_F(CommLogRulesTest, VersionMismatchDriverAndGpuTest) {
  Proc(1, 10, "node-0", 100, 0, 2);
  Proc(2, 10, "node-1", 200, 1, 2).cuda_driver = "12020";
  Line(2, 11, "node-1", 200, "NCCL INFO cudaDriverVersion 12020");
  const auto f = BuildVersionMismatch(facts_);
  ASSERT_TRUE(f);
  EXPECT_TRUE(Cited(*f).count({"f2", 11}));
  EXPECT_TRUE(Says(*f, "CUDA driver")) << f->summary;
  facts_.procs.clear();
  Event(EventKind::kGpuTest, 1, 5, "node-0", "versions", "pt=2.3.1, cuda=12.1, nccl=(2, 20, 5)");
  Event(EventKind::kGpuTest, 2, 5, "node-1", "versions", "pt=2.3.1, cuda=12.1, nccl=(2, 18, 1)");
  Event(EventKind::kGpuTest, 3, 5, "node-2", "versions", "pt=2.3.1, cuda=12.1, nccl=(2, 20, 5)");
  const auto g = BuildVersionMismatch(facts_);
  ASSERT_TRUE(g);
  EXPECT_EQ(Culprits(*g), (CulpritSet{{"node-1", std::nullopt}}));
  EXPECT_TRUE(Says(*g, "(2, 18, 1) on node-1")) << g->summary;
}

TEST_F(CommLogRulesTest, VersionMismatchSameVersionsOrOneHostDoNotFire) {
  for (int r = 0; r < 4; ++r)
    Proc(1 + r / 2, 10, "node-" + std::to_string(r / 2), 100 + r, r, 4).nccl_version = "2.21.5";
  EXPECT_FALSE(BuildVersionMismatch(facts_));
  facts_.procs.clear();
  // Two versions on one host (two jobs in one log): no host differs.
  Proc(1, 10, "node-0", 100, 0, 2).nccl_version = "2.21.5";
  Proc(1, 90, "node-0", 300, 0, 2).nccl_version = "2.20.5";
  EXPECT_FALSE(BuildVersionMismatch(facts_));
}

// ---- comm.init_incomplete ------------------------------------------------------

TEST_F(CommLogRulesTest, InitIncompleteNamesTheStuckRanks) {
  for (int r = 0; r < 8; ++r) {
    NcclProc& p = Proc(r < 4 ? 1 : 2, 10 + r, r < 4 ? "node-0" : "node-1", 100 + r, r, 8);
    if (r == 6) p.complete_line.reset();
  }
  const auto f = BuildInitIncomplete(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"node-1", 6}}));
  EXPECT_TRUE(Cited(*f).count({"f2", 21}));  // its Init START (line 16 + 5)
  EXPECT_TRUE(Says(*f, "7 of the 8 ranks")) << f->summary;
}

TEST_F(CommLogRulesTest, InitIncompleteBeforeNccl220HasNoCommIdOnTheStuckRank) {
  // NCCL 2.18 prints the commId only on Init COMPLETE: the stuck rank's row
  // has none.
  for (int r = 0; r < 16; ++r) {
    NcclProc& p = Proc(r < 8 ? 1 : 2, 10 + r, r < 8 ? "node-0" : "node-1", 100 + r, r, 16);
    if (r == 13) {
      p.complete_line.reset();
      p.comm_id.clear();
    }
  }
  auto f = BuildInitIncomplete(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"node-1", 13}}));
  EXPECT_TRUE(Says(*f, "15 of the 16 ranks")) << f->summary;
  // Two communicators of 16 with a commId: which one rank 13 was joining is
  // unknown, and nothing is said.
  Proc(3, 10, "node-2", 500, 0, 16, "0x1111");
  EXPECT_FALSE(BuildInitIncomplete(facts_));
}

TEST_F(CommLogRulesTest, InitIncompleteWhenNobodyCompletedDoesNotFire) {
  for (int r = 0; r < 4; ++r) Proc(1, 10 + r, "node-0", 100 + r, r, 4).complete_line.reset();
  EXPECT_FALSE(BuildInitIncomplete(facts_));
  // A rank whose row is doubled (two files) and complete in one is complete.
  facts_.procs.clear();
  Proc(1, 10, "node-0", 100, 0, 2);
  Proc(2, 10, "node-0", 100, 0, 2).complete_line.reset();
  Proc(1, 20, "node-1", 200, 1, 2);
  EXPECT_FALSE(BuildInitIncomplete(facts_));
}

// ---- comm.rendezvous_failed ------------------------------------------------------

TEST_F(CommLogRulesTest, PeerClosedAfterAnotherRankCrashedIsNotARendezvousFailure) {
  // Rank 6 crashes on its own (a DataLoader KeyError); rank 1's gloo
  // barrier then sees "Connection closed by peer": a consequence.
  Event(EventKind::kCrash, 2, 3452, "a100-n2", "", "KeyError: Caught KeyError in DataLoader", 6,
        10'000'000);
  Event(EventKind::kRendezvous, 1, 3461, "a100-n1", dist::kRdzvReset, "10.31.0.12:35077", 1,
        11'000'000);
  EXPECT_FALSE(BuildRendezvousFailed(facts_).has_value());
  // The same reset with no earlier failure of its own elsewhere stands.
  facts_.events.erase(facts_.events.begin());
  const auto f = BuildRendezvousFailed(facts_);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(Says(*f, "reset")) << f->summary;
  // A crash well after the reset (beyond the clock slack) explains nothing.
  Event(EventKind::kCrash, 2, 9000, "a100-n2", "", "KeyError: late", 6, 60'000'000);
  EXPECT_TRUE(BuildRendezvousFailed(facts_).has_value());
}

TEST_F(CommLogRulesTest, RefusedWhileTheMasterCameUpIsARetryNotAFailure) {
  // Workers start before the master: a few refusals, then NCCL set-up.
  Event(EventKind::kRendezvous, 2, 3, "node-1", dist::kRdzvRefused, "node-0:29500");
  Event(EventKind::kRendezvous, 2, 4, "node-1", dist::kRdzvRefused, "node-0:29500");
  Proc(2, 40, "node-1", 100, 1, 2);
  EXPECT_FALSE(BuildRendezvousFailed(facts_).has_value());
  // Training steps after the refusals say the same without NCCL lines.
  facts_.procs.clear();
  facts_.last_step_line[2] = 900;
  EXPECT_FALSE(BuildRendezvousFailed(facts_).has_value());
  // Refusals after the last progress (a master lost mid-run) still count.
  facts_.last_step_line[2] = 2;
  EXPECT_TRUE(BuildRendezvousFailed(facts_).has_value());
}

TEST_F(CommLogRulesTest, AWorkerLogThatGoesOnLongAfterItsLastRefusalJoined) {
  // A Kubernetes worker pod: the master's service name does not resolve
  // for half a minute, then the pod's ranks train for two hours (rank 0,
  // on another pod, logs the steps; NCCL_DEBUG is off).
  constexpr int64_t kT = 1'720'000'000'000'000;
  Event(EventKind::kRendezvous, 2, 3, "worker-0", dist::kRdzvNameResolution, "master-0:23456",
        std::nullopt, kT);
  Event(EventKind::kRendezvous, 2, 9, "worker-0", dist::kRdzvNameResolution, "master-0:23456",
        std::nullopt, kT + 30'000'000);
  facts_.last_ts[2] = kT + 2LL * 3600 * 1'000'000;
  EXPECT_FALSE(BuildRendezvousFailed(facts_).has_value());
  // A log that ends within minutes of its last error: the process gave up.
  facts_.last_ts[2] = kT + 90'000'000;
  EXPECT_TRUE(BuildRendezvousFailed(facts_).has_value());
}

TEST_F(CommLogRulesTest, APortInUseOutweighsTheClientsItRefused) {
  // The master could not bind its port; the workers retried dozens of
  // times against an IP the bundle maps to no host.
  facts_.log_hosts = {"node-0", "node-1", "node-2"};
  Event(EventKind::kRendezvous, 1, 9, "node-0", dist::kRdzvAddressInUse, "[::]:29500", 0);
  for (int i = 0; i < 20; ++i) {
    Event(EventKind::kRendezvous, 2, 10 + i, "node-1", dist::kRdzvRefused, "10.0.0.1:29500");
    Event(EventKind::kRendezvous, 3, 10 + i, "node-2", dist::kRdzvRefused, "10.0.0.1:29500");
  }
  const auto f = BuildRendezvousFailed(facts_);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"node-0", 0}}));
  EXPECT_TRUE(Says(*f, "address already in use")) << f->summary;
  EXPECT_TRUE(Says(*f, "connection_refused (40)")) << f->summary;
}

TEST_F(CommLogRulesTest, ANameThatDoesNotResolveIsTheStory) {
  facts_.log_hosts = {"node-0", "node-1"};
  Event(EventKind::kRendezvous, 2, 5, "node-1", dist::kRdzvNameResolution, "master.svc:29400");
  for (int i = 0; i < 5; ++i) {
    Event(EventKind::kRendezvous, 2, 6 + i, "node-1", dist::kRdzvSocketTimeout, "master.svc:29400");
  }
  const auto f = BuildRendezvousFailed(facts_);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(Says(*f, "did not resolve")) << f->summary;
  EXPECT_NE(f->recommendation.find("getent hosts"), std::string::npos) << f->recommendation;
  // Not the master's fault: the name is.
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"node-1", std::nullopt}}));
}

TEST_F(CommLogRulesTest, AStoreThatWaitedForClientsNamesTheHostThatNeverCame) {
  // torch 2.4's TCPStore server on node-0 (and the ranks waiting with it)
  // time out with 3/4 clients joined; node-3's log holds only the
  // scheduler's cancellation.
  facts_.log_hosts = {"node-0", "node-1", "node-2", "node-3"};
  for (int h = 0; h < 3; ++h) {
    Event(EventKind::kRendezvous, 1 + h, 40, "node-" + std::to_string(h), kRdzvNotAllJoined,
          "3/4 clients joined", h);
  }
  auto f = BuildRendezvousFailed(facts_);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"node-3", std::nullopt}}));
  EXPECT_TRUE(Says(*f, "not every process joined")) << f->summary;
  EXPECT_TRUE(Says(*f, "(3/4 clients joined; 3 reports)")) << f->summary;
  EXPECT_TRUE(Says(*f, "node-3 reports no rendezvous at all")) << f->summary;
  // The count is no endpoint.
  EXPECT_FALSE(Says(*f, "with the store at")) << f->summary;
  // Without the missing host's log, nobody is blamed.
  facts_.log_hosts.pop_back();
  f = BuildRendezvousFailed(facts_);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(f->culprits.empty());
  EXPECT_TRUE(Says(*f, "left no log in it")) << f->summary;
}

TEST_F(CommLogRulesTest, ListenFailureHasItsOwnWords) {
  Event(EventKind::kRendezvous, 1, 9, "node-0", dist::kRdzvListenFailed, "");
  const auto f = BuildRendezvousFailed(facts_);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(Says(*f, "could not listen")) << f->summary;
}

TEST_F(CommLogRulesTest, RendezvousRefusedByEveryClientBlamesTheMaster) {
  facts_.log_hosts = {"node-0", "node-1", "node-2"};
  Event(EventKind::kRendezvous, 2, 40, "node-1", dist::kRdzvRefused, "node-0:29500");
  Event(EventKind::kRendezvous, 3, 41, "node-2", dist::kRdzvRefused, "node-0:29500");
  const auto f = BuildRendezvousFailed(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"node-0", std::nullopt}}));
  EXPECT_EQ(Cited(*f), (CiteSet{{"f2", 40}, {"f3", 41}}));
  EXPECT_TRUE(Says(*f, "node-0:29500")) << f->summary;
  EXPECT_TRUE(Says(*f, "connection refused")) << f->summary;
}

// Found by the corpus run (comm_rendezvous_failed): the summary began
// "Node-1 and node-2 failed ...", a host name that is not the host's.
TEST_F(CommLogRulesTest, RendezvousSummaryQuotesHostNamesAsWritten) {
  facts_.log_hosts = {"node-0", "node-1", "node-2"};
  Event(EventKind::kRendezvous, 2, 40, "node-1", dist::kRdzvRefused, "node-0:29500");
  Event(EventKind::kRendezvous, 3, 41, "node-2", dist::kRdzvRefused, "node-0:29500");
  const auto f = BuildRendezvousFailed(facts_);
  ASSERT_TRUE(f);
  EXPECT_TRUE(
      f->summary.starts_with("node-1 and node-2 failed at the rendezvous with the store at "
                             "node-0:29500"))
      << f->summary;
  EXPECT_FALSE(Says(*f, "Node-1")) << f->summary;
}

TEST_F(CommLogRulesTest, RendezvousOneClientTimedOutIsItsOwnFault) {
  facts_.log_hosts = {"node-0", "node-1", "node-2"};
  Event(EventKind::kRendezvous, 3, 41, "node-2", dist::kRdzvSocketTimeout, "node-0:29500");
  const auto f = BuildRendezvousFailed(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"node-2", std::nullopt}}));
}

TEST_F(CommLogRulesTest, RendezvousAddressInUseBlamesTheBinder) {
  facts_.log_hosts = {"node-0", "node-1"};
  Event(EventKind::kRendezvous, 1, 12, "node-0", dist::kRdzvAddressInUse, "[::]:29500");
  Event(EventKind::kRendezvous, 2, 80, "node-1", dist::kRdzvClosed, "");
  const auto f = BuildRendezvousFailed(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"node-0", std::nullopt}}));
  EXPECT_TRUE(Says(*f, "address already in use")) << f->summary;
}

// ---- comm.gpu_test_failed ----------------------------------------------------------

TEST_F(CommLogRulesTest, GpuTestBrokenAndMissingRanks) {
  RankHostMap map;
  for (int r = 0; r < 8; ++r)
    map.AddPair(r, r < 4 ? "gpu-a" : "gpu-b", RankHostMap::Source::kExplicit);
  map.Finish();
  facts_.ranks = &map;
  for (int r = 0; r < 8; ++r) {
    if (r == 5 || r == 7) continue;
    CommEvent& e = Event(EventKind::kGpuTest, r < 4 ? 1 : 2, 100 + r, r < 4 ? "gpu-a" : "gpu-b",
                         "ok", r < 4 ? "gpu-a" : "gpu-b", r);
    e.value = 8;
  }
  CommEvent& b = Event(EventKind::kGpuTest, 2, 90, "gpu-b", "broken", "gpu-b");
  b.local_rank = 1;
  const auto f = BuildGpuTestFailed(facts_);
  ASSERT_TRUE(f);
  EXPECT_EQ(Culprits(*f), (CulpritSet{{"gpu-b", 5}, {"gpu-b", 7}}));
  EXPECT_TRUE(Cited(*f).count({"f2", 90}));
  EXPECT_TRUE(Says(*f, "6 of 8 ranks passed")) << f->summary;
}

TEST_F(CommLogRulesTest, GpuTestAllOkDoesNotFire) {
  for (int r = 0; r < 4; ++r)
    Event(EventKind::kGpuTest, 1, 100 + r, "gpu-a", "ok", "gpu-a", r).value = 4;
  Event(EventKind::kGpuTest, 1, 110, "gpu-a", "versions", "pt=2.3.1, cuda=12.1, nccl=(2, 20, 5)");
  EXPECT_FALSE(BuildGpuTestFailed(facts_));
}

}  // namespace
}  // namespace casefile::comm
