#include "analyze/analyzers/runtime/runtime_common.h"

#include <algorithm>
#include <ctime>

#include "analyze/analyzers/runtime/cuda_text.h"
#include "analyze/failure_markers.h"
#include "analyze/succeeded_hosts.h"
#include "analyze/summary_text.h"

namespace casefile::runtime {

bool IsConsequence(const FailureRow& row) {
  if (row.kind == RowKind::kLauncherFailure && IsTerminationExit(row.value)) return true;
  if (row.detail.empty()) return false;
  return NamesConsequence(row.detail);
}

bool IsAbort(const FailureRow& row) {
  if (row.kind != RowKind::kCrash) return false;
  const std::string_view d = row.detail;
  return d.starts_with("SIGABRT") || d.starts_with("Aborted") ||
         d.starts_with("Fatal Python error: Aborted");
}

bool IsRecovered(const RuntimeFacts& facts, const FailureRow& row) {
  auto it = std::lower_bound(facts.steps.begin(), facts.steps.end(),
                             std::make_pair(row.file_id, row.line_no),
                             [](const StepRow& s, const std::pair<int64_t, int64_t>& key) {
                               return std::make_pair(s.file_id, s.line_no) <= key;
                             });
  std::set<int64_t> steps;
  size_t unnumbered = 0;
  for (size_t seen = 0;
       it != facts.steps.end() && it->file_id == row.file_id && seen < kMaxRecoveryScan;
       ++it, ++seen) {
    if (it->step) {
      steps.insert(*it->step);
    } else {
      ++unnumbered;
    }
    if (steps.size() + unnumbered >= kRecoveredSteps) return true;
  }
  return false;
}

bool IsForeignUntimedKernelEvent(const RuntimeFacts& facts, int64_t ts_us,
                                 const std::string& host) {
  return ts_us == kNoTimestamp && HostSucceeded(facts.succeeded, host);
}

Culprit CulpritOf(const RuntimeFacts& facts, std::optional<int64_t> rank, const std::string& host) {
  Culprit c;
  c.rank = rank;
  const std::string* mapped = rank && facts.ranks ? facts.ranks->HostOf(*rank) : nullptr;
  if (mapped) {
    c.host = *mapped;
  } else if (!host.empty()) {
    c.host = host;
  }
  return c;
}

void AddCulprit(std::vector<Culprit>& culprits, const Culprit& c) {
  if (!c.host && !c.rank && !c.task) return;
  for (Culprit& have : culprits) {
    bool same = false;
    if (c.rank && have.rank) {
      same = *c.rank == *have.rank;
    } else if (!c.rank && !have.rank && c.host && have.host) {
      same = *c.host == *have.host;
    }
    if (!same) continue;
    if (!have.host && c.host) have.host = c.host;
    return;
  }
  culprits.push_back(c);
}

std::string WhoText(const Culprit& c) {
  if (c.rank) {
    std::string s = "rank " + std::to_string(*c.rank);
    if (c.host) s += " (host " + *c.host + ")";
    return s;
  }
  if (c.host) return "host " + *c.host;
  return "a process";
}

const Evidence* Citations::Add(int64_t file_id, int64_t line_no) {
  if (line_no <= 0 || !seen_.insert({file_id, line_no}).second) return nullptr;
  items_.push_back(fn_(file_id, line_no));
  return &items_.back();
}

std::optional<int64_t> IntAfter(std::string_view s, std::string_view key) {
  const size_t at = s.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = at + key.size();
  const bool negative = i < s.size() && s[i] == '-';
  if (negative) ++i;
  int64_t v = 0;
  size_t digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && digits < 15) {
    v = v * 10 + (s[i++] - '0');
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  return negative ? -v : v;
}

std::string LauncherText(const FailureRow& row) {
  const std::string who = row.op ? *row.op : std::string("the launcher");
  if (row.detail.find("Out Of Memory") != std::string::npos) return who + " reports Out Of Memory";
  if (!row.value) return who + " reports the worker failed";
  const auto code = static_cast<int64_t>(*row.value);
  if (code == -9) return who + " reports signal 9 (SIGKILL)";
  if (code == 137) return who + " reports exit code 137 (128 + SIGKILL)";
  if (code < 0) return who + " reports signal " + std::to_string(-code);
  return who + " reports exit code " + std::to_string(code);
}

std::string_view ExceptionType(std::string_view detail) {
  auto ident = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  };
  size_t i = 0;
  while (i < detail.size()) {
    if (ident(detail[i]) || detail[i] == '.') {
      ++i;
    } else if (detail.substr(i, 2) == "::") {  // "c10::Error"
      i += 2;
    } else {
      break;
    }
  }
  const std::string_view name = detail.substr(0, i);
  if (name.empty() || !(i == detail.size() || detail[i] == ':')) return {};
  const size_t last = name.find_last_of(".:");
  const std::string_view cls = last == std::string_view::npos ? name : name.substr(last + 1);
  if (cls.empty() || !(cls[0] >= 'A' && cls[0] <= 'Z')) return {};
  return name;
}

std::string Shorten(std::string_view s, size_t max) { return ClipText(s, max); }

}  // namespace casefile::runtime
