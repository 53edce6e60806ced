// runtime.cuda_error: a CUDA fault that leaves the context unusable (an
// illegal memory access and its family), from the ranks' errors and from
// NVIDIA Xid lines of the kernel log.
#include <algorithm>
#include <climits>
#include <map>
#include <tuple>

#include "analyze/analyzers/runtime/cuda_text.h"
#include "analyze/analyzers/runtime/kernel_lines.h"
#include "analyze/analyzers/runtime/runtime_common.h"
#include "analyze/analyzers/runtime/runtime_rules.h"

namespace casefile::runtime {
namespace {

constexpr size_t kMaxRanksNamed = 4;
constexpr size_t kMaxXidsNamed = 4;
constexpr size_t kMaxAssertText = 200;

struct FaultCase {
  const FailureRow* row = nullptr;
  CudaFault fault = CudaFault::kNone;
  Culprit who;
};

bool Earlier(const FailureRow& a, const FailureRow& b) {
  const int64_t ta = a.Time(), tb = b.Time();
  if (ta != kNoTimestamp && tb != kNoTimestamp && ta != tb) return ta < tb;
  return std::tie(a.file_id, a.line_no) < std::tie(b.file_id, b.line_no);
}

// The condition of "Assertion `idx < size` failed.", or "".
std::string AssertText(std::string_view line) {
  const size_t at = line.find("Assertion `");
  if (at == std::string_view::npos) return {};
  const size_t end = line.find("` failed", at + 11);
  if (end == std::string_view::npos) return {};
  return Shorten(line.substr(at + 11, end - at - 11), kMaxAssertText);
}

}  // namespace

std::optional<Finding> BuildCudaError(const RuntimeFacts& facts) {
  std::map<std::tuple<int64_t, std::string, int64_t>, FaultCase> by_who;
  for (const FailureRow& r : facts.rows) {
    if (r.kind != RowKind::kCrash && r.kind != RowKind::kCudaError) continue;
    const CudaFault fault = ClassifyCudaText(r.detail);
    if (fault == CudaFault::kNone || fault == CudaFault::kOom || IsRecovered(facts, r)) continue;
    const auto key = r.rank ? std::make_tuple(*r.rank, std::string(), int64_t{0})
                            : std::make_tuple(INT64_MIN, r.host, r.file_id);
    auto [it, added] = by_who.try_emplace(key);
    if (!added) {
      const FailureRow& have = *it->second.row;
      // On one line the crash's text (with its exception type) is kept.
      const bool same_line = have.file_id == r.file_id && have.line_no == r.line_no;
      if (!(same_line ? r.kind == RowKind::kCrash : Earlier(r, have))) continue;
    }
    it->second = {&r, fault, CulpritOf(facts, r.rank, r.host)};
  }

  // Xid lines of this run, the first of each (host, GPU, code); pid ->
  // rank from the launcher rows and the lines.
  std::map<int64_t, std::pair<int64_t, std::string>> pid_rank;
  for (const PidOwner& p : facts.pids) pid_rank.emplace(p.pid, std::make_pair(p.rank, p.host));
  for (const FailureRow& r : facts.rows) {
    if (r.kind != RowKind::kLauncherFailure || !r.rank) continue;
    if (const auto pid = IntAfter(r.detail, "pid "))
      pid_rank.emplace(*pid, std::make_pair(*r.rank, r.host));
  }
  std::vector<const XidLine*> xids;
  std::set<std::tuple<std::string, std::string, int>> seen_xid;
  for (const XidLine& x : facts.xids) {
    const XidInfo* info = FindXid(x.xid);
    if (info && !info->counts) continue;
    if (!InKernelWindow(facts, x.ts_us, kKernelWindowUs)) continue;
    if ((x.pid < 0 || !pid_rank.count(x.pid)) &&
        IsForeignUntimedKernelEvent(facts, x.ts_us, x.host))
      continue;
    if (!seen_xid.insert({x.host, x.pci, x.xid}).second) continue;
    xids.push_back(&x);
  }
  if (by_who.empty() && xids.empty()) return std::nullopt;

  std::vector<FaultCase> cases;
  for (auto& [key, c] : by_who) cases.push_back(c);
  std::stable_sort(cases.begin(), cases.end(),
                   [](const FaultCase& a, const FaultCase& b) { return Earlier(*a.row, *b.row); });

  Finding f;
  f.code = "runtime.cuda_error";
  f.analyzer = kAnalyzerName;
  f.severity = Severity::kError;
  f.title = "A CUDA fault stopped the run";
  Citations cite(facts.line);
  std::string summary;
  for (size_t i = 0; i < cases.size(); ++i) {
    const FaultCase& c = cases[i];
    AddCulprit(f.culprits, c.who);
    if (i < kMaxCitedCases) cite.Add(c.row->file_id, c.row->line_no);
    if (i == 0) {
      summary = WhoText(c.who) + " hit " + CudaFaultWords(c.fault, c.row->detail) + " (" +
                Shorten(c.row->detail, 240) + ")";
    } else if (i < kMaxRanksNamed) {
      summary += i == 1 ? "; then " : ", ";
      summary += WhoText(c.who) + " (" + CudaFaultWords(c.fault, c.row->detail) + ")";
    }
  }
  if (cases.size() > kMaxRanksNamed)
    summary += ", and " + std::to_string(cases.size() - kMaxRanksNamed) + " more ranks";
  if (!summary.empty()) summary += ".";

  // The failed assertion behind a device-side assert, from the culprit's
  // own file when it printed one.
  for (const FaultCase& c : cases) {
    if (c.fault != CudaFault::kDeviceAssert) continue;
    const AssertLine* found = nullptr;
    for (const AssertLine& a : facts.asserts) {
      if (a.file_id != c.row->file_id || (a.rank && c.row->rank && *a.rank != *c.row->rank))
        continue;
      found = &a;
      break;
    }
    if (!found) continue;
    if (const Evidence* e = cite.Add(found->file_id, found->line_no)) {
      const std::string cond = AssertText(e->text);
      if (!cond.empty()) summary += " The kernel's failed assertion: `" + cond + "`.";
    }
    break;
  }

  bool hardware = false;
  for (size_t i = 0; i < xids.size(); ++i) {
    const XidLine& x = *xids[i];
    const XidInfo* info = FindXid(x.xid);
    hardware = hardware || (info && info->hardware);
    std::optional<int64_t> rank;
    if (x.pid >= 0) {
      auto it = pid_rank.find(x.pid);
      if (it != pid_rank.end() &&
          (x.host.empty() || it->second.second.empty() || SameHost(x.host, it->second.second))) {
        rank = it->second.first;
      }
    }
    Culprit who = CulpritOf(facts, rank, x.host);
    if (!who.host && !x.host.empty()) who.host = x.host;
    AddCulprit(f.culprits, who);
    if (i < kMaxCitedCases) cite.Add(x.file_id, x.line_no);
    if (i >= kMaxXidsNamed) continue;
    std::string s = (summary.empty() ? "" : " ") + std::string("The kernel log") +
                    (x.host.empty() ? "" : " of host " + x.host) + " shows Xid " +
                    std::to_string(x.xid) + " (" +
                    (info ? std::string(info->words) : Shorten(x.text, 120)) + ") on GPU " + x.pci;
    if (x.pid >= 0) {
      s += " for pid " + std::to_string(x.pid);
      if (rank) s += " (rank " + std::to_string(*rank) + ")";
    }
    if (x.ts_us != kNoTimestamp) s += " at " + ClockText(x.ts_us);
    summary += s + ".";
  }
  if (xids.size() > kMaxXidsNamed)
    summary += " And " + std::to_string(xids.size() - kMaxXidsNamed) + " more Xid lines.";
  if (hardware) {
    summary +=
        " An Xid of this kind is a fault of the GPU, its memory or its links, not of the "
        "program.";
  }
  f.summary = std::move(summary);
  f.evidence = cite.Take();
  f.recommendation =
      "CUDA reports a kernel's fault at a later call, so the Python line of the traceback is "
      "often not the culprit: rerun with CUDA_LAUNCH_BLOCKING=1 (and TORCH_USE_CUDA_DSA=1 for "
      "device-side asserts, or on CPU) to stop at the faulting kernel. A device-side assert is "
      "most often an index out of range: labels outside [0, num_classes), token ids beyond the "
      "embedding's vocabulary size. An illegal memory access in a custom or fused kernel can be "
      "located with compute-sanitizer. When the kernel log shows a hardware Xid (48, 62, 64, "
      "74, 79, 94, 95, 119, 120), or the same error follows one host across runs, take the "
      "host out of the job and run the vendor's diagnostics (dcgmi diag, nvidia-smi -q) before "
      "using it again.";
  return f;
}

}  // namespace casefile::runtime
