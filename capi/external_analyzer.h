// An analyzer defined outside the library (casefile_analyzer_register, or a
// plugin's init): the C definition copied into an Analyzer the registry can
// hold, and the bookkeeping the extension entry points share.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analyzer.h"
#include "casefile.h"

namespace casefile::capi {

class ExternalAnalyzer final : public Analyzer {
 public:
  // Validates `def` and copies every string and array of it. Throws
  // Error(kArgument) naming the field that is wrong. The version of `def`
  // is checked by the caller.
  static std::shared_ptr<ExternalAnalyzer> FromDef(const casefile_analyzer_def& def);

  // Calls free_payload when the payload was handed over (see
  // set_owns_payload): the registry drops its reference on unregistration,
  // and running analyses keep theirs in their snapshot, so this runs after
  // the last of them.
  ~ExternalAnalyzer() override;

  const AnalyzerInfo& info() const override { return info_; }

  // Runs the callback with a live casefile_analysis handle. Throws
  // Error(kAborted) when it returns non-zero, Error(kArgument) when it broke
  // the contract (an undeclared code), so the runner records "failed" and
  // drops the findings.
  void Run(AnalysisContext& ctx) const override;

  // Why `code` may not be emitted by this analyzer, or nullopt when it may.
  std::optional<std::string> CodeRefused(const std::string& code) const;

  // Whether free_payload is to be called on destruction: only once the
  // registration succeeded (the header promises no call on failure).
  void set_owns_payload(bool owns) { owns_payload_.store(owns); }

 private:
  ExternalAnalyzer() = default;

  AnalyzerInfo info_;
  bool any_code_ = false;  // no codes declared: any valid non-built-in code
  casefile_analyzer_fn run_ = nullptr;
  void (*free_payload_)(void*) = nullptr;
  void* payload_ = nullptr;
  std::atomic<bool> owns_payload_{false};
};

// [a-z0-9][a-z0-9_-]*, at most 64 bytes.
bool IsValidAnalyzerName(std::string_view name);
// Lower-case dotted: [a-z0-9_]+ segments, at least two, at most 128 bytes.
bool IsValidFindingCode(std::string_view code);

// The analysis and builder handles alive now. Entry points look a handle up
// here before reading it, so a handle used after its callback returned (or
// after it was emitted or freed) is refused instead of read. Thread-safe.
void AddLiveHandle(const void* handle);
bool IsLiveHandle(const void* handle);

// End a handle's life: it leaves the live set, its magic becomes kDeadMagic
// and its contents are released. Its memory is then held in a bounded
// quarantine (kQuarantinedHandles of each type, oldest freed first) rather
// than freed, so the allocator cannot give the same address to one of the
// next handles: a stale handle is detected as long as fewer than that many
// handles of its type died after it. Past that, detection is best effort.
// Thread-safe; never throws.
inline constexpr size_t kQuarantinedHandles = 256;
void RetireAnalysis(casefile_analysis* analysis) noexcept;
void RetireBuilder(casefile_finding_builder* builder) noexcept;

// While a plugin's init runs on this thread: the names it registers, so a
// failing init can be undone. nullptr otherwise. Set by plugin_c.cc, filled
// by casefile_analyzer_register.
std::vector<std::string>*& PluginRegistrations();

}  // namespace casefile::capi
