#include "analyze/rules/rules_registry.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include "analyze/registry.h"
#include "analyze/rules/builtin_packs.h"
#include "analyze/rules/json_tree.h"
#include "analyze/rules/literal_automaton.h"
#include "analyze/rules/rules_analyzer.h"
#include "common/error.h"
#include "common/json_writer.h"

namespace casefile::rules {
namespace {

using PackList = std::vector<std::shared_ptr<const RulePack>>;

// The added packs and the analyzer over all packs, rebuilt lazily after a
// change. Guarded by State::mutex; readers copy the shared pointers out.
struct State {
  std::mutex mutex;
  PackList added;
  std::shared_ptr<const Analyzer> analyzer;  // null: rebuild on next use
  bool analyzer_valid = false;
};

State& GetState() {
  static State* state = new State();  // never destroyed: used at exit by late threads
  return *state;
}

// The owner of a code among built-in analyzers (not rules: the built-in
// packs are validated against each other by their own reader).
std::string AnalyzerCodeOwner(const std::string& code) {
  for (const auto& a : BuiltinAnalyzers()) {
    const auto& codes = a->info().codes;
    if (std::find(codes.begin(), codes.end(), code) != codes.end())
      return "the built-in analyzer '" + a->info().name + "'";
  }
  return "";
}

std::string PackOwning(const PackList& packs, const std::string& code, const std::string& except) {
  for (const auto& p : packs) {
    if (p->name == except) continue;
    for (const Rule& r : p->rules) {
      if (r.code == code)
        return (p->builtin ? "the built-in rule pack '" : "the rule pack '") + p->name + "'";
    }
  }
  return "";
}

PackList BuildBuiltinPacks() {
  PackList packs;
  std::vector<std::string> names;
  for (const BuiltinPackText& t : BuiltinPackTexts()) {
    const std::string source = "lib/analyze/rules/packs/" + std::string(t.file);
    PackContext context;
    context.code_owner = [&](const std::string& code) {
      std::string owner = AnalyzerCodeOwner(code);
      if (owner.empty()) owner = PackOwning(packs, code, "");
      return owner;
    };
    context.known_code = [&](const std::string& code) {
      return !PackOwning(packs, code, "").empty();
    };
    auto pack = std::make_shared<RulePack>();
    const std::vector<RuleError> errors = ParseRulePack(t.text, source, context, *pack);
    if (!errors.empty()) {
      throw Error(ErrorCode::kInternal,
                  "a built-in rule pack does not validate: " + RuleErrorMessage(source, errors));
    }
    if (std::find(names.begin(), names.end(), pack->name) != names.end()) {
      throw Error(ErrorCode::kInternal, "two built-in rule packs are named " + pack->name);
    }
    names.push_back(pack->name);
    pack->builtin = true;
    packs.push_back(std::move(pack));
  }
  return packs;
}

// What a pack is validated for: being added (its name may not be a
// built-in pack's), or only checked on its own merits (a copy of a built-in
// pack's file checks clean: `casefile rules check` on the packs/ folder).
enum class Purpose { kAdd, kCheck };

// The context a pack is read in: `packs` are those in use, `replacing` the
// pack of the same name, whose codes are free again (an added pack it would
// replace, or, when checking, the built-in pack it is a copy of).
PackContext PackContextFor(const PackList& packs, const std::string* replacing, Purpose purpose) {
  PackContext context;
  context.code_owner = [&packs, replacing](const std::string& code) {
    std::string owner = AnalyzerCodeOwner(code);
    if (owner.empty()) owner = PackOwning(packs, code, replacing ? *replacing : "");
    return owner;
  };
  context.known_code = [&packs, replacing](const std::string& code) {
    return !PackOwning(packs, code, replacing ? *replacing : "").empty();
  };
  if (purpose == Purpose::kCheck) return context;
  context.name_refused = [](const std::string& name) -> std::string {
    for (const auto& b : BuiltinRulePacks()) {
      if (b->name == name) {
        return "\"" + name +
               "\" is the name of a built-in rule pack, which cannot be replaced: give the pack "
               "another name";
      }
    }
    return "";
  };
  return context;
}

// The name a pack text declares (its top-level "name" string, "" when the
// text has none), so that a replacement's own codes are not reported as
// taken by the pack it replaces.
std::string DeclaredName(std::string_view text) {
  JsonParseError ignored;
  const std::unique_ptr<JsonValue> root = ParseJson(text, ignored);
  if (!root || root->type != JsonValue::Type::kObject) return "";
  const JsonValue* name = root->Find("name");
  return name && name->type == JsonValue::Type::kString ? name->string : "";
}

std::vector<RuleError> Validate(std::string_view text, const std::string& source,
                                const PackList& in_use, Purpose purpose, RulePack& pack) {
  if (text.size() > kMaxPackTextBytes) {
    return {{1, 1, "larger than 1 MiB: not a rule pack"}};
  }
  const std::string name = DeclaredName(text);
  const PackContext context = PackContextFor(in_use, name.empty() ? nullptr : &name, purpose);
  return ParseRulePack(text, source, context, pack);
}

// Why the packs `packs` cannot be in use together, "" when they can:
// an absent_if that names a code no pack emits any more (a pack it read
// was removed or replaced), or literals too many for one automaton.
// `change` says what is being done ("removing rule pack 'b'").
std::string InUseProblem(const PackList& packs, const std::string& change) {
  for (const auto& p : packs) {
    for (const Rule& r : p->rules) {
      for (const std::string& code : r.absent_if) {
        if (!PackOwning(packs, code, "").empty()) continue;
        return change + " would leave rule " + r.code + " of rule pack '" + p->name +
               "' with absent_if \"" + code +
               "\", a code no rule pack in use emits any more: change or remove '" + p->name +
               "' first";
      }
    }
  }
  AutomatonSize size;
  for (const auto& p : packs) {
    for (const Rule& r : p->rules) {
      if (r.match.kind == RuleMatch::Kind::kRegex) {
        size.Add(r.match.anchor);
      } else {
        for (const std::string& l : r.match.literals) size.Add(l);
      }
    }
  }
  if (size.entries_bound() > kMaxAutomatonEntries) {
    return change + " would make the literals of the rule packs in use need a table of up to " +
           std::to_string(size.entries_bound()) + " entries (at most " +
           std::to_string(kMaxAutomatonEntries) +
           "): remove a pack, or use fewer or shorter literals";
  }
  return "";
}

}  // namespace

const std::vector<std::shared_ptr<const RulePack>>& BuiltinRulePacks() {
  static const PackList packs = BuildBuiltinPacks();
  return packs;
}

const std::vector<std::string>& BuiltinRuleCodes() {
  static const std::vector<std::string> codes = [] {
    std::vector<std::string> out;
    for (const auto& p : BuiltinRulePacks()) {
      for (const Rule& r : p->rules) out.push_back(r.code);
    }
    std::sort(out.begin(), out.end());
    return out;
  }();
  return codes;
}

std::vector<std::shared_ptr<const RulePack>> RulePacksInUse() {
  PackList out = BuiltinRulePacks();
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mutex);
  out.insert(out.end(), state.added.begin(), state.added.end());
  return out;
}

std::shared_ptr<const Analyzer> CurrentRulesAnalyzer() {
  const PackList& builtin = BuiltinRulePacks();
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!state.analyzer_valid) {
    PackList packs = builtin;
    packs.insert(packs.end(), state.added.begin(), state.added.end());
    state.analyzer = packs.empty() ? nullptr : std::make_shared<RulesAnalyzer>(std::move(packs));
    state.analyzer_valid = true;
  }
  return state.analyzer;
}

void AddRulePack(std::string_view text, const std::string& source) {
  const PackList& builtin = BuiltinRulePacks();
  State& state = GetState();
  // Validation and the swap happen under one lock, so two packs added at
  // once cannot both claim the same code.
  std::lock_guard<std::mutex> lock(state.mutex);
  PackList in_use = builtin;
  in_use.insert(in_use.end(), state.added.begin(), state.added.end());
  auto pack = std::make_shared<RulePack>();
  const std::vector<RuleError> errors = Validate(text, source, in_use, Purpose::kAdd, *pack);
  if (!errors.empty()) throw Error(ErrorCode::kRules, RuleErrorMessage(source, errors));
  PackList added = state.added;
  auto it = std::find_if(added.begin(), added.end(),
                         [&](const auto& p) { return p->name == pack->name; });
  const std::string change =
      (it != added.end() ? "replacing rule pack '" : "adding rule pack '") + pack->name + "'";
  if (it != added.end()) {
    *it = std::move(pack);
  } else {
    added.push_back(std::move(pack));
  }
  PackList next = builtin;
  next.insert(next.end(), added.begin(), added.end());
  const std::string problem = InUseProblem(next, change);
  if (!problem.empty()) throw Error(ErrorCode::kRules, RuleErrorMessage(source, {{1, 1, problem}}));
  state.added.swap(added);
  state.analyzer_valid = false;
}

void RemoveRulePack(const std::string& name) {
  for (const auto& b : BuiltinRulePacks()) {
    if (b->name == name) {
      throw Error(ErrorCode::kArgument,
                  "'" + name + "' is a built-in rule pack; it cannot be removed");
    }
  }
  State& state = GetState();
  std::shared_ptr<const RulePack> removed;  // released after the lock
  std::lock_guard<std::mutex> lock(state.mutex);
  auto it = std::find_if(state.added.begin(), state.added.end(),
                         [&](const auto& p) { return p->name == name; });
  if (it == state.added.end()) {
    throw Error(ErrorCode::kArgument, "no rule pack named '" + name + "' was added");
  }
  PackList next = BuiltinRulePacks();
  for (const auto& p : state.added) {
    if (p != *it) next.push_back(p);
  }
  const std::string problem = InUseProblem(next, "removing rule pack '" + name + "'");
  if (!problem.empty()) throw Error(ErrorCode::kArgument, problem);
  removed = std::move(*it);
  state.added.erase(it);
  state.analyzer_valid = false;
}

std::vector<RuleError> CheckRulePack(std::string_view text, const std::string& source) {
  RulePack pack;
  const PackList in_use = RulePacksInUse();
  return Validate(text, source, in_use, Purpose::kCheck, pack);
}

std::string ReadRulePackFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) throw Error(ErrorCode::kNotFound, path + ": no such file");
    throw Error(ErrorCode::kIo, path + ": " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throw Error(ErrorCode::kIo, path + ": is a directory, not a rule pack");
  // Packs are small; a huge file is a mistake (a log given as a pack).
  if (st.st_size > static_cast<off_t>(kMaxPackTextBytes)) {
    throw Error(ErrorCode::kRules,
                RuleErrorMessage(path, {{1, 1, "larger than 1 MiB: not a rule pack"}}));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kIo, path + ": " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error(ErrorCode::kIo, path + ": read failed");
  return buffer.str();
}

namespace {

const char* MatchKindName(RuleMatch::Kind kind) {
  switch (kind) {
    case RuleMatch::Kind::kLiteral:
      return "literal";
    case RuleMatch::Kind::kAny:
      return "any";
    case RuleMatch::Kind::kRegex:
      return "regex";
  }
  return "literal";
}

}  // namespace

std::string DescribeRulePacks() {
  const PackList packs = RulePacksInUse();
  JsonWriter w;
  w.BeginObject();
  w.Key("analyzer_version").String(RulesVersion(packs));
  w.Key("packs").BeginArray();
  for (const auto& p : packs) {
    w.BeginObject();
    w.Key("name").String(p->name);
    w.Key("description").String(p->description);
    w.Key("builtin").Bool(p->builtin);
    w.Key("source").String(p->source);
    w.Key("rules").BeginArray();
    for (const Rule& r : p->rules) {
      w.BeginObject();
      w.Key("code").String(r.code);
      w.Key("severity").String(SeverityName(r.severity));
      w.Key("title").String(r.title);
      w.Key("kinds").BeginArray();
      for (const auto& k : r.kinds) w.String(k);
      w.EndArray();
      w.Key("match").String(MatchKindName(r.match.kind));
      if (r.match.kind == RuleMatch::Kind::kRegex) {
        w.Key("regex").String(r.match.regex);
        w.Key("anchor").String(r.match.anchor);
      } else {
        w.Key("literals").BeginArray();
        for (const auto& l : r.match.literals) w.String(l);
        w.EndArray();
      }
      w.Key("ignore_case").Bool(r.match.ignore_case);
      w.Key("min_count").Int(r.min_count);
      w.Key("min_hosts").Int(r.min_hosts);
      w.Key("absent_if").BeginArray();
      for (const auto& c : r.absent_if) w.String(c);
      w.EndArray();
      w.Key("max_evidence").Int(r.max_evidence);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

}  // namespace casefile::rules
