// The comm family (parse/dist/comm_lines.cc): NCCL_DEBUG output read into
// nccl_ranks rows (per process and communicator) and nccl_warn rows, torch's
// "Last error:" detail, c10d / elastic rendezvous failures and the
// distributed GPU test, behind the prefixes real logs add; and the
// lookalikes that must not become rows.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "parse/dist/comm_forms.h"
#include "parse/dist/dist_extractor.h"
#include "parse/dist/dist_kinds.h"
#include "parse/dist_test_util.h"

namespace casefile::dist {
namespace {

struct Fed {
  std::vector<DistEventRow> events;
  std::vector<NcclRankRow> ranks;
};

// The lines through the line-prefix parser (as ingest does) into the comm
// family alone, with both sinks.
Fed Feed(const std::vector<std::string>& lines) {
  Fed fed;
  auto family = MakeCommLinesFamily();
  fed.events = test::FeedFamily(*family, lines, 9, 2025, &fed.ranks);
  return fed;
}

std::vector<DistEventRow> OfKind(const std::vector<DistEventRow>& rows, const char* kind) {
  std::vector<DistEventRow> out;
  for (const auto& r : rows) {
    if (r.kind == kind) out.push_back(r);
  }
  return out;
}

// ---------------------------------------------------------------- nccl_ranks

TEST(DistCommNccl, OneProcessNewStyleInit) {
  // NCCL 2.21: Init START / COMPLETE with the function name, nvml indexes in
  // the channel brackets.
  const Fed fed = Feed({
      "node-0:1234:1300 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
      "node-0:1234:1300 [0] NCCL INFO cudaDriverVersion 12040",
      "NCCL version 2.21.5+cuda12.4",
      "node-0:1234:1300 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0",
      "node-0:1234:1300 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.",
      "node-0:1234:1300 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared "
      "object file: No such file or directory No plugin found (libnccl-net.so), using internal "
      "implementation",
      "node-0:1234:1300 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB/SHARP [RO]; "
      "OOB eth0:10.0.0.1<0>",
      "node-0:1234:1300 [0] NCCL INFO Using non-device net plugin version 0",
      "node-0:1234:1300 [0] NCCL INFO Using network IB",
      "node-0:1234:1300 [0] NCCL INFO ncclCommInitRank comm 0x55d3c0a0b000 rank 0 nranks 16 "
      "cudaDev 0 nvmlDev 0 busId 18000 commId 0x49bbd7790311d5eb - Init START",
      "node-0:1234:1300 [0] NCCL INFO comm 0x55d3c0a0b000 rank 0 nRanks 16 nNodes 2 localRanks 8 "
      "localRank 0 MNNVL 0",
      "node-0:1234:1300 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7   8   9  "
      "10  11  12  13  14  15",
      "node-0:1234:1300 [0] NCCL INFO Trees [0] 1/8/-1->0->-1 [1] 1/-1/-1->0->8",
      "node-0:1234:1310 [0] NCCL INFO Channel 00/0 : 15[7] -> 0[0] [receive] via NET/IB/0/GDRDMA",
      "node-0:1234:1310 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
      "node-0:1234:1310 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
      "node-0:1234:1300 [0] NCCL INFO Connected all rings",
      "node-0:1234:1300 [0] NCCL INFO ncclCommInitRank comm 0x55d3c0a0b000 rank 0 nranks 16 "
      "cudaDev 0 nvmlDev 0 busId 18000 commId 0x49bbd7790311d5eb - Init COMPLETE",
  });
  EXPECT_TRUE(fed.events.empty());
  ASSERT_EQ(fed.ranks.size(), 1u);
  const NcclRankRow& r = fed.ranks[0];
  EXPECT_EQ(r.file_id, 9);
  EXPECT_EQ(r.line_no, 1);
  EXPECT_EQ(r.host, "node-0");
  EXPECT_EQ(r.pid, 1234);
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.nranks, 16);
  EXPECT_EQ(r.cuda_dev, 0);
  EXPECT_EQ(r.nnodes, 2);
  EXPECT_EQ(r.comm, "0x55d3c0a0b000");
  EXPECT_EQ(r.comm_id, "0x49bbd7790311d5eb");
  EXPECT_EQ(r.parent, std::nullopt);
  EXPECT_EQ(r.bus_id, "18000");
  EXPECT_EQ(r.nccl_version, "2.21.5");
  EXPECT_EQ(r.cuda_runtime, "12.4");
  EXPECT_EQ(r.version_line, 3);
  EXPECT_EQ(r.cuda_driver, "12040");
  EXPECT_EQ(r.net, "IB");
  EXPECT_EQ(r.net_devices, "IB:mlx5_0,mlx5_1");
  EXPECT_EQ(r.env, "NCCL_IB_GID_INDEX=3,NCCL_SOCKET_IFNAME=eth0");
  EXPECT_EQ(r.transports, "NET/IB,P2P/CUMEM");
  // The ring line, the tree line and three connections.
  EXPECT_EQ(r.channel_lines, 5);
  EXPECT_EQ(r.init_line, 10);
  EXPECT_EQ(r.complete_line, 18);
  EXPECT_EQ(r.warn_count, 0);
  EXPECT_EQ(r.first_warn_line, std::nullopt);
  EXPECT_EQ(r.last_line, 18);
}

TEST(DistCommNccl, InterleavedProcessesOldStyleShareTheBanner) {
  // NCCL 2.17 on one host's log: two processes interleaved, busIds in the
  // channel brackets, the communicator named only at Init COMPLETE (its
  // channel lines come before it), one banner for the file.
  const Fed fed = Feed({
      "NCCL version 2.17.1+cuda11.8",
      "gpu-a:2001:2101 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>",
      "gpu-a:2002:2102 [1] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>",
      "gpu-a:2001:2101 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.1.1<0>[1]eth1:10.1.2.1<0>",
      "gpu-a:2001:2101 [0] NCCL INFO Using network Socket",
      "gpu-a:2002:2102 [1] NCCL INFO NET/Socket : Using [0]eth0:10.1.1.1<0>[1]eth1:10.1.2.1<0>",
      "gpu-a:2002:2102 [1] NCCL INFO Using network Socket",
      "gpu-a:2001:2101 [0] NCCL INFO Channel 00/02 :    0   1   2   3",
      "gpu-a:2001:2101 [0] NCCL INFO Channel 00/0 : 0[18000] -> 1[2a000] via SHM/direct/direct",
      "gpu-a:2002:2102 [1] NCCL INFO Channel 00/0 : 1[2a000] -> 2[3d000] [send] via NET/Socket/1",
      "gpu-a:2002:2102 [1] NCCL INFO Channel 00/0 : 3[b2000] -> 1[2a000] [receive] via "
      "NET/Socket/0",
      "gpu-a:2001:2101 [0] NCCL INFO comm 0x7f3a8c000e00 rank 0 nranks 4 cudaDev 0 busId 18000 - "
      "Init COMPLETE",
      "gpu-a:2002:2102 [1] NCCL INFO comm 0x7f11dc000e00 rank 1 nranks 4 cudaDev 1 busId 2a000 - "
      "Init COMPLETE",
      "gpu-a:2001:2101 [0] NCCL INFO Launch mode Parallel",
  });
  ASSERT_EQ(fed.ranks.size(), 2u);
  const NcclRankRow& a = fed.ranks[0];
  const NcclRankRow& b = fed.ranks[1];
  EXPECT_EQ(a.pid, 2001);
  EXPECT_EQ(b.pid, 2002);
  for (const NcclRankRow* r : {&a, &b}) {
    EXPECT_EQ(r->host, "gpu-a");
    EXPECT_EQ(r->nccl_version, "2.17.1");
    EXPECT_EQ(r->cuda_runtime, "11.8");
    EXPECT_EQ(r->version_line, 1);
    EXPECT_EQ(r->net, "Socket");
    EXPECT_EQ(r->net_devices, "Socket:eth0,eth1");
    EXPECT_EQ(r->nranks, 4);
    EXPECT_EQ(r->comm_id, std::nullopt);
    EXPECT_EQ(r->channel_lines, 2);
  }
  EXPECT_EQ(a.rank, 0);
  EXPECT_EQ(a.comm, "0x7f3a8c000e00");
  EXPECT_EQ(a.bus_id, "18000");
  EXPECT_EQ(a.transports, "SHM");
  EXPECT_EQ(a.line_no, 2);
  EXPECT_EQ(a.init_line, 12);  // no START: the first comm line
  EXPECT_EQ(a.complete_line, 12);
  EXPECT_EQ(a.last_line, 14);
  EXPECT_EQ(b.rank, 1);
  EXPECT_EQ(b.cuda_dev, 1);
  EXPECT_EQ(b.transports, "NET/Socket");
  EXPECT_EQ(b.line_no, 3);
  EXPECT_EQ(b.init_line, 13);
  EXPECT_EQ(b.complete_line, 13);
  EXPECT_EQ(b.last_line, 13);
}

TEST(DistCommNccl, SeveralCommunicatorsPerProcess) {
  const Fed fed = Feed({
      "h1:10:11 [0] NCCL INFO comm 0x55aa00001000 rank 0 nRanks 8 nNodes 1 localRanks 8 "
      "localRank 0 MNNVL 0",
      "h1:10:11 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
      "h1:10:11 [0] NCCL INFO comm 0x55aa00001000 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId "
      "18000 commId 0x1111aaaa2222bbbb - Init COMPLETE",
      // A connection made at the first collective, after Init COMPLETE.
      "h1:10:15 [0] NCCL INFO Channel 02/1 : 0[0] -> 1[1] via P2P/IPC/read",
      "h1:10:12 [0] NCCL INFO ncclCommSplit comm 0x55aa00002000 rank 0 nranks 4 cudaDev 0 "
      "nvmlDev 0 busId 18000 parent 0x55aa00001000 splitCount 1 color 1 key 0 - Init START",
      "h1:10:12 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[2] via SHM/direct/direct",
      "h1:10:12 [0] NCCL INFO ncclCommSplit comm 0x55aa00002000 rank 0 nranks 4 cudaDev 0 "
      "nvmlDev 0 busId 18000 parent 0x55aa00001000 splitCount 1 color 1 key 0 - Init COMPLETE",
      "h1:10:11 [0] NCCL INFO comm 0x55aa00001000 rank 0 nranks 8 cudaDev 0 busId 18000 - "
      "Destroy COMPLETE",
  });
  ASSERT_EQ(fed.ranks.size(), 2u);
  const NcclRankRow& world = fed.ranks[0];
  const NcclRankRow& split = fed.ranks[1];
  EXPECT_EQ(world.comm, "0x55aa00001000");
  EXPECT_EQ(world.nranks, 8);
  EXPECT_EQ(world.nnodes, 1);
  EXPECT_EQ(world.comm_id, "0x1111aaaa2222bbbb");
  EXPECT_EQ(world.parent, std::nullopt);
  EXPECT_EQ(world.transports, "P2P/IPC");
  EXPECT_EQ(world.channel_lines, 2);
  EXPECT_EQ(world.line_no, 1);
  EXPECT_EQ(world.init_line, 1);
  EXPECT_EQ(world.complete_line, 3);
  EXPECT_EQ(split.comm, "0x55aa00002000");
  EXPECT_EQ(split.parent, "0x55aa00001000");
  EXPECT_EQ(split.nranks, 4);
  EXPECT_EQ(split.transports, "SHM");
  EXPECT_EQ(split.channel_lines, 1);
  EXPECT_EQ(split.line_no, 5);
  EXPECT_EQ(split.init_line, 5);
  EXPECT_EQ(split.complete_line, 7);
  // Facts of the process on both.
  EXPECT_EQ(world.last_line, 8);
  EXPECT_EQ(split.last_line, 8);
}

TEST(DistCommNccl, ProcessWithoutCommunicatorHasOneRow) {
  const Fed fed = Feed({
      "node-9:77:78 [3] NCCL INFO cudaDriverVersion 12020",
      "node-9:77:78 [3] NCCL INFO Bootstrap : Using eth0:10.0.0.9<0>",
      "node-9:77:78 [3] NCCL INFO NET/IB : No device found.",
      "node-9:77:78 [3] NCCL INFO NCCL_IB_DISABLE set by environment to 1.",
  });
  ASSERT_EQ(fed.ranks.size(), 1u);
  EXPECT_EQ(fed.ranks[0].comm, std::nullopt);
  EXPECT_EQ(fed.ranks[0].rank, std::nullopt);
  EXPECT_EQ(fed.ranks[0].cuda_driver, "12020");
  EXPECT_EQ(fed.ranks[0].net_devices, "");
  EXPECT_EQ(fed.ranks[0].env, "NCCL_IB_DISABLE=1");
  EXPECT_EQ(fed.ranks[0].init_line, std::nullopt);
  EXPECT_EQ(fed.ranks[0].last_line, 4);
}

TEST(DistCommNccl, BannerGoesToTheProcessOfItsWrapper) {
  // torchrun's "[rankN]:" on every line of a worker: the banner of rank 1
  // is rank 1's even though rank 0's line comes next; the two disagree, so
  // a third process gets neither.
  const Fed fed = Feed({
      "[rank0]:node-0:3000:3000 [0] NCCL INFO cudaDriverVersion 12020",
      "[rank1]:node-0:3001:3001 [1] NCCL INFO cudaDriverVersion 12020",
      "[rank1]:NCCL version 2.18.6+cuda12.2",
      "[rank0]:node-0:3000:3000 [0] NCCL INFO Using network IB",
      "[rank0]:NCCL version 2.18.5+cuda12.2",
      "node-0:3002:3002 [2] NCCL INFO cudaDriverVersion 12020",
  });
  ASSERT_EQ(fed.ranks.size(), 3u);
  EXPECT_EQ(fed.ranks[0].pid, 3000);
  EXPECT_EQ(fed.ranks[0].nccl_version, "2.18.5");
  EXPECT_EQ(fed.ranks[0].version_line, 5);
  EXPECT_EQ(fed.ranks[1].pid, 3001);
  EXPECT_EQ(fed.ranks[1].nccl_version, "2.18.6");
  EXPECT_EQ(fed.ranks[1].version_line, 3);
  EXPECT_EQ(fed.ranks[2].nccl_version, std::nullopt);
}

TEST(DistCommNccl, OwnInfoBannerWinsOverAnUnprefixedOne) {
  // NCCL_DEBUG_FILE (<= 2.22) logs the banner as an INFO line of the
  // process; a stray banner in front of it is not its version.
  const Fed fed = Feed({
      "NCCL version 2.18.1+cuda12.1",
      "node-5:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.5<0>",
      "node-5:1:2 [0] NCCL INFO NCCL version 2.19.3+cuda12.3",
  });
  ASSERT_EQ(fed.ranks.size(), 1u);
  EXPECT_EQ(fed.ranks[0].nccl_version, "2.19.3");
  EXPECT_EQ(fed.ranks[0].cuda_runtime, "12.3");
  EXPECT_EQ(fed.ranks[0].version_line, 3);
}

TEST(DistCommNccl, TruncatedLinesKeepWhatTheySay) {
  const Fed fed = Feed({
      "node-0:5:6 [0] NCCL INFO ncclCommInitRank comm 0x5500aa rank 3 nra",
      "node-0:5:6 [0] NCCL INFO Channel 00/0 : 3[3] -> 4[4] via",
      "NCCL version 2.2",
  });
  ASSERT_EQ(fed.ranks.size(), 1u);
  EXPECT_EQ(fed.ranks[0].comm, "0x5500aa");
  EXPECT_EQ(fed.ranks[0].rank, 3);
  EXPECT_EQ(fed.ranks[0].nranks, std::nullopt);
  EXPECT_EQ(fed.ranks[0].channel_lines, 1);
  EXPECT_EQ(fed.ranks[0].transports, "");
  EXPECT_EQ(fed.ranks[0].nccl_version, "2.2");
}

TEST(DistCommNccl, CommunicatorsPastTheCapAreNotStored) {
  std::vector<std::string> lines;
  for (int i = 0; i < 70; ++i) {
    lines.push_back("h:1:1 [0] NCCL INFO comm 0x7000" + std::to_string(100 + i) +
                    " rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE");
  }
  const Fed fed = Feed(lines);
  EXPECT_EQ(fed.ranks.size(), 64u);
}

TEST(DistCommNccl, ProcessesPastTheCapAreNotStored) {
  std::vector<std::string> lines;
  for (int i = 0; i < 4100; ++i) {
    lines.push_back("h:" + std::to_string(1000 + i) + ":1 [0] NCCL INFO Using network IB");
  }
  const Fed fed = Feed(lines);
  EXPECT_EQ(fed.ranks.size(), 4096u);
}

// ----------------------------------------------------------------- nccl_warn

TEST(DistCommNccl, WarnLinesAndTheInitThatNeverCompleted) {
  const Fed fed = Feed({
      "node-1:501:601 [2] NCCL INFO ncclCommInitRank comm 0x6000f0 rank 2 nranks 4 cudaDev 2 "
      "nvmlDev 2 busId 3d000 commId 0xabc123 - Init START",
      "",
      "node-1:501:650 [2] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to "
      "10.0.0.2<43210> failed : Connection refused",
      "node-1:501:650 [2] NCCL INFO misc/socket.cc:567 -> 2",
      "node-1:501:650 [2] NCCL INFO bootstrap.cc:283 -> 2",
      "node-1:501:601 [2] NCCL INFO init.cc:1745 -> 2",
  });
  const auto warns = OfKind(fed.events, kNcclWarn);
  ASSERT_EQ(warns.size(), 1u);
  EXPECT_EQ(warns[0].line_no, 3);
  EXPECT_EQ(warns[0].host, "node-1");
  EXPECT_EQ(warns[0].rank, 2);  // its communicator's rank
  EXPECT_EQ(warns[0].op, kNcclClassSystem);
  EXPECT_EQ(warns[0].detail,
            "socketStartConnect: Connect to 10.0.0.2<43210> failed : Connection refused");
  ASSERT_EQ(fed.ranks.size(), 1u);
  EXPECT_EQ(fed.ranks[0].init_line, 1);
  EXPECT_EQ(fed.ranks[0].complete_line, std::nullopt);
  EXPECT_EQ(fed.ranks[0].warn_count, 1);
  EXPECT_EQ(fed.ranks[0].first_warn_line, 3);
  EXPECT_EQ(fed.ranks[0].last_line, 6);
}

TEST(DistCommNccl, ClasslessWarnTakesTheClassOfTheUnwindAfterIt) {
  // Real failures whose WARN names no class: the "-> N" frame that follows
  // does; one row on the WARN line with that class, none for the frames.
  const Fed fed = Feed({
      "[default1]:node-1:1101:1161 [1] include/shm.h:28 NCCL WARN Error: failed to extend "
      "/dev/shm/nccl-Xs9aZ1 to 9637892 bytes",
      "[default1]:node-1:1101:1161 [1] NCCL INFO include/shm.h:41 -> 2",
      "[default1]:node-1:1101:1161 [1] NCCL INFO transport/shm.cc:114 -> 2",
      "node-2:77:78 [0] proxy.cc:1048 NCCL WARN Proxy Call to rank 2 failed (Connect)",
      "node-2:77:78 [0] NCCL INFO transport/p2p.cc:412 -> 6",
      "node-3:55:56 [0] include/socket.h:423 NCCL WARN Net : Message truncated : receiving "
      "1024 bytes instead of 256",
      "node-3:55:56 [0] NCCL INFO bootstrap.cc:118 -> 3",
      // No unwind after it: the WARN stays class-less.
      "node-4:66:67 [0] NCCL WARN Error : ring 0 does not contain rank 3",
      "node-4:66:67 [0] NCCL INFO Using network IB",
  });
  const auto w = OfKind(fed.events, kNcclWarn);
  ASSERT_EQ(w.size(), 4u);
  std::map<int64_t, std::string> op_of_line;
  for (const auto& r : w) op_of_line[r.line_no] = *r.op;
  EXPECT_EQ(op_of_line[1], kNcclClassSystem);
  EXPECT_EQ(op_of_line[4], kNcclClassRemote);
  EXPECT_EQ(op_of_line[6], kNcclClassInternal);
  EXPECT_EQ(op_of_line[8], kNcclWarnOther);
}

TEST(DistCommNccl, WarnForms) {
  const Fed fed = Feed({
      // NCCL >= 2.26: a time stamp in front of WARN lines.
      "[2025-03-12 10:11:12] node-2:7001:7050 [3] transport/net_ib.cc:1763 NCCL WARN NET/IB : "
      "Got completion from peer 10.0.0.5<55921> with status=12 opcode=1 len=0 vendor err 129 "
      "(Send) localGid ::ffff:10.0.0.6 remoteGids::ffff:10.0.0.5",
      // The function after file:line (current NCCL).
      "node-2:7001:7050 [3] misc/ibvwrap.cc:187 (wrap_ibv_modify_qp) NCCL WARN Call to "
      "ibv_modify_qp failed with error Network is unreachable",
      "[default3]:node-2:7001:7050 [3] enqueue.cc:1556 NCCL WARN Cuda failure 'out of memory'",
      "node-2:7001:7001 [3] init.cc:1521 NCCL WARN Duplicate GPU detected : rank 3 and rank 2 "
      "both on CUDA device 3d000",
      "node-2:7001:7051 [3] proxy.cc:1496 NCCL WARN [Proxy Service 3] Failed to execute "
      "operation Connect from rank 3, retcode 3",
      "node-2:7001:7050 [3] NCCL WARN Error : ring 0 does not contain rank 3",
  });
  const auto w = OfKind(fed.events, kNcclWarn);
  ASSERT_EQ(w.size(), 6u);
  EXPECT_EQ(w[0].op, kNcclClassRemote);
  EXPECT_EQ(w[0].host, "node-2");
  EXPECT_NE(w[0].ts_us, kNoTimestamp);
  EXPECT_TRUE(w[0].detail->starts_with("NET/IB : Got completion from peer 10.0.0.5<55921>"));
  EXPECT_EQ(w[1].op, kNcclClassSystem);
  EXPECT_EQ(w[1].detail, "Call to ibv_modify_qp failed with error Network is unreachable");
  EXPECT_EQ(w[2].op, kNcclClassCuda);
  EXPECT_EQ(w[2].local_rank, 3);
  EXPECT_EQ(w[3].op, kNcclClassInvalidUsage);
  EXPECT_EQ(w[4].op, kNcclClassInternal);
  EXPECT_EQ(w[5].op, kNcclWarnOther);
  ASSERT_EQ(fed.ranks.size(), 1u);
  EXPECT_EQ(fed.ranks[0].warn_count, 6);
  EXPECT_EQ(fed.ranks[0].first_warn_line, 1);
}

TEST(DistCommNccl, BenignWarnsAreRowsButNotWarnings) {
  const Fed fed = Feed({
      "node-4:88:89 [0] NCCL WARN NET/Plugin : Plugin load (libnccl-net.so) returned 2 : "
      "libnccl-net.so: cannot open shared object file: No such file or directory",
      "node-4:88:89 [0] NCCL WARN Could not find real path of /sys/class/net/ib0/device",
      "node-4:88:89 [0] NCCL WARN Invalid value SYS for NCCL_P2P_LEVEL, using default",
  });
  const auto w = OfKind(fed.events, kNcclWarn);
  ASSERT_EQ(w.size(), 3u);
  for (const auto& r : w) EXPECT_EQ(r.op, kNcclBenign) << *r.detail;
  ASSERT_EQ(fed.ranks.size(), 1u);
  EXPECT_EQ(fed.ranks[0].warn_count, 0);
  EXPECT_EQ(fed.ranks[0].first_warn_line, std::nullopt);
}

TEST(DistCommNccl, ErrorInfoLines) {
  const Fed fed = Feed({
      "node-3:42:43 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.3<0>",
      // An unwind that no WARN announced: one row for its first frame.
      "node-3:42:43 [0] NCCL INFO init.cc:1745 -> 5",
      "node-3:42:43 [0] NCCL INFO init.cc:1880 -> 5",
      "node-3:42:44 [0] NCCL INFO [Service thread] Error encountered progressing "
      "operation=Connect, res=3, closing connection",
      "node-3:42:43 [0] NCCL INFO ncclCommInitRankConfig failed: remote process exited or there "
      "was a network error",
      // A non-blocking init still in progress is no error.
      "node-3:42:43 [0] NCCL INFO Using network IB",
      "node-3:42:43 [0] NCCL INFO init.cc:1900 -> 7",
  });
  const auto w = OfKind(fed.events, kNcclWarn);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].line_no, 2);
  EXPECT_EQ(w[0].op, kNcclClassInvalidUsage);
  EXPECT_EQ(w[0].detail, "init.cc:1745 -> 5");
  EXPECT_EQ(w[1].line_no, 4);
  EXPECT_EQ(w[1].op, kNcclClassInternal);
  EXPECT_EQ(w[2].line_no, 5);
  EXPECT_EQ(w[2].op, kNcclClassRemote);
}

TEST(DistCommNccl, LastErrorAfterTorchNcclError) {
  const Fed fed = Feed({
      "[rank1]: torch.distributed.DistBackendError: NCCL error in: "
      "../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled system error (run with "
      "NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
      "[rank1]: ncclSystemError: System call (e.g. socket, malloc) or external library call "
      "failed or device error. ",
      "[rank1]: Last error:",
      "[rank1]: socketStartConnect: Connect to 10.0.0.1<36717> failed : Software caused "
      "connection abort",
      // Another rank, with a traceback line of rank 0 in between, and the
      // detail on the "Last error:" line itself.
      "[rank3]: torch.distributed.DistBackendError: NCCL error in: "
      "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there "
      "was a network error, NCCL version 2.20.5",
      "[rank0]: Traceback (most recent call last):",
      "[rank3]: ncclRemoteError: A call failed possibly due to a network error or a remote "
      "process exiting prematurely.",
      "[rank3]: Last error: NET/IB : Got completion from peer 10.0.0.3<39311> with status=12 "
      "opcode=1 len=0 vendor err 129 (Send)",
      // No NCCL error before it: a user's "Last error:" is nothing.
      "Last error: none",
      "checkpoint saved",
  });
  const auto w = OfKind(fed.events, kNcclWarn);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].line_no, 4);
  EXPECT_EQ(w[0].rank, 1);
  EXPECT_EQ(w[0].op, kNcclClassSystem);
  EXPECT_EQ(w[0].detail,
            "socketStartConnect: Connect to 10.0.0.1<36717> failed : Software caused connection "
            "abort");
  EXPECT_EQ(w[1].line_no, 8);
  EXPECT_EQ(w[1].rank, 3);
  EXPECT_EQ(w[1].op, kNcclClassRemote);
  EXPECT_TRUE(w[1].detail->starts_with("NET/IB : Got completion from peer 10.0.0.3<39311>"));
  // The torch lines themselves are torch_watchdog's rows, not these.
  EXPECT_EQ(fed.events.size(), 2u);
  EXPECT_TRUE(fed.ranks.empty());
}

TEST(DistCommNccl, TorchErrorLinesAreNotDuplicatedThroughTheExtractor) {
  std::vector<DistEventRow> events;
  std::vector<NcclRankRow> ranks;
  DistExtractor ex(
      3, [&](const DistEventRow& r) { events.push_back(r); },
      [&](const NcclRankRow& r) { ranks.push_back(r); });
  TimeContext tc;
  const std::vector<std::string> lines = {
      "node-0:11:12 [0] NCCL INFO comm 0x5f00 rank 0 nranks 2 cudaDev 0 busId 1000 - Init "
      "COMPLETE",
      "[rank0]: RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/"
      "ProcessGroupNCCL.cpp:1691, unhandled system error (run with NCCL_DEBUG=INFO for details), "
      "NCCL version 2.19.3",
      "[rank0]: ncclSystemError: System call (e.g. socket, malloc) or external library call "
      "failed or device error.",
  };
  int64_t n = 0;
  for (const std::string& s : lines) {
    const LinePrefix p = ParseLinePrefix(s, tc);
    LineRecord rec;
    rec.line_no = ++n;
    rec.rank = p.rank;
    rec.local_rank = p.local_rank;
    rec.host = p.host;
    rec.pid = p.pid;
    rec.level = p.level;
    rec.msg_start = p.msg_start;
    rec.text = s;
    ex.AddLine(rec);
  }
  ex.Finish();
  EXPECT_TRUE(OfKind(events, kNcclWarn).empty());
  EXPECT_FALSE(OfKind(events, kCollectiveError).empty());
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0].file_id, 3);
  EXPECT_EQ(ranks[0].comm, "0x5f00");
}

// ---------------------------------------------------------- rendezvous_error

TEST(DistCommRendezvous, Forms) {
  const Fed fed = Feed({
      "[W socket.cpp:601] [c10d] The client socket has failed to connect to [node-0]:29500 "
      "(errno: 111 - Connection refused).",
      "[rank3]:[W1002 12:00:01.123456789 socket.cpp:752] [c10d] The client socket has failed to "
      "connect to [::ffff:10.0.0.1]:29500 (errno: 113 - No route to host).",
      "torch.distributed.DistNetworkError: The client socket has timed out after 1800s while "
      "trying to connect to (10.0.0.1, 29500).",
      "torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
      "network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address "
      "already in use). The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - "
      "Address already in use).",
      "[E socket.cpp:462] [c10d] The server socket has failed to listen on any local network "
      "address.",
      "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError",
      "E0325 20:57:27.620000 2606 torch/distributed/elastic/agent/server/api.py:680] [default] "
      "Rendezvous failed: RendezvousConnectionError: The connection to the C10d store has "
      "failed. See inner exception for details.",
      "torch.distributed.elastic.rendezvous.api.RendezvousClosedError",
      "[rank5]: torch.distributed.DistNetworkError: sendBytes failed on SocketImpl(fd=50, "
      "addr=[node-1]:38362, remote=[node-0]:29500): Connection reset by peer",
      "RuntimeError: Connection refused",
      "torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely "
      "closed. Did the remote server shutdown or crash?",
      "\x1b[33m[W socket.cpp:464] [c10d] The server socket has failed to bind to "
      "0.0.0.0:29501 (errno: 98 - Address already in use).\x1b[0m",
      "[2024-05-08 08:47:31,877] torch.distributed.elastic.rendezvous.dynamic_rendezvous: "
      "[ERROR] connect() to [node-0]:29400 failed: Connection refused",
  });
  const auto r = OfKind(fed.events, kRendezvousError);
  ASSERT_EQ(r.size(), 13u);
  EXPECT_EQ(r[0].op, kRdzvRefused);
  EXPECT_EQ(r[0].detail, "node-0:29500");
  EXPECT_EQ(r[0].value, 111.0);
  EXPECT_EQ(r[1].op, kRdzvConnectFailed);
  EXPECT_EQ(r[1].detail, "[::ffff:10.0.0.1]:29500");
  EXPECT_EQ(r[1].value, 113.0);
  EXPECT_EQ(r[1].rank, 3);
  EXPECT_EQ(r[2].op, kRdzvSocketTimeout);
  EXPECT_EQ(r[2].detail, "10.0.0.1:29500");
  EXPECT_EQ(r[2].timeout_ms, 1800000);
  EXPECT_EQ(r[3].op, kRdzvAddressInUse);
  EXPECT_EQ(r[3].detail, "[::]:29500");
  EXPECT_EQ(r[3].value, 98.0);
  EXPECT_EQ(r[4].op, kRdzvListenFailed);
  EXPECT_EQ(r[4].detail, std::nullopt);
  EXPECT_EQ(r[5].op, kRdzvTimeout);
  EXPECT_EQ(r[6].op, kRdzvStoreFailed);
  EXPECT_EQ(r[7].op, kRdzvClosed);
  EXPECT_EQ(r[8].op, kRdzvReset);
  EXPECT_EQ(r[8].detail, "node-0:29500");
  EXPECT_EQ(r[8].rank, 5);
  EXPECT_EQ(r[9].op, kRdzvRefused);
  EXPECT_EQ(r[9].detail, std::nullopt);
  EXPECT_EQ(r[10].op, kRdzvReset);
  EXPECT_EQ(r[11].op, kRdzvAddressInUse);
  EXPECT_EQ(r[11].detail, "0.0.0.0:29501");
  EXPECT_EQ(r[12].op, kRdzvRefused);
  EXPECT_EQ(r[12].detail, "node-0:29400");
}

TEST(DistCommRendezvous, GlooPeerClosedReadsWhenTheLineIsRead) {
  // gloo's message holds no anchor of the family's own (see the report);
  // the reader itself accepts it.
  DistEventRow row;
  ASSERT_TRUE(ReadRendezvous(
      "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by "
      "peer [10.0.0.2]:12345",
      row));
  EXPECT_EQ(row.op, kRdzvReset);
  EXPECT_EQ(row.detail, "10.0.0.2:12345");
}

TEST(DistCommRendezvous, Torch22ListenFailureNamesPortAndErrno) {
  const Fed fed = Feed({
      "[rank0]: torch.distributed.DistNetworkError: The server socket has failed to listen on "
      "any local network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, "
      "message: address already in use",
  });
  const auto r = OfKind(fed.events, kRendezvousError);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].op, kRdzvAddressInUse);
  EXPECT_EQ(r[0].detail, "*:29500");
  EXPECT_EQ(r[0].value, 98);
}

TEST(DistCommRendezvous, AMasterNameThatDoesNotResolve) {
  const Fed fed = Feed({
      // c10d's warning while it retries (its final error is the socket
      // timeout, which names no cause).
      "[W socket.cpp:697] [c10d] The IPv4 network addresses of "
      "(trainer-master.svc.cluster.local, 29400) cannot be retrieved (gai error: -2 - Name or "
      "service not known).",
      "torch.distributed.DistNetworkError: The client socket has failed to connect to any "
      "network address of (trainer-master.svc.cluster.local, 29400). The IPv4 network addresses "
      "of (trainer-master.svc.cluster.local, 29400) cannot be retrieved (gai error: -2 - Name or "
      "service not known).",
      "[rank1]:[W1003 09:12:44.000000000 socket.cpp:755] [c10d] The client socket has failed to "
      "connect to any network address of (trainer-master, 29500). Temporary failure in name "
      "resolution",
      // Only the IPv6 clause fails to resolve: the connect failed for another
      // reason.
      "[W socket.cpp:601] [c10d] The client socket has failed to connect to any network address "
      "of (node-0, 29500). The IPv6 network addresses of (node-0, 29500) cannot be retrieved "
      "(gai error: -2 - Name or service not known). The IPv4 network address (10.0.0.1, 29500) "
      "refused the connection (errno: 111 - Connection refused).",
  });
  const auto r = OfKind(fed.events, kRendezvousError);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].op, kRdzvNameResolution);
  EXPECT_EQ(r[0].detail, "trainer-master.svc.cluster.local:29400");
  EXPECT_FALSE(r[0].value.has_value());
  EXPECT_EQ(r[1].op, kRdzvNameResolution);
  EXPECT_EQ(r[1].detail, "trainer-master.svc.cluster.local:29400");
  EXPECT_EQ(r[2].op, kRdzvNameResolution);
  EXPECT_EQ(r[2].rank, 1);
  EXPECT_EQ(r[2].detail, "trainer-master:29500");
  EXPECT_EQ(r[3].op, kRdzvRefused);
  // A resolver error outside torch.distributed is not a rendezvous's.
  EXPECT_TRUE(OfKind(Feed({"socket.gaierror: [Errno -3] Temporary failure in name resolution",
                           "huggingface_hub: Name or service not known, retrying"})
                         .events,
                     kRendezvousError)
                  .empty());
}

TEST(DistCommRendezvous, Lookalikes) {
  const Fed fed = Feed({
      // The IPv6 fall-back warnings: torch goes on over IPv4.
      "[W socket.cpp:436] [c10d] The server socket cannot be initialized on [::]:29500 (errno: "
      "97 - Address family not supported by protocol).",
      "[W socket.cpp:663] [c10d] The client socket cannot be initialized to connect to "
      "[localhost]:29500 (errno: 97 - Address family not supported by protocol).",
      "[I socket.cpp:835] [c10d] The client socket has connected to [node-0]:29500 on "
      "[node-1]:41234.",
      // c10d's IPv6 attempt on a host without IPv6 names: it goes on over IPv4.
      "[W socket.cpp:601] [c10d] The IPv6 network addresses of (localhost, 51595) cannot be "
      "retrieved (gai error: -2 - Name or service not known).",
      "wandb: Network error (ConnectionError), entering retry loop. [Errno 111] Connection "
      "refused",
      "    raise RendezvousTimeoutError()",
      "Using socket interface eth0 for the data loader",
      "Failed to load checkpoint shard 3, retrying",
  });
  EXPECT_TRUE(fed.events.empty());
}

TEST(DistCommRendezvous, RetryWarningsKeepTheFirstAndTheLast) {
  std::vector<std::string> lines;
  for (int i = 0; i < 20; ++i) {
    lines.push_back(
        "[W socket.cpp:601] [c10d] The client socket has failed to connect to "
        "[node-0]:29500 (errno: 111 - Connection refused).");
  }
  const Fed fed = Feed(lines);
  const auto r = OfKind(fed.events, kRendezvousError);
  ASSERT_EQ(r.size(), static_cast<size_t>(kMaxRendezvousRepeats) + 1);
  EXPECT_EQ(r[0].line_no, 1);
  EXPECT_EQ(r[kMaxRendezvousRepeats - 1].line_no, kMaxRendezvousRepeats);
  EXPECT_EQ(r.back().line_no, 20);
}

// ------------------------------------------------------------------ gpu_test

TEST(DistCommGpuTest, OkBrokenAndVersions) {
  const Fed fed = Feed({
      "[default0]:[gpu-node-1-0] is OK (global rank: 0/4)",
      "[default2]:[gpu-node-1-2] is broken",
      "[default1]:[gpu-node-1-1] is OK (global rank: 1/4)",
      "[default2]:Traceback (most recent call last):",
      "[default0]:pt=2.3.1+cu121, cuda=12.1, nccl=(2, 20, 5)",
      "[rank3]:[gpu-node-2-1] is OK (global rank: 3/4)",
  });
  const auto g = OfKind(fed.events, kGpuTest);
  ASSERT_EQ(g.size(), 5u);
  EXPECT_EQ(g[0].op, "ok");
  EXPECT_EQ(g[0].rank, 0);
  EXPECT_EQ(g[0].value, 4.0);
  EXPECT_EQ(g[0].detail, "gpu-node-1");
  EXPECT_EQ(g[0].local_rank, 0);
  EXPECT_EQ(g[1].op, "broken");
  EXPECT_EQ(g[1].line_no, 2);
  EXPECT_EQ(g[1].detail, "gpu-node-1");
  EXPECT_EQ(g[1].local_rank, 2);
  EXPECT_EQ(g[1].rank, std::nullopt);
  EXPECT_EQ(g[2].rank, 1);
  EXPECT_EQ(g[2].local_rank, 1);
  EXPECT_EQ(g[3].op, "versions");
  EXPECT_EQ(g[3].detail, "pt=2.3.1+cu121, cuda=12.1, nccl=(2, 20, 5)");
  EXPECT_EQ(g[4].rank, 3);
  EXPECT_EQ(g[4].detail, "gpu-node-2");
  EXPECT_EQ(g[4].local_rank, 1);
}

TEST(DistCommGpuTest, Lookalikes) {
  const Fed fed = Feed({
      "Everything is OK",
      "[INFO] checkpoint 3 is OK",
      "[cache] is broken",
      "[Errno 32] Broken pipe",
      "opt=adamw, cuda=12.1, nccl=on",
      "step 10: loss ok, lr=3e-4",
  });
  EXPECT_TRUE(fed.events.empty());
}

}  // namespace
}  // namespace casefile::dist
