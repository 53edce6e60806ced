#include "analyze/analyzers/hang/collective_rules.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "analyze/analyzers/hang/collective_culprits.h"
#include "analyze/analyzers/hang/flight_rules.h"

namespace casefile::hang {
namespace {

using namespace collective;

constexpr size_t kMaxNamedInSummary = 8;

const char kTimeoutTitle[] = "PyTorch collective timeout (NCCL watchdog)";
const char kMismatchTitle[] = "Ranks issued mismatched collectives";
const char kStuckTitle[] = "PyTorch hang: the NCCL watchdog got stuck (heartbeat monitor)";

const char kStuckAdvice[] =
    "The ProcessGroupNCCL watchdog thread itself blocked inside a NCCL or CUDA call (torch's "
    "heartbeat monitor, TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC, then took the process down), so the "
    "job hung in the communication library or the GPU, not only at a collective. Look for what "
    "blocked it: NCCL WARN lines (a network error leaves a communicator hanging: see the comm "
    "findings), GPU faults in dmesg (Xid), a thread that holds the GIL inside a CUDA call. "
    "A native stack dump of a stuck process (py-spy dump --native --pid <pid>) shows the call. "
    "A larger TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC helps only when the watchdog was slow, not stuck. ";

const char kFlightRecorderAdvice[] =
    "Rerun with the flight recorder on (TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and "
    "TORCH_NCCL_DUMP_ON_TIMEOUT=1; TORCH_FR_BUFFER_SIZE / TORCH_FR_DUMP_ON_TIMEOUT in recent "
    "versions) and collect every rank's dump (/tmp/nccl_trace_rank_<N> by default, "
    "TORCH_NCCL_DEBUG_INFO_TEMP_FILE sets the prefix) with the logs: the dumps show the last "
    "collective each rank entered, and torchfrtrace names the rank that is missing.";

// Adds rank culprits to a finding, each rank once; a set keeps this linear
// in the number of ranks however many are named.
class RankNamer {
 public:
  explicit RankNamer(Finding& f) : f_(f) {}
  void operator()(Culprit c) {
    if (c.rank && named_.insert(*c.rank).second) f_.culprits.push_back(std::move(c));
  }

 private:
  Finding& f_;
  std::set<int64_t> named_;
};

Finding NewFinding(const char* code, const char* title) {
  Finding f;
  f.code = code;
  f.analyzer = "hang";
  f.severity = Severity::kError;
  f.title = title;
  return f;
}

std::string HostsText(const std::vector<Culprit>& cs) {
  std::set<std::string> hosts;
  for (const Culprit& c : cs) {
    if (c.host) hosts.insert(*c.host);
  }
  if (hosts.empty()) return "";
  std::string s = hosts.size() == 1 ? "host " : "hosts ";
  size_t i = 0;
  for (const std::string& h : hosts) {
    if (i == kMaxNamedInSummary) {
      s += " and " + std::to_string(hosts.size() - i) + " more";
      break;
    }
    s += (i++ ? ", " : "") + h;
  }
  return s;
}

// "the flight-recorder dumps show rank 3 stopped at SeqNum 99 of process
// group 0 while 15 ranks reached SeqNum 100 (nccl:all_reduce)"
std::string FrMissingClause(const FrMissing& m) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < m.missing.size() && i < kMaxNamedInSummary; ++i) {
    const auto& [rank, last] = m.missing[i];
    parts.push_back(last < 0 ? "rank " + std::to_string(rank) + " has no entry of the group"
                             : "rank " + std::to_string(rank) + " stopped at SeqNum " +
                                   std::to_string(last));
  }
  std::string s = "the flight-recorder dumps show ";
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  if (m.missing.size() > parts.size())
    s += " and " + std::to_string(m.missing.size() - parts.size()) + " more ranks behind";
  s += " in process group " + m.pg + " while " + Count(m.waiting, "rank", "ranks") +
       " reached SeqNum " + std::to_string(m.reached);
  if (!m.op.empty()) s += " (" + m.op + ")";
  return s;
}

void CiteFrMissing(const FrMissing& m, LineCitations& ev) {
  for (size_t i = 0; i < m.missing_entries.size() && i < kMaxCulpritsCited; ++i)
    ev.Add(m.missing_entries[i]->file_id, m.missing_entries[i]->line_no);
  for (size_t i = 0; i < m.waiting_entries.size() && i < kMaxWaitingCited; ++i)
    ev.Add(m.waiting_entries[i]->file_id, m.waiting_entries[i]->line_no);
}

const char kBehindAdvice[] =
    "Look at what the named rank was doing when the others timed out: the last lines of its "
    "log, a stack dump of its process taken during the hang (py-spy dump --pid <pid> on its "
    "host, or the stack trace the watchdog prints when the flight recorder is on), its data "
    "loading, checkpoint writes and host health (dmesg, GPU Xid errors, memory). ";

Finding TimeoutFinding(const DistContext& ctx, const View& v, const FrFacts& fr) {
  // With no timeout logged, the waiting ranks are those whose watchdog got
  // stuck; the culprit rules are the same.
  const bool stuck = StuckOnly(v);
  Finding f = NewFinding("hang.collective_timeout", stuck ? kStuckTitle : kTimeoutTitle);
  RankNamer name(f);
  LineCitations ev(ctx.evidence);
  CiteWaiting(v, ev);
  const std::string wait = WaitClause(v);
  const size_t timed_out = WaitingCount(v);

  // (a) a rank failed first.
  const std::vector<Failed> failed = FailedFirst(v, ctx);
  if (!failed.empty()) {
    for (size_t i = 0; i < failed.size(); ++i) {
      const Failed& x = failed[i];
      const std::string fallback =
          !x.errors.empty() ? x.errors.front()->host : x.launcher.front()->host;
      name(RankCulprit(ctx.ranks, x.rank, fallback));
      if (i >= kMaxCulpritsCited) continue;
      if (!x.errors.empty()) ev.Add(x.errors.front()->file_id, x.errors.front()->line_no);
      for (size_t k = 0; k < x.launcher.size() && k < 2; ++k)
        ev.Add(x.launcher[k]->file_id, x.launcher[k]->line_no);
    }
    const Failed& first = failed.front();
    Culprit c = RankCulprit(
        ctx.ranks, first.rank,
        !first.errors.empty() ? first.errors.front()->host : first.launcher.front()->host);
    std::string s = RankName(c) + " failed first: " + FailureText(first) +
                    (stuck ? (timed_out == 1 ? "; the stuck watchdog of 1 rank is"
                                             : "; the stuck watchdogs of " +
                                                   std::to_string(timed_out) + " ranks are")
                           : (timed_out == 1 ? "; the collective timeout of 1 rank is"
                                             : "; the collective timeouts of " +
                                                   std::to_string(timed_out) + " ranks are")) +
                    " the symptom (" + wait + ").";
    if (failed.size() > 1) {
      std::vector<int64_t> others;
      for (size_t i = 1; i < failed.size(); ++i) others.push_back(failed[i].rank);
      s += " Also failed without timing out: " + RanksText(others) + ".";
    }
    f.summary = s;
    f.recommendation =
        "Read the log of the rank that failed first around its error (the traceback, CUDA or "
        "NCCL error, or the exit code and signal the launcher reports): that error is the cause, "
        "and the other ranks only waited for it until their collective timeout. Fix it before "
        "restarting; a restart without the fix hangs the same way. An exit by SIGKILL (-9) "
        "without a traceback usually means the host's OOM killer: check dmesg on that host.";
    f.evidence = ev.Take();
    return f;
  }

  // (b) ranks behind the others.
  const std::vector<Behind> behind = RanksBehind(v);
  if (!behind.empty()) {
    std::vector<std::string> clauses;
    for (size_t i = 0; i < behind.size(); ++i) {
      const Behind& b = behind[i];
      Culprit c = RankCulprit(ctx.ranks, b.rank, b.line->host);
      name(c);
      if (i < kMaxCulpritsCited) ev.Add(b.line->file_id, b.line->line_no);
      if (i < kMaxNamedInSummary) {
        std::string clause = RankName(c) + " " + b.what;
        if (b.group != v.primary) clause += GroupSuffix(*b.group);
        clauses.push_back(std::move(clause));
      }
    }
    std::string s;
    for (size_t i = 0; i < clauses.size(); ++i) s += (i ? "; " : "") + clauses[i];
    if (behind.size() > clauses.size())
      s += "; and " + std::to_string(behind.size() - clauses.size()) + " more ranks behind";
    f.summary = s + "; " + wait + ".";
    f.recommendation = std::string(kBehindAdvice) +
                       "The ranks waiting at the next SeqNum are collateral. " +
                       kFlightRecorderAdvice;
    f.evidence = ev.Take();
    return f;
  }

  // (c) ranks that never arrived (from the logs, and from the flight recorder).
  const std::vector<int64_t> expected = ExpectedRanks(ctx);
  std::vector<int64_t> silent;
  for (int64_t r : expected) {
    if (!v.spoke.count(r)) silent.push_back(r);
  }
  if (silent.size() * 2 >= expected.size()) silent.clear();
  const OwnLogs logs(ctx);
  std::vector<std::string> file_notes;
  std::vector<int64_t> no_log;  // silent ranks with no log of theirs or their host's
  for (size_t i = 0; i < silent.size(); ++i) {
    const int64_t r = silent[i];
    name(RankCulprit(ctx.ranks, r, ""));
    const OwnLog own = logs.Of(r);
    if (!own.file) no_log.push_back(r);
    if (!own.file || i >= kMaxCulpritsCited) continue;
    ev.Add(own.file->id, own.file->line_count);
    if (file_notes.size() >= 3 || own.file->last_ts_us == kNoTimestamp ||
        v.first_timeout_ts == kNoTimestamp)
      continue;
    const int64_t gap = v.first_timeout_ts - own.file->last_ts_us;
    // A host's log that goes on after the timeouts holds other ranks' lines:
    // it says nothing of this rank.
    if (own.of_host && gap <= 0) continue;
    const std::string who = "rank " + std::to_string(r) + "'s";
    file_notes.push_back(
        (own.of_host ? "The log of " + who + " host, " : "R" + who.substr(1) + " log, ") +
        own.file->path + ", ends at " + ClockText(own.file->last_ts_us) + ", " + DurationText(gap) +
        (gap >= 0 ? " before" : " after") +
        (stuck ? " the first stuck watchdog." : " the first timeout."));
  }
  std::vector<const FrMissing*> fr_missing;
  for (const FrMissing& m : fr.missing) {
    fr_missing.push_back(&m);
    for (const auto& [rank, last] : m.missing) name(RankCulprit(ctx.ranks, rank, ""));
    CiteFrMissing(m, ev);
  }
  if (!f.culprits.empty()) {
    std::string s;
    if (!silent.empty()) {
      std::vector<Culprit> named;
      for (int64_t r : silent) named.push_back(RankCulprit(ctx.ranks, r, ""));
      const std::string hosts = HostsText(named);
      s = RanksText(silent) + (hosts.empty() ? "" : " (" + hosts + ")") + " never reached " +
          (v.primary && v.primary->seq ? "SeqNum " + std::to_string(*v.primary->seq)
                                       : std::string("the collective")) +
          ": " + wait + ", and " + (silent.size() == 1 ? "it logged" : "they logged") +
          (stuck ? " no stuck watchdog, no timeout and no progress."
                 : " no timeout and no progress.");
      for (const std::string& note : file_notes) s += " " + note;
      // Nothing of theirs is in the bundle: silence may be death or a log
      // that was not collected, and the reader should know which to check.
      if (!no_log.empty()) {
        const bool one = no_log.size() == 1;
        s += " No log of " + RanksText(no_log) + " is in the bundle: " +
             (one ? "it may have died without a word, or its log was not collected."
                  : "they may have died without a word, or their logs were not collected.");
      }
    } else {
      s = wait + ".";
    }
    for (const FrMissing* m : fr_missing) {
      std::string clause = FrMissingClause(*m);
      clause[0] = static_cast<char>(clause[0] - 'a' + 'A');
      s += " " + clause + ".";
    }
    f.summary = s;
    f.recommendation = std::string(stuck ? kStuckAdvice : "") + kBehindAdvice +
                       "A rank that logs nothing at all may have died without a trace (OOM "
                       "killer, preemption: check the host's dmesg and the scheduler's events). " +
                       kFlightRecorderAdvice;
    f.evidence = ev.Take();
    return f;
  }

  // (d) nothing singles a rank out.
  if (stuck) {
    std::string s = wait;
    s[0] = static_cast<char>(s[0] - 'a' + 'A');
    f.summary = s +
                ", and the heartbeat monitor took the processes down. Nothing in the hang's own "
                "lines shows which rank is the cause: no rank failed first and no expected rank "
                "is silent.";
    f.recommendation = std::string(kStuckAdvice) + kFlightRecorderAdvice;
    f.evidence = ev.Take();
    return f;
  }
  f.summary = wait +
              ". Nothing in the logs shows who is behind: no rank failed first, the ranks' "
              "progress lines agree, and no expected rank is silent.";
  f.recommendation =
      std::string(kFlightRecorderAdvice) +
      " During the next hang, take a stack dump of every rank (py-spy dump --pid <pid>) and "
      "compare where they are; NCCL_DEBUG=INFO shows the communicators; "
      "TORCH_DISTRIBUTED_DEBUG=DETAIL checks that all ranks issue the same collectives.";
  f.evidence = ev.Take();
  return f;
}

Finding FrOnlyFinding(const DistContext& ctx, const FrFacts& fr) {
  Finding f = NewFinding("hang.collective_timeout", kTimeoutTitle);
  RankNamer name(f);
  LineCitations ev(ctx.evidence);
  std::string s;
  for (const FrMissing& m : fr.missing) {
    for (const auto& [rank, last] : m.missing) name(RankCulprit(ctx.ranks, rank, ""));
    CiteFrMissing(m, ev);
    std::string clause = FrMissingClause(m);
    clause[0] = static_cast<char>(clause[0] - 'a' + 'A');
    s += (s.empty() ? "" : " ") + clause + ".";
  }
  f.summary = s +
              " No watchdog timeout was found in the logs; the ranks behind are what the "
              "others wait for.";
  f.recommendation = std::string(kBehindAdvice) + kFlightRecorderAdvice;
  f.evidence = ev.Take();
  return f;
}

std::string FrSideText(const FrSide& side) {
  std::string s = RanksText(side.ranks) + " ran " + side.op;
  if (!side.input_sizes.empty()) s += " with input sizes " + side.input_sizes;
  if (!side.input_dtypes.empty()) s += " " + side.input_dtypes;
  return s;
}

Finding MismatchFinding(const DistContext& ctx, const View& v, const std::optional<LogMismatch>& lm,
                        const std::optional<FrMismatch>& fm) {
  Finding f = NewFinding("hang.collective_mismatch", kMismatchTitle);
  RankNamer name(f);
  LineCitations ev(ctx.evidence);
  std::string s;
  if (lm) {
    // The first line of each side, then more of each in turn.
    for (size_t k = 0; ev.size() < kMaxSideLinesCited; ++k) {
      bool any = false;
      for (const Side& side : lm->sides) {
        if (k < side.lines.size() && ev.size() < kMaxSideLinesCited) {
          ev.Add(side.lines[k]->file_id, side.lines[k]->line_no);
          any = true;
        }
      }
      if (!any) break;
    }
    std::unordered_map<int64_t, std::string> host_of(lm->hosts.begin(), lm->hosts.end());
    if (lm->group) {
      for (const Side& side : lm->sides) {
        for (const DistEvent* e : side.lines) {
          if (e->rank) host_of.emplace(*e->rank, e->host);
        }
      }
    }
    for (int64_t r : lm->culprits) name(RankCulprit(ctx.ranks, r, host_of[r]));
    if (lm->group) {
      s = "At SeqNum " + std::to_string(lm->seq) + GroupSuffix(*lm->group) +
          " the ranks issued different collectives: ";
    } else {
      s = "TORCH_DISTRIBUTED_DEBUG=DETAIL's check found the ranks issuing different "
          "collectives" +
          (lm->has_seq ? " at SequenceNumber " + std::to_string(lm->seq) : std::string()) + ": ";
    }
    for (size_t i = 0; i < lm->sides.size(); ++i)
      s += (i ? "; " : "") + RanksText(lm->sides[i].ranks) + " " + lm->sides[i].text;
    s += lm->sides[0].ranks.size() == lm->sides[1].ranks.size()
             ? ". The sides are the same size, so every rank of them is named."
             : ". The ranks on the smaller side are the odd ones out.";
  }
  if (fm) {
    for (size_t k = 0; ev.size() < 2 * kMaxSideLinesCited; ++k) {
      bool any = false;
      for (const FrSide& side : fm->sides) {
        if (k < side.entries.size() && ev.size() < 2 * kMaxSideLinesCited) {
          ev.Add(side.entries[k]->file_id, side.entries[k]->line_no);
          any = true;
        }
      }
      if (!any) break;
    }
    for (int64_t r : fm->culprits) name(RankCulprit(ctx.ranks, r, ""));
    std::string fs = "The flight-recorder dumps disagree at collective SeqNum " +
                     std::to_string(fm->seq) + " of process group " + fm->pg + ": ";
    for (size_t i = 0; i < fm->sides.size(); ++i) fs += (i ? "; " : "") + FrSideText(fm->sides[i]);
    fs += fm->sides[0].ranks.size() == fm->sides[1].ranks.size()
              ? ". The sides are the same size, so every rank of them is named."
              : ". The ranks on the smaller side are the odd ones out.";
    s += (s.empty() ? "" : " ") + fs;
  }
  if (!v.timeouts.empty()) {
    CiteWaiting(v, ev);
    s += " The watchdog timed out as a result: " + WaitClause(v) + ".";
  }
  f.summary = s;
  f.recommendation =
      "The ranks did not issue the same sequence of collectives, so each waits for a partner "
      "that is in another operation. Find where the named ranks' code path diverges: a branch "
      "on the rank, uneven data so that one rank runs an extra step or skips one, tensors "
      "whose shape or dtype depends on the rank, a collective inside a condition. "
      "TORCH_DISTRIBUTED_DEBUG=DETAIL checks at run time that all ranks call the same "
      "collective with the same shapes.";
  f.evidence = ev.Take();
  return f;
}

// An elastic launcher (torchrun --max-restarts) restarts the worker group
// after a hang, and the run may then go on: a hang it recovered from is a
// warning, not the run's failure. Recovered when every log that holds a
// waiting line goes on with step lines past both its last waiting line and
// the highest step it logged before its first one. Returns the sentence that
// says so, or "" when the run did not visibly recover (no steps, or steps
// only below the hang's).
constexpr size_t kRecoveredSteps = 3;

std::string RecoveryText(const View& v, const DistInputs& in) {
  struct Span {
    int64_t first = INT64_MAX, last = 0;
  };
  std::map<int64_t, Span> waits;  // file -> its first and last waiting line
  auto add = [&](const DistEvent* e) {
    Span& s = waits[e->file_id];
    s.first = std::min(s.first, e->line_no);
    s.last = std::max(s.last, e->line_no);
  };
  for (const DistEvent* e : v.timeouts) add(e);
  for (const auto& [rank, e] : v.first_stuck) add(e);
  for (const DistEvent* e : v.stuck_rankless) add(e);
  if (waits.empty()) return "";
  struct Steps {
    std::optional<int64_t> before, after;  // highest step before the first wait, after the last
    size_t after_count = 0;                // step points after the last wait
  };
  std::map<int64_t, Steps> steps;
  for (const StepSeries& series : in.steps) {
    for (const StepPoint& p : series.points) {
      auto w = waits.find(p.file_id);
      if (w == waits.end() || !p.step) continue;
      Steps& st = steps[p.file_id];
      if (p.line_no < w->second.first) st.before = std::max(st.before.value_or(*p.step), *p.step);
      if (p.line_no > w->second.last) {
        st.after = std::max(st.after.value_or(*p.step), *p.step);
        ++st.after_count;
      }
    }
  }
  int64_t reached = 0;
  for (const auto& [file, span] : waits) {
    auto it = steps.find(file);
    // A few step lines a buffered stdout flushed at exit are no recovery:
    // training must go on for several steps.
    if (it == steps.end() || !it->second.after || it->second.after_count < kRecoveredSteps ||
        (it->second.before && *it->second.after <= *it->second.before))
      return "";
    reached = std::max(reached, *it->second.after);
  }
  return " The run recovered: after the hang its logs go on to step " + std::to_string(reached) +
         ", past the steps logged before it (an elastic restart of the worker group), so this "
         "is reported as a warning; the hang may come back.";
}

}  // namespace

std::vector<Finding> CollectiveFindings(const DistContext& ctx) {
  const View v = BuildView(ctx.in);
  const FrFacts fr = AnalyzeFlightRecorder(ctx.in.fr);
  std::optional<LogMismatch> lm = FindLogMismatch(v);
  if (!lm) lm = FindFingerprintMismatch(ctx.in);
  if (lm || fr.mismatch) return {MismatchFinding(ctx, v, lm, fr.mismatch)};
  if (!v.timeouts.empty() || (fr.missing.empty() && StuckOnly(v))) {
    Finding f = TimeoutFinding(ctx, v, fr);
    if (const std::string recovered = RecoveryText(v, ctx.in); !recovered.empty()) {
      f.severity = Severity::kWarning;
      f.summary += recovered;
    }
    return {std::move(f)};
  }
  if (!fr.missing.empty()) return {FrOnlyFinding(ctx, fr)};
  return {};
}

}  // namespace casefile::hang
