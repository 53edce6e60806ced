// Pure readers over the text of one NCCL or c10d message: the NCCL result
// class a message gives or implies, the peer and the system error it names,
// the version banner, the transport of a channel line, the endpoint of a
// c10d message. Shared by the comm family (comm_lines.cc, at ingest) and the
// comm analyzer (which reads dist_events.detail). No allocation except where
// a std::string is returned; no regex.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace casefile::dist {

// The NCCL result class (dist_kinds.h kNcclClass*) that `text` names or
// implies: a result name ("ncclSystemError"), a result code ("retcode 3",
// "res=2", "... -> 6"), NCCL's words for a result ("unhandled system
// error", "remote process exited or there was a network error"), or the
// failure it describes (a socket or ibv_* call that failed, "Connection
// closed by remote peer", "Got completion from peer ... status=", "Cuda
// failure"). nullptr when it implies none.
const char* NcclClassOf(std::string_view text);

// The class of an NCCL result code (ncclResult_t): 1 cuda, 2 system, 3
// internal, 4 invalid argument, 5 invalid usage, 6 remote; nullptr for 0
// (success), 7 (in progress) and unknown codes.
const char* NcclClassOfCode(int64_t code);

// Whether an NCCL WARN is known to be harmless: the net plugin that is not
// installed ("NET/Plugin : Plugin load (libnccl-net.so) returned 2 ...",
// "NET/Plugin: Could not find: libnccl-net.so", "No plugin found"), a
// topology path NCCL could not resolve ("Could not find real path of
// /sys/..."), an NCCL_* environment value NCCL ignores or replaces by its
// default ("Invalid value ... for NCCL_X, using default").
bool IsBenignNcclWarn(std::string_view text);

// The class of a WARN: kNcclBenign, else NcclClassOf, else kNcclWarnOther.
const char* NcclWarnOp(std::string_view text);

// The peer an NCCL message names: "10.0.0.2<43210>" from "Connect to
// 10.0.0.2<43210> failed", "from peer 10.0.0.2<55921>", "remote peer
// node-3<35422>"; the host alone from "peer 10.0.0.2" with no port; "" when
// it names none.
std::string_view NcclPeer(std::string_view text);

// The system error text an NCCL (or c10d) message reports: "Connection
// reset by peer", "Network is unreachable", "Software caused connection
// abort"... (the strerror texts NCCL's socket and ibverbs calls print), else
// what follows "failed : " / "failed with error "; "" when none.
std::string_view NcclErrnoText(std::string_view text);

// "NCCL version 2.19.3+cuda12.3" (anywhere in `text`, the "NCCL version"
// literal included): version "2.19.3", cuda "12.3" (empty when no +cuda
// suffix). Empty version when the text holds no dotted version after it
// (a user's "NCCL version (2, 19, 3)").
struct NcclVersion {
  std::string_view version;
  std::string_view cuda;
};
NcclVersion ParseNcclVersion(std::string_view text);

// The transport of a channel connection, from the text after "via ":
// "P2P/IPC/read" -> "P2P/IPC", "P2P/CUMEM", "P2P/direct pointer" ->
// "P2P/direct", "SHM/direct/direct" -> "SHM", "NET/IB/0/GDRDMA" ->
// "NET/IB", "NET/Socket/1" -> "NET/Socket", "NET/IBext_v8/0" ->
// "NET/IBext_v8", "NET/AWS Libfabric/0" -> "NET/AWS Libfabric",
// "COLLNET/..." -> "COLLNET", "NVLS" -> "NVLS". Returns a view of `via`
// (the part before the second '/', or before the first for SHM/COLLNET);
// "" when `via` starts with no transport word.
std::string_view TransportOf(std::string_view via);

// The endpoint a c10d message names, as "host:port": "[node-0]:29500" ->
// "node-0:29500", "(10.0.0.1, 29500)" -> "10.0.0.1:29500", "[::]:29500"
// kept as is (an IPv6 address keeps its brackets), "remote=[node-0]:29500"
// -> "node-0:29500" when `text` holds a "remote=" field. "" when none.
std::string Endpoint(std::string_view text);

// The errno a c10d message prints ("(errno: 111 - Connection refused)",
// "errno 111"); nullopt when none.
std::optional<int64_t> ErrnoOf(std::string_view text);

// Cuts `s` to at most `max` bytes on a UTF-8 character boundary, trailing
// blanks removed.
std::string_view ClipText(std::string_view s, size_t max);

}  // namespace casefile::dist
