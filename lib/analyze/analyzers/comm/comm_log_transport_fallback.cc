// comm.transport_fallback (docs/FINDINGS.md): a communicator spanning
// hosts whose ranks talk over NET/Socket while InfiniBand/RoCE is present
// or expected. Without IB, NCCL falls back to its socket transport
// silently: the job runs, only slower.
#include <algorithm>
#include <map>
#include <set>

#include "analyze/analyzers/comm/comm_log_common.h"
#include "analyze/analyzers/comm/comm_log_findings.h"

namespace casefile::comm {
namespace {

bool Has(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

bool UsesSocket(const NcclProc& p) { return Has(p.transports, "NET/Socket") || p.net == "Socket"; }

bool UsesIb(const NcclProc& p) {
  return p.net.starts_with("IB") || p.net_devices.starts_with("IB:") || Has(p.transports, "NET/IB");
}

// "NAME=value" in a comma-separated env list.
bool EnvHas(const std::string& env, std::string_view entry) {
  size_t at = 0;
  while (at <= env.size()) {
    const size_t end = std::min(env.find(',', at), env.size());
    if (std::string_view(env).substr(at, end - at) == entry) return true;
    at = end + 1;
  }
  return false;
}

bool EnvNames(const std::string& env, std::string_view name) {
  const std::string key = std::string(name) + "=";
  return env.starts_with(key) || Has(env, "," + key);
}

// The first line of a process in its first kTransportSearchLines lines
// whose message holds one of `needles` (earlier needles preferred).
std::optional<int64_t> FindProcLine(const CommLogFacts& facts, const NcclProc& p,
                                    std::initializer_list<std::string_view> needles) {
  if (!facts.lines_in) return std::nullopt;
  std::vector<std::optional<int64_t>> found(needles.size());
  const int64_t to = std::max(p.line_no, std::min(p.last_line, p.line_no + kTransportSearchLines));
  facts.lines_in(p.file_id, p.line_no, to, [&](const LogLine& l) {
    if (p.pid >= 0 && l.pid >= 0 && l.pid != p.pid) return true;
    size_t i = 0;
    for (std::string_view n : needles) {
      if (!found[i] && Has(l.message, n)) found[i] = l.line_no;
      ++i;
    }
    return !found[0];
  });
  for (const auto& f : found) {
    if (f) return f;
  }
  return std::nullopt;
}

struct Sign {
  std::string what;
  int64_t file_id = 0;
  int64_t line_no = 0;
};

}  // namespace

std::optional<Finding> BuildTransportFallback(const CommLogFacts& facts) {
  // Communicators: by commId, else by size for lines without one.
  std::map<std::string, std::vector<const NcclProc*>> comms;
  for (const NcclProc& p : facts.procs) {
    if (p.comm.empty()) continue;
    if (!p.comm_id.empty()) {
      comms["id:" + p.comm_id].push_back(&p);
    } else if (p.nranks) {
      comms["n:" + std::to_string(*p.nranks)].push_back(&p);
    }
  }
  std::set<ProcKey> socket_keys;
  std::vector<const NcclProc*> socket_procs;
  std::set<std::string> span_hosts;
  for (const auto& [key, procs] : comms) {
    std::set<std::string> hosts;
    bool multi = false;
    for (const NcclProc* p : procs) {
      if (!p->host.empty()) hosts.insert(p->host);
      if (p->nnodes && *p->nnodes > 1) multi = true;
    }
    if (hosts.size() > 1) multi = true;
    if (!multi) continue;
    for (const NcclProc* p : procs) {
      if (!UsesSocket(*p) || !socket_keys.insert(KeyOf(*p)).second) continue;
      socket_procs.push_back(p);
      span_hosts.insert(hosts.begin(), hosts.end());
    }
  }
  if (socket_procs.empty()) return std::nullopt;

  // What says InfiniBand/RoCE is there or was meant to be used.
  std::vector<Sign> signs;
  std::set<std::string> kinds;
  auto add = [&](const std::string& kind, std::string what, int64_t file, int64_t line) {
    if (!kinds.insert(kind).second) return;
    signs.push_back({std::move(what), file, line});
  };
  for (const NcclProc& p : facts.procs) {
    if (UsesIb(p) && !socket_keys.count(KeyOf(p))) {
      const int64_t line =
          FindProcLine(facts, p, {"NET/IB : Using", "via NET/IB", "Using network IB"})
              .value_or(p.line_no);
      add("ib",
          "NCCL used InfiniBand on " + (p.host.empty() ? std::string("another process") : p.host) +
              " (NET/IB)",
          p.file_id, line);
    }
  }
  for (const NcclProc& p : facts.procs) {
    struct Var {
      const char* entry;
      const char* kind;
      const char* what;
    };
    for (const Var& v :
         {Var{"NCCL_IB_DISABLE=1", "ib_disable", "NCCL_IB_DISABLE=1 in the environment"},
          Var{"NCCL_P2P_DISABLE=1", "p2p_disable",
              "NCCL_P2P_DISABLE=1 in the environment (intra-node traffic through "
              "host memory too)"}}) {
      if (!EnvHas(p.env, v.entry)) continue;
      const std::string name = std::string(v.entry).substr(0, std::string(v.entry).find('='));
      const int64_t line =
          FindProcLine(facts, p, {name + " set by environment to 1"}).value_or(p.line_no);
      add(v.kind, v.what, p.file_id, line);
    }
    if (EnvNames(p.env, "NCCL_IB_HCA")) {
      const int64_t line =
          FindProcLine(facts, p, {"NCCL_IB_HCA set by environment"}).value_or(p.line_no);
      add("ib_hca", "NCCL_IB_HCA names InfiniBand devices", p.file_id, line);
    }
  }
  for (const EnvSetting& s : facts.env) {
    if (s.key == "NCCL_IB_DISABLE" && s.value == "1")
      add("ib_disable", "NCCL_IB_DISABLE=1 in the environment", s.file_id, s.line_no);
    if (s.key == "NCCL_P2P_DISABLE" && s.value == "1")
      add("p2p_disable",
          "NCCL_P2P_DISABLE=1 in the environment (intra-node traffic through host memory too)",
          s.file_id, s.line_no);
    if (s.key == "NCCL_IB_HCA" && !s.value.empty())
      add("ib_hca", "NCCL_IB_HCA names InfiniBand devices", s.file_id, s.line_no);
  }
  for (const IbPortLine& l : facts.ib_ports) {
    if (!l.host.empty() && !span_hosts.count(l.host)) continue;
    add("ib_port",
        "an active InfiniBand/RoCE port on " + (l.host.empty() ? std::string("a host") : l.host) +
            " (ibstat / ibv_devinfo)",
        l.file_id, l.line_no);
  }
  // NCCL_IB_DISABLE=1 and NCCL_P2P_DISABLE=1 alone say nothing about the
  // hardware: setting them is how Ethernet-only clusters (and consumer GPUs
  // without P2P) are run. They explain a fallback only beside a sign that
  // InfiniBand is there: NCCL using it elsewhere, NCCL_IB_HCA naming
  // devices, or an active port.
  const bool hardware = kinds.count("ib") || kinds.count("ib_hca") || kinds.count("ib_port");
  if (!hardware) return std::nullopt;

  Finding f = NewFinding("comm.transport_fallback", Severity::kWarning,
                         "Ranks on several hosts communicate over TCP sockets");
  std::vector<std::string> hosts;
  std::vector<int64_t> ranks;
  const GlobalRanks global(facts.procs);
  for (const NcclProc* p : socket_procs) {
    if (std::find(hosts.begin(), hosts.end(), p->host) == hosts.end()) hosts.push_back(p->host);
    if (const auto r = global.Of(KeyOf(*p))) ranks.push_back(*r);
  }
  std::sort(hosts.begin(), hosts.end());
  for (const std::string& h : hosts) AddCulprit(f, h);
  // One socket line: a channel over NET/Socket proves the use.
  const NcclProc& shown = *socket_procs.front();
  const int64_t socket_line =
      FindProcLine(facts, shown, {"via NET/Socket", "Using network Socket", "NET/Socket : Using"})
          .value_or(shown.line_no);
  f.evidence.push_back(facts.line(shown.file_id, socket_line));
  for (size_t i = 0; i < signs.size() && i < kMaxCited; ++i)
    f.evidence.push_back(facts.line(signs[i].file_id, signs[i].line_no));

  std::string s = "Ranks ";
  s += ranks.empty() ? std::string("of the job") : RankRanges(ranks);
  s += " on " + HostList(hosts) +
       " use NCCL's socket transport (NET/Socket) in a communicator that "
       "spans " +
       std::to_string(span_hosts.size()) +
       " hosts, while InfiniBand/RoCE is present or "
       "expected: ";
  for (size_t i = 0; i < signs.size(); ++i) {
    if (i > 0) s += "; ";
    s += signs[i].what;
  }
  s += ". The socket transport goes through the kernel TCP stack and host memory: typically "
       "several times lower bus bandwidth than IB/RoCE with GPUDirect RDMA, so every collective "
       "across hosts is slower.";
  f.summary = std::move(s);
  f.recommendation =
      "Make NCCL use the HCAs: unset NCCL_IB_DISABLE (and NCCL_P2P_DISABLE) unless they were set "
      "on purpose, check that NCCL_IB_HCA names devices that exist and are active (ibstat), that "
      "the container sees /dev/infiniband and the RDMA libraries (libibverbs, the net plugin), "
      "and rerun with NCCL_DEBUG=INFO until every host logs \"NET/IB : Using\" and channels "
      "\"via NET/IB\".";
  return f;
}

}  // namespace casefile::comm
