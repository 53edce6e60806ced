#include "parse/dist/launcher_lines.h"

#include <string>

#include "parse/dist/dist_kinds.h"
#include "parse/dist/launcher_text.h"
#include "parse/line/scan.h"

namespace casefile::dist::launcher {
namespace {

// A task list longer than this ("tasks 0-99999") is cut: srun names the
// tasks of one node, far fewer.
constexpr int64_t kMaxTasks = 4096;
// Task ids above this are not task ids.
constexpr int64_t kMaxTaskId = 10'000'000;
// Longest srun status text kept as a detail.
constexpr size_t kMaxStatus = 64;

// The local rank DeepSpeed passes in the worker's command line, or -1.
int64_t LocalRankOfCommand(std::string_view cmd) {
  for (std::string_view flag : {"--local_rank", "--local-rank"}) {
    size_t at = 0;
    while ((at = cmd.find(flag, at)) != kNpos) {
      size_t i = at + flag.size();
      at = i;
      if (scan::At(cmd, i, '=')) {
        ++i;
      } else if (scan::LiteralAt(cmd, i, "', '")) {
        i += 4;  // the list repr of ['--local_rank', '1']
      } else if (scan::At(cmd, i, ' ')) {
        ++i;
      } else {
        continue;
      }
      int64_t v = 0;
      if (ReadInt(cmd, i, &v) > 0 && v >= 0) return v;
    }
  }
  return -1;
}

// Expands "0-3,5" into task ids; false when the list is not one.
template <typename F>
bool ForEachTask(std::string_view list, F&& f) {
  int64_t count = 0;
  size_t i = 0;
  while (i < list.size()) {
    uint64_t a = 0;
    const size_t n = scan::ReadUint(list, i, 9, &a);
    if (n == 0) return false;
    i += n;
    uint64_t b = a;
    if (scan::At(list, i, '-')) {
      const size_t m = scan::ReadUint(list, i + 1, 9, &b);
      if (m == 0 || b < a) return false;
      i += 1 + m;
    }
    if (i < list.size() && list[i] != ',') return false;
    if (i < list.size()) ++i;
    if (static_cast<int64_t>(b) > kMaxTaskId) return false;
    for (uint64_t t = a; t <= b && count < kMaxTasks; ++t, ++count) f(static_cast<int64_t>(t));
  }
  return count > 0;
}

}  // namespace

bool ParseDeepSpeedExit(const LineRecord& line, std::string_view msg, const DistEmitter& out) {
  constexpr std::string_view kExits = "exits with return code = ";
  const size_t at = msg.find(kExits);
  if (at == kNpos) return false;
  int64_t code = 0;
  if (ReadInt(msg, at + kExits.size(), &code) == 0) return false;
  const int64_t local_rank = LocalRankOfCommand(msg.substr(0, at));
  DistEventRow row = out.Start(line, kLauncherFailure);
  row.op = "deepspeed";
  row.value = static_cast<double>(code);
  std::string detail;
  if (local_rank >= 0) detail = "local_rank " + std::to_string(local_rank) + ", ";
  detail += CodeText("return code", code);
  row.detail = std::move(detail);
  out.Emit(row);
  return true;
}

bool ParseSrunTaskExit(const LineRecord& line, std::string_view msg, const DistEmitter& out) {
  constexpr std::string_view kSrun = "srun: error: ";
  const size_t at = msg.find(kSrun);
  if (at == kNpos) return false;
  const std::string_view rest = msg.substr(at + kSrun.size());
  const size_t colon = rest.find(": task");
  if (colon == kNpos || colon == 0 || colon > kMaxHost) return false;
  const std::string_view hosts = rest.substr(0, colon);
  if (hosts.find(' ') != kNpos) return false;
  size_t i = colon + 6;
  if (scan::At(rest, i, 's')) ++i;
  if (!scan::At(rest, i, ' ')) return false;
  ++i;
  const size_t list_end = rest.find(": ", i);
  if (list_end == kNpos) return false;
  const std::string_view list = rest.substr(i, list_end - i);
  const std::string_view status = TrimBlanks(rest.substr(list_end + 2));

  double value = 0;
  std::string detail;
  constexpr std::string_view kExited = "Exited with exit code ";
  int64_t code = 0;
  if (scan::LiteralAt(status, 0, kExited) && ReadInt(status, kExited.size(), &code) > 0) {
    value = static_cast<double>(code);
    detail = CodeText("exit code", code);
  } else if (scan::LiteralAt(status, 0, "Out Of Memory")) {
    // slurmstepd's OOM kill: the task was killed with SIGKILL.
    value = -9;
    detail = "Out Of Memory";
  } else if (const int signo = SignalFromDescription(status)) {
    value = -signo;
    AppendCapped(detail, status, kMaxStatus);
  } else {
    return false;
  }
  // A host list ("node-[1-2]") names several nodes: no single host for a task.
  const bool one_host = hosts.find_first_of("[,") == kNpos;
  // Check the whole list before emitting anything.
  if (!ForEachTask(list, [](int64_t) {})) return false;
  return ForEachTask(list, [&](int64_t task) {
    DistEventRow row = out.Start(line, kLauncherFailure);
    row.op = "srun";
    row.rank = task;
    if (one_host) SetHost(row, hosts);
    row.value = value;
    row.detail = detail;
    out.Emit(row);
  });
}

}  // namespace casefile::dist::launcher
