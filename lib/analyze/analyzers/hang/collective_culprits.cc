#include "analyze/analyzers/hang/collective_culprits.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analyze/analyzers/hang/collective_rules.h"
#include "analyze/analyzers/hang/flight_rules.h"
#include "analyze/failure_markers.h"
#include "parse/dist/torch_watchdog_kinds.h"

namespace casefile::hang {

bool IsHangConsequence(const DistEvent& e) {
  if (e.kind == DistKind::kLauncherFailure && IsTerminationExit(e.value)) return true;
  return e.detail && NamesConsequence(*e.detail);
}

namespace collective {
namespace {

constexpr size_t kMaxErrorInSummary = 240;

bool IsFailure(DistKind k) {
  return k == DistKind::kCrash || k == DistKind::kCudaError || k == DistKind::kCollectiveError ||
         k == DistKind::kLauncherFailure;
}

bool IsRootCause(const DistEvent& e) {
  return e.kind == DistKind::kLauncherFailure && e.detail &&
         (e.detail->starts_with("root_cause") || e.detail->starts_with("root cause"));
}

// A launcher detail is "<what>: <exit code and signal>, ...; <exception>"
// (dist_kinds.h): the signal name ("SIGKILL") sits before the exception.
std::string_view SignalIn(std::string_view detail) {
  detail = detail.substr(0, detail.find("; "));
  for (size_t at = detail.find("SIG"); at != std::string_view::npos;
       at = detail.find("SIG", at + 3)) {
    size_t end = at + 3;
    while (end < detail.size() && end - at < 12 && detail[end] >= 'A' && detail[end] <= 'Z') ++end;
    if (end > at + 3) return detail.substr(at, end - at);
  }
  return {};
}

// The exception a torchrun entry quotes from the worker's error file.
std::string_view ExceptionIn(const DistEvent& e) {
  if (!e.detail) return {};
  const size_t at = e.detail->find("; ");
  return at == std::string::npos ? std::string_view{} : std::string_view(*e.detail).substr(at + 2);
}

std::string LauncherText(const DistEvent& e) {
  std::string who = e.op ? *e.op : std::string("the launcher");
  if (!e.value) return who + " reports the worker failed";
  const auto code = static_cast<int64_t>(*e.value);
  std::string s = who + " reports ";
  s += (code < 0 ? "signal " : "exit code ") + std::to_string(code < 0 ? -code : code);
  const std::string_view sig = e.detail ? SignalIn(*e.detail) : std::string_view{};
  if (!sig.empty()) s += " (" + std::string(sig) + ")";
  return s;
}

// "local_rank 2" in a launcher's detail (torchrun's agent line, DeepSpeed's
// command line); -1 when absent.
int64_t LocalRankIn(const std::optional<std::string>& detail) {
  if (!detail) return -1;
  const size_t at = detail->find("local_rank ");
  if (at == std::string::npos) return -1;
  int64_t v = -1;
  for (size_t i = at + 11; i < detail->size() && i < at + 19; ++i) {
    const char c = (*detail)[i];
    if (c < '0' || c > '9') break;
    v = (v < 0 ? 0 : v * 10) + (c - '0');
  }
  return v;
}

// Global ranks by (host, local rank), for launchers that name only the
// local rank. Launchers number the ranks of a host as one block, local rank
// L being the block's L-th rank (torchrun: node_rank * nproc_per_node + L);
// the map is trusted for this only when every host it knows holds a full
// block of the same size K starting at a multiple of K, so that a host
// whose first ranks are unknown cannot shift the answer.
// An error line that names no rank: torchrun's "[default2]:" gives only the
// local rank, so a traceback under it cannot be tied to its global rank by
// the line alone when the hosts' rank blocks are not known
// (RankHostMap::GlobalOfLocal).
bool IsRanklessError(const DistEvent& e, const View& v, const RankHostMap& locals) {
  if (!e.rank && e.local_rank && locals.GlobalOfLocal(e.host, *e.local_rank)) return false;
  return IsFailure(e.kind) && e.kind != DistKind::kLauncherFailure && !e.rank && !e.host.empty() &&
         !IsHangConsequence(e) &&
         !(e.ts_us != kNoTimestamp && v.first_timeout_ts != kNoTimestamp &&
           e.ts_us > v.first_timeout_ts);
}

}  // namespace

std::vector<Failed> FailedFirst(const View& v, const DistContext& ctx) {
  const DistInputs& in = ctx.in;
  const RankHostMap& locals = ctx.ranks;
  std::map<int64_t, Failed> by_rank;
  for (const DistEvent& e : in.events) {
    if (!IsFailure(e.kind)) continue;
    std::optional<int64_t> rank = e.rank;
    if (!rank && e.kind == DistKind::kLauncherFailure)
      rank = locals.GlobalOfLocal(e.host, LocalRankIn(e.detail));
    // An error line under torchrun's "[default<k>]:" names only its local rank.
    if (!rank && e.local_rank) rank = locals.GlobalOfLocal(e.host, *e.local_rank);
    if (!rank || v.first_timeout.count(*rank)) continue;
    // A rank whose watchdog got stuck may still have failed first: its own
    // error before its stuck line (a GPU fault that then blocked NCCL)
    // counts; what it printed after is the heartbeat monitor's abort.
    if (auto s = v.first_stuck.find(*rank); s != v.first_stuck.end()) {
      const DistEvent& st = *s->second;
      const bool after = e.ts_us != kNoTimestamp && st.ts_us != kNoTimestamp
                             ? e.ts_us >= st.ts_us
                             : e.file_id != st.file_id || e.line_no > st.line_no;
      if (after) continue;
    }
    if (IsHangConsequence(e)) continue;
    // An error logged after the others had already timed out cannot be
    // what they were waiting for.
    if (e.ts_us != kNoTimestamp && v.first_timeout_ts != kNoTimestamp &&
        e.ts_us > v.first_timeout_ts)
      continue;
    Failed& f = by_rank[*rank];
    f.rank = *rank;
    (e.kind == DistKind::kLauncherFailure ? f.launcher : f.errors).push_back(&e);
    if (e.ts_us != kNoTimestamp && (f.first_ts == kNoTimestamp || e.ts_us < f.first_ts))
      f.first_ts = e.ts_us;
    f.root_cause = f.root_cause || IsRootCause(e);
  }
  // A failed rank that only its launcher names (its error lines carry the
  // local rank only) takes the rank-less errors of its host, when it is the
  // one failed rank of that host: whose else could they be.
  std::map<std::string, std::vector<int64_t>> failed_on_host;
  std::set<int64_t> own_lines;  // ranks with error lines that name them
  for (const auto& [rank, f] : by_rank) {
    if (!f.errors.empty()) own_lines.insert(rank);
    std::set<std::string> hosts;
    for (const DistEvent* e : f.errors) hosts.insert(e->host);
    for (const DistEvent* e : f.launcher) hosts.insert(e->host);
    for (const std::string& h : hosts) {
      if (!h.empty()) failed_on_host[h].push_back(rank);
    }
  }
  for (const DistEvent& e : in.events) {
    if (!IsRanklessError(e, v, locals)) continue;
    auto it = failed_on_host.find(e.host);
    if (it == failed_on_host.end() || it->second.size() != 1) continue;
    if (own_lines.count(it->second.front())) continue;
    Failed& f = by_rank[it->second.front()];
    f.errors.push_back(&e);
    if (e.ts_us != kNoTimestamp && (f.first_ts == kNoTimestamp || e.ts_us < f.first_ts))
      f.first_ts = e.ts_us;
  }
  std::vector<Failed> out;
  for (auto& [rank, f] : by_rank) {
    std::sort(f.errors.begin(), f.errors.end(), Before);
    std::sort(f.launcher.begin(), f.launcher.end(), Before);
    out.push_back(std::move(f));
  }
  // First in time; without times, the launcher's root cause; then the rank.
  std::sort(out.begin(), out.end(), [](const Failed& a, const Failed& b) {
    const int64_t ta = a.first_ts == kNoTimestamp ? INT64_MAX : a.first_ts;
    const int64_t tb = b.first_ts == kNoTimestamp ? INT64_MAX : b.first_ts;
    return std::make_tuple(ta, !a.root_cause, a.rank) < std::make_tuple(tb, !b.root_cause, b.rank);
  });
  return out;
}

std::string FailureText(const Failed& f) {
  std::string s;
  if (!f.errors.empty()) {
    const DistEvent* first = f.errors.front();
    for (const DistEvent* e : f.errors) {
      if (e->ts_us != kNoTimestamp && (first->ts_us == kNoTimestamp || e->ts_us < first->ts_us))
        first = e;
    }
    const std::string detail = first->detail ? Shorten(*first->detail, kMaxErrorInSummary) : "";
    switch (first->kind) {
      case DistKind::kCudaError:
        s = "CUDA error" + (detail.empty() ? "" : ": " + detail);
        break;
      case DistKind::kCollectiveError:
        s = "NCCL error" + (detail.empty() ? "" : ": " + detail);
        break;
      default:
        s = detail.empty() ? "it crashed (traceback or fatal signal)" : detail;
        break;
    }
  }
  if (!f.launcher.empty()) {
    const DistEvent& first = *f.launcher.front();
    if (s.empty()) s = Shorten(ExceptionIn(first), kMaxErrorInSummary);
    const std::string l = LauncherText(first);
    s = s.empty() ? l : s + " (" + l + ")";
  }
  return s;
}

// ---- (b) ranks behind -----------------------------------------------------

std::vector<Behind> RanksBehind(const View& v) {
  std::vector<Behind> out;
  for (const auto& [key, g] : v.groups) {
    if (!g.seq) continue;
    const int64_t s = *g.seq;
    std::map<int64_t, size_t> completed;
    size_t enqueued_behind = 0;
    for (const auto& [rank, e] : g.progress) {
      if (e->last_completed) ++completed[*e->last_completed];
      if (e->last_enqueued && *e->last_enqueued < s) ++enqueued_behind;
    }
    // Progress lines of several ranks to compare, or one rank that did not
    // even enqueue the collective the others wait in.
    if (g.progress.size() < 2 && enqueued_behind == 0) continue;
    size_t completed_reports = 0;
    for (const auto& [c, n] : completed) completed_reports += n;
    const int64_t completed_mode = completed.empty() ? 0 : ModeOf(completed);
    std::set<int64_t> members;
    for (const auto& [rank, e] : g.timeouts) members.insert(rank);
    for (const auto& [rank, e] : g.progress) members.insert(rank);
    std::vector<Behind> found;
    for (int64_t rank : members) {
      auto p = g.progress.find(rank);
      const DistEvent* prog = p == g.progress.end() ? nullptr : p->second;
      Behind b{rank, "", nullptr, &g};
      if (prog && prog->last_enqueued) {
        if (*prog->last_enqueued < s) {
          b.what = "last enqueued SeqNum " + std::to_string(*prog->last_enqueued);
          b.line = prog;
        }
      } else if (prog && prog->last_completed) {
        if (completed_reports >= 2 && *prog->last_completed < completed_mode &&
            *prog->last_completed < s - 1) {
          b.what = "last completed SeqNum " + std::to_string(*prog->last_completed);
          b.line = prog;
        }
      } else if (g.progress.size() >= 2) {
        auto t = g.timeouts.find(rank);
        if (t != g.timeouts.end() && t->second->seq && *t->second->seq < s) {
          b.what = "timed out at SeqNum " + std::to_string(*t->second->seq);
          b.line = t->second;
        }
      }
      if (b.line) found.push_back(std::move(b));
    }
    // Everyone behind everyone is no straggler.
    if (found.size() < members.size()) out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

// ---- (c) ranks that never arrived -----------------------------------------

std::vector<int64_t> ExpectedRanks(const DistContext& ctx) {
  int64_t n = ctx.ranks.world_size();
  if (n <= 0) {
    for (const FrGroup& g : ctx.in.fr.groups) {
      n = std::max<int64_t>(n, static_cast<int64_t>(ParseRankList(g.ranks).size()));
    }
  }
  std::vector<int64_t> out;
  if (n > 0) {
    for (int64_t r = 0; r < n; ++r) out.push_back(r);
    return out;
  }
  std::set<int64_t> seen;
  for (const FileInfo& f : ctx.in.files) {
    if (f.rank) seen.insert(*f.rank);
  }
  for (const DistEvent& e : ctx.in.events) {
    if (e.rank) seen.insert(*e.rank);
  }
  for (const StepSeries& s : ctx.in.steps) {
    if (s.rank) seen.insert(*s.rank);
  }
  for (const FrEntry& e : ctx.in.fr.entries) {
    if (e.rank >= 0) seen.insert(e.rank);
  }
  for (const auto& [rank, host] : ctx.ranks.hosts()) seen.insert(rank);
  if (seen.empty()) return {};
  // Ranks are numbered 0..N-1 without gaps, so a rank below the highest
  // that nothing names is one the job had. The gaps are filled only while
  // they are fewer than the ranks seen: rule (c) names nobody when half the
  // ranks are silent, and a misread huge rank must not cost memory.
  const int64_t highest = *seen.rbegin();
  if (highest + 1 < 2 * static_cast<int64_t>(seen.size())) {
    for (int64_t r = 0; r <= highest; ++r) out.push_back(r);
    return out;
  }
  return {seen.begin(), seen.end()};
}

OwnLogs::OwnLogs(const DistContext& ctx) : ctx_(ctx) {
  for (const FileInfo& f : ctx.in.files) {
    if (f.kind != "log" || f.line_count <= 0) continue;
    if (f.rank) by_rank_.emplace(*f.rank, &f);
    if (!f.host.empty()) by_host_.emplace(f.host, &f);
  }
}

OwnLog OwnLogs::Of(int64_t rank) const {
  if (auto it = by_rank_.find(rank); it != by_rank_.end()) return {it->second, false};
  if (const std::string* h = ctx_.ranks.HostOf(rank)) {
    if (auto it = by_host_.find(*h); it != by_host_.end()) return {it->second, true};
  }
  return {};
}

// ---- the mismatch of the logs -----------------------------------------------

namespace {

// The sides into `m`, most ranks first; the culprits are the ranks of the
// sides smaller than the largest, or every rank when the largest tie.
void TakeSides(std::map<std::string, Side>& sides, LogMismatch& m) {
  for (auto& [key, side] : sides) m.sides.push_back(std::move(side));
  std::stable_sort(m.sides.begin(), m.sides.end(),
                   [](const Side& a, const Side& b) { return a.ranks.size() > b.ranks.size(); });
  const bool tie = m.sides[0].ranks.size() == m.sides[1].ranks.size();
  for (size_t i = tie ? 0 : 1; i < m.sides.size(); ++i)
    m.culprits.insert(m.culprits.end(), m.sides[i].ranks.begin(), m.sides[i].ranks.end());
}

}  // namespace

std::optional<LogMismatch> FindLogMismatch(const View& v) {
  std::vector<const Group*> order;
  if (v.primary) order.push_back(v.primary);
  for (const auto& [key, g] : v.groups) {
    if (&g != v.primary) order.push_back(&g);
  }
  for (const Group* g : order) {
    // Only lines that name their op are compared: a line cut inside its
    // WorkNCCL fields (a hard-wrapped paste, a truncated line) lacks the op
    // but issued no other collective.
    std::map<int64_t, std::vector<const DistEvent*>> by_seq;
    for (const auto& [rank, e] : g->timeouts) {
      if (e->seq && e->op) by_seq[*e->seq].push_back(e);
    }
    for (const auto& [seq, lines] : by_seq) {
      if (lines.size() < 2) continue;
      // Element counts are compared only when every rank printed them (an
      // older format prints none).
      bool in_all = true, out_all = true;
      for (const DistEvent* e : lines) {
        in_all &= e->numel_in.has_value();
        out_all &= e->numel_out.has_value();
      }
      std::map<std::string, Side> sides;
      for (const DistEvent* e : lines) {
        const std::string& op = *e->op;
        std::string key = op;
        std::string text = op;
        if (in_all || out_all) {
          DistEvent shown;
          if (in_all) shown.numel_in = e->numel_in;
          if (out_all) shown.numel_out = e->numel_out;
          const std::string n = WorkDetails(&shown);
          key += '\x1f' + n;
          text += " (" + n + ")";
        }
        Side& side = sides[key];
        side.text = text;
        side.ranks.push_back(*e->rank);
        side.lines.push_back(e);
      }
      if (sides.size() < 2) continue;
      LogMismatch m;
      m.group = g;
      m.seq = seq;
      TakeSides(sides, m);
      return m;
    }
  }
  return std::nullopt;
}

std::optional<LogMismatch> FindFingerprintMismatch(const DistInputs& in) {
  // The check's message is raised on every rank: read it from the crash
  // rows' exception text.
  struct Said {
    const DistEvent* line;
    DistEventRow fp;
  };
  std::vector<Said> said;
  std::optional<int64_t> seq;
  for (const DistEvent& e : in.events) {
    if (e.kind != DistKind::kCrash || !e.detail) continue;
    if (e.detail->find("Detected mismatch between collectives") == std::string::npos) continue;
    DistEventRow fp;
    if (!dist::torch::ReadCollectiveMismatch(*e.detail, fp) || !fp.rank || !fp.op) continue;
    if (!seq || (fp.seq && *fp.seq < *seq)) seq = fp.seq;
    said.push_back({&e, std::move(fp)});
  }
  if (said.empty()) return std::nullopt;
  std::sort(said.begin(), said.end(),
            [](const Said& a, const Said& b) { return Before(a.line, b.line); });
  // Each rank's fingerprint: its own words first (the line it spoke), else
  // what another rank's message says it ran.
  std::map<int64_t, std::string> of_rank;
  std::map<int64_t, const DistEvent*> line_of;
  for (const Said& x : said) {
    if (x.fp.seq != seq) continue;
    of_rank.emplace(*x.fp.rank, *x.fp.op);
    line_of.emplace(*x.fp.rank, x.line);
  }
  // The host of a rank is that of its own line, never of another rank's.
  std::map<int64_t, std::string> hosts;
  for (const auto& [rank, e] : line_of) {
    if (!e->host.empty()) hosts.emplace(rank, e->host);
  }
  for (const Said& x : said) {
    if (x.fp.seq != seq || !x.fp.value || !x.fp.detail) continue;
    const auto other = static_cast<int64_t>(*x.fp.value);
    if (of_rank.emplace(other, *x.fp.detail).second) line_of.emplace(other, x.line);
  }
  std::map<std::string, Side> sides;
  for (const auto& [rank, text] : of_rank) {
    Side& side = sides[text];
    side.text = text;
    side.ranks.push_back(rank);
    const DistEvent* e = line_of[rank];
    if (std::find(side.lines.begin(), side.lines.end(), e) == side.lines.end())
      side.lines.push_back(e);
  }
  if (sides.size() < 2) return std::nullopt;
  LogMismatch m;
  m.seq = seq.value_or(0);
  m.has_seq = seq.has_value();
  m.hosts = std::move(hosts);
  TakeSides(sides, m);
  return m;
}

}  // namespace collective
}  // namespace casefile::hang
