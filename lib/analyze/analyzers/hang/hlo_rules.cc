#include "analyze/analyzers/hang/hlo_rules.h"

#include <algorithm>
#include <map>
#include <set>

namespace casefile::hang {
namespace {

std::string ShortFingerprint(const std::string& fp) {
  return fp.size() > 12 ? fp.substr(0, 12) + "..." : fp;
}

std::string Names(const std::vector<std::string>& names, size_t max = kMaxHloNamed) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < max; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > max) s += " and " + std::to_string(names.size() - max) + " more";
  return s;
}

// Hosts grouped by a signature; the minority groups' hosts, or all on a tie.
struct Sides {
  std::map<std::string, std::vector<std::string>> hosts_of;  // signature -> hosts (sorted)
  std::vector<std::string> odd;                              // hosts named
  bool tie = false;
  std::string majority;  // signature of the (first) largest group
};

Sides SplitHosts(const std::map<std::string, std::string>& signature_of_host) {
  Sides s;
  for (const auto& [host, sig] : signature_of_host) s.hosts_of[sig].push_back(host);
  if (s.hosts_of.size() < 2) return s;
  size_t lo = SIZE_MAX, hi = 0;
  for (const auto& [sig, hosts] : s.hosts_of) {
    lo = std::min(lo, hosts.size());
    hi = std::max(hi, hosts.size());
  }
  size_t largest = 0;
  for (const auto& [sig, hosts] : s.hosts_of) largest += hosts.size() == hi ? 1 : 0;
  s.tie = largest > 1;
  for (const auto& [sig, hosts] : s.hosts_of) {
    if (hosts.size() == hi && s.majority.empty()) s.majority = sig;
    if (s.tie || hosts.size() < hi) s.odd.insert(s.odd.end(), hosts.begin(), hosts.end());
  }
  std::sort(s.odd.begin(), s.odd.end());
  s.odd.erase(std::unique(s.odd.begin(), s.odd.end()), s.odd.end());
  return s;
}

std::optional<HloComparison> CompareFingerprints(const DistContext& ctx) {
  // (module, stage) -> rows with a host.
  std::map<std::pair<std::string, std::string>, std::vector<const HloModule*>> by_module;
  for (const HloModule& m : ctx.in.hlo) {
    if (!m.host.empty()) by_module[{m.module_name, m.stage}].push_back(&m);
  }
  HloComparison out;
  out.code = "hang.fingerprint_mismatch";
  LineCitations ev(ctx.evidence);
  std::set<std::string> odd_hosts;
  bool all_tie = true;
  std::vector<std::string> clauses;
  size_t mismatched = 0;
  for (const auto& [key, rows] : by_module) {
    // XLA's own fingerprint when every dump has one; else the hash of the text.
    bool xla_everywhere = true;
    for (const HloModule* m : rows)
      xla_everywhere &= m->xla_fingerprint && !m->xla_fingerprint->empty();
    std::map<std::string, std::set<std::string>> fps_of_host;
    std::map<std::string, const HloModule*> dump_of_fp;
    for (const HloModule* m : rows) {
      const std::string& fp = xla_everywhere ? *m->xla_fingerprint : m->fingerprint;
      fps_of_host[m->host].insert(fp);
      dump_of_fp.emplace(fp, m);
    }
    if (fps_of_host.size() < 2) continue;
    // A host that dumped a module several times (recompilations) is one
    // side with all its fingerprints.
    std::map<std::string, std::string> signature_of_host;
    for (const auto& [host, fps] : fps_of_host) {
      std::string sig;
      for (const std::string& fp : fps) sig += (sig.empty() ? "" : ",") + fp;
      signature_of_host[host] = sig;
    }
    const Sides sides = SplitHosts(signature_of_host);
    if (sides.odd.empty()) continue;
    ++mismatched;
    all_tie = all_tie && sides.tie;
    odd_hosts.insert(sides.odd.begin(), sides.odd.end());
    std::vector<std::string> parts;
    for (const auto& [sig, hosts] : sides.hosts_of) {
      const std::string first_fp = sig.substr(0, sig.find(','));
      if (auto it = dump_of_fp.find(first_fp); it != dump_of_fp.end())
        ev.Add(it->second->file_id, 1);
      std::string fps;
      for (size_t at = 0; at <= sig.size();) {
        size_t end = sig.find(',', at);
        if (end == std::string::npos) end = sig.size();
        fps += (fps.empty() ? "" : "+") + ShortFingerprint(sig.substr(at, end - at));
        at = end + 1;
      }
      parts.push_back("fingerprint " + fps + " on " + Names(hosts));
    }
    if (clauses.size() < kMaxHloNamed) {
      clauses.push_back(key.first + " (" + key.second + "): " + Names(parts, 6));
    }
  }
  if (mismatched == 0) return std::nullopt;
  for (const std::string& h : odd_hosts) {
    Culprit c;
    c.host = h;
    out.culprits.push_back(std::move(c));
  }
  out.tie = all_tie;
  std::string s = "The HLO dumps show " + Count(mismatched, "module", "modules") +
                  " compiled to different fingerprints on different hosts: ";
  for (size_t i = 0; i < clauses.size(); ++i) s += (i ? "; " : "") + clauses[i];
  if (mismatched > clauses.size())
    s += "; and " + std::to_string(mismatched - clauses.size()) + " more modules";
  s += all_tie ? ". The sides have as many hosts each, so the dumps alone cannot tell which is odd."
               : ". The hosts on the smaller side are the odd ones out.";
  out.summary = s;
  out.evidence = ev.Take();
  return out;
}

std::optional<HloComparison> CompareModuleSets(const DistContext& ctx) {
  // stage -> host -> module names (and one dump per name for citing).
  std::map<std::string, std::map<std::string, std::set<std::string>>> names;
  std::map<std::pair<std::string, std::string>, const HloModule*> dump_of;  // (host, name)
  for (const HloModule& m : ctx.in.hlo) {
    if (m.host.empty()) continue;
    names[m.stage][m.host].insert(m.module_name);
    dump_of.emplace(std::make_pair(m.host, m.module_name), &m);
  }
  HloComparison out;
  out.code = "hang.different_module";
  LineCitations ev(ctx.evidence);
  std::set<std::string> odd_hosts;
  bool all_tie = true;
  std::vector<std::string> clauses;
  for (const auto& [stage, by_host] : names) {
    if (by_host.size() < 2) continue;
    std::map<std::string, std::string> signature_of_host;
    for (const auto& [host, set] : by_host) {
      std::string sig;
      for (const std::string& n : set) sig += n + '\n';
      signature_of_host[host] = sig;
    }
    const Sides sides = SplitHosts(signature_of_host);
    if (sides.odd.empty()) continue;
    all_tie = all_tie && sides.tie;
    // The set most hosts compiled, to say what each odd host lacks or adds.
    const std::string& reference_host = sides.hosts_of.at(sides.majority).front();
    const std::set<std::string>& reference = by_host.at(reference_host);
    for (const std::string& host : sides.odd) {
      odd_hosts.insert(host);
      const std::set<std::string>& have = by_host.at(host);
      std::vector<std::string> extra, missing;
      std::set_difference(have.begin(), have.end(), reference.begin(), reference.end(),
                          std::back_inserter(extra));
      std::set_difference(reference.begin(), reference.end(), have.begin(), have.end(),
                          std::back_inserter(missing));
      if (sides.tie && host == reference_host) continue;
      // One dump of each side: the odd module, and the module most hosts
      // have in its place (or any dump of theirs).
      const std::string& odd_name = !extra.empty() ? extra.front() : *have.begin();
      if (auto it = dump_of.find({host, odd_name}); it != dump_of.end())
        ev.Add(it->second->file_id, 1);
      const std::string& ref_name = !missing.empty() ? missing.front() : *reference.begin();
      if (auto it = dump_of.find({reference_host, ref_name}); it != dump_of.end())
        ev.Add(it->second->file_id, 1);
      if (clauses.size() < kMaxHloNamed) {
        std::string c = "host " + host + " (" + stage + ")";
        if (!extra.empty()) c += " compiled " + Names(extra);
        if (!extra.empty() && !missing.empty()) c += " and";
        if (!missing.empty()) c += " lacks " + Names(missing);
        clauses.push_back(c + " compared with host " + reference_host);
      }
    }
  }
  if (odd_hosts.empty()) return std::nullopt;
  for (const std::string& h : odd_hosts) {
    Culprit c;
    c.host = h;
    out.culprits.push_back(std::move(c));
  }
  out.tie = all_tie;
  std::string s = "The HLO dumps show hosts that compiled a different set of modules than most: ";
  for (size_t i = 0; i < clauses.size(); ++i) s += (i ? "; " : "") + clauses[i];
  if (odd_hosts.size() > clauses.size())
    s += "; and " + std::to_string(odd_hosts.size() - clauses.size()) + " more hosts";
  s += all_tie ? ". The sides have as many hosts each, so the dumps alone cannot tell which is odd."
               : ".";
  out.summary = s;
  out.evidence = ev.Take();
  return out;
}

}  // namespace

std::vector<HloComparison> CompareHloAcrossHosts(const DistContext& ctx) {
  std::vector<HloComparison> out;
  if (ctx.in.hlo.empty()) return out;
  if (auto c = CompareFingerprints(ctx)) out.push_back(std::move(*c));
  if (auto c = CompareModuleSets(ctx)) out.push_back(std::move(*c));
  return out;
}

Finding HloFinding(const HloComparison& c) {
  Finding f;
  f.code = c.code;
  f.analyzer = "hang";
  f.severity = Severity::kError;
  f.culprits = c.culprits;
  f.evidence = c.evidence;
  f.summary = c.summary;
  if (c.code == "hang.fingerprint_mismatch") {
    f.title = "HLO fingerprints differ across hosts";
    f.recommendation =
        "The same module compiled differently on some hosts, so the hosts run different "
        "programs and their collectives cannot meet. Diff the named hosts' dumps against a "
        "healthy host's (the files cited here); look for host-dependent tracing: Python "
        "randomness or dict order, environment variables, different JAX/XLA/libtpu versions or "
        "XLA_FLAGS/LIBTPU_INIT_ARGS per host.";
  } else {
    f.title = "Hosts compiled different sets of HLO modules";
    f.recommendation =
        "Some hosts compiled modules the others did not (or lack modules the others have): "
        "either they run a different program, or they took a different code path (a branch on "
        "jax.process_index(), uneven data, a different configuration). Make every host run the "
        "same program; compare the cited dumps; if the extra module is host-local by design "
        "(logging on process 0), this finding can be ignored.";
  }
  return f;
}

}  // namespace casefile::hang
