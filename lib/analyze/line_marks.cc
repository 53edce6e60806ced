#include "analyze/line_marks.h"

#include <cstring>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "analyze/analyzers/hang/megascale_parser.h"
#include "analyze/analyzers/runtime/cuda_text.h"
#include "analyze/analyzers/runtime/kernel_lines.h"
#include "analyze/rules/rule_matcher.h"
#include "analyze/rules/rules_analyzer.h"
#include "analyze/rules/rules_registry.h"
#include "common/version.h"
#include "index/index_reader.h"

namespace casefile {
namespace {

// Distinct (pid, rank, host) kept per file. Past it every line with a pid
// is marked: more blocks read, never a first line missed.
constexpr size_t kMaxPidKeys = 4096;

// The built-in packs' matcher, built once per process.
struct BuiltinRules {
  rules::RuleMatcher matcher{rules::BuiltinRulePacks()};
  std::vector<char> all = std::vector<char>(matcher.rules().size(), 1);
  std::string version = rules::RulesVersion(rules::BuiltinRulePacks());
};

const BuiltinRules& Builtin() {
  static const BuiltinRules kRules;
  return kRules;
}

constexpr const char* kMetaKey = "line_marks";

std::string MetaValue(const std::string& rules_version) {
  return std::to_string(kLineMarksVersion) + " " + rules_version;
}

// Marks the lines of one file, in order. Not thread-safe (one per file).
class AnalysisLineMarker : public LineMarker {
 public:
  AnalysisLineMarker() : matcher_(Builtin().matcher) {}
  uint32_t Mark(const LineRecord& rec) override;

 private:
  const rules::RuleMatcher& matcher_;
  rules::RuleMatcher::Scratch scratch_;
  std::vector<rules::RuleHit> hits_;
  std::unordered_set<std::string> pids_;  // (pid, rank, host) seen, packed
  std::string key_;
  bool have_last_ = false;  // the previous line with a pid
  int64_t last_pid_ = -1;
  int32_t last_rank_ = -1;
  std::string last_host_;
};

uint32_t AnalysisLineMarker::Mark(const LineRecord& rec) {
  uint32_t marks = 0;
  const std::string_view msg = rec.message();
  matcher_.Match(msg, Builtin().all, scratch_, hits_);
  if (!hits_.empty()) marks |= kMarkRuleHit;
  if (hang::MegascaleParser::Opens(hang::ParserLineOf(rec))) marks |= kMarkMegascale;
  if (runtime::MayBeKernelEvent(msg) && runtime::ParseKernelLine(msg)) marks |= kMarkKernel;
  if (runtime::IsDeviceAssertionLine(msg)) marks |= kMarkAssert;
  if (rec.pid >= 0) {
    // Most lines carry the same process as the line before: no lookup.
    const bool as_before = have_last_ && rec.pid == last_pid_ && rec.rank == last_rank_ &&
                           rec.host == std::string_view(last_host_);
    if (pids_.size() >= kMaxPidKeys) {
      marks |= kMarkNewPid;
    } else if (!as_before) {
      key_.resize(sizeof rec.pid + sizeof rec.rank);
      std::memcpy(key_.data(), &rec.pid, sizeof rec.pid);
      std::memcpy(key_.data() + sizeof rec.pid, &rec.rank, sizeof rec.rank);
      key_.append(rec.host);
      if (pids_.insert(key_).second) marks |= kMarkNewPid;
    }
    if (!as_before) {
      have_last_ = true;
      last_pid_ = rec.pid;
      last_rank_ = rec.rank;
      last_host_.assign(rec.host);
    }
  }
  return marks;
}

}  // namespace

const LineMarking& AnalysisLineMarking() {
  static const LineMarking kMarking{[] { return std::make_unique<AnalysisLineMarker>(); }, kMetaKey,
                                    MetaValue(Builtin().version)};
  return kMarking;
}

uint32_t TrustedMarks(const IndexReader& index, const std::string& rules_version) {
  const std::string stored = index.Meta(kMetaKey);
  const std::string ours = MetaValue("");
  if (stored.compare(0, ours.size(), ours) != 0 ||
      index.Meta("casefile_version") != kVersionString) {
    return 0;
  }
  return stored == MetaValue(rules_version) ? kAllMarks : kAllMarks & ~kMarkRuleHit;
}

}  // namespace casefile
