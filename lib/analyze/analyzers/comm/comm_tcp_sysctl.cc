#include "analyze/analyzers/comm/comm_tcp_sysctl.h"

#include <charconv>
#include <cstdint>

#include "analyze/analyzers/comm/comm_trace_common.h"

namespace casefile::comm {
namespace {

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '/' || c == '-';
}

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

// The whole numbers of a value ("4096\t131072\t6291456"); empty when any
// field is not one.
std::vector<int64_t> Numbers(std::string_view value) {
  std::vector<int64_t> out;
  size_t i = 0;
  while (i < value.size()) {
    while (i < value.size() && IsBlank(value[i])) ++i;
    if (i >= value.size()) break;
    int64_t n = 0;
    const auto res = std::from_chars(value.data() + i, value.data() + value.size(), n);
    if (res.ec != std::errc()) return {};
    i = static_cast<size_t>(res.ptr - value.data());
    if (i < value.size() && !IsBlank(value[i])) return {};
    out.push_back(n);
  }
  return out;
}

std::string BytesText(double v) { return Number(v) + " (" + Bytes(v) + ")"; }

std::optional<TcpIssue> BufferMax(const SysctlValue& v, bool triple, const char* why) {
  const std::vector<int64_t> n = Numbers(v.value);
  if (n.size() != (triple ? 3u : 1u)) return std::nullopt;
  const double max = static_cast<double>(n.back());
  if (max >= kMinTcpBufferBytes) return std::nullopt;
  return TcpIssue{v.key, (triple ? "max " : "") + BytesText(max),
                  (triple ? "max >= " : ">= ") + BytesText(kMinTcpBufferBytes), why};
}

constexpr const char* kWhyTcpBuffer =
    "TCP grows a connection's window up to this buffer, and a connection moves at most one "
    "window per round trip: at 100 Gb/s and a 1 ms round trip that is 12.5 MB, so a smaller "
    "maximum caps each DCN connection below the link rate";
constexpr const char* kWhyCoreBuffer =
    "the cap on socket buffers a program sizes itself (SO_RCVBUF / SO_SNDBUF, as gRPC and "
    "NCCL's socket transport may): a small cap silently shrinks their windows";

}  // namespace

std::optional<SysctlValue> ParseSysctlLine(std::string_view line) {
  line = Trim(line);
  size_t i = 0;
  while (i < line.size() && IsKeyChar(line[i])) ++i;
  std::string_view key = line.substr(0, i);
  std::string_view rest = line.substr(i);
  // Separator: blanks, then '=' or ':' (grep -r), then blanks; or blanks alone.
  const size_t before = rest.size();
  rest = Trim(rest);
  if (!rest.empty() && (rest.front() == '=' || rest.front() == ':')) {
    rest.remove_prefix(1);
  } else if (rest.size() == before) {
    return std::nullopt;  // the key runs into something else
  }
  const std::string_view value = Trim(rest);
  if (value.empty()) return std::nullopt;
  constexpr std::string_view kProcSys = "/proc/sys/";
  if (key.starts_with(kProcSys)) key.remove_prefix(kProcSys.size());
  std::string dotted(key);
  for (char& c : dotted) {
    if (c == '/') c = '.';
  }
  if (!dotted.starts_with("net.") || dotted.size() <= 4) return std::nullopt;
  SysctlValue out;
  out.key = std::move(dotted);
  // Tabs between fields (tcp_rmem's triple) become one space.
  bool blank = false;
  for (char c : value) {
    if (IsBlank(c)) {
      blank = true;
      continue;
    }
    if (blank) out.value += ' ';
    blank = false;
    out.value += c;
  }
  return out;
}

const std::vector<std::string>& JudgedTcpKeys() {
  static const std::vector<std::string> kKeys = {
      "net.ipv4.tcp_rmem",
      "net.ipv4.tcp_wmem",
      "net.core.rmem_max",
      "net.core.wmem_max",
      "net.ipv4.tcp_slow_start_after_idle",
      "net.ipv4.tcp_mtu_probing",
      "net.core.netdev_max_backlog",
      "net.ipv4.tcp_congestion_control",
      "net.ipv4.ip_local_port_range",
  };
  return kKeys;
}

std::optional<TcpIssue> JudgeTcpSetting(const SysctlValue& v) {
  const std::string& k = v.key;
  if (k == "net.ipv4.tcp_rmem" || k == "net.ipv4.tcp_wmem")
    return BufferMax(v, true, kWhyTcpBuffer);
  if (k == "net.core.rmem_max" || k == "net.core.wmem_max")
    return BufferMax(v, false, kWhyCoreBuffer);
  const std::vector<int64_t> n = Numbers(v.value);
  if (k == "net.ipv4.tcp_slow_start_after_idle") {
    if (n.size() != 1 || n[0] == 0) return std::nullopt;
    return TcpIssue{k, v.value, "0",
                    "with 1, a connection idle for one retransmission timeout restarts from a "
                    "small congestion window; collective traffic is bursty (idle during compute, "
                    "then a burst), so every burst starts slow"};
  }
  if (k == "net.ipv4.tcp_mtu_probing") {
    if (n.size() != 1 || n[0] >= 1) return std::nullopt;
    return TcpIssue{k, v.value, "1 or 2",
                    "without probing, a path that drops large (jumbo, 8896-byte MTU) packets "
                    "and blocks the ICMP that says so stalls the connection until it times out"};
  }
  if (k == "net.core.netdev_max_backlog") {
    if (n.size() != 1 || static_cast<double>(n[0]) >= kMinNetdevBacklog) return std::nullopt;
    return TcpIssue{k, v.value, ">= " + Number(kMinNetdevBacklog),
                    "packets that arrive faster than the CPU drains this per-CPU queue are "
                    "dropped; at 100 Gb/s a collective's burst overflows the default 1000, and "
                    "each drop costs a retransmission (latency spikes)"};
  }
  if (k == "net.ipv4.tcp_congestion_control") {
    if (v.value != "reno" && v.value != "lp") return std::nullopt;
    return TcpIssue{k, v.value, "cubic or bbr",
                    v.value == "reno"
                        ? "Reno halves its window on every loss and regrows it by one packet per "
                          "round trip: on a fast path a single loss costs seconds of throughput"
                        : "TCP-LP yields to any other traffic by design (a scavenger for "
                          "background transfers), so training traffic runs at leftover speed"};
  }
  if (k == "net.ipv4.ip_local_port_range") {
    if (n.size() != 2) return std::nullopt;
    const double ports = static_cast<double>(n[1] - n[0] + 1);
    if (ports >= kMinEphemeralPorts) return std::nullopt;
    return TcpIssue{k, v.value + " (" + Number(ports) + " ports)",
                    "a range of >= " + Number(kMinEphemeralPorts) + " ports",
                    "every connection to a peer takes an ephemeral port and a closed one holds "
                    "it for a minute in TIME_WAIT: a large job that reconnects runs out "
                    "(EADDRNOTAVAIL, failed connects)"};
  }
  return std::nullopt;
}

}  // namespace casefile::comm
