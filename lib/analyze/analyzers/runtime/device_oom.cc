// runtime.device_oom: processes whose XLA device (TPU HBM, or a GPU under
// JAX/XLA's allocator) ran out of memory. XLA words it differently from
// PyTorch's CUDA allocator (runtime.cuda_oom):
//   run time:     "RESOURCE_EXHAUSTED: Out of memory while trying to allocate
//                 129449984 bytes." (also "... allocating N bytes")
//                 "RESOURCE_EXHAUSTED: Failed to allocate request for 2.00GiB
//                 (2147483648B) on device ordinal 0" (GPU), "Attempting to
//                 reserve 4.00G at the bottom of memory. That was not
//                 possible." (TPU)
//   compile time: "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran
//                 out of memory in memory space hbm. Used 17.43G of 15.48G
//                 hbm. Exceeded hbm capacity by 1.95G."
#include <algorithm>
#include <climits>
#include <map>
#include <tuple>

#include "analyze/analyzers/runtime/cuda_text.h"
#include "analyze/analyzers/runtime/runtime_common.h"
#include "analyze/analyzers/runtime/runtime_rules.h"
#include "analyze/summary_text.h"
#include "parse/line/scan.h"

namespace casefile::runtime {
namespace {

constexpr size_t kMaxDetailed = 4;
constexpr size_t npos = std::string_view::npos;

struct DeviceOomCase {
  const FailureRow* row = nullptr;
  Culprit who;
};

// The words after `key` up to the next ". " or the end ("17.43G of 15.48G
// hbm" after "Used "), at most 48 bytes.
std::string_view WordsAfter(std::string_view text, std::string_view key) {
  const size_t at = text.find(key);
  if (at == npos) return {};
  std::string_view rest = text.substr(at + key.size());
  size_t end = rest.find(". ");
  if (end == npos) end = rest.size();
  rest = rest.substr(0, std::min<size_t>(end, 48));
  while (!rest.empty() && (rest.back() == '.' || rest.back() == ' ')) rest.remove_suffix(1);
  return rest;
}

// What the message says of the memory, in its own units.
std::string NumbersText(std::string_view text) {
  if (IsXlaCompileOom(text)) {
    std::string s = "could not fit the compiled program";
    const std::string_view used = WordsAfter(text, "Used ");
    const std::string_view over = WordsAfter(text, "capacity by ");
    if (!used.empty()) s += " (" + std::string(used) + " used";
    if (!used.empty() && !over.empty()) s += ", " + std::string(over) + " over";
    if (!used.empty()) s += ")";
    return s;
  }
  for (std::string_view key : {"trying to allocate ", "allocating ", "allocate request for ",
                               "Attempting to reserve ", "Attempting to allocate "}) {
    const size_t at = text.find(key);
    if (at == npos) continue;
    const size_t i = at + key.size();
    uint64_t bytes = 0;
    const size_t digits = scan::ReadUint(text, i, 18, &bytes);
    if (digits > 0 && text.substr(i + digits).starts_with(" bytes"))
      return "tried to allocate " + SizeText(static_cast<double>(bytes));
    const std::string_view words = WordsAfter(text, key);
    if (!words.empty()) return "tried to allocate " + std::string(words);
  }
  return "";
}

}  // namespace

bool IsXlaCompileOom(std::string_view text) {
  // HBM only: a Pallas/Mosaic kernel out of VMEM or SMEM is a block size
  // problem of that kernel, not the model's memory.
  return text.find("Ran out of memory in memory space hbm") != npos;
}

bool IsXlaDeviceOom(std::string_view text) {
  if (IsXlaCompileOom(text)) return true;
  // Another memory space (a kernel's VMEM or SMEM) is not the device's.
  if (text.find("Ran out of memory in memory space") != npos) return false;
  const size_t re = text.find("RESOURCE_EXHAUSTED");
  if (re == npos) return false;
  // "Out of memory while trying to allocate N bytes", the GPU allocator's
  // "Failed to allocate request for 2.00GiB (2147483648B) on device ordinal
  // 0", the TPU runtime's "Attempting to reserve 4.00G at the bottom of
  // memory. That was not possible."
  for (std::string_view words :
       {"Out of memory", "out of memory", "Failed to allocate request", "That was not possible"}) {
    if (text.find(words, re) != npos) return true;
  }
  return false;
}

std::optional<Finding> BuildDeviceOom(const RuntimeFacts& facts) {
  // One case per rank (per host and file when the rank is unknown): its
  // first out-of-memory error.
  std::map<std::tuple<int64_t, std::string, int64_t>, DeviceOomCase> by_who;
  for (const FailureRow& r : facts.rows) {
    if (r.kind != RowKind::kCrash && r.kind != RowKind::kCudaError) continue;
    if (!IsXlaDeviceOom(r.detail) || ClassifyCudaText(r.detail) == CudaFault::kOom ||
        IsRecovered(facts, r))
      continue;
    const auto key = r.rank ? std::make_tuple(*r.rank, std::string(), int64_t{0})
                            : std::make_tuple(INT64_MIN, r.host, r.file_id);
    auto [it, added] = by_who.try_emplace(key);
    DeviceOomCase& c = it->second;
    if (!added && std::tie(c.row->file_id, c.row->line_no) < std::tie(r.file_id, r.line_no))
      continue;
    c.row = &r;
    c.who = CulpritOf(facts, r.rank, r.host);
  }
  if (by_who.empty()) return std::nullopt;
  std::vector<DeviceOomCase> cases;
  for (auto& [key, c] : by_who) cases.push_back(c);
  std::stable_sort(cases.begin(), cases.end(), [](const DeviceOomCase& a, const DeviceOomCase& b) {
    const int64_t ta = a.row->Time() == kNoTimestamp ? INT64_MAX : a.row->Time();
    const int64_t tb = b.row->Time() == kNoTimestamp ? INT64_MAX : b.row->Time();
    return ta < tb;
  });

  Finding f;
  f.code = "runtime.device_oom";
  f.analyzer = kAnalyzerName;
  f.severity = Severity::kError;
  f.title = "XLA device out of memory";
  Citations cite(facts.line);
  bool compile = false;
  // Processes that say the same (every host compiling one program) are
  // named together, in the order of their first.
  std::vector<std::pair<std::string, std::vector<std::string>>> said;
  for (size_t i = 0; i < cases.size(); ++i) {
    const DeviceOomCase& c = cases[i];
    AddCulprit(f.culprits, c.who);
    const Evidence* e = i < kMaxCitedCases ? cite.Add(c.row->file_id, c.row->line_no) : nullptr;
    // The line holds the whole message; the stored detail may be cut.
    const std::string_view text =
        e && IsXlaDeviceOom(e->text) ? std::string_view(e->text) : std::string_view(c.row->detail);
    compile = compile || IsXlaCompileOom(text);
    const std::string n = NumbersText(text);
    auto it = std::find_if(said.begin(), said.end(), [&](const auto& x) { return x.first == n; });
    if (it == said.end()) {
      said.push_back({n, {}});
      it = said.end() - 1;
    }
    it->second.push_back(WhoText(c.who));
  }
  std::string details;
  size_t shown = 0;
  for (const auto& [n, who] : said) {
    if (shown++ == kMaxDetailed) {
      details += "; and others";
      break;
    }
    details +=
        (details.empty() ? "" : "; ") + NameList(who, kMaxDetailed) + (n.empty() ? "" : " " + n);
  }
  std::string s = "XLA ran out of device memory in " + Count(cases.size(), "process", "processes") +
                  ": " + details + ".";
  if (compile)
    s += " The compiler found that the program's buffers exceed the device's memory: it fails "
         "the same way on every run until the program or its sharding changes.";
  f.summary = std::move(s);
  f.evidence = cite.Take();
  f.recommendation =
      "Lower the memory per device: a smaller per-device batch or sequence length, "
      "rematerialisation (jax.checkpoint / remat policies), sharding parameters and optimizer "
      "state over more devices (FSDP-style), bf16 parameters or optimizer states. The "
      "compiler's report after the error lists the largest allocations. On GPUs, JAX "
      "preallocates 75% of the memory: XLA_PYTHON_CLIENT_MEM_FRACTION and another process on "
      "the GPU change what is left.";
  return f;
}

}  // namespace casefile::runtime
