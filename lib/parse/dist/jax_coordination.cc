// Errors of the XLA/TSL coordination service behind jax.distributed (kind
// jax_coordination). The texts come from xla/tsl/distributed_runtime/
// coordination (coordination_service.cc, coordination_service_agent.cc,
// coordination_service_error_util.cc) and xla/pjrt/distributed/client.h:
//   "The following tasks are unhealthy (stopped sending heartbeats):"
//       then one task name per line ("/job:jax_worker/replica:0/task:5")
//   "Task /job:jax_worker/replica:0/task:3 heartbeat timeout. ..."
//   "/job:jax_worker/replica:0/task:3 has been set to ERROR in coordination
//       service: ..."
//   "Barrier timed out. Id: ... # of tasks that reached the barrier: 7/8.
//       The first task at the barrier: /job:...task:0. Some timed out task
//       names:" then task names ("Timed out task names:" in older releases)
//   "Terminating process because the JAX distributed service detected fatal
//       errors. ..." (usually with the error status after it)
//   "Polled an error from coordination service (...)"
//   "Failed to send RPC to coordination service. ...", "Coordination service
//       has stopped. ...", "Failed to disconnect from coordination service
//       with status: ...", "Shutdown barrier has failed."
// The log wraps these statuses over several lines, so task lists are read
// across lines: each named task gives one event on the line that names it.
// seq = the task the message names as failed (never the barrier's first
// task nor the task that sent an RPC); detail = "<category>: <message>".
#include <algorithm>
#include <string>
#include <string_view>

#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/line/byte_search.h"
#include "parse/line/scan.h"

namespace casefile::dist {
namespace {

using scan::AnyOfFourBytes;
using scan::HasAt;
using scan::HasBefore;

constexpr size_t kNpos = std::string_view::npos;
constexpr size_t kMaxDetail = 512;
// Task-name lines read after a list header; the service prints at most a
// few (kPendingStragglerLogLimit), an agent's error at most its cluster.
constexpr int kMaxListLines = 256;
// Lines of other processes tolerated between a list header and its names
// before the list is given up.
constexpr int kMaxForeignLines = 16;
// Longest job name accepted in a task name.
constexpr size_t kMaxJobName = 128;

constexpr std::string_view kUnhealthy = "The following tasks are unhealthy";
// "Some timed out task names:" and the older "Timed out task names:".
constexpr std::string_view kTimedOutNames = "imed out task names:";
constexpr std::string_view kTerminating =
    "Terminating process because the JAX distributed service detected fatal errors";

bool Contains(std::string_view s, std::string_view lit) { return s.find(lit) != kNpos; }

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && scan::IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && (scan::IsBlank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The task id of "/job:NAME/replica:R/task:T" or "/job:NAME/task:T" at s[i];
// *end is set past it.
bool TaskAt(std::string_view s, size_t i, int64_t* task, size_t* end) {
  if (!scan::LiteralAt(s, i, "/job:")) return false;
  size_t j = i + 5;
  const size_t name = j;
  while (j < s.size() && j - name <= kMaxJobName &&
         (scan::IsAlnum(s[j]) || s[j] == '_' || s[j] == '-' || s[j] == '.')) {
    ++j;
  }
  if (j == name || j - name > kMaxJobName) return false;
  uint64_t v = 0;
  if (scan::LiteralAt(s, j, "/replica:")) {
    const size_t n = scan::ReadUint(s, j + 9, 9, &v);
    if (n == 0) return false;
    j += 9 + n;
  }
  if (!scan::LiteralAt(s, j, "/task:")) return false;
  const size_t n = scan::ReadUint(s, j + 6, 9, &v);
  if (n == 0 || (j + 6 + n < s.size() && scan::IsDigit(s[j + 6 + n]))) return false;
  *task = static_cast<int64_t>(v);
  *end = j + 6 + n;
  return true;
}

template <typename F>
int ForEachTask(std::string_view s, F&& f) {
  int found = 0;
  size_t at = 0;
  while ((at = s.find("/job:", at)) != kNpos) {
    int64_t task = 0;
    size_t end = at + 5;
    if (TaskAt(s, at, &task, &end)) {
      f(task);
      ++found;
    }
    at = end;
  }
  return found;
}

// The first task named in s[from, until), or -1.
int64_t FirstTask(std::string_view s, size_t from = 0, size_t until = kNpos) {
  size_t at = from;
  while ((at = s.find("/job:", at)) != kNpos && at < until) {
    int64_t task = 0;
    size_t end = at + 5;
    if (TaskAt(s, at, &task, &end)) return task;
    at = end;
  }
  return -1;
}

std::string Detail(std::string_view category, std::string_view msg) {
  std::string d(category);
  d += ": ";
  msg = TrimBlanks(msg);
  size_t n = std::min(msg.size(), kMaxDetail > d.size() ? kMaxDetail - d.size() : 0);
  // Never cut a UTF-8 sequence in two.
  while (n < msg.size() && n > 0 && (static_cast<unsigned char>(msg[n]) & 0xC0) == 0x80) --n;
  d.append(msg.substr(0, n));
  return d;
}

class JaxCoordinationFamily : public DistFamily {
 public:
  JaxCoordinationFamily() : DistFamily(kAnchorJax) {}

  bool ReadLine(const LineRecord& line, uint32_t /*anchors*/, const DistEmitter& out) override {
    Read(line, out);
    // An open task list reads the next lines: task names hold no anchor.
    return list_lines_left_ > 0;
  }

 private:
  void Read(const LineRecord& line, const DistEmitter& out) {
    const std::string_view msg = line.message();
    if (list_lines_left_ > 0 && ContinueList(line, msg, out)) return;
    // The line holds a JAX anchor (dist_prefilter.h) or follows an open
    // list. Every message above has "JAX ", "barrier"/"Barrier", "heartbeat"
    // or "coordination service"/"CoordinationService": one pass over the
    // rare bytes 'J', 'B', 'b', 'v' with a look at their neighbours.
    const bool hint = AnyOfFourBytes(msg, 'J', 'B', 'b', 'v', [&](size_t p) {
      switch (msg[p]) {
        case 'J':
          return HasAt(msg, p, "JAX ");
        case 'B':
          return HasAt(msg, p + 1, "arrier");
        case 'b':
          return HasAt(msg, p + 1, "arrier") || HasAt(msg, p + 1, "eat");
        default:
          return HasBefore(msg, p, "oordination ser") || HasBefore(msg, p, "oordinationSer");
      }
    });
    if (!hint) return;
    Classify(line, msg, out);
  }

  void Emit(const LineRecord& line, const DistEmitter& out, const std::string& detail,
            int64_t task) const {
    DistEventRow row = out.Start(line, kJaxCoordination);
    if (task >= 0) row.seq = task;
    row.detail = detail;
    out.Emit(row);
  }

  // A task-name line of an open list; true when the line was one.
  bool ContinueList(const LineRecord& line, std::string_view msg, const DistEmitter& out) {
    if (line.rank != list_rank_ || line.host != list_host_) {
      if (++list_foreign_ > kMaxForeignLines) list_lines_left_ = 0;
      return false;
    }
    const std::string_view t = TrimBlanks(msg);
    if (!scan::LiteralAt(t, 0, "/job:")) {
      list_lines_left_ = 0;
      return false;
    }
    --list_lines_left_;
    ForEachTask(t, [&](int64_t task) { Emit(line, out, list_detail_, task); });
    return true;
  }

  void OpenList(const LineRecord& line, std::string detail) {
    list_detail_ = std::move(detail);
    list_lines_left_ = kMaxListLines;
    list_foreign_ = 0;
    list_rank_ = line.rank;
    list_host_ = std::string(line.host);
  }

  // One event per task a list on this line names (after its header), then
  // the list stays open for the next lines.
  int ReadList(const LineRecord& line, std::string_view msg, const DistEmitter& out,
               std::string_view header, std::string_view category) {
    const size_t at = msg.find(header);
    if (at == kNpos) return 0;
    std::string detail = Detail(category, msg);
    const int named =
        ForEachTask(msg.substr(at), [&](int64_t task) { Emit(line, out, detail, task); });
    OpenList(line, std::move(detail));
    return named;
  }

  void Classify(const LineRecord& line, std::string_view msg, const DistEmitter& out) {
    int listed = ReadList(line, msg, out, kUnhealthy, "unhealthy");
    // The shutdown barrier (its id "Shutdown::...", or the agent's "Failed to
    // disconnect" around it) names the tasks late to leave a job that may
    // have finished: a category of its own.
    // The status may wrap: the list header can come a few lines after the
    // barrier's id, printed by the same process.
    bool shutdown = Contains(msg, "Shutdown::") || Contains(msg, "hutdown barrier") ||
                    Contains(msg, "Failed to disconnect from coordination service");
    if (shutdown) {
      shutdown_line_ = line.line_no;
      shutdown_rank_ = line.rank;
      shutdown_host_ = std::string(line.host);
    } else {
      shutdown = shutdown_line_ > 0 && line.line_no - shutdown_line_ <= kShutdownWrapLines &&
                 line.rank == shutdown_rank_ && line.host == shutdown_host_;
    }
    listed += ReadList(line, msg, out, kTimedOutNames, shutdown ? "shutdown" : "barrier");
    // This process gives up: always its own event, with no task.
    if (Contains(msg, kTerminating)) {
      Emit(line, out, Detail("terminating", msg), -1);
      return;
    }
    if (listed > 0) return;
    std::string_view category;
    int64_t task = -1;
    size_t at;
    if ((at = msg.find("has been set to ERROR in coordination service")) != kNpos) {
      category = "task_error";
      task = FirstTask(msg, 0, at);
    } else if ((at = msg.find("is already in error")) != kNpos) {
      // "Task (/job:...) is already in error before the barrier was called."
      category = "task_error";
      task = FirstTask(msg, 0, at);
    } else if ((at = msg.find("heartbeat timeout")) != kNpos ||
               (at = msg.find("Heartbeat: Incarnation ID mismatch")) != kNpos) {
      category = "heartbeat";
      task = FirstTask(msg, 0, at);
    } else if (Contains(msg, "missing heartbeat response from the coordinator")) {
      // Older jaxlib's client (xla/pjrt/distributed/client.cc): "Terminating
      // process because of missing heartbeat response from the coordinator.
      // This most likely indicates that the coordinator task died": the
      // coordinator is task 0.
      category = "heartbeat";
      task = 0;
    } else if (Contains(msg, "the coordinator detected missing heartbeats")) {
      // "... because the coordinator detected missing heartbeats. This most
      // likely indicates that another task died": which one, it does not say.
      category = "heartbeat";
    } else if (Contains(msg, "Polled an error from coordination service")) {
      category = "polled_error";
    } else if (Contains(msg, "Failed to disconnect from coordination service") ||
               (Contains(msg, "hutdown barrier") &&
                (Contains(msg, "failed") || Contains(msg, "timed out") ||
                 Contains(msg, "DEADLINE_EXCEEDED")))) {
      // Not "Shutdown barrier in coordination service has passed." (a clean
      // shutdown, at level I).
      category = "shutdown";
    } else if (Contains(msg, "Barrier timed out")) {
      category = "barrier";  // the timed-out tasks follow on later lines
    } else if ((at = msg.find("Barrier failed because")) != kNpos) {
      // "Barrier failed because: task is set to ERROR: ... Task: /job:..."
      category = "barrier";
      const size_t named = msg.rfind("Task: ");
      if (named != kNpos && named > at) task = FirstTask(msg, named);
    } else if (Contains(msg, "Failed to send RPC to coordination service") ||
               (line.level != Level::kInfo && line.level != Level::kDebug &&
                line.level != Level::kTrace &&
                (Contains(msg, "oordination service has stopped") ||
                 Contains(msg, "oordination service has shut down") ||
                 Contains(msg, "oordination service is shutting down")))) {
      // The service stopping is an error only where a call failed on it; an
      // I-level line says so at every clean exit.
      category = "rpc_failed";
    } else if (Contains(msg, "CoordinationService/") &&
               (Contains(msg, "DEADLINE_EXCEEDED") || Contains(msg, "UNAVAILABLE"))) {
      category = Contains(msg, "CoordinationService/Heartbeat") ? "heartbeat" : "rpc_failed";
    } else {
      return;
    }
    Emit(line, out, Detail(category, msg), task);
  }

  // The last line of a shutdown barrier's status, and its process.
  static constexpr int64_t kShutdownWrapLines = 8;
  int64_t shutdown_line_ = 0;
  int32_t shutdown_rank_ = -1;
  std::string shutdown_host_;
  // An open task list: its header's detail and the wrappers of its lines.
  std::string list_detail_;
  int list_lines_left_ = 0;
  int list_foreign_ = 0;
  int32_t list_rank_ = -1;
  std::string list_host_;
};

}  // namespace

std::unique_ptr<DistFamily> MakeJaxCoordinationFamily() {
  return std::make_unique<JaxCoordinationFamily>();
}

}  // namespace casefile::dist
