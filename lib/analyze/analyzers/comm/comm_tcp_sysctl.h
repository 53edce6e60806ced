// The TCP settings comm.tcp_config judges (docs/FINDINGS.md, "comm"): how a
// line of a collected sysctl output is read, and the table of settings with
// the range expected and why. The collector gathers these keys
// (lib/collect/command_table.cc: sysctl, or /proc/sys when sysctl is not on
// PATH) into hosts/<host>/sysinfo/sysctl_net.txt.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace casefile::comm {

// The largest socket buffer TCP may grow to (the third field of tcp_rmem /
// tcp_wmem) and the cap on buffers an application sets itself (rmem_max /
// wmem_max). A TCP connection moves at most one buffer per round trip: at
// 100 Gb/s and a 1 ms data-centre RTT the bandwidth-delay product is 12.5
// MB, so the kernel defaults (6 MiB / 4 MiB for tcp_rmem / tcp_wmem, 208
// KiB for rmem_max) cap a DCN connection well under the link rate.
inline constexpr double kMinTcpBufferBytes = 16.0 * 1024 * 1024;
// Packets queued per CPU between the NIC and the stack. The default 1000
// overflows under the bursts of a collective at 100 Gb/s; a dropped packet
// costs a retransmission timeout (RPC latency spikes). Tuning guides for
// 10-100 Gb/s hosts use 30000 and more.
inline constexpr double kMinNetdevBacklog = 10'000;
// Ephemeral ports: every gRPC channel of every peer pair takes one, and a
// closed connection holds its port in TIME_WAIT for a minute. A range
// narrower than this is exhausted by a large job reconnecting.
inline constexpr double kMinEphemeralPorts = 16'384;

struct SysctlValue {
  std::string key;    // dotted: "net.ipv4.tcp_rmem"
  std::string value;  // as written, blanks (tabs) between fields collapsed to one space
};

// One setting of a line, in any of the forms sysctl and /proc/sys give:
// "key = value", "key=value", "key: value", "key<TAB>value" and
// "/proc/sys/net/ipv4/tcp_rmem:4096 ..." (grep -r), with dotted or
// slashed keys (with or without /proc/sys/). Only keys under "net." are
// read; nullopt for anything else (sysctl's own errors, comments, blanks).
std::optional<SysctlValue> ParseSysctlLine(std::string_view line);

// A judged setting that is outside its range.
struct TcpIssue {
  std::string key;
  std::string found;     // "max 6291456 (6 MiB)", "1", "reno"
  std::string expected;  // ">= 16777216 (16 MiB)", "0"
  std::string why;
};

// The issue of one setting, or nullopt when it is in range, not judged, or
// its value cannot be read.
std::optional<TcpIssue> JudgeTcpSetting(const SysctlValue& v);

// The judged keys, in the order summaries name them.
const std::vector<std::string>& JudgedTcpKeys();

}  // namespace casefile::comm
