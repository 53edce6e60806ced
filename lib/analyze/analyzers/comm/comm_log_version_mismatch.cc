// comm.version_mismatch (docs/FINDINGS.md): hosts of one job whose ranks
// loaded different NCCL releases, NCCL builds for different CUDA releases,
// different CUDA drivers, or whose GPU test printed different versions.
// What the ranks printed at run time; build.version_skew compares the
// installed packages' reports.
#include <algorithm>
#include <map>
#include <set>

#include "analyze/analyzers/comm/comm_log_common.h"
#include "analyze/analyzers/comm/comm_log_findings.h"

namespace casefile::comm {
namespace {

// One process's value of a component, and the line it was read from.
struct Seen {
  std::string host;
  std::string value;
  int64_t file_id = 0;
  int64_t line_no = 0;
  std::optional<int64_t> rank;  // global rank, when known
};

struct Component {
  const char* name;  // as the summary names it
  std::vector<Seen> seen;
};

// "pt=2.3.1, cuda=12.1, nccl=(2, 20, 5)": the value after `key`, up to the
// next ", <word>=" (NCCL's tuple has commas of its own).
std::string GpuTestField(std::string_view text, std::string_view key) {
  size_t at = text.find(key);
  while (at != std::string_view::npos && at > 0 && text[at - 1] != ' ' && text[at - 1] != ',')
    at = text.find(key, at + 1);
  if (at == std::string_view::npos) return "";
  std::string_view rest = text.substr(at + key.size());
  for (std::string_view next : {", pt=", ", cuda=", ", nccl="}) {
    const size_t end = rest.find(next);
    if (end != std::string_view::npos) rest = rest.substr(0, end);
  }
  while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
  return std::string(rest);
}

// The value most hosts have; on a tie, that of the first host by name.
std::string Majority(const std::map<std::string, std::set<std::string>>& hosts_of) {
  std::string best;
  size_t n = 0;
  std::string best_first_host;
  for (const auto& [value, hosts] : hosts_of) {
    const std::string& first_host = *hosts.begin();
    if (hosts.size() > n || (hosts.size() == n && first_host < best_first_host)) {
      best = value;
      n = hosts.size();
      best_first_host = first_host;
    }
  }
  return best;
}

}  // namespace

std::optional<Finding> BuildVersionMismatch(const CommLogFacts& facts) {
  const GlobalRanks global(facts.procs);
  Component nccl{"NCCL", {}}, runtime{"the CUDA release NCCL was built for", {}},
      driver{"the CUDA driver", {}}, pt{"torch (GPU test)", {}},
      pt_cuda{"torch's CUDA (GPU test)", {}}, pt_nccl{"torch's NCCL (GPU test)", {}};
  std::set<ProcKey> done;
  for (const NcclProc& p : facts.procs) {
    if (p.host.empty() || !done.insert(KeyOf(p)).second) continue;
    const std::optional<int64_t> rank = global.Of(KeyOf(p));
    const int64_t vline = p.version_line.value_or(p.line_no);
    if (!p.nccl_version.empty())
      nccl.seen.push_back({p.host, p.nccl_version, p.file_id, vline, rank});
    if (!p.cuda_runtime.empty())
      runtime.seen.push_back({p.host, p.cuda_runtime, p.file_id, vline, rank});
    if (!p.cuda_driver.empty()) {
      // The "cudaDriverVersion N" line is among the process's first NCCL lines.
      int64_t line = p.line_no;
      if (facts.lines_in) {
        facts.lines_in(p.file_id, p.line_no, p.line_no + kBootstrapSearchLines,
                       [&](const LogLine& l) {
                         if (p.pid >= 0 && l.pid >= 0 && l.pid != p.pid) return true;
                         if (l.message.find("cudaDriverVersion") == std::string::npos) return true;
                         line = l.line_no;
                         return false;
                       });
      }
      driver.seen.push_back({p.host, p.cuda_driver, p.file_id, line, rank});
    }
  }
  for (const CommEvent& e : facts.events) {
    if (e.kind != EventKind::kGpuTest || e.op != "versions" || e.host.empty()) continue;
    const std::string v_pt = GpuTestField(e.detail, "pt=");
    const std::string v_cuda = GpuTestField(e.detail, "cuda=");
    const std::string v_nccl = GpuTestField(e.detail, "nccl=");
    if (!v_pt.empty()) pt.seen.push_back({e.host, v_pt, e.file_id, e.line_no, e.rank});
    if (!v_cuda.empty()) pt_cuda.seen.push_back({e.host, v_cuda, e.file_id, e.line_no, e.rank});
    if (!v_nccl.empty()) pt_nccl.seen.push_back({e.host, v_nccl, e.file_id, e.line_no, e.rank});
  }

  Finding f = NewFinding("comm.version_mismatch", Severity::kWarning,
                         "Ranks of the job loaded different NCCL or CUDA versions");
  std::string what;
  std::set<std::string> odd_hosts;
  bool nccl_differs = false;
  for (Component* c : {&nccl, &runtime, &driver, &pt, &pt_cuda, &pt_nccl}) {
    std::map<std::string, std::set<std::string>> hosts_of;
    for (const Seen& s : c->seen) hosts_of[s.value].insert(s.host);
    if (hosts_of.size() < 2) continue;
    std::set<std::string> all;
    for (const auto& [v, hs] : hosts_of) all.insert(hs.begin(), hs.end());
    if (all.size() < 2) continue;  // two versions within one host: not a host mismatch
    const std::string major = Majority(hosts_of);
    if (c == &nccl || c == &pt_nccl) nccl_differs = true;
    if (!what.empty()) what += "; ";
    what += std::string(c->name) + " ";
    bool first = true;
    for (const auto& [value, hs] : hosts_of) {
      what += (first ? "" : ", ") + value + " on " +
              HostList(std::vector<std::string>(hs.begin(), hs.end()), 3);
      first = false;
    }
    const Seen* odd_line = nullptr;
    const Seen* major_line = nullptr;
    for (const Seen& s : c->seen) {
      if (s.value == major) {
        if (!major_line) major_line = &s;
        continue;
      }
      // A host that also has the majority value is no odd host.
      if (hosts_of[major].count(s.host)) continue;
      odd_hosts.insert(s.host);
      AddCulprit(f, s.host, s.rank);
      if (!odd_line) odd_line = &s;
    }
    if (odd_line) f.evidence.push_back(facts.line(odd_line->file_id, odd_line->line_no));
    if (major_line) f.evidence.push_back(facts.line(major_line->file_id, major_line->line_no));
  }
  if (f.evidence.empty()) return std::nullopt;

  // Did the communication fail? Then the mismatch is a likely cause.
  bool failed = false;
  for (const CommEvent& e : facts.events) {
    if ((e.kind == EventKind::kNcclWarn && e.op.starts_with("nccl")) ||
        e.kind == EventKind::kCollectiveError)
      failed = true;
  }
  for (const NcclProc& p : facts.procs) {
    if (p.init_line && !p.complete_line && !p.comm.empty()) failed = true;
  }
  if (failed && nccl_differs) f.severity = Severity::kError;

  const std::vector<std::string> odd(odd_hosts.begin(), odd_hosts.end());
  std::string s = HostList(odd) + (odd.size() == 1 ? " runs" : " run") +
                  " other versions than the rest of the job at run time: " + what + ".";
  if (nccl_differs) {
    s += " Ranks on different NCCL releases may disagree on protocols and wire formats: "
         "communicator init can fail (ncclInvalidUsage) or collectives hang or corrupt data.";
    if (failed) s += " NCCL errors or incomplete inits in this job may follow from it.";
  } else {
    s += " A different CUDA driver or NCCL build is usually compatible, but makes failures "
         "host-specific and hard to reproduce.";
  }
  f.summary = std::move(s);
  f.recommendation =
      "Run every host from one image: the same torch wheel (whose nvidia-nccl package NCCL "
      "comes from, unless LD_LIBRARY_PATH or LD_PRELOAD puts another libnccl first) and the "
      "same driver; compare the \"NCCL version\" and \"cudaDriverVersion\" lines of "
      "NCCL_DEBUG=INFO across hosts before a long run.";
  return f;
}

}  // namespace casefile::comm
