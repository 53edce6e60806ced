// runtime.oom_killed: the host (or a cgroup) ran out of memory and the
// kernel killed a process of the run.
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <set>

#include "analyze/analyzers/runtime/cuda_text.h"
#include "analyze/analyzers/runtime/runtime_common.h"
#include "analyze/analyzers/runtime/runtime_rules.h"

namespace casefile::runtime {
namespace {

constexpr size_t kMaxCasesInSummary = 6;

// One worker process as the launcher rows tell it (torchrun prints a
// process in its agent line and again in its summary block: one Proc).
struct Proc {
  std::optional<int64_t> rank;
  std::string host;
  int64_t pid = -1;
  std::optional<int64_t> code;
  bool root_cause = false;
  bool slurm_oom = false;  // srun: "Out Of Memory"
  int64_t ts = kNoTimestamp;
  std::vector<const FailureRow*> rows;
  bool used = false;
};

bool IsKillCode(const std::optional<int64_t>& c) { return c && (*c == -9 || *c == 137); }

bool HostsAgree(const std::string& a, const std::string& b) {
  return a.empty() || b.empty() || SameHost(a, b);
}

// Names a kernel gives the processes of a training run.
bool LooksLikeTraining(std::string_view comm) {
  for (std::string_view p : {"python", "pt_", "torchrun", "deepspeed", "ray::", "accelerate"}) {
    if (comm.starts_with(p)) return true;
  }
  return false;
}

std::vector<Proc> LauncherProcs(const RuntimeFacts& facts) {
  std::vector<Proc> out;
  for (const FailureRow& r : facts.rows) {
    if (r.kind != RowKind::kLauncherFailure) continue;
    const int64_t pid = IntAfter(r.detail, "pid ").value_or(-1);
    const std::optional<int64_t> code =
        r.value ? std::optional<int64_t>(static_cast<int64_t>(*r.value)) : std::nullopt;
    Proc* p = nullptr;
    for (Proc& have : out) {
      if (pid >= 0 && have.pid == pid && HostsAgree(have.host, r.host)) {
        p = &have;
      } else if (pid < 0 && r.rank && have.rank == r.rank && have.code == code &&
                 HostsAgree(have.host, r.host)) {
        p = &have;
      }
      if (p) break;
    }
    if (!p) {
      out.emplace_back();
      p = &out.back();
    }
    if (!p->rank) p->rank = r.rank;
    // The shorter of two spellings of a host is the one the bundle uses
    // for its files ("node-1", not "node-1.cluster.local").
    if (p->host.empty() || (!r.host.empty() && r.host.size() < p->host.size())) p->host = r.host;
    if (pid >= 0) p->pid = pid;
    if (!p->code) p->code = code;
    p->root_cause = p->root_cause || r.detail.starts_with("root cause");
    p->slurm_oom = p->slurm_oom || r.detail.find("Out Of Memory") != std::string::npos;
    if (r.ts_us != kNoTimestamp && (p->ts == kNoTimestamp || r.ts_us < p->ts)) p->ts = r.ts_us;
    p->rows.push_back(&r);
  }
  return out;
}

// pid -> (rank, host) from the lines; a pid two ranks claim is dropped.
std::map<int64_t, PidOwner> PidOwners(const RuntimeFacts& facts) {
  std::map<int64_t, PidOwner> owners;
  std::set<int64_t> conflict;
  for (const PidOwner& p : facts.pids) {
    auto [it, added] = owners.emplace(p.pid, p);
    if (!added && it->second.rank != p.rank) conflict.insert(p.pid);
  }
  for (int64_t pid : conflict) owners.erase(pid);
  return owners;
}

bool IsLoaderKill(const FailureRow& r) {
  return r.kind == RowKind::kCrash && r.detail.find("DataLoader worker") != std::string::npos &&
         r.detail.find("killed by signal: Killed") != std::string::npos;
}

struct Case {
  const KernelKill* kill = nullptr;
  Proc* proc = nullptr;
  const FailureRow* loader = nullptr;
  Culprit who;
  bool certain = false;
  int64_t ts = kNoTimestamp;
};

std::string CaseText(const Case& c) {
  std::string s = WhoText(c.who);
  if (!c.who.rank && !c.who.host) s = "a process";
  std::vector<std::string> parts;
  if (c.kill && c.kill->slurm) {
    parts.push_back("slurmstepd detected an oom-kill event in the job's cgroup");
  } else if (c.kill) {
    std::string p;
    if (c.kill->pid >= 0) p = "pid " + std::to_string(c.kill->pid);
    if (!c.kill->comm.empty()) p += (p.empty() ? "" : " ") + std::string("(") + c.kill->comm + ")";
    if (p.empty()) p = "a process";
    if (c.kill->anon_rss_kb >= 0)
      p += ", anon-rss " + SizeText(static_cast<double>(c.kill->anon_rss_kb) * 1024.0);
    if (c.kill->memcg) p += ", at its memory cgroup's limit";
    parts.push_back(p);
  }
  if (c.loader) {
    const std::optional<int64_t> pid = IntAfter(c.loader->detail, "(pid ");
    parts.push_back("its DataLoader worker" + (pid ? " (pid " + std::to_string(*pid) + ")" : "") +
                    " was killed by signal: Killed");
  }
  if (c.ts != kNoTimestamp) parts.push_back("at " + ClockText(c.ts));
  if (c.proc) {
    std::string l = LauncherText(*c.proc->rows.front());
    if (!c.kill && !c.loader && !c.proc->slurm_oom) l += " and the rank left no traceback";
    parts.push_back(l);
  }
  for (size_t i = 0; i < parts.size(); ++i) s += (i == 0 ? ": " : "; ") + parts[i];
  return s;
}

}  // namespace

bool InKernelWindow(const RuntimeFacts& facts, int64_t ts_us, int64_t margin_us) {
  if (ts_us == kNoTimestamp || facts.run_first_us == kNoTimestamp) return true;
  return ts_us >= facts.run_first_us - margin_us && ts_us <= facts.run_last_us + margin_us;
}

std::optional<Finding> BuildOomKilled(const RuntimeFacts& facts) {
  std::vector<Proc> procs = LauncherProcs(facts);
  const std::map<int64_t, PidOwner> owners = PidOwners(facts);
  for (Proc& p : procs) {
    if (p.rank || p.pid < 0) continue;
    auto it = owners.find(p.pid);
    if (it != owners.end() && HostsAgree(it->second.host, p.host)) p.rank = it->second.rank;
  }
  std::vector<const FailureRow*> loaders;
  for (const FailureRow& r : facts.rows) {
    if (IsLoaderKill(r) && !IsRecovered(facts, r)) loaders.push_back(&r);
  }
  std::vector<const FailureRow*> loaders_used;

  std::vector<Case> cases;
  for (const KernelKill& k : facts.kills) {
    if (!InKernelWindow(facts, k.ts_us, kKernelWindowUs)) continue;
    Case c;
    c.kill = &k;
    c.certain = true;
    c.ts = k.ts_us;
    std::optional<int64_t> rank;
    if (k.pid >= 0) {
      for (Proc& p : procs) {
        if (p.pid == k.pid && HostsAgree(p.host, k.host)) {
          c.proc = &p;
          break;
        }
      }
      for (const FailureRow* l : loaders) {
        if (!c.proc && IntAfter(l->detail, "(pid ") == k.pid && HostsAgree(l->host, k.host)) {
          c.loader = l;
          loaders_used.push_back(l);
          rank = l->rank;
          break;
        }
      }
      if (!c.proc && !c.loader) {
        auto it = owners.find(k.pid);
        if (it != owners.end() && HostsAgree(it->second.host, k.host)) rank = it->second.rank;
      }
    }
    if (!c.proc && !c.loader && !rank && !k.host.empty()) {
      // No PID to go by: the process of this host that died of SIGKILL,
      // the closest in time when both have one.
      int64_t best = INT64_MAX;
      for (Proc& p : procs) {
        if (p.used || !(IsKillCode(p.code) || p.slurm_oom) || !SameHost(p.host, k.host)) continue;
        if (k.pid >= 0 && p.pid >= 0) continue;
        const int64_t d = (p.ts == kNoTimestamp || k.ts_us == kNoTimestamp)
                              ? INT64_MAX - 1
                              : std::llabs(p.ts - k.ts_us);
        if (d < best) {
          best = d;
          c.proc = &p;
        }
      }
    }
    if (c.proc) {
      c.proc->used = true;
      rank = c.proc->rank;
    }
    const bool matched = c.proc || c.loader || rank;
    if (!matched && !k.slurm && IsForeignUntimedKernelEvent(facts, k.ts_us, k.host)) continue;
    if (!matched && !LooksLikeTraining(k.comm) && !k.slurm) {
      if (!InKernelWindow(facts, k.ts_us, kForeignKillWindowUs)) continue;
      if (!k.comm.empty() && k.ts_us != kNoTimestamp && facts.run_last_us != kNoTimestamp &&
          facts.run_last_us > k.ts_us + kRunWentOnUs)
        continue;
    }
    c.who = CulpritOf(facts, rank, c.proc && !c.proc->host.empty() ? c.proc->host : k.host);
    if (!c.who.host && !k.host.empty()) c.who.host = k.host;
    cases.push_back(std::move(c));
  }

  // Ranks the launcher saw die of SIGKILL with no kernel line for them.
  std::map<std::pair<int64_t, int64_t>, size_t> launcher_rows_on_line;
  std::set<int64_t> ranks_with_errors;         // ranks that printed an error of their own
  std::vector<const FailureRow*> independent;  // errors that are no consequence of another
  for (const FailureRow& r : facts.rows) {
    if (r.kind == RowKind::kLauncherFailure) {
      ++launcher_rows_on_line[{r.file_id, r.line_no}];
      continue;
    }
    if (r.rank) ranks_with_errors.insert(*r.rank);
    if (!IsConsequence(r) && !IsAbort(r) && !IsLoaderKill(r)) independent.push_back(&r);
  }
  for (Proc& p : procs) {
    if (p.used || !(IsKillCode(p.code) || p.slurm_oom)) continue;
    if (!p.slurm_oom) {
      // srun's "tasks 0-7: Killed" names the tasks it killed after another
      // one failed (--kill-on-bad-exit): a teardown, not one OOM kill each.
      const FailureRow* line = p.rows.front();
      if (launcher_rows_on_line[{line->file_id, line->line_no}] > 1) continue;
      bool own_error = false, earlier_failure = false;
      // Another process that the launcher saw fail in its own way first.
      for (const Proc& q : procs) {
        if (&q == &p || !q.code || IsKillCode(q.code) || *q.code == -15 || *q.code == 0) continue;
        if (p.rank && q.rank == p.rank) continue;
        if (!p.root_cause && (q.ts == kNoTimestamp || p.ts == kNoTimestamp || q.ts <= p.ts))
          earlier_failure = true;
      }
      own_error = p.rank && ranks_with_errors.count(*p.rank);
      // Another rank failed first: the launcher may have killed this one
      // while tearing the job down.
      for (const FailureRow* r : independent) {
        if (!p.root_cause && !(p.rank && r->rank == p.rank) &&
            (r->Time() == kNoTimestamp || p.ts == kNoTimestamp || r->Time() <= p.ts)) {
          earlier_failure = true;
        }
      }
      if (own_error || earlier_failure) continue;
    }
    Case c;
    c.proc = &p;
    c.certain = p.slurm_oom;
    c.ts = p.ts;
    c.who = CulpritOf(facts, p.rank, p.host);
    cases.push_back(std::move(c));
  }
  for (const FailureRow* l : loaders) {
    if (std::find(loaders_used.begin(), loaders_used.end(), l) != loaders_used.end()) continue;
    Case c;
    c.loader = l;
    c.ts = l->Time();
    c.who = CulpritOf(facts, l->rank, l->host);
    cases.push_back(std::move(c));
  }
  if (cases.empty()) return std::nullopt;

  std::stable_sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) {
    if (a.certain != b.certain) return a.certain;
    const int64_t ta = a.ts == kNoTimestamp ? INT64_MAX : a.ts;
    const int64_t tb = b.ts == kNoTimestamp ? INT64_MAX : b.ts;
    if (ta != tb) return ta < tb;
    return a.who.rank.value_or(INT64_MAX) < b.who.rank.value_or(INT64_MAX);
  });

  Finding f;
  f.code = "runtime.oom_killed";
  f.analyzer = kAnalyzerName;
  f.severity = Severity::kError;
  f.title = "A process of the run was killed for lack of host memory";
  Citations cite(facts.line);
  std::vector<std::string> certain_texts, probable_texts;
  std::vector<std::string> quiet_kernel_hosts;
  size_t cited = 0;
  for (const Case& c : cases) {
    AddCulprit(f.culprits, c.who);
    (c.certain ? certain_texts : probable_texts).push_back(CaseText(c));
    if (!c.certain && c.who.host &&
        std::find(facts.kernel_log_hosts.begin(), facts.kernel_log_hosts.end(), *c.who.host) !=
            facts.kernel_log_hosts.end()) {
      quiet_kernel_hosts.push_back(*c.who.host);
    }
    if (cited >= kMaxCitedCases) continue;
    ++cited;
    if (c.kill) {
      cite.Add(c.kill->file_id, c.kill->victim_line);
      cite.Add(c.kill->file_id, c.kill->summary_line);
      cite.Add(c.kill->file_id, c.kill->slurm_line);
      if (c.kill->victim_line == 0 && c.kill->summary_line == 0)
        cite.Add(c.kill->file_id, c.kill->trigger_line);
    }
    if (c.loader) cite.Add(c.loader->file_id, c.loader->line_no);
    if (c.proc) {
      size_t n = 0;
      for (const FailureRow* r : c.proc->rows) {
        if (n++ >= 2) break;
        cite.Add(r->file_id, r->line_no);
      }
    }
  }
  auto join = [](const std::vector<std::string>& texts) {
    std::string s;
    for (size_t i = 0; i < texts.size() && i < kMaxCasesInSummary; ++i)
      s += (i ? "; " : "") + texts[i];
    if (texts.size() > kMaxCasesInSummary)
      s += "; and " + std::to_string(texts.size() - kMaxCasesInSummary) + " more";
    return s;
  };
  std::string summary;
  if (!certain_texts.empty()) {
    summary = "Out of host memory: the OOM killer killed " +
              Count(certain_texts.size(), "process", "processes") +
              " of the run: " + join(certain_texts) + ".";
  }
  if (!probable_texts.empty()) {
    if (!summary.empty()) summary += " ";
    summary += "Probably out of host memory (not certain): " + join(probable_texts) +
               ". A SIGKILL with no error of the process's own is most often the kernel's OOM "
               "killer";
    if (quiet_kernel_hosts.empty()) {
      summary += "; no kernel log in the bundle says so (dmesg of the host would).";
    } else {
      std::sort(quiet_kernel_hosts.begin(), quiet_kernel_hosts.end());
      quiet_kernel_hosts.erase(std::unique(quiet_kernel_hosts.begin(), quiet_kernel_hosts.end()),
                               quiet_kernel_hosts.end());
      summary += ", but the kernel log of host " + quiet_kernel_hosts.front() +
                 " in the bundle shows no OOM kill: the scheduler, a health check or a user may "
                 "have sent it.";
    }
  }
  f.summary = std::move(summary);
  f.evidence = cite.Take();
  f.recommendation =
      "Host (CPU) memory ran out, not GPU memory, so a smaller batch will not help by itself. "
      "Find what grows in host RAM: DataLoader workers (num_workers x prefetch_factor, each "
      "holding a copy of a dataset kept in Python objects), checkpoints loaded on every rank at "
      "once (load on one rank, or memory-map them), pinned-memory buffers, and ZeRO offload "
      "(offload_optimizer / offload_param to cpu or nvme keep optimizer states and parameters "
      "in host RAM: estimate them before launch, e.g. with DeepSpeed's "
      "estimate_zero2_model_states_mem_needs_all_live / estimate_zero3_... helpers, and "
      "compare with the node's RAM divided among its ranks). In a container or a SLURM job, "
      "the limit is the cgroup's (--mem, the pod's memory limit), not the machine's.";
  return f;
}

}  // namespace casefile::runtime
