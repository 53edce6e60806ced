#include "analyze/rules/rules_analyzer.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "analyze/line_marks.h"
#include "analyze/rules/rule_template.h"
#include "common/hash.h"

namespace casefile::rules {
namespace {

// What one rule collected over the lines.
struct RuleState {
  int64_t count = 0;
  std::set<std::string> hosts;
  std::set<Culprit> culprits;
  std::vector<Evidence> evidence;
  // The first match, for the summary.
  std::string first_host;
  std::string first_rank;
  std::string first_at;
  std::vector<std::optional<std::string>> first_groups;
};

std::optional<int64_t> ParseRank(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  int64_t value = 0;
  const char* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end || value < 0) return std::nullopt;
  return value;
}

std::string JoinHosts(const std::set<std::string>& hosts) {
  // Long lists are cut: the summary is one sentence.
  constexpr size_t kShown = 8;
  std::string out;
  size_t n = 0;
  for (const std::string& h : hosts) {
    if (n == kShown) {
      out += " and " + std::to_string(hosts.size() - kShown) + " more";
      break;
    }
    if (!out.empty()) out += ", ";
    out += h;
    ++n;
  }
  return out;
}

}  // namespace

std::string RulesVersion(const std::vector<std::shared_ptr<const RulePack>>& packs) {
  Fnv1a64 h;
  for (const auto& p : packs) {
    h.Update(p->name);
    h.UpdateU64(p->text.size());
    h.Update(p->text);
  }
  return "1-" + h.HexDigest();
}

RulesAnalyzer::RulesAnalyzer(std::vector<std::shared_ptr<const RulePack>> packs) : matcher_(packs) {
  info_.name = kRulesAnalyzerName;
  info_.version = RulesVersion(packs);
  std::string names;
  std::set<std::string> kinds;
  for (const auto& p : packs) {
    names += (names.empty() ? "" : ", ") + p->name;
    for (const Rule& r : p->rules) {
      info_.codes.push_back(r.code);
      kinds.insert(r.kinds.begin(), r.kinds.end());
    }
  }
  std::sort(info_.codes.begin(), info_.codes.end());
  info_.needed_kinds.assign(kinds.begin(), kinds.end());
  info_.description = "One-line failure signatures of the rule packs in use (" + names +
                      "), all matched in one pass over the lines (docs/RULES.md)";
}

namespace {

// What one rule collected over one file's lines; evidence lines become
// Evidence when the files are merged, in file order.
struct FileRuleState {
  int64_t count = 0;
  std::set<std::string> hosts;
  std::set<Culprit> culprits;
  std::vector<std::pair<int64_t, std::string>> evidence;  // (line, text)
  std::string first_host;
  std::string first_rank;
  int64_t first_line = 0;
  std::vector<std::optional<std::string>> first_groups;
};

class RuleFileLines : public FileLineConsumer {
 public:
  RuleFileLines(const RuleMatcher& matcher, const std::vector<char>& applies, bool marked)
      : matcher_(matcher), applies_(applies), marked_(marked) {}

  // Blocks where ingest found no rule of these packs matching are skipped.
  bool Wants(const BlockInfo& block) const override {
    return !marked_ || (block.scan_marks & kMarkRuleHit) != 0;
  }

  void Line(const LineRecord& rec) override {
    // Rules read the message: the line after the wrappers the line layer
    // strips ([rankN]:, host:pid:tid, timestamps, levels), so the same
    // rule matches however the line was prefixed, and ^ anchors at the
    // message.
    matcher_.Match(rec.message(), applies_, scratch_, hits_);
    for (RuleHit& hit : hits_) {
      const Rule& rule = *matcher_.rules()[hit.rule];
      FileRuleState& st = states[hit.rule];
      std::string host(rec.host);
      std::optional<int64_t> rank;
      if (rec.rank >= 0) rank = rec.rank;
      if (rule.capture_host.group > 0) {
        const auto& g = hit.groups[static_cast<size_t>(rule.capture_host.group)];
        if (g && !g->empty()) host = *g;
      }
      if (rule.capture_rank.group > 0) {
        if (auto r = ParseRank(hit.groups[static_cast<size_t>(rule.capture_rank.group)])) rank = r;
      }
      ++st.count;
      if (!host.empty()) st.hosts.insert(host);
      if (!host.empty() || rank) {
        Culprit c;
        if (!host.empty()) c.host = host;
        c.rank = rank;
        st.culprits.insert(std::move(c));
      }
      if (static_cast<int64_t>(st.evidence.size()) < rule.max_evidence)
        st.evidence.emplace_back(rec.line_no, std::string(rec.text));
      if (st.count == 1) {
        st.first_host = host;
        st.first_rank = rank ? std::to_string(*rank) : "";
        st.first_line = rec.line_no;
        st.first_groups = std::move(hit.groups);
      }
    }
  }

  void Finish() override {
    scratch_ = RuleMatcher::Scratch();
    hits_ = std::vector<RuleHit>();
  }
  bool Empty() const override { return states.empty(); }

  std::map<uint32_t, FileRuleState> states;  // by rule index; rules that matched only

 private:
  const RuleMatcher& matcher_;
  const std::vector<char>& applies_;
  const bool marked_;  // the index's rule marks are of these packs
  RuleMatcher::Scratch scratch_;
  std::vector<RuleHit> hits_;
};

class RuleScan : public LineScan {
 public:
  RuleScan(const RuleMatcher& matcher, const std::vector<std::string>& kinds, bool marked)
      : matcher_(matcher), marked_(marked) {
    const std::vector<const Rule*>& rules = matcher.rules();
    for (const std::string& kind : kinds) {
      std::vector<char> applies(rules.size(), 0);
      for (size_t r = 0; r < rules.size(); ++r) {
        const auto& k = rules[r]->kinds;
        applies[r] = std::find(k.begin(), k.end(), kind) != k.end();
      }
      applies_by_kind_.emplace(kind, std::move(applies));
    }
  }

  std::unique_ptr<FileLineConsumer> ForFile(const FileRow& file) const override {
    if (file.entry_type != "file" || file.line_count <= 0) return nullptr;
    const auto kind_it = applies_by_kind_.find(file.kind);
    if (kind_it == applies_by_kind_.end()) return nullptr;
    return std::make_unique<RuleFileLines>(matcher_, kind_it->second, marked_);
  }

 private:
  const RuleMatcher& matcher_;
  const bool marked_;
  std::map<std::string, std::vector<char>> applies_by_kind_;
};

}  // namespace

std::unique_ptr<LineScan> RulesAnalyzer::MakeLineScan(const AnalysisContext& ctx) const {
  const bool marked = (TrustedMarks(ctx.index(), info_.version) & kMarkRuleHit) != 0;
  return std::make_unique<RuleScan>(matcher_, info_.needed_kinds, marked);
}

void RulesAnalyzer::Run(AnalysisContext& ctx) const {
  const std::vector<const Rule*>& rules = matcher_.rules();
  const auto scan = FilledLineScan<RuleScan>(ctx, *this);
  // The files' states merged in file order: the same counts, first match
  // and evidence as one pass over the files in turn.
  std::vector<RuleState> states(rules.size());
  for (size_t i = 0; i < ctx.files().size(); ++i) {
    auto* file_lines = static_cast<RuleFileLines*>(scan->consumers[i].get());
    if (!file_lines) continue;
    const FileRow& file = ctx.files()[i];
    for (auto& [r, part] : file_lines->states) {
      RuleState& st = states[r];
      if (st.count == 0) {
        st.first_host = part.first_host;
        st.first_rank = part.first_rank;
        st.first_at = file.path + ":" + std::to_string(part.first_line);
        st.first_groups = std::move(part.first_groups);
      }
      st.count += part.count;
      st.hosts.merge(part.hosts);
      st.culprits.merge(part.culprits);
      for (const auto& [line_no, text] : part.evidence) {
        if (static_cast<int64_t>(st.evidence.size()) >= rules[r]->max_evidence) break;
        st.evidence.push_back(ctx.MakeEvidence(file.id, line_no, text));
      }
    }
  }

  // Conditions: counts first, then absent_if over the rules that met theirs
  // (no chains: a rule suppressed by absent_if still suppresses others).
  std::vector<char> met(rules.size(), 0);
  std::set<std::string> met_codes;
  for (size_t r = 0; r < rules.size(); ++r) {
    const RuleState& st = states[r];
    met[r] =
        st.count > 0 && st.count >= rules[r]->min_count &&
        (rules[r]->min_hosts <= 1 || static_cast<int64_t>(st.hosts.size()) >= rules[r]->min_hosts);
    if (met[r]) met_codes.insert(rules[r]->code);
  }
  for (size_t r = 0; r < rules.size(); ++r) {
    if (!met[r]) continue;
    const Rule& rule = *rules[r];
    RuleState& st = states[r];
    const bool suppressed = std::any_of(rule.absent_if.begin(), rule.absent_if.end(),
                                        [&](const std::string& c) { return met_codes.count(c); });
    if (suppressed) continue;
    Finding f;
    f.code = rule.code;
    f.analyzer = kRulesAnalyzerName;
    f.severity = rule.severity;
    f.title = rule.title;
    TemplateValues values;
    values.host = st.first_host;
    values.rank = st.first_rank;
    values.count = std::to_string(st.count);
    values.hosts = JoinHosts(st.hosts);
    values.first = st.first_at;
    values.groups = std::move(st.first_groups);
    values.group_names = &rule.match.group_names;
    f.summary = ExpandTemplate(rule.summary, values);
    f.recommendation = rule.recommendation;
    for (const Culprit& c : st.culprits) {
      if (f.culprits.size() == kMaxCulprits) break;
      f.culprits.push_back(c);
    }
    f.evidence = std::move(st.evidence);
    ctx.Emit(std::move(f));
  }
}

}  // namespace casefile::rules
