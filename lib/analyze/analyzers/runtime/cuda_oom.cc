// runtime.cuda_oom: ranks that ran out of GPU memory, with the numbers of
// PyTorch's message.
#include <algorithm>
#include <climits>
#include <map>
#include <tuple>

#include "analyze/analyzers/runtime/cuda_text.h"
#include "analyze/analyzers/runtime/runtime_common.h"
#include "analyze/analyzers/runtime/runtime_rules.h"

namespace casefile::runtime {
namespace {

constexpr size_t kMaxRanksDetailed = 4;

struct OomCase {
  const FailureRow* row = nullptr;
  Culprit who;
  CudaOomNumbers numbers;
};

std::string NumbersText(const CudaOomNumbers& n) {
  std::string s;
  if (n.requested) s = "tried to allocate " + SizeText(*n.requested);
  if (n.gpu) s += std::string(s.empty() ? "" : " ") + "on GPU " + std::to_string(*n.gpu);
  std::vector<std::string> parts;
  if (n.total) parts.push_back(SizeText(*n.total) + " total");
  if (n.free) parts.push_back(SizeText(*n.free) + " free");
  if (n.allocated) parts.push_back(SizeText(*n.allocated) + " allocated by PyTorch");
  if (n.reserved_unallocated)
    parts.push_back(SizeText(*n.reserved_unallocated) + " reserved but unallocated");
  if (!parts.empty()) {
    std::string p;
    for (size_t i = 0; i < parts.size(); ++i) p += (i ? ", " : "") + parts[i];
    s += s.empty() ? p : " (" + p + ")";
  }
  return s;
}

// The allocator cached enough free memory for the request but not in one
// block.
bool Fragmented(const CudaOomNumbers& n) {
  return n.requested && n.reserved_unallocated && *n.reserved_unallocated >= *n.requested;
}

}  // namespace

std::optional<Finding> BuildCudaOom(const RuntimeFacts& facts) {
  // One case per rank (per host and file when the rank is unknown): its
  // first out-of-memory error.
  std::map<std::tuple<int64_t, std::string, int64_t>, OomCase> by_who;
  for (const FailureRow& r : facts.rows) {
    if (r.kind != RowKind::kCrash && r.kind != RowKind::kCudaError) continue;
    if (ClassifyCudaText(r.detail) != CudaFault::kOom || IsRecovered(facts, r)) continue;
    const auto key = r.rank ? std::make_tuple(*r.rank, std::string(), int64_t{0})
                            : std::make_tuple(INT64_MIN, r.host, r.file_id);
    auto [it, added] = by_who.try_emplace(key);
    OomCase& c = it->second;
    if (!added) {
      const int64_t ta = r.Time(), tb = c.row->Time();
      const bool earlier =
          (ta != kNoTimestamp && tb != kNoTimestamp && ta != tb)
              ? ta < tb
              : std::tie(r.file_id, r.line_no) < std::tie(c.row->file_id, c.row->line_no);
      // The crash's own line carries the numbers; a cuda_error row on the
      // same line adds nothing.
      if (!earlier) continue;
    }
    c.row = &r;
    c.who = CulpritOf(facts, r.rank, r.host);
  }
  if (by_who.empty()) return std::nullopt;

  std::vector<OomCase> cases;
  for (auto& [key, c] : by_who) cases.push_back(std::move(c));
  std::stable_sort(cases.begin(), cases.end(), [](const OomCase& a, const OomCase& b) {
    const int64_t ta = a.row->Time() == kNoTimestamp ? INT64_MAX : a.row->Time();
    const int64_t tb = b.row->Time() == kNoTimestamp ? INT64_MAX : b.row->Time();
    if (ta != tb) return ta < tb;
    return a.who.rank.value_or(INT64_MAX) < b.who.rank.value_or(INT64_MAX);
  });

  Finding f;
  f.code = "runtime.cuda_oom";
  f.analyzer = kAnalyzerName;
  f.severity = Severity::kError;
  f.title = "CUDA out of memory";
  Citations cite(facts.line);
  std::vector<int64_t> ranks;
  std::string details;
  std::string fragmented;
  for (size_t i = 0; i < cases.size(); ++i) {
    OomCase& c = cases[i];
    AddCulprit(f.culprits, c.who);
    if (c.who.rank) ranks.push_back(*c.who.rank);
    const Evidence* e = i < kMaxCitedCases ? cite.Add(c.row->file_id, c.row->line_no) : nullptr;
    // The line holds the whole message; the stored detail may be cut.
    const std::string_view text = e && e->text.find("out of memory") != std::string::npos
                                      ? std::string_view(e->text)
                                      : std::string_view(c.row->detail);
    c.numbers = ParseCudaOom(text);
    if (fragmented.empty() && Fragmented(c.numbers)) fragmented = WhoText(c.who);
    if (i < kMaxRanksDetailed) {
      const std::string n = NumbersText(c.numbers);
      details += (i ? "; " : "") + WhoText(c.who) + (n.empty() ? "" : " " + n);
    }
  }
  std::string summary = "CUDA out of memory on " + Count(cases.size(), "rank", "ranks");
  if (cases.size() > 1 && !ranks.empty()) summary += " (" + RankRanges(ranks) + ")";
  summary += ": " + details;
  if (cases.size() > kMaxRanksDetailed)
    summary += "; and " + std::to_string(cases.size() - kMaxRanksDetailed) + " more";
  summary += ".";
  if (!fragmented.empty()) {
    summary += " On " + fragmented +
               " the memory reserved but unallocated is at least the request: the allocator's "
               "cache is fragmented.";
  }
  f.summary = std::move(summary);
  f.evidence = cite.Take();
  f.recommendation =
      "Lower the memory per GPU: a smaller micro-batch (keep the global batch with gradient "
      "accumulation) or sequence length, activation (gradient) checkpointing, bf16/fp16 instead "
      "of fp32, a higher ZeRO stage or FSDP sharding, CPU offload of optimizer states. When "
      "much memory is reserved but unallocated, set "
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to limit fragmentation. When only some "
      "ranks run out, look for what they hold more of (longer sequences, rank-0 logging or "
      "evaluation), and for another process on the same GPU (nvidia-smi).";
  return f;
}

}  // namespace casefile::runtime
