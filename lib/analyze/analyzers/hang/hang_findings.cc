#include "analyze/analyzers/hang/hang_findings.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "analyze/analyzers/hang/worker_reports.h"

namespace casefile::hang {
namespace {

constexpr size_t kMaxNamesInSummary = 12;
constexpr size_t kMaxErrorInSummary = 240;
constexpr size_t kMaxHaltedInSummary = 6;
constexpr size_t kMaxRowsCited = 8;
// Digest lines cited per finding, whatever the number of digests; the
// workers' report lines come on top.
constexpr size_t kMaxDigestEvidence = 40;

std::string JoinNames(const std::vector<std::string>& names, size_t max = kMaxNamesInSummary) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < max; ++i) {
    if (i) out += ", ";
    out += names[i];
  }
  if (names.size() > max) out += " and " + std::to_string(names.size() - max) + " more";
  return out;
}

std::string Shorten(std::string_view s, size_t max) {
  if (s.size() <= max) return std::string(s);
  return std::string(s.substr(0, max)) + "...";
}

// Culprits merged by host, or by task when no host is named, so that
// "jax_worker/5:host-5" and a bare "host-5" are one culprit.
class CulpritSet {
 public:
  void Add(const std::string& host, const std::string& task) {
    if (host.empty() && task.empty()) return;
    for (Culprit& c : items_) {
      const bool same_host = !host.empty() && c.host && *c.host == host;
      const bool same_task =
          !task.empty() && c.task && *c.task == task && (host.empty() || !c.host);
      if (!same_host && !same_task) continue;
      if (!c.host && !host.empty()) c.host = host;
      if (!c.task && !task.empty()) c.task = task;
      return;
    }
    Culprit c;
    if (!host.empty()) c.host = host;
    if (!task.empty()) c.task = task;
    items_.push_back(std::move(c));
  }
  void Add(const WorkerRef& w) { Add(w.host, w.task); }
  void AddAll(const std::vector<WorkerRef>& ws) {
    for (const auto& w : ws) Add(w);
  }
  bool empty() const { return items_.empty(); }
  const std::vector<Culprit>& items() const { return items_; }
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (const Culprit& c : items_) {
      if (c.host && c.task) {
        out.push_back(*c.host + " (" + *c.task + ")");
      } else {
        out.push_back(c.host ? *c.host : *c.task);
      }
    }
    return out;
  }

 private:
  std::vector<Culprit> items_;
};

std::string WorkerName(const WorkerRef& w) {
  if (!w.host.empty() && !w.task.empty()) return w.task + ":" + w.host;
  return w.host.empty() ? w.task : w.host;
}

// ---- Evidence ------------------------------------------------------------

class EvidenceList {
 public:
  explicit EvidenceList(const EvidenceFn& fn) : fn_(fn) {}
  void Add(int64_t file_id, const SourceLine& line) {
    if (!seen_.insert({file_id, line.line_no}).second) return;
    items_.push_back(fn_(file_id, line));
  }
  size_t size() const { return items_.size(); }
  std::vector<Evidence> Take() { return std::move(items_); }

 private:
  const EvidenceFn& fn_;
  std::set<std::pair<int64_t, int64_t>> seen_;
  std::vector<Evidence> items_;
};

void CiteReports(const ReportView& v, EvidenceList& ev) {
  size_t n = 0;
  for (const auto& [key, h] : v.hosts) {
    if (n++ >= kMaxReportEvidence) break;
    ev.Add(h.file_id, h.first->line);
  }
}

// ---- Digests -------------------------------------------------------------

struct DigestRef {
  int64_t file_id;
  std::string path;
  const HangDigest* digest;
};

std::string Where(const DigestRef& d) {
  return d.path + ":" + std::to_string(d.digest->header.line_no);
}

// Hosts of the smallest groups, when groups differ in size; the odd ones out.
struct Minority {
  std::vector<WorkerRef> workers;
  std::vector<const SourceLine*> rows;
};

Minority MinorityOf(const std::vector<std::pair<std::string, const ModuleGroup*>>& keyed) {
  std::map<std::string, std::vector<const ModuleGroup*>> groups;
  for (const auto& [key, g] : keyed) groups[key].push_back(g);
  Minority m;
  if (groups.size() < 2) return m;
  std::map<std::string, std::vector<WorkerRef>> hosts;
  for (const auto& [key, gs] : groups) {
    auto& hs = hosts[key];
    for (const ModuleGroup* g : gs) {
      for (const WorkerRef& w : g->workers) {
        if (std::find(hs.begin(), hs.end(), w) == hs.end()) hs.push_back(w);
      }
    }
  }
  size_t lo = SIZE_MAX, hi = 0;
  for (const auto& [key, hs] : hosts) {
    lo = std::min(lo, hs.size());
    hi = std::max(hi, hs.size());
  }
  if (lo == hi || lo == 0) return m;
  for (const auto& [key, hs] : hosts) {
    if (hs.size() != lo) continue;
    m.workers.insert(m.workers.end(), hs.begin(), hs.end());
    for (const ModuleGroup* g : groups[key]) {
      for (const SourceLine& row : g->rows) m.rows.push_back(&row);
    }
  }
  return m;
}

// "jit_train_step (launch id 193): h1, h2; jit_eval (launch id 0): h3"
std::string GroupsText(const HangDigest& d, bool with_fingerprint) {
  std::vector<std::string> parts;
  for (const ModuleGroup& g : d.modules) {
    std::string s = g.module.empty() ? std::string("module ?") : g.module;
    std::vector<std::string> attrs;
    if (with_fingerprint && !g.fingerprint.empty()) attrs.push_back("fingerprint " + g.fingerprint);
    if (g.launch_id) attrs.push_back("launch id " + std::to_string(*g.launch_id));
    if (!attrs.empty()) s += " (" + JoinNames(attrs) + ")";
    std::vector<std::string> names;
    for (const WorkerRef& w : g.workers) names.push_back(WorkerName(w));
    if (!names.empty()) s += " on " + JoinNames(names);
    parts.push_back(s);
  }
  std::string out;
  for (size_t i = 0; i < parts.size() && i < 6; ++i) out += (i ? "; " : "") + parts[i];
  return out;
}

struct CauseSpec {
  DigestCause cause;
  const char* code;
  const char* title;
  const char* recommendation;
};

// Recommendations are ours; the steps follow the MXLA debugging workflow.
const CauseSpec kSpecs[] = {
    {DigestCause::kBadChip, "hang.bad_chip", "Megascale hang caused by bad TPU chips",
     "Take the named hosts out of the job (exclude them from the node pool or reservation) and "
     "restart. If the same host is named again after a restart, its TPU is faulty: report it to "
     "the cloud provider. A host named only once may also point at a kernel bug, so keep the HLO "
     "dump (--xla_dump_to) of the run."},
    {DigestCause::kNetwork, "hang.network", "Megascale hang caused by a networking issue",
     "Check the data-centre network path of the named hosts (NIC errors, link flaps, MTU and TCP "
     "settings inside the container). A host that appears in several broken links is the likely "
     "faulty one: move the job off it and restart."},
    {DigestCause::kDifferentModule, "hang.different_module",
     "Megascale hang: workers were running different modules",
     "Make sure every worker runs exactly the same program (same code, same arguments, same "
     "jit/pjit call order, no host-dependent branches). If the odd workers are merely stuck in "
     "the previous module, find out why they stopped there (their logs and stack traces). "
     "Compare the HLO dumps (--xla_dump_to) of the named hosts with a healthy one."},
    {DigestCause::kFingerprintMismatch, "hang.fingerprint_mismatch",
     "Megascale hang: HLO fingerprints differ across workers",
     "The same module compiled differently on some workers. Dump HLO with --xla_dump_to on all "
     "workers and diff the named hosts' modules against a healthy host's; check for "
     "host-dependent tracing (Python randomness, environment variables, different JAX/XLA "
     "versions or flags per host)."},
    {DigestCause::kInputStall, "hang.input_stall", "Megascale hang: data input stall",
     "Check the input pipeline of the named hosts: that they can reach the data source, that "
     "they read and decode it correctly, and that their reads are not throttled."},
    {DigestCause::kUnrecoverable, "hang.unrecoverable",
     "Workers halted with an unrecoverable error",
     "Read the logs of the halted workers around the time of the error: the error quoted here "
     "is only the first line of it. If the error is tied to a machine (for example a failed "
     "copy between TPU and host memory), run the job without those hosts."},
    {DigestCause::kUnknown, "hang.unknown", "Megascale hang with no determined cause",
     "Nothing in the logs names a culprit. Keep the full coordinator digest, collect stack "
     "traces of all workers during the hang, rerun with --vmodule=real_program_continuator=1 "
     "and an HLO dump (--xla_dump_to), and compare the workers' last steps."},
};

const CauseSpec& SpecOf(DigestCause c) {
  for (const CauseSpec& s : kSpecs) {
    if (s.cause == c) return s;
  }
  return kSpecs[std::size(kSpecs) - 1];
}

Finding NewFinding(const CauseSpec& spec) {
  Finding f;
  f.code = spec.code;
  f.analyzer = kAnalyzerName;
  f.severity = Severity::kError;
  f.title = spec.title;
  f.recommendation = spec.recommendation;
  return f;
}

void CiteDigest(const DigestRef& d, EvidenceList& ev) {
  for (const SourceLine& l : d.digest->key_lines) {
    if (ev.size() >= kMaxDigestEvidence) return;
    ev.Add(d.file_id, l);
  }
}

std::string PotentialCauseText(const std::vector<DigestRef>& ds) {
  for (const DigestRef& d : ds) {
    if (!d.digest->potential_cause.empty())
      return " Potential cause: \"" + d.digest->potential_cause + "\".";
  }
  return "";
}

// "The Megascale coordinator digest at p:l attributes" / "2 Megascale
// coordinator digests (at p:l, p:l) attribute": the subject and its verb.
std::string DigestSubject(const std::vector<DigestRef>& ds, std::string_view verb_singular,
                          std::string_view verb_plural) {
  std::vector<std::string> where;
  for (size_t i = 0; i < ds.size() && i < kMaxDigestsCited; ++i) where.push_back(Where(ds[i]));
  bool cut = false;
  for (const DigestRef& d : ds) cut = cut || d.digest->cut_by_eof;
  std::string note;
  if (cut)
    note = ds.size() == 1 ? ", cut short by the end of its file,"
                          : ", one cut short by the end of its file,";
  if (ds.size() == 1) {
    return "The Megascale coordinator digest at " + where.front() + note + " " +
           std::string(verb_singular);
  }
  return std::to_string(ds.size()) + " Megascale coordinator digests (at " +
         JoinNames(where, kMaxDigestsCited) + ")" + note + " " + std::string(verb_plural);
}

// The PC that "TPU stats:" gives for each culprit host, if any.
std::string StatsText(const std::vector<DigestRef>& ds, const CulpritSet& culprits) {
  std::vector<std::string> parts;
  for (const DigestRef& d : ds) {
    for (const HostValue& hv : d.digest->tpu_stats) {
      for (const Culprit& c : culprits.items()) {
        if (c.host && *c.host == hv.worker.host)
          parts.push_back(hv.worker.host + " at pc " + hv.value);
      }
    }
  }
  if (parts.empty()) return "";
  return " TPU stats: " + JoinNames(parts) + ".";
}

void AddListed(const std::vector<DigestRef>& ds, CulpritSet& out, bool named, bool culprit_lists) {
  for (const DigestRef& d : ds) {
    if (named) out.AddAll(d.digest->named_hosts);
    if (culprit_lists) {
      for (const auto& list : d.digest->culprit_lists) out.AddAll(list);
    }
  }
}

Finding BuildNetwork(const std::vector<DigestRef>& ds, EvidenceList& ev, std::string* summary) {
  Finding f = NewFinding(SpecOf(DigestCause::kNetwork));
  CulpritSet culprits;
  AddListed(ds, culprits, true, true);
  // Each "Potential culprit workers" line is one broken link; a host in
  // several links is the one the others have in common.
  std::map<std::string, int> links_of;
  int links = 0;
  std::vector<std::string> link_texts;
  for (const DigestRef& d : ds) {
    for (const auto& list : d.digest->culprit_lists) {
      if (list.empty()) continue;
      ++links;
      std::set<std::string> in_link;
      std::vector<std::string> names;
      for (const WorkerRef& w : list) {
        names.push_back(WorkerName(w));
        const std::string key = w.host.empty() ? w.task : w.host;
        if (in_link.insert(key).second) ++links_of[key];
      }
      link_texts.push_back(JoinNames(names, 4));
    }
  }
  std::vector<std::string> likely;
  for (const auto& [host, n] : links_of) {
    if (n >= 2) likely.push_back(host + " (in " + std::to_string(n) + " links)");
  }
  std::vector<std::string> named;
  for (const DigestRef& d : ds) {
    for (const WorkerRef& w : d.digest->named_hosts) {
      std::string name = WorkerName(w);
      if (std::find(named.begin(), named.end(), name) == named.end())
        named.push_back(std::move(name));
    }
  }
  std::string s = DigestSubject(ds, "attributes", "attribute") + " the hang to a networking issue.";
  if (!named.empty()) s += " Hosts to examine: " + JoinNames(named) + ".";
  if (links == 1) {
    s += " Broken link: " + link_texts.front() + ".";
  } else if (links > 1) {
    std::string all;
    for (size_t i = 0; i < link_texts.size() && i < 6; ++i) all += (i ? "; " : "") + link_texts[i];
    s += " " + std::to_string(links) + " broken links: " + all + ".";
  }
  if (!likely.empty()) {
    s += " Seen in several broken links, so the likely faulty host: " + JoinNames(likely) + ".";
  }
  s += PotentialCauseText(ds);
  *summary = s;
  f.culprits = culprits.items();
  for (size_t i = 0; i < ds.size() && i < kMaxDigestsCited; ++i) CiteDigest(ds[i], ev);
  return f;
}

// Different modules and fingerprint mismatch share one rule: the listed
// culprit workers, else the odd group out of the TPU states.
Finding BuildProgramMismatch(DigestCause cause, const std::vector<DigestRef>& ds, EvidenceList& ev,
                             std::string* summary) {
  const bool fp = cause == DigestCause::kFingerprintMismatch;
  Finding f = NewFinding(SpecOf(cause));
  CulpritSet culprits;
  AddListed(ds, culprits, true, true);
  const Minority* used = nullptr;
  Minority minority;
  if (culprits.empty()) {
    for (const DigestRef& d : ds) {
      std::vector<std::pair<std::string, const ModuleGroup*>> keyed;
      for (const ModuleGroup& g : d.digest->modules) {
        keyed.emplace_back(fp ? g.module + '\x1f' + g.fingerprint : g.module, &g);
      }
      minority = MinorityOf(keyed);
      if (minority.workers.empty() && fp) {
        // "TPU program fingerprints:" rows: one group per fingerprint.
        std::map<std::string, std::vector<WorkerRef>> by_fp;
        std::map<std::string, std::vector<const SourceLine*>> rows;
        for (const HostValue& hv : d.digest->program_fingerprints) {
          by_fp[hv.value].push_back(hv.worker);
          rows[hv.value].push_back(&hv.line);
        }
        size_t lo = SIZE_MAX, hi = 0;
        for (const auto& [k, ws] : by_fp) {
          lo = std::min(lo, ws.size());
          hi = std::max(hi, ws.size());
        }
        if (by_fp.size() >= 2 && lo < hi) {
          for (const auto& [k, ws] : by_fp) {
            if (ws.size() != lo) continue;
            minority.workers.insert(minority.workers.end(), ws.begin(), ws.end());
            minority.rows.insert(minority.rows.end(), rows[k].begin(), rows[k].end());
          }
        }
      }
      if (!minority.workers.empty()) {
        culprits.AddAll(minority.workers);
        used = &minority;
        for (size_t i = 0; i < minority.rows.size() && i < kMaxRowsCited; ++i) {
          ev.Add(d.file_id, *minority.rows[i]);
        }
        break;
      }
    }
  }
  std::string s = DigestSubject(ds, "attributes", "attribute") + " the hang to ";
  s += fp ? "inconsistent HLO compilation across workers (the same module has different "
            "fingerprints)."
          : "different modules running on different devices (or a subset of devices stuck in an "
            "earlier module while the others moved on).";
  for (const DigestRef& d : ds) {
    std::string groups = GroupsText(*d.digest, fp);
    if (!groups.empty()) {
      s += " TPU states: " + groups + ".";
      break;
    }
  }
  if (!culprits.empty()) {
    s += used ? " Odd group out (fewest hosts): " : " Culprit workers: ";
    s += JoinNames(culprits.Names()) + ".";
  }
  s += PotentialCauseText(ds);
  *summary = s;
  f.culprits = culprits.items();
  for (size_t i = 0; i < ds.size() && i < kMaxDigestsCited; ++i) CiteDigest(ds[i], ev);
  return f;
}

Finding BuildUnrecoverable(const std::vector<DigestRef>& ds, EvidenceList& ev,
                           std::string* summary) {
  Finding f = NewFinding(SpecOf(DigestCause::kUnrecoverable));
  CulpritSet culprits;
  std::vector<std::string> quoted;
  for (const DigestRef& d : ds) {
    for (const HaltedWorker& h : d.digest->halted) {
      culprits.Add(h.worker);
      if (quoted.size() < kMaxHaltedInSummary) {
        quoted.push_back(WorkerName(h.worker) + ": " + Shorten(h.error, kMaxErrorInSummary));
      }
    }
    culprits.AddAll(d.digest->inspect_workers);
  }
  std::string s =
      DigestSubject(ds, "reports", "report") + " that workers halted with an unrecoverable error.";
  if (!quoted.empty()) {
    s += " ";
    for (size_t i = 0; i < quoted.size(); ++i) s += (i ? "; " : "") + quoted[i];
    s += ".";
  }
  if (!culprits.empty()) s += " Workers to inspect: " + JoinNames(culprits.Names()) + ".";
  *summary = s;
  f.culprits = culprits.items();
  for (size_t i = 0; i < ds.size() && i < kMaxDigestsCited; ++i) CiteDigest(ds[i], ev);
  return f;
}

Finding BuildListed(DigestCause cause, const std::vector<DigestRef>& ds, EvidenceList& ev,
                    std::string* summary) {
  Finding f = NewFinding(SpecOf(cause));
  CulpritSet culprits;
  AddListed(ds, culprits, true, true);
  std::string what;
  switch (cause) {
    case DigestCause::kBadChip:
      what = "bad TPU chips";
      break;
    case DigestCause::kInputStall:
      what = "a data input stall";
      break;
    default:
      what = "a cause it could not determine";
      break;
  }
  std::string s;
  if (cause == DigestCause::kUnknown) {
    s = DigestSubject(ds, "reports", "report") + " a hang";
    std::string text;
    for (const DigestRef& d : ds) {
      if (!d.digest->cause_text.empty()) text = d.digest->cause_text;
    }
    s += text.empty()
             ? " but cannot determine its root cause."
             : " caused by \"" + Shorten(text, 200) + "\", a cause casefile does not classify.";
  } else {
    s = DigestSubject(ds, "attributes", "attribute") + " the hang to " + what;
    s += culprits.empty() ? "." : " on " + JoinNames(culprits.Names()) + ".";
    s += StatsText(ds, culprits);
  }
  s += PotentialCauseText(ds);
  *summary = s;
  if (cause != DigestCause::kUnknown) f.culprits = culprits.items();
  for (size_t i = 0; i < ds.size() && i < kMaxDigestsCited; ++i) CiteDigest(ds[i], ev);
  return f;
}

}  // namespace

std::vector<Finding> BuildHangFindings(const std::vector<FileScan>& files,
                                       const EvidenceFn& evidence) {
  const ReportView reports = CollectReports(files);
  const std::string context = ReportContext(reports);

  std::map<DigestCause, std::vector<DigestRef>> by_cause;
  for (const FileScan& f : files) {
    for (const HangDigest& d : f.digests) by_cause[d.cause].push_back({f.file_id, f.path, &d});
  }
  // A digest that names a cause supersedes one that could not.
  if (by_cause.size() > 1) by_cause.erase(DigestCause::kUnknown);

  std::vector<Finding> out;
  for (const auto& [cause, ds] : by_cause) {
    EvidenceList ev(evidence);
    std::string summary;
    Finding f;
    switch (cause) {
      case DigestCause::kNetwork:
        f = BuildNetwork(ds, ev, &summary);
        break;
      case DigestCause::kDifferentModule:
      case DigestCause::kFingerprintMismatch:
        f = BuildProgramMismatch(cause, ds, ev, &summary);
        break;
      case DigestCause::kUnrecoverable:
        f = BuildUnrecoverable(ds, ev, &summary);
        break;
      default:
        f = BuildListed(cause, ds, ev, &summary);
        break;
    }
    if (!context.empty()) summary += " " + context;
    CiteReports(reports, ev);
    f.summary = std::move(summary);
    f.evidence = ev.Take();
    out.push_back(std::move(f));
  }
  if (!out.empty() || reports.hosts.empty()) return out;

  // Workers report a hang and no digest says why.
  std::vector<Straggler> stragglers = FindBehind(reports);
  for (Straggler& s : FindSilent(files, reports)) stragglers.push_back(std::move(s));
  EvidenceList ev(evidence);
  if (stragglers.empty()) {
    Finding f = NewFinding(SpecOf(DigestCause::kUnknown));
    f.summary = context +
                " No coordinator digest was found, and nothing in the reports singles "
                "out a host (none is behind the others, none stopped logging early).";
    CiteReports(reports, ev);
    f.evidence = ev.Take();
    out.push_back(std::move(f));
    return out;
  }
  Finding f;
  f.code = "hang.straggler";
  f.analyzer = kAnalyzerName;
  f.severity = Severity::kError;
  f.title = "Megascale hang: straggling worker";
  f.recommendation =
      "Look at what the straggling hosts were doing when the others timed out: their last log "
      "lines, stack traces (py-spy or the cloud-tpu-diagnostics stack trace sidecar), input "
      "pipeline, checkpoint writes and host health (dmesg, memory). If the same host lags in "
      "several runs, replace it.";
  CulpritSet culprits;
  std::vector<std::string> why;
  for (const Straggler& s : stragglers) {
    culprits.Add(s.host, "");
    why.push_back(s.why);
    if (s.line) ev.Add(s.file_id, *s.line);
  }
  f.summary = context + " No coordinator digest was found, but " + JoinNames(why) +
              ", so the others are waiting for " + (culprits.items().size() == 1 ? "it." : "them.");
  CiteReports(reports, ev);
  f.culprits = culprits.items();
  f.evidence = ev.Take();
  out.push_back(std::move(f));
  return out;
}

}  // namespace casefile::hang
