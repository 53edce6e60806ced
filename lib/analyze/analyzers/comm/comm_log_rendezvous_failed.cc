// comm.rendezvous_failed (docs/FINDINGS.md): c10d TCPStore / elastic
// rendezvous set-up failures. Who is at fault depends on the form: nothing
// listening at the master (refused), a master that cannot bind its port, a
// rendezvous that timed out because not every node joined.
#include <algorithm>
#include <map>
#include <set>

#include "analyze/analyzers/comm/comm_log_common.h"
#include "analyze/analyzers/comm/comm_log_findings.h"
#include "parse/dist/dist_kinds.h"

namespace casefile::comm {
namespace {

std::string FormWords(const std::string& op) {
  if (op == dist::kRdzvRefused)
    return "connection refused: nothing listened at the master's address (the master process "
           "was not up yet or had exited, a wrong MASTER_ADDR or port, or a firewall)";
  if (op == dist::kRdzvSocketTimeout)
    return "the client socket timed out: the master's address did not answer (unreachable "
           "host, a firewall dropping packets, a wrong address)";
  if (op == dist::kRdzvAddressInUse)
    return "address already in use: another job or a stale process of an earlier run holds "
           "the master's port";
  if (op == dist::kRdzvTimeout) return "the rendezvous timed out: not every node joined in time";
  if (op == dist::kRdzvReset)
    return "the connection to the store was reset: the master process went away";
  if (op == dist::kRdzvClosed) return "the rendezvous was closed (the job was being shut down)";
  if (op == dist::kRdzvListenFailed)
    return "the master's store could not listen on its port (no usable local address, or "
           "the bind was refused)";
  if (op == dist::kRdzvNameResolution)
    return "the master's name did not resolve (DNS: a typo in MASTER_ADDR or --rdzv_endpoint, "
           "a service or pod name not yet registered, or a resolver the hosts cannot reach)";
  if (op == kRdzvNotAllJoined)
    return "the store waited at set-up and not every process joined: a node that never started, "
           "failed before joining, or was launched with another master address or world size";
  if (op == dist::kRdzvConnectFailed)
    return "the client could not connect to the master's address (no route to the host, or a "
           "name that does not resolve)";
  return "the store could not be reached";
}

// A form whose clients failed to reach one endpoint: the fault is at the
// endpoint when every client fails alike.
bool IsReachForm(const std::string& op) {
  return op == dist::kRdzvRefused || op == dist::kRdzvSocketTimeout || op == dist::kRdzvReset ||
         op == dist::kRdzvStoreFailed || op == dist::kRdzvConnectFailed;
}

std::string HostPart(const std::string& endpoint) {
  if (endpoint.empty()) return "";
  if (endpoint.front() == '[' || endpoint.front() == '*') return "";  // a wildcard: no host
  const size_t colon = endpoint.rfind(':');
  return endpoint.substr(0, colon);
}

// How long a log must go on after its last rendezvous error for the
// process to have joined: a client that gives up exits within seconds of
// its last report.
constexpr int64_t kJoinedAfterUs = 10LL * 60 * 1'000'000;

}  // namespace

std::optional<Finding> BuildRendezvousFailed(const CommLogFacts& facts) {
  // A reset or closed connection to a peer (gloo's "Connection closed by
  // peer" in a barrier, c10d's "Connection reset by peer") is what the
  // survivors see when another process failed on its own first: a
  // consequence, not a set-up failure (runtime.first_failure names the
  // cause).
  std::vector<const CommEvent*> independent;
  for (const CommEvent& e : facts.events) {
    if (IsIndependentFailure(e)) independent.push_back(&e);
  }
  auto consequence = [&](const CommEvent& r) {
    if (r.op != dist::kRdzvReset) return false;
    for (const CommEvent* f : independent) {
      if (SameProcess(*f, r)) continue;
      if (f->ts_us != kNoTimestamp && r.ts_us != kNoTimestamp && f->ts_us > r.ts_us + kClockSlackUs)
        continue;
      return true;
    }
    return false;
  };
  // A client that was refused while the master came up retries: when its
  // log shows the rendezvous succeeded afterwards (NCCL set-up or training
  // steps after the report), the report was a retry, not the failure.
  // A worker pod's log may show neither (rank 0 logs the steps, NCCL_DEBUG
  // off): then a log that goes on for kJoinedAfterUs after the file's last
  // rendezvous error (a failed rendezvous ends the process) joined.
  std::map<int64_t, int64_t> last_rdzv_ts;  // file -> its last rendezvous row's time
  for (const CommEvent& e : facts.events) {
    if (e.kind == EventKind::kRendezvous && e.ts_us != kNoTimestamp)
      last_rdzv_ts[e.file_id] = std::max(last_rdzv_ts[e.file_id], e.ts_us);
  }
  auto retried_and_joined = [&](const CommEvent& r) {
    if (r.op != dist::kRdzvRefused && r.op != dist::kRdzvConnectFailed &&
        r.op != dist::kRdzvNameResolution)
      return false;
    for (const NcclProc& p : facts.procs) {
      if (p.file_id == r.file_id && p.line_no > r.line_no) return true;
    }
    const auto step = facts.last_step_line.find(r.file_id);
    if (step != facts.last_step_line.end() && step->second > r.line_no) return true;
    const auto last = facts.last_ts.find(r.file_id);
    const auto rdzv = last_rdzv_ts.find(r.file_id);
    return last != facts.last_ts.end() && rdzv != last_rdzv_ts.end() &&
           last->second - rdzv->second >= kJoinedAfterUs;
  };
  std::vector<const CommEvent*> rows;
  for (const CommEvent& e : facts.events) {
    if (e.kind == EventKind::kRendezvous && !consequence(e) && !retried_and_joined(e))
      rows.push_back(&e);
  }
  if (rows.empty()) return std::nullopt;
  // A closed rendezvous is what the other nodes see when one gave up: it
  // counts only when nothing else explains the failure.
  std::vector<const CommEvent*> main;
  for (const CommEvent* e : rows) {
    if (e->op != dist::kRdzvClosed) main.push_back(e);
  }
  if (main.empty()) main = rows;
  // The story is a cause when one was reported, however few times: a master
  // that could not bind its port, or a name that did not resolve, makes
  // every client's connect fail and retry (dozens of reports). Otherwise
  // the most common form.
  std::map<std::string, size_t> forms;
  for (const CommEvent* e : main) ++forms[e->op];
  std::string form;
  size_t most = 0;
  for (const auto& [op, n] : forms) {
    if (n > most) {
      most = n;
      form = op;
    }
  }
  for (const char* cause :
       {kRdzvNotAllJoined, dist::kRdzvNameResolution, dist::kRdzvAddressInUse}) {
    if (forms.contains(cause)) form = cause;
  }
  std::vector<const CommEvent*> of_form;
  for (const CommEvent* e : main) {
    if (e->op == form) of_form.push_back(e);
  }
  std::set<std::string> endpoints;
  std::vector<std::string> hosts;
  std::vector<int64_t> ranks;
  std::string joined;  // "3/4 clients joined" of a not_all_joined row
  for (const CommEvent* e : of_form) {
    if (e->op == kRdzvNotAllJoined) {
      if (joined.empty()) joined = e->detail;
    } else if (!e->detail.empty()) {
      endpoints.insert(e->detail);
    }
    if (std::find(hosts.begin(), hosts.end(), e->host) == hosts.end()) hosts.push_back(e->host);
    if (e->rank) ranks.push_back(*e->rank);
  }
  std::sort(hosts.begin(), hosts.end());
  const std::string endpoint = endpoints.size() == 1 ? *endpoints.begin() : "";
  const std::string master = HostPart(endpoint);

  Finding f = NewFinding("comm.rendezvous_failed", Severity::kError,
                         "The processes could not meet at the rendezvous");
  // Every client of the job failed to reach the one endpoint: the endpoint
  // (the master) is at fault, not the clients.
  bool master_at_fault = false;
  if (IsReachForm(form) && !master.empty()) {
    std::set<std::string> clients;
    for (const std::string& h : facts.log_hosts) {
      if (!SameHost(h, master)) clients.insert(h);
    }
    size_t reporting = 0;
    for (const std::string& h : clients) {
      if (std::any_of(hosts.begin(), hosts.end(),
                      [&](const std::string& x) { return SameHost(x, h); }))
        ++reporting;
    }
    master_at_fault = clients.empty() ? !hosts.empty() : reporting == clients.size();
  }
  // The hosts of the bundle whose logs report nothing of the rendezvous:
  // for a wait that not everyone joined, those that did not come.
  std::vector<std::string> silent;
  for (const std::string& h : facts.log_hosts) {
    if (std::none_of(rows.begin(), rows.end(),
                     [&](const CommEvent* e) { return SameHost(e->host, h); }))
      silent.push_back(h);
  }
  if (master_at_fault) {
    AddCulprit(f, master);
  } else if (form == kRdzvNotAllJoined) {
    if (silent.size() * 2 < facts.log_hosts.size()) {
      for (const std::string& h : silent) AddCulprit(f, h);
    }
  } else if (form == dist::kRdzvAddressInUse) {
    for (const CommEvent* e : of_form) AddCulprit(f, e->host, e->rank);
  } else {
    for (const CommEvent* e : of_form) AddCulprit(f, e->host, e->rank);
  }
  size_t cited = 0;
  std::set<std::string> cited_hosts;
  for (const CommEvent* e : of_form) {
    if (cited_hosts.insert(e->host).second && cited++ < kMaxCited)
      f.evidence.push_back(facts.line(e->file_id, e->line_no));
  }

  std::string who =
      (ranks.empty() ? "" : (ranks.size() == 1 ? "Rank " : "Ranks ") + RankRanges(ranks) + " on ");
  // A host name is quoted as written ("node-1", not "Node-1"): only the
  // "Rank"/"Ranks" lead-in is capitalised.
  std::string s = who.empty() ? HostList(hosts) : who + HostList(hosts);
  s += " failed at the rendezvous";
  if (!endpoint.empty()) s += " with the store at " + endpoint;
  s += ": " + FormWords(form) + " (" + (joined.empty() ? "" : joined + "; ") +
       Count(of_form.size(), "report", "reports") + ").";
  if (form == kRdzvNotAllJoined) {
    if (!silent.empty() && silent.size() * 2 < facts.log_hosts.size())
      s += " " + HostList(silent) + (silent.size() == 1 ? " reports" : " report") +
           " no rendezvous at all: " +
           (silent.size() == 1 ? "it is the one that did not join."
                               : "they are the ones that did not join.");
    else if (silent.empty())
      s += " Every host of the bundle reports the wait: the processes that did not join left no "
           "log in it.";
  }
  if (master_at_fault)
    s += " Every other host failed to reach the same endpoint, so the fault is at the master " +
         master + " (its agent not started, exited, or listening elsewhere), not at the clients.";
  if (form == dist::kRdzvTimeout && !facts.log_hosts.empty()) {
    std::vector<std::string> silent;
    for (const std::string& h : facts.log_hosts) {
      if (std::none_of(hosts.begin(), hosts.end(),
                       [&](const std::string& x) { return SameHost(x, h); }))
        silent.push_back(h);
    }
    if (!silent.empty())
      s += " " + HostList(silent) + " reported no rendezvous timeout: check whether they joined.";
  }
  if (forms.size() > 1) {
    s += " Other forms reported:";
    bool first = true;
    for (const auto& [op, n] : forms) {
      if (op == form) continue;
      s += std::string(first ? " " : ", ") + op + " (" + std::to_string(n) + ")";
      first = false;
    }
    s += ".";
  }
  f.summary = std::move(s);
  if (form == dist::kRdzvNameResolution) {
    f.recommendation =
        "Check that the master's name resolves on every host (`getent hosts <name>`), the "
        "spelling of MASTER_ADDR / --rdzv_endpoint, and for Kubernetes that the headless "
        "service exists before the workers start; or use the master's IP address.";
  } else if (form == dist::kRdzvAddressInUse) {
    f.recommendation =
        "Free the port on the master (a stale torchrun or python of an earlier run: `ss -ltnp "
        "| grep <port>`) or choose another MASTER_PORT / --rdzv_endpoint port per job.";
  } else if (form == dist::kRdzvTimeout) {
    f.recommendation =
        "Check that every node was started with the same --rdzv_endpoint, --rdzv_id and "
        "--nnodes, that none failed before joining (their own logs), and raise "
        "--rdzv_conf join_timeout when nodes start minutes apart.";
  } else {
    f.recommendation =
        "Check that MASTER_ADDR / --rdzv_endpoint names the host where rank 0's agent runs and "
        "that it resolves to an address the other hosts can reach on that port (firewall, "
        "security groups, the interface it listens on); start the master first or let the "
        "clients retry longer.";
  }
  return f;
}

}  // namespace casefile::comm
