#include "analyze/analyzers/hang/task_lost_rules.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace casefile::hang {
namespace {

constexpr size_t kMaxDetailsInSummary = 4;

bool Before(const DistEvent* a, const DistEvent* b) {
  return std::tie(a->file_id, a->line_no) < std::tie(b->file_id, b->line_no);
}

// Files by the task number of their attribution ("task_3", "worker_3").
class TaskFiles {
 public:
  explicit TaskFiles(const DistInputs& in) {
    for (const FileInfo& f : in.files) {
      if (f.kind == "log" && f.line_count > 0 && !f.host.empty()) by_host_.emplace(f.host, &f);
      if (f.task.empty()) continue;
      if (auto n = TaskNumber(f.task)) {
        if (f.kind == "log" && f.line_count > 0) log_of_task_.emplace(*n, &f);
        if (!f.host.empty()) host_of_task_.emplace(*n, f.host);
      }
    }
  }
  std::string HostOf(int64_t task, const RankHostMap& ranks) const {
    if (auto it = host_of_task_.find(task); it != host_of_task_.end()) return it->second;
    // A JAX process index is the task id.
    if (const std::string* h = ranks.HostOf(task)) return *h;
    return "";
  }
  const FileInfo* LogOf(int64_t task, const std::string& host) const {
    if (auto it = log_of_task_.find(task); it != log_of_task_.end()) return it->second;
    return LogOfHost(host);
  }
  const FileInfo* LogOfHost(const std::string& host) const {
    if (host.empty()) return nullptr;
    auto it = by_host_.find(host);
    return it == by_host_.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<int64_t, const FileInfo*> log_of_task_;  // lowest file id first
  std::unordered_map<int64_t, std::string> host_of_task_;
  std::unordered_map<std::string, const FileInfo*> by_host_;
};

std::string DetailsText(const std::vector<const DistEvent*>& lines) {
  std::vector<std::string> details;
  for (const DistEvent* e : lines) {
    if (!e->detail || e->detail->empty()) continue;
    // "<category>: <message>": the category says it (heartbeat, barrier...).
    std::string d = e->detail->substr(0, e->detail->find(':'));
    if (std::find(details.begin(), details.end(), d) == details.end()) details.push_back(d);
    if (details.size() == kMaxDetailsInSummary) break;
  }
  std::string s;
  for (size_t i = 0; i < details.size(); ++i) s += (i ? ", " : "") + Shorten(details[i], 80);
  return s;
}

int64_t FirstTs(const std::vector<const DistEvent*>& lines) {
  int64_t t = kNoTimestamp;
  for (const DistEvent* e : lines) {
    if (e->ts_us != kNoTimestamp && (t == kNoTimestamp || e->ts_us < t)) t = e->ts_us;
  }
  return t;
}

}  // namespace

const char kShutdownOnlyNote[] =
    " Only the shutdown barrier failed (every coordination error is of the job's exit): the "
    "tasks had finished their work and the named one was late to leave, so this is a warning.";

std::string JaxTaskName(int64_t task) { return "jax_worker/" + std::to_string(task); }

std::vector<Finding> TaskLostFindings(const DistContext& ctx) {
  std::vector<const DistEvent*> coord;
  for (const DistEvent& e : ctx.in.events) {
    if (e.kind == DistKind::kJaxCoordination) coord.push_back(&e);
  }
  if (coord.empty()) return {};
  std::sort(coord.begin(), coord.end(), Before);
  // Only the shutdown barrier failed: the tasks had finished their work and
  // one was late to leave (a slow exit, a final checkpoint). Worth a look,
  // not the run's failure.
  const bool shutdown_only = std::all_of(coord.begin(), coord.end(), [](const DistEvent* e) {
    return e->detail && e->detail->starts_with("shutdown:");
  });
  const TaskFiles files(ctx.in);

  Finding f;
  f.code = "hang.task_lost";
  f.analyzer = "hang";
  f.severity = Severity::kError;
  f.title = "A task of the JAX job was lost";
  f.recommendation =
      "Look at the lost task's host around the time it stopped: preemption or maintenance "
      "events of the VM, the kernel's OOM killer (dmesg), hardware errors, and the last lines of "
      "its own log. The other tasks stopped only because the coordination service reported the "
      "lost one: they are collateral. If the host was alive but too busy to answer (a long "
      "host-side stall), raise the coordination service's heartbeat timeout.";
  LineCitations ev(ctx.evidence);
  const int64_t first_error_ts = FirstTs(coord);

  std::map<int64_t, std::vector<const DistEvent*>> naming;
  for (const DistEvent* e : coord) {
    if (e->seq && *e->seq >= 0) naming[*e->seq].push_back(e);
  }
  std::set<std::string> reporters;  // hosts (or files) that logged coordination errors
  for (const DistEvent* e : coord)
    reporters.insert(!e->host.empty() ? e->host : "file " + std::to_string(e->file_id));

  if (!naming.empty()) {
    size_t most = 0;
    for (const auto& [task, lines] : naming) most = std::max(most, lines.size());
    std::vector<int64_t> lost;
    for (const auto& [task, lines] : naming) {
      if (lines.size() == most) lost.push_back(task);
    }
    std::vector<std::string> names;
    std::set<std::string> lost_hosts;
    std::vector<std::string> notes;
    for (int64_t task : lost) {
      Culprit c;
      c.task = JaxTaskName(task);
      const std::string host = files.HostOf(task, ctx.ranks);
      if (!host.empty()) {
        c.host = host;
        lost_hosts.insert(host);
      }
      AddCulprit(f.culprits, c);
      names.push_back("task " + std::to_string(task) +
                      (host.empty() ? "" : " (host " + host + ")"));
      const auto& lines = naming[task];
      for (size_t i = 0; i < lines.size() && i < kMaxTaskLinesCited; ++i)
        ev.Add(lines[i]->file_id, lines[i]->line_no);
      if (const FileInfo* own = files.LogOf(task, host)) {
        ev.Add(own->id, own->line_count);
        if (notes.size() < 3 && own->last_ts_us != kNoTimestamp && first_error_ts != kNoTimestamp) {
          const int64_t gap = first_error_ts - own->last_ts_us;
          notes.push_back("The log of task " + std::to_string(task) + " (" + own->path +
                          ") ends at " + ClockText(own->last_ts_us) + ", " + DurationText(gap) +
                          (gap >= 0 ? " before" : " after") + " the first coordination error.");
        }
      }
    }
    std::string s;
    for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
    if (lost.size() == 1) {
      s += " left the job: " +
           Count(most, "coordination-service message names", "coordination-service messages name") +
           " it as failed";
    } else {
      s += " left the job: each is named as failed by " +
           Count(most, "coordination-service message", "coordination-service messages");
    }
    const std::string details = DetailsText(naming[lost.front()]);
    if (!details.empty()) s += " (" + details + ")";
    s += ".";
    for (const std::string& n : notes) s += " " + n;
    size_t others = 0;
    for (const std::string& r : reporters) others += lost_hosts.count(r) ? 0 : 1;
    if (others > 0) {
      s += " The other " +
           Count(others, "host that reported the error", "hosts that reported the error") +
           " stopped as a consequence.";
    }
    if (naming.size() > lost.size()) {
      std::vector<std::string> also;
      for (const auto& [task, lines] : naming) {
        if (lines.size() < most && also.size() < kMaxDetailsInSummary) {
          also.push_back("task " + std::to_string(task) + " (" +
                         Count(lines.size(), "message", "messages") + ")");
        }
      }
      s += " Also named, less often: ";
      for (size_t i = 0; i < also.size(); ++i) s += (i ? ", " : "") + also[i];
      s += ".";
    }
    f.summary = s + (shutdown_only ? kShutdownOnlyNote : "");
    if (shutdown_only) f.severity = Severity::kWarning;
    f.evidence = ev.Take();
    return {f};
  }

  // No message names a task: the host whose first coordination error or
  // crash comes first in time.
  std::map<std::string, std::vector<const DistEvent*>> by_host;
  for (const DistEvent& e : ctx.in.events) {
    if ((e.kind == DistKind::kJaxCoordination || e.kind == DistKind::kCrash) && !e.host.empty() &&
        e.ts_us != kNoTimestamp)
      by_host[e.host].push_back(&e);
  }
  std::string first_host;
  int64_t first_ts = kNoTimestamp, second_ts = kNoTimestamp;
  for (const auto& [host, lines] : by_host) {
    const int64_t t = FirstTs(lines);
    if (first_ts == kNoTimestamp || t < first_ts) {
      second_ts = first_ts;
      first_ts = t;
      first_host = host;
    } else if (second_ts == kNoTimestamp || t < second_ts) {
      second_ts = t;
    }
  }
  for (size_t i = 0; i < coord.size() && i < kMaxTaskLinesCited; ++i)
    ev.Add(coord[i]->file_id, coord[i]->line_no);
  std::string s = "The JAX coordination service reported errors (" + DetailsText(coord) + ") on " +
                  Count(reporters.size(), "host", "hosts") + ", but no message names the lost task";
  const DistEvent* first = nullptr;
  if (!first_host.empty()) {
    const std::vector<const DistEvent*>& lines = by_host[first_host];
    first = *std::min_element(lines.begin(), lines.end(), [](auto* a, auto* b) {
      return std::tie(a->ts_us, a->file_id, a->line_no) <
             std::tie(b->ts_us, b->file_id, b->line_no);
    });
  }
  // A task that was preempted or killed outright writes nothing: its host
  // is the one whose log holds no coordination error while the others'
  // do. That beats the first survivor to speak, unless a crash came first.
  std::set<std::string> log_hosts;
  for (const FileInfo& file : ctx.in.files) {
    if (file.kind == "log" && file.line_count > 0 && !file.host.empty())
      log_hosts.insert(file.host);
  }
  std::set<std::string> coord_hosts;
  for (const DistEvent* e : coord) {
    if (!e->host.empty()) coord_hosts.insert(e->host);
  }
  std::vector<std::string> silent;
  for (const std::string& h : log_hosts) {
    if (!coord_hosts.count(h)) silent.push_back(h);
  }
  const bool crash_first = first && first->kind == DistKind::kCrash;
  if (!crash_first && !silent.empty() && coord_hosts.size() >= 2 &&
      silent.size() * 2 < log_hosts.size()) {
    std::vector<std::string> names;
    std::vector<std::string> notes;
    for (const std::string& host : silent) {
      Culprit c;
      c.host = host;
      const FileInfo* own = files.LogOfHost(host);
      std::string name = host;
      if (own && !own->task.empty()) {
        const auto n = TaskNumber(own->task);
        c.task = n ? JaxTaskName(*n) : own->task;
        if (n) name += " (task " + std::to_string(*n) + ")";
      }
      AddCulprit(f.culprits, c);
      if (names.size() < kMaxDetailsInSummary) names.push_back(name);
      if (!own || f.culprits.size() > kMaxTaskLinesCited) continue;
      ev.Add(own->id, own->line_count);
      if (notes.size() < 3 && own->last_ts_us != kNoTimestamp && first_error_ts != kNoTimestamp) {
        const int64_t gap = first_error_ts - own->last_ts_us;
        notes.push_back("The log of " + host + " (" + own->path + ") ends at " +
                        ClockText(own->last_ts_us) + ", " + DurationText(gap) +
                        (gap >= 0 ? " before" : " after") + " the first coordination error.");
      }
    }
    s += "; " + std::string(silent.size() == 1 ? "host " : "hosts ");
    for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
    if (silent.size() > names.size())
      s += " and " + std::to_string(silent.size() - names.size()) + " more";
    s += " reported no coordination error while " + Count(coord_hosts.size(), "host", "hosts") +
         " did: a task that is killed or preempted says nothing.";
    for (const std::string& n : notes) s += " " + n;
    f.summary = s + (shutdown_only ? kShutdownOnlyNote : "");
    if (shutdown_only) f.severity = Severity::kWarning;
    f.evidence = ev.Take();
    return {f};
  }
  if (first_host.empty()) {
    s += ", and the lines carry no time, so the first to fail cannot be told.";
  } else {
    ev.Add(first->file_id, first->line_no);
    Culprit c;
    c.host = first_host;
    if (const FileInfo* file = ctx.in.File(first->file_id); file && !file->task.empty()) {
      const auto n = TaskNumber(file->task);
      c.task = n ? JaxTaskName(*n) : file->task;
    }
    AddCulprit(f.culprits, c);
    s += "; host " + first_host + " reported the first error or crash, at " + ClockText(first_ts);
    if (second_ts != kNoTimestamp)
      s += ", " + DurationText(second_ts - first_ts) + " before the next host";
    s += ".";
  }
  f.summary = s + (shutdown_only ? kShutdownOnlyNote : "");
  if (shutdown_only) f.severity = Severity::kWarning;
  f.evidence = ev.Take();
  return {f};
}

}  // namespace casefile::hang
