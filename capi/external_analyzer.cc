#include "external_analyzer.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <unordered_set>

#include "analyze/registry.h"
#include "capi_internal.h"
#include "common/error.h"
#include "parse/classify/classify.h"

namespace casefile::capi {
namespace {

constexpr size_t kMaxNameBytes = 64;
constexpr size_t kMaxCodeBytes = 128;
constexpr size_t kMaxVersionBytes = 64;

bool IsLowerDigit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

std::mutex& LiveMutex() {
  static std::mutex m;
  return m;
}
std::unordered_set<const void*>& LiveSet() {
  static auto* set = new std::unordered_set<const void*>();
  return *set;
}

// Dead handles whose memory is kept from the allocator (see RetireBuilder):
// a fixed ring per type, so retiring never allocates. Guarded by LiveMutex().
template <class Handle>
struct Quarantine {
  std::array<Handle*, kQuarantinedHandles> ring{};
  size_t next = 0;
  // Puts `handle` in and returns the one it pushes out (nullptr while the
  // ring is filling), for the caller to delete outside the lock.
  Handle* Push(Handle* handle) {
    Handle* evicted = ring[next];
    ring[next] = handle;
    next = (next + 1) % ring.size();
    return evicted;
  }
};
template <class Handle>
Quarantine<Handle>& QuarantineOf() {
  static auto* q = new Quarantine<Handle>();  // never destroyed: late threads retire too
  return *q;
}

template <class Handle>
void Retire(Handle* handle) noexcept {
  Handle* evicted = nullptr;
  {
    std::lock_guard<std::mutex> lock(LiveMutex());
    LiveSet().erase(handle);
    handle->magic = kDeadMagic;
    evicted = QuarantineOf<Handle>().Push(handle);
  }
  delete evicted;
}

// A copied C array of strings; `field` names it in messages.
std::vector<std::string> CopyStrings(const char* const* items, size_t count, const char* field) {
  std::vector<std::string> out;
  if (count == 0) return out;
  if (items == nullptr) {
    throw Error(ErrorCode::kArgument,
                std::string(field) + " is NULL but its count is " + std::to_string(count));
  }
  for (size_t i = 0; i < count; ++i) {
    if (items[i] == nullptr) {
      throw Error(ErrorCode::kArgument, std::string(field) + "[" + std::to_string(i) + "] is NULL");
    }
    out.emplace_back(items[i]);
  }
  return out;
}

void CheckVersionText(const std::string& version) {
  const bool ok =
      !version.empty() && version.size() <= kMaxVersionBytes &&
      std::all_of(version.begin(), version.end(), [](char c) { return c > ' ' && c < 0x7f; });
  // The version is written into the provenance of stored findings
  // ("name:version" separated by spaces), so it must be one printable word.
  if (!ok) {
    throw Error(ErrorCode::kArgument,
                "analyzer_version '" + version +
                    "' is not valid: use 1 to 64 printable ASCII characters without spaces");
  }
}

void CheckKinds(const std::vector<std::string>& kinds) {
  for (const auto& kind : kinds) {
    if (!FileKindFromName(kind)) {
      throw Error(ErrorCode::kArgument,
                  "needed kind '" + kind +
                      "' is not a file kind (log, hlo, trace, config, version, sysinfo, "
                      "manifest, binary, other, flight_recorder)");
    }
  }
}

}  // namespace

bool IsValidAnalyzerName(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameBytes || !IsLowerDigit(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return IsLowerDigit(c) || c == '_' || c == '-'; });
}

bool IsValidFindingCode(std::string_view code) {
  if (code.empty() || code.size() > kMaxCodeBytes) return false;
  size_t segments = 0;
  size_t start = 0;
  while (true) {
    const size_t dot = code.find('.', start);
    const std::string_view segment =
        code.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (segment.empty()) return false;
    for (char c : segment) {
      if (!IsLowerDigit(c) && c != '_') return false;
    }
    ++segments;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return segments >= 2;
}

std::shared_ptr<ExternalAnalyzer> ExternalAnalyzer::FromDef(const casefile_analyzer_def& def) {
  if (def.name == nullptr) throw Error(ErrorCode::kArgument, "def->name is NULL");
  if (!IsValidAnalyzerName(def.name)) {
    throw Error(ErrorCode::kArgument,
                std::string("analyzer name '") + def.name +
                    "' is not valid: use lower-case letters, digits, '_' and '-', starting with "
                    "a letter or digit, at most 64 bytes");
  }
  if (def.run == nullptr) throw Error(ErrorCode::kArgument, "def->run is NULL");

  std::shared_ptr<ExternalAnalyzer> a(new ExternalAnalyzer());
  a->info_.name = def.name;
  a->info_.version = def.analyzer_version != nullptr ? def.analyzer_version : "1";
  CheckVersionText(a->info_.version);
  a->info_.description = def.description != nullptr ? def.description : "";
  // `casefile analyzers` prints it as it is: a line break, an escape
  // sequence or any other control character would garble the terminal.
  if (std::any_of(a->info_.description.begin(), a->info_.description.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    throw Error(ErrorCode::kArgument,
                "the description must be one line without control characters (line breaks, "
                "tabs, escape sequences)");
  }
  a->info_.needed_kinds = CopyStrings(def.needed_kinds, def.needed_kind_count, "def->needed_kinds");
  CheckKinds(a->info_.needed_kinds);
  a->info_.codes = CopyStrings(def.codes, def.code_count, "def->codes");
  for (const auto& code : a->info_.codes) {
    if (!IsValidFindingCode(code)) {
      throw Error(ErrorCode::kArgument,
                  "code '" + code +
                      "' is not valid: use lower-case dotted words such as \"team.check\" "
                      "([a-z0-9_] separated by '.', at least two)");
    }
    if (std::string owner = BuiltinCodeOwner(code); !owner.empty()) {
      throw Error(ErrorCode::kArgument,
                  "code '" + code + "' belongs to the built-in analyzer '" + owner + "'");
    }
  }
  std::sort(a->info_.codes.begin(), a->info_.codes.end());
  a->info_.codes.erase(std::unique(a->info_.codes.begin(), a->info_.codes.end()),
                       a->info_.codes.end());
  a->any_code_ = a->info_.codes.empty();
  a->run_ = def.run;
  a->free_payload_ = def.free_payload;
  a->payload_ = def.payload;
  return a;
}

ExternalAnalyzer::~ExternalAnalyzer() {
  if (owns_payload_.load() && free_payload_ != nullptr) free_payload_(payload_);
}

std::optional<std::string> ExternalAnalyzer::CodeRefused(const std::string& code) const {
  if (any_code_) {
    if (!IsValidFindingCode(code)) return "code '" + code + "' is not a valid finding code";
    if (std::string owner = BuiltinCodeOwner(code); !owner.empty()) {
      return "code '" + code + "' belongs to the built-in analyzer '" + owner + "'";
    }
    return std::nullopt;
  }
  if (std::binary_search(info_.codes.begin(), info_.codes.end(), code)) return std::nullopt;
  std::string declared;
  for (const auto& c : info_.codes) declared += (declared.empty() ? "" : ", ") + c;
  return "code '" + code + "' is not among the codes analyzer '" + info_.name + "' declared (" +
         declared + ")";
}

void ExternalAnalyzer::Run(AnalysisContext& ctx) const {
  // The handle and any builder the callback leaves behind are released on
  // every way out, and leave the live set first, so that a copy the
  // callback kept is refused from then on.
  // The memory of both goes to the quarantine (RetireAnalysis), so the
  // next handles do not reuse their addresses.
  struct Release {
    casefile_analysis* a;
    bool live = false;
    ~Release() {
      for (casefile_finding_builder* b : a->builders) RetireBuilder(b);
      a->builders.clear();
      if (live) {
        RetireAnalysis(a);
      } else {
        delete a;
      }
    }
  } release{new casefile_analysis()};
  casefile_analysis* const analysis = release.a;
  analysis->analyzer = this;
  analysis->context = &ctx;
  AddLiveHandle(analysis);
  release.live = true;

  // A C callback cannot throw, but one written in C++ might; nothing may
  // unwind through C frames into the runner unannounced.
  int rc = 0;
  try {
    rc = run_(analysis, payload_);
  } catch (...) {
    throw Error(ErrorCode::kInternal,
                "the run callback of '" + info_.name + "' threw an exception");
  }
  if (!analysis->violation.empty()) throw Error(ErrorCode::kArgument, analysis->violation);
  if (rc != 0) {
    throw Error(ErrorCode::kAborted, analysis->error.empty()
                                         ? "the run callback returned " + std::to_string(rc)
                                         : analysis->error);
  }
}

void AddLiveHandle(const void* handle) {
  std::lock_guard<std::mutex> lock(LiveMutex());
  LiveSet().insert(handle);
}

void RetireAnalysis(casefile_analysis* analysis) noexcept {
  // Its strings and lists are released now; only the block is held.
  analysis->error = std::string();
  analysis->violation = std::string();
  analysis->builders = std::vector<casefile_finding_builder*>();
  Retire(analysis);
}

void RetireBuilder(casefile_finding_builder* builder) noexcept {
  builder->finding = Finding();
  Retire(builder);
}

bool IsLiveHandle(const void* handle) {
  std::lock_guard<std::mutex> lock(LiveMutex());
  return LiveSet().count(handle) != 0;
}

std::vector<std::string>*& PluginRegistrations() {
  thread_local std::vector<std::string>* current = nullptr;
  return current;
}

}  // namespace casefile::capi
