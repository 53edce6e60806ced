// The readers over one NCCL / c10d message text (comm_text.h): result class,
// benign WARNs, peer, errno text, version banner, transport, endpoint.
#include "parse/dist/comm_text.h"

#include <gtest/gtest.h>

#include <string>

#include "parse/dist/dist_kinds.h"

namespace casefile::dist {
namespace {

std::string Class(std::string_view text) {
  const char* c = NcclClassOf(text);
  return c ? c : "";
}

TEST(CommText, ClassFromResultNamesAndWords) {
  EXPECT_EQ(Class("ncclSystemError: System call (e.g. socket, malloc) or external library call "
                  "failed or device error."),
            kNcclClassSystem);
  EXPECT_EQ(Class("ncclRemoteError: A call failed possibly due to a network error or a remote "
                  "process exiting prematurely."),
            kNcclClassRemote);
  EXPECT_EQ(Class("unhandled system error (run with NCCL_DEBUG=INFO for details)"),
            kNcclClassSystem);
  EXPECT_EQ(Class("remote process exited or there was a network error"), kNcclClassRemote);
  EXPECT_EQ(Class("internal error - please report this issue to the NCCL developers"),
            kNcclClassInternal);
  EXPECT_EQ(Class("invalid usage (run with NCCL_DEBUG=WARN for details)"), kNcclClassInvalidUsage);
  EXPECT_EQ(Class("invalid argument"), kNcclClassInvalidArgument);
  EXPECT_EQ(Class("unhandled cuda error (run with NCCL_DEBUG=INFO for details)"), kNcclClassCuda);
  EXPECT_EQ(Class("Cuda failure 'out of memory'"), kNcclClassCuda);
  EXPECT_EQ(Class("Cuda failure 700 'an illegal memory access was encountered'"), kNcclClassCuda);
}

TEST(CommText, ClassFromTheFailureDescribed) {
  EXPECT_EQ(Class("Call to ibv_modify_qp failed with error Network is unreachable"),
            kNcclClassSystem);
  EXPECT_EQ(Class("Call to ibv_reg_mr failed with error Invalid argument"), kNcclClassSystem);
  EXPECT_EQ(Class("socketStartConnect: Connect to 10.0.0.1<36717> failed : Software caused "
                  "connection abort"),
            kNcclClassSystem);
  EXPECT_EQ(Class("Call to connect returned Connection refused, retrying"), kNcclClassSystem);
  EXPECT_EQ(Class("NET/Socket : socket progress error"), kNcclClassSystem);
  // A peer that went away is the remote class, even in a socket function.
  EXPECT_EQ(Class("socketProgress: Connection closed by remote peer node-7<35422>"),
            kNcclClassRemote);
  EXPECT_EQ(Class("NET/IB : Got completion from peer 10.0.0.2<55921> with status=12 opcode=1 "
                  "len=0 vendor err 129 (Send) localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2"),
            kNcclClassRemote);
  EXPECT_EQ(Class("Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000"),
            kNcclClassInvalidUsage);
}

TEST(CommText, ClassFromPrintedCodes) {
  EXPECT_EQ(Class("[Proxy Service 3] Failed to execute operation Connect from rank 3, retcode 3"),
            kNcclClassInternal);
  EXPECT_EQ(Class("[Service thread] Error encountered progressing operation=Connect, res=3, "
                  "closing connection"),
            kNcclClassInternal);
  EXPECT_EQ(Class("transport/net_ib.cc:1180 -> 6"), kNcclClassRemote);
  EXPECT_EQ(Class("init.cc:1745 -> 5"), kNcclClassInvalidUsage);
  EXPECT_EQ(Class("misc/socket.cc:484 -> 2"), kNcclClassSystem);
  // 7 is ncclInProgress (a non-blocking call that is not done): no error.
  EXPECT_EQ(Class("init.cc:1880 -> 7"), "");
  EXPECT_EQ(Class("init.cc:1880 -> 0"), "");
}

TEST(CommText, NoClassForOrdinaryText) {
  EXPECT_EQ(Class("Using network IB"), "");
  EXPECT_EQ(Class("Channel 00/0 : 0[0] -> 1[1] via P2P/IPC"), "");
  EXPECT_EQ(Class("Error : ring 0 does not contain rank 3"), "");
}

TEST(CommText, BenignWarns) {
  EXPECT_TRUE(
      IsBenignNcclWarn("NET/Plugin : Plugin load (libnccl-net.so) returned 2 : "
                       "libnccl-net.so: cannot open shared object file: No such file "
                       "or directory"));
  EXPECT_TRUE(
      IsBenignNcclWarn("NET/Plugin: Could not find: libnccl-net.so. Using internal "
                       "network plugin."));
  EXPECT_TRUE(
      IsBenignNcclWarn("NET/Plugin : No plugin found (libnccl-net.so), using internal "
                       "implementation"));
  EXPECT_TRUE(IsBenignNcclWarn("Could not find real path of /sys/class/net/eth0/device"));
  EXPECT_TRUE(IsBenignNcclWarn("Invalid value NVL for NCCL_P2P_LEVEL, using default"));
  EXPECT_EQ(std::string(NcclWarnOp("NET/Plugin: Could not find: libnccl-net.so.")), kNcclBenign);
  // The plugin words alone do not make an error benign.
  EXPECT_FALSE(IsBenignNcclWarn("Call to ibv_create_qp failed"));
  EXPECT_EQ(std::string(NcclWarnOp("Call to ibv_create_qp failed")), kNcclClassSystem);
  EXPECT_EQ(std::string(NcclWarnOp("Missing \"iommu=pt\" from kernel command line")),
            kNcclWarnOther);
}

TEST(CommText, Peer) {
  EXPECT_EQ(NcclPeer("socketStartConnect: Connect to 10.0.0.2<43210> failed : Connection reset "
                     "by peer"),
            "10.0.0.2<43210>");
  EXPECT_EQ(NcclPeer("NET/IB : Got completion from peer 10.0.0.9<55921> with status=12"),
            "10.0.0.9<55921>");
  EXPECT_EQ(NcclPeer("socketProgress: Connection closed by remote peer node-7.cluster<35422>"),
            "node-7.cluster<35422>");
  EXPECT_EQ(NcclPeer("Connection closed by remote peer 10.1.2.3"), "10.1.2.3");
  EXPECT_EQ(NcclPeer("Call to ibv_modify_qp failed with error Network is unreachable"), "");
  // NCCL prints its own address with port 0 in OOB lists: still a peer form.
  EXPECT_EQ(NcclPeer("remote process exited or there was a network error"), "");
}

TEST(CommText, ErrnoText) {
  EXPECT_EQ(NcclErrnoText("socketStartConnect: Connect to 10.0.0.2<43210> failed : Connection "
                          "reset by peer"),
            "Connection reset by peer");
  EXPECT_EQ(NcclErrnoText("Call to ibv_modify_qp failed with error Network is unreachable"),
            "Network is unreachable");
  EXPECT_EQ(NcclErrnoText("socketStartConnect: Connect to 10.0.0.1<36717> failed : Software "
                          "caused connection abort"),
            "Software caused connection abort");
  EXPECT_EQ(NcclErrnoText("Call to ibv_reg_mr failed with error Invalid argument"),
            "Invalid argument");
  EXPECT_EQ(NcclErrnoText("NET/IB : Got completion from peer 10.0.0.2<1> with status=12"), "");
}

TEST(CommText, VersionBanner) {
  NcclVersion v = ParseNcclVersion("NCCL version 2.19.3+cuda12.3");
  EXPECT_EQ(v.version, "2.19.3");
  EXPECT_EQ(v.cuda, "12.3");
  v = ParseNcclVersion("NCCL version 2.4.7+cuda10.0");
  EXPECT_EQ(v.version, "2.4.7");
  EXPECT_EQ(v.cuda, "10.0");
  v = ParseNcclVersion("NCCL version 2.21.5");
  EXPECT_EQ(v.version, "2.21.5");
  EXPECT_EQ(v.cuda, "");
  // A user's print of torch.cuda.nccl.version() is a tuple, not the banner.
  EXPECT_EQ(ParseNcclVersion("NCCL version (2, 19, 3)").version, "");
  EXPECT_EQ(ParseNcclVersion("NCCL version 2").version, "");
}

TEST(CommText, Transports) {
  EXPECT_EQ(TransportOf("P2P/IPC/read"), "P2P/IPC");
  EXPECT_EQ(TransportOf("P2P/IPC"), "P2P/IPC");
  EXPECT_EQ(TransportOf("P2P/CUMEM/read"), "P2P/CUMEM");
  EXPECT_EQ(TransportOf("P2P/direct pointer/read"), "P2P/direct");
  EXPECT_EQ(TransportOf("P2P/indirect/2[2]"), "P2P/indirect");
  EXPECT_EQ(TransportOf("SHM/direct/direct"), "SHM");
  EXPECT_EQ(TransportOf("NET/IB/0/GDRDMA"), "NET/IB");
  EXPECT_EQ(TransportOf("NET/IB/0(8)/GDRDMA/Shared"), "NET/IB");
  EXPECT_EQ(TransportOf("NET/Socket/1"), "NET/Socket");
  EXPECT_EQ(TransportOf("NET/IBext/2/GDRDMA"), "NET/IBext");
  EXPECT_EQ(TransportOf("NET/AWS Libfabric/0/GDRDMA"), "NET/AWS Libfabric");
  EXPECT_EQ(TransportOf("COLLNET/IBext/0/GDRDMA"), "COLLNET");
  EXPECT_EQ(TransportOf("the network"), "");
}

TEST(CommText, Endpoints) {
  EXPECT_EQ(Endpoint("The client socket has failed to connect to [node-0]:29500 (errno: 111 - "
                     "Connection refused)."),
            "node-0:29500");
  EXPECT_EQ(Endpoint("to [::ffff:10.0.0.1]:29500 (errno: 111"), "[::ffff:10.0.0.1]:29500");
  EXPECT_EQ(Endpoint("failed to bind to [::]:29500 (errno: 98 - Address already in use)"),
            "[::]:29500");
  EXPECT_EQ(Endpoint("failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use)."),
            "0.0.0.0:29500");
  EXPECT_EQ(Endpoint("has timed out after 1800s while trying to connect to (10.0.0.1, 29500)."),
            "10.0.0.1:29500");
  EXPECT_EQ(Endpoint("sendBytes failed on SocketImpl(fd=50, addr=[node-1]:38362, "
                     "remote=[node-0]:29500): Connection reset by peer"),
            "node-0:29500");
  EXPECT_EQ(Endpoint("[W socket.cpp:601] [c10d] nothing here"), "");
  EXPECT_EQ(Endpoint("raised at socket.cpp:601 in connect"), "");
  EXPECT_EQ(ErrnoOf("(errno: 111 - Connection refused)"), 111);
  EXPECT_EQ(ErrnoOf("(errno: -2 - Name or service not known)"), -2);
  EXPECT_EQ(ErrnoOf("no number"), std::nullopt);
}

TEST(CommText, ClipKeepsUtf8Whole) {
  const std::string s = "ab\xc3\xa9";  // "abé"
  EXPECT_EQ(ClipText(s, 3), "ab");
  EXPECT_EQ(ClipText("abc   ", 10), "abc");
}

}  // namespace
}  // namespace casefile::dist
