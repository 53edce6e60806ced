// comm.nccl_error (docs/FINDINGS.md): NCCL's own error reports (NCCL WARN
// lines with a result class, failing INFO unwind lines, "Last error:"
// details) and torch's "NCCL error" exceptions. The first rank to report
// is the culprit; the summary gives the NCCL class, the system error and
// the peer the report names.
#include <algorithm>
#include <climits>
#include <map>
#include <set>

#include "analyze/analyzers/comm/comm_log_common.h"
#include "analyze/analyzers/comm/comm_log_findings.h"
#include "analyze/failure_markers.h"
#include "analyze/summary_text.h"
#include "parse/dist/comm_text.h"
#include "parse/dist/dist_kinds.h"

namespace casefile::comm {
namespace {

constexpr size_t kMaxQuoted = 240;

struct Report {
  const CommEvent* e = nullptr;
  std::string cls;  // "" when the text implies none
  bool peer_gone = false;
  bool flush = false;  // a flushed IB completion: after its connection's first error
};

// The ops of nccl_warn rows that name a result class (dist_kinds.h).
bool IsClass(std::string_view op) { return op.starts_with("nccl"); }

// An InfiniBand completion with status 5 (IBV_WC_WR_FLUSH_ERR): the work
// requests flushed from a queue pair that an earlier error on the same
// connection (often on the other side: a 12, retry exceeded) put into the
// error state. NCCL prints "Got completion from peer X with status=5" or,
// before 2.12, "Got completion with error 5, opcode ...".
bool IsFlushCompletion(std::string_view text) {
  if (ContainsNoCase(text, "IBV_WC_WR_FLUSH_ERR")) return true;
  if (text.find("completion") == std::string_view::npos) return false;
  for (std::string_view lead : {"with error ", "status="}) {
    for (size_t at = text.find(lead); at != std::string_view::npos; at = text.find(lead, at + 1)) {
      const size_t d = at + lead.size();
      if (d < text.size() && text[d] == '5' &&
          (d + 1 == text.size() || text[d + 1] < '0' || text[d + 1] > '9'))
        return true;
    }
  }
  return false;
}

// A report that a peer went away: what every survivor prints when another
// rank died, never the first cause when some rank failed on its own.
bool PeerGone(const Report& r) {
  if (r.cls == dist::kNcclClassRemote || r.flush) return true;
  return ContainsNoCase(r.e->detail, "remote process exited") ||
         ContainsNoCase(r.e->detail, "closed by remote peer") ||
         ContainsNoCase(r.e->detail, "communicator was aborted");
}

std::string ClassWords(const std::string& cls) {
  if (cls == dist::kNcclClassSystem) return "ncclSystemError (unhandled system error)";
  if (cls == dist::kNcclClassRemote)
    return "ncclRemoteError (remote process exited or there was a network error)";
  if (cls == dist::kNcclClassInternal) return "ncclInternalError (internal error)";
  if (cls == dist::kNcclClassInvalidUsage) return "ncclInvalidUsage (invalid usage)";
  if (cls == dist::kNcclClassInvalidArgument) return "ncclInvalidArgument (invalid argument)";
  if (cls == dist::kNcclClassCuda) return "ncclUnhandledCudaError (unhandled CUDA error)";
  return "an NCCL error";
}

std::string Advice(const std::string& cls) {
  if (cls == dist::kNcclClassSystem)
    return "A system call or the network failed under NCCL: check the link of the named peer and "
           "of the reporting host (ibstat / ip link, dmesg for link flaps and NIC resets, switch "
           "port counters), the interface NCCL bound to (NCCL_SOCKET_IFNAME), firewalls between "
           "the hosts and the memory limits of the process (ulimit -l for RDMA).";
  if (cls == dist::kNcclClassRemote)
    return "The peer went away or the network between the hosts broke: read the peer's own log "
           "for its failure (a crash, an OOM kill) before anything else; without one, check the "
           "link between the two hosts.";
  if (cls == dist::kNcclClassCuda)
    return "NCCL hit a CUDA error: look for the CUDA error of the same rank (runtime.cuda_error) "
           "and the GPU's health (nvidia-smi, Xid lines in dmesg).";
  if (cls == dist::kNcclClassInternal || cls == dist::kNcclClassInvalidUsage ||
      cls == dist::kNcclClassInvalidArgument)
    return "NCCL refused what it was asked: ranks that call different collectives, two ranks on "
           "one GPU, or ranks on different NCCL versions (comm.version_mismatch); run with "
           "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET to see the call that failed.";
  return "Read the NCCL lines of the reporting rank around the error with NCCL_DEBUG=INFO.";
}

// The time of a report: its own, else the nearest stamped line before it.
int64_t TimeOf(const CommLogFacts& facts, const CommEvent& e) {
  if (e.ts_us != kNoTimestamp) return e.ts_us;
  int64_t found = kNoTimestamp;
  if (facts.lines_in) {
    facts.lines_in(e.file_id, std::max<int64_t>(1, e.line_no - kTimeSearchLines), e.line_no,
                   [&](const LogLine& l) {
                     if (l.ts_us != kNoTimestamp) found = l.ts_us;
                     return true;
                   });
  }
  return found;
}

// The host whose "Bootstrap : Using <if>:<ip><0>" or "OOB <if>:<ip><0>"
// line names `ip`; "" when none does.
std::string HostOfAddress(const CommLogFacts& facts, std::string_view ip) {
  if (ip.empty() || !facts.lines_in) return "";
  const std::string needle = ":" + std::string(ip) + "<";
  std::set<std::string> tried;
  for (const NcclProc& p : facts.procs) {
    if (p.host.empty() || tried.count(p.host) || tried.size() >= kMaxPeerHosts) continue;
    tried.insert(p.host);
    std::string found;
    facts.lines_in(p.file_id, p.line_no, p.line_no + kBootstrapSearchLines, [&](const LogLine& l) {
      const std::string_view m = l.message;
      if ((m.find("Bootstrap : Using") != std::string_view::npos ||
           m.find(" OOB ") != std::string_view::npos) &&
          m.find(needle) != std::string_view::npos) {
        found = !l.host.empty() ? l.host : p.host;
        return false;
      }
      return true;
    });
    if (!found.empty()) return found;
  }
  return "";
}

}  // namespace

std::optional<Finding> BuildNcclError(const CommLogFacts& facts) {
  std::vector<Report> reports;
  for (const CommEvent& e : facts.events) {
    if (e.kind == EventKind::kNcclWarn) {
      // Benign WARNs and WARNs without a class do not make an error.
      if (!IsClass(e.op)) continue;
      reports.push_back({&e, e.op, false});
    } else if (e.kind == EventKind::kCollectiveError) {
      const char* cls = dist::NcclClassOf(e.detail);
      reports.push_back({&e, cls ? cls : "", false});
    }
  }
  if (reports.empty()) return std::nullopt;
  for (Report& r : reports) {
    r.flush = IsFlushCompletion(r.e->detail);
    r.peer_gone = PeerGone(r);
  }

  // Failures of their own decide which reports are consequences.
  bool cuda_error = false;
  std::vector<const CommEvent*> independent;
  for (const CommEvent& e : facts.events) {
    if (e.kind == EventKind::kCudaError && IsIndependentFailure(e)) cuda_error = true;
    if (IsIndependentFailure(e)) independent.push_back(&e);
  }
  auto consequence = [&](const Report& r) {
    // NCCL's CUDA errors follow the CUDA error runtime.cuda_error names.
    if (r.cls == dist::kNcclClassCuda && cuda_error) return true;
    if (!r.peer_gone) return false;
    for (const CommEvent* f : independent) {
      if (SameProcess(*f, *r.e)) continue;
      if (f->ts_us != kNoTimestamp && r.e->ts_us != kNoTimestamp &&
          f->ts_us > r.e->ts_us + kClockSlackUs)
        continue;
      return true;
    }
    return false;
  };
  std::vector<const Report*> kept;
  size_t dropped = 0;
  for (const Report& r : reports) {
    if (consequence(r)) {
      ++dropped;
    } else {
      kept.push_back(&r);
    }
  }
  if (kept.empty()) return std::nullopt;

  // Per file, its first report, one that does not only say a peer went
  // away when there is one; then across files by (peer gone, time).
  std::map<int64_t, const Report*> first_of_file;
  for (const Report* r : kept) {
    auto [it, added] = first_of_file.emplace(r->e->file_id, r);
    if (!added &&
        std::tie(it->second->peer_gone, it->second->flush) > std::tie(r->peer_gone, r->flush))
      it->second = r;
  }
  const Report* first = nullptr;
  std::tuple<bool, bool, int64_t, int64_t, int64_t> best{true, true, INT64_MAX, INT64_MAX,
                                                         INT64_MAX};
  int64_t first_time = kNoTimestamp;
  for (const auto& [file, r] : first_of_file) {
    const int64_t t = TimeOf(facts, *r->e);
    const auto key = std::make_tuple(r->peer_gone, r->flush, t == kNoTimestamp ? INT64_MAX : t,
                                     file, r->e->line_no);
    if (!first || key < best) {
      best = key;
      first = r;
      first_time = t;
    }
  }
  const CommEvent& e = *first->e;

  // Who reported: the row's rank, else the world rank of the line's process.
  std::optional<int64_t> rank = e.rank;
  std::string host = e.host;
  if (facts.lines_in && (!rank || host.empty())) {
    const GlobalRanks global(facts.procs);
    facts.lines_in(e.file_id, e.line_no, e.line_no, [&](const LogLine& l) {
      if (host.empty()) host = l.host;
      if (!rank && l.pid >= 0) rank = global.Of({e.file_id, l.host, l.pid});
      return false;
    });
  }
  host = HostOfRank(facts, rank, host);

  // The class, system error and peer: the report's own text, else the
  // lines right after it (torch's "Last error:" block, NCCL's unwind).
  std::string cls = first->cls;
  std::string errno_text(dist::NcclErrnoText(e.detail));
  std::string peer(dist::NcclPeer(e.detail));
  int64_t errno_line = 0;
  if ((errno_text.empty() || peer.empty() || cls.empty()) && facts.lines_in) {
    facts.lines_in(e.file_id, e.line_no + 1, e.line_no + kErrnoSearchLines, [&](const LogLine& l) {
      if (!host.empty() && !l.host.empty() && !SameHost(l.host, host)) return true;
      const std::string_view err = dist::NcclErrnoText(l.message);
      if (errno_text.empty() && !err.empty()) {
        errno_text = std::string(err);
        errno_line = l.line_no;
      }
      if (peer.empty() && !err.empty()) peer = std::string(dist::NcclPeer(l.message));
      if (cls.empty()) {
        if (const char* c = dist::NcclClassOf(l.message)) cls = c;
      }
      return errno_text.empty();
    });
  }
  std::string peer_host;
  if (!peer.empty()) {
    const std::string ip = peer.substr(0, peer.find('<'));
    for (const NcclProc& p : facts.procs) {
      if (!p.host.empty() && SameHost(p.host, ip)) peer_host = p.host;
    }
    if (peer_host.empty()) peer_host = HostOfAddress(facts, ip);
  }

  Finding f = NewFinding("comm.nccl_error", Severity::kError, "NCCL reported an error");
  AddCulprit(f, host, rank);
  if (!peer_host.empty() && !SameHost(peer_host, host)) AddCulprit(f, peer_host);
  f.evidence.push_back(facts.line(e.file_id, e.line_no));
  if (errno_line > 0) f.evidence.push_back(facts.line(e.file_id, errno_line));

  // The other hosts that reported, one line each.
  std::vector<std::string> other_hosts;
  std::set<std::string> seen_hosts{host};
  size_t other_reports = 0;
  for (const Report* r : kept) {
    if (r == first) continue;
    ++other_reports;
    const std::string h = r->e->host;
    if (seen_hosts.count(h)) continue;
    seen_hosts.insert(h);
    other_hosts.push_back(h);
    if (other_hosts.size() <= kMaxCited)
      f.evidence.push_back(facts.line(r->e->file_id, r->e->line_no));
  }

  std::string s = WhoText(host, rank) + " reported the first NCCL error: " + ClassWords(cls);
  if (!errno_text.empty()) s += ", system error \"" + errno_text + "\"";
  if (!peer.empty()) {
    s += ", naming peer " + peer;
    if (!peer_host.empty() && peer_host != peer.substr(0, peer.find('<')))
      s += " (" + peer_host + ")";
  }
  if (first_time != kNoTimestamp) {
    s += (e.ts_us != kNoTimestamp ? ", at " : ", at about ") + ClockText(first_time);
  }
  s += ": \"" + Shorten(e.detail, kMaxQuoted) + "\".";
  if (!other_hosts.empty()) {
    std::sort(other_hosts.begin(), other_hosts.end());
    s += " " + Count(other_reports, "other NCCL error report", "other NCCL error reports") +
         " followed, on " + HostList(other_hosts) + ".";
  } else if (other_reports > 0) {
    s += " " + Count(other_reports, "other NCCL error report", "other NCCL error reports") +
         " of the same host followed.";
  }
  if (dropped > 0) {
    s += " " + Count(dropped, "report", "reports") +
         " of a peer that went away came after another rank's own failure and " +
         (dropped == 1 ? "is" : "are") + " not counted.";
  }
  if (first_time == kNoTimestamp && first_of_file.size() > 1)
    s += " The reports carry no time: the order is the files'.";
  f.summary = std::move(s);
  f.recommendation = Advice(cls);
  return f;
}

}  // namespace casefile::comm
