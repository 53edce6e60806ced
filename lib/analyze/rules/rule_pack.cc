#include "analyze/rules/rule_pack.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <set>

#include "analyze/rules/json_tree.h"
#include "analyze/rules/regex_pattern.h"
#include "analyze/rules/rule_template.h"

namespace casefile::rules {
namespace {

using Type = JsonValue::Type;

// A regex needs a literal of at least this many bytes for the automaton:
// shorter ones ("a", "::") hit nearly every line and the regex would run on
// all of them.
constexpr size_t kMinAnchorBytes = 3;

// Offset of the first control character of `s` (C0 or DEL) that is not
// allowed, or npos. NUL would cut a regex short at regcomp; escape
// sequences in a title or summary would rewrite the reader's terminal.
size_t FirstControl(std::string_view s, bool allow_tab, bool allow_newline) {
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != 0x7F) continue;
    if ((c == '\t' && allow_tab) || (c == '\n' && allow_newline)) continue;
    return i;
  }
  return std::string_view::npos;
}

std::string ControlName(unsigned char c) {
  static const char* const kHex = "0123456789ABCDEF";
  return std::string("U+00") + kHex[c >> 4] + kHex[c & 15];
}

bool ValidCode(std::string_view code) {
  // Dotted lower case, at least two parts: "runtime.disk_full".
  if (code.empty() || code.size() > 128) return false;
  size_t parts = 1;
  bool part_start = true;
  for (char c : code) {
    if (c == '.') {
      if (part_start) return false;
      ++parts;
      part_start = true;
      continue;
    }
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c == '_' && !part_start);
    if (!ok || (part_start && !(c >= 'a' && c <= 'z'))) return false;
    part_start = false;
  }
  return !part_start && parts >= 2;
}

bool ValidPackName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && (i == 0 || (c != '-' && c != '_' && c != '.'))) return false;
  }
  return true;
}

class PackReader {
 public:
  PackReader(std::string_view text, const PackContext& context) : text_(text), context_(context) {}

  std::vector<RuleError> Read(RulePack& pack) {
    JsonParseError syntax;
    const std::unique_ptr<JsonValue> root = ParseJson(text_, syntax);
    if (!root) {
      Error(syntax.offset, "invalid JSON: " + syntax.message);
      return Positioned();
    }
    if (root->type != Type::kObject) {
      Error(root->offset, "a rule pack is a JSON object {\"casefile_rules\": 1, ...}");
      return Positioned();
    }
    CheckKeys(*root, {"casefile_rules", "name", "description", "rules"}, "pack");
    const JsonValue* version = Required(*root, "casefile_rules", "pack");
    if (version && (version->type != Type::kNumber || !version->is_integer ||
                    version->number != kRulesFormatVersion)) {
      Error(version->offset,
            "\"casefile_rules\" must be 1 (the only format version this "
            "casefile reads)");
    }
    if (const JsonValue* name = RequiredString(*root, "name", "pack")) {
      if (!ValidPackName(name->string)) {
        Error(name->offset,
              "a pack name is lower case letters, digits, '-', '_' or '.', starting with a "
              "letter or digit, at most 64 bytes");
      } else if (context_.name_refused) {
        const std::string why = context_.name_refused(name->string);
        if (!why.empty()) Error(name->offset, why);
      }
      pack.name = name->string;
    }
    if (const JsonValue* d = OptionalString(*root, "description")) {
      NoControl(*d, "\"description\"", true, true);
      pack.description = d->string;
    }
    const JsonValue* rules = Required(*root, "rules", "pack");
    if (rules && rules->type != Type::kArray) {
      Error(rules->offset, "\"rules\" must be an array of rule objects");
    } else if (rules) {
      if (rules->items.empty()) Error(rules->offset, "\"rules\" is empty: a pack holds rules");
      for (const auto& item : rules->items) ReadRule(*item, pack);
      CheckAbsentIf(*rules, pack);
    }
    return Positioned();
  }

 private:
  void Error(size_t offset, std::string message) {
    errors_.push_back({offset, std::move(message)});
  }

  // The errors in text order with their lines and columns, found in one
  // pass over the text: PositionOf per error was quadratic (a pack of
  // 80000 unknown keys took 21 s).
  std::vector<RuleError> Positioned() {
    std::stable_sort(errors_.begin(), errors_.end(),
                     [](const auto& a, const auto& b) { return a.offset < b.offset; });
    std::vector<RuleError> out;
    out.reserve(errors_.size());
    PositionCursor cursor(text_);
    for (auto& e : errors_) {
      const TextPosition p = cursor.Advance(e.offset);
      out.push_back({p.line, p.column, std::move(e.message)});
    }
    return out;
  }

  // Refuses control characters in a string value: `what` says which
  // (tab and line feed allowed as the flags say). True when clean.
  bool NoControl(const JsonValue& v, const char* what, bool allow_tab, bool allow_newline) {
    const size_t at = FirstControl(v.string, allow_tab, allow_newline);
    if (at == std::string_view::npos) return true;
    const unsigned char c = static_cast<unsigned char>(v.string[at]);
    std::string allowed = allow_tab && allow_newline ? " (tab and \\n are allowed)"
                          : allow_tab                ? " (tab is allowed)"
                                                     : "";
    Error(InnerOffset(v, at),
          std::string("control character ") + ControlName(c) + " in " + what + allowed);
    return false;
  }

  // Counts a literal toward the pack's total and refuses one too long.
  bool LiteralSize(const JsonValue& v, const char* what) {
    if (v.string.size() > kMaxLiteralBytes) {
      Error(v.offset, std::string(what) + " is " + std::to_string(v.string.size()) +
                          " bytes; at most " + std::to_string(kMaxLiteralBytes));
      return false;
    }
    literal_bytes_ += v.string.size();
    if (literal_bytes_ > kMaxPackLiteralBytes && !reported_literal_total_) {
      reported_literal_total_ = true;
      Error(v.offset, "the literals and anchors of this pack exceed " +
                          std::to_string(kMaxPackLiteralBytes) + " bytes in all");
      return false;
    }
    return true;
  }

  // The offset of byte `inner` of a string value, when the string holds no
  // escapes (so offsets in the decoded string are offsets in the text);
  // else the value's opening quote.
  size_t InnerOffset(const JsonValue& v, size_t inner) const {
    const std::string_view raw = text_.substr(v.offset + 1, v.string.size());
    if (raw == v.string) return v.offset + 1 + inner;
    return v.offset;
  }

  void CheckKeys(const JsonValue& object, std::initializer_list<std::string_view> known,
                 const char* what) {
    for (const JsonMember& m : object.members) {
      if (std::find(known.begin(), known.end(), m.key) != known.end()) continue;
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      Error(m.key_offset, "unknown key \"" + m.key + "\" in a " + what + " (known: " + list + ")");
    }
  }

  const JsonValue* Required(const JsonValue& object, const char* key, const char* what) {
    const JsonValue* v = object.Find(key);
    if (!v) Error(object.offset, std::string("the ") + what + " has no \"" + key + "\"");
    return v;
  }

  const JsonValue* RequiredString(const JsonValue& object, const char* key, const char* what) {
    const JsonValue* v = Required(object, key, what);
    if (!v) return nullptr;
    if (v->type != Type::kString) {
      Error(v->offset,
            std::string("\"") + key + "\" must be a string, not " + JsonTypeName(v->type));
      return nullptr;
    }
    if (v->string.empty()) {
      Error(v->offset, std::string("\"") + key + "\" is empty");
      return nullptr;
    }
    return v;
  }

  const JsonValue* OptionalString(const JsonValue& object, const char* key) {
    const JsonValue* v = object.Find(key);
    if (!v) return nullptr;
    if (v->type != Type::kString) {
      Error(v->offset,
            std::string("\"") + key + "\" must be a string, not " + JsonTypeName(v->type));
      return nullptr;
    }
    return v;
  }

  // An integer in [low, high]; the default when absent.
  int64_t OptionalInt(const JsonValue& object, const char* key, int64_t fallback, int64_t low,
                      int64_t high) {
    const JsonValue* v = object.Find(key);
    if (!v) return fallback;
    if (v->type != Type::kNumber || !v->is_integer || v->number < static_cast<double>(low) ||
        v->number > static_cast<double>(high)) {
      Error(v->offset, std::string("\"") + key + "\" must be an integer from " +
                           std::to_string(low) + " to " + std::to_string(high));
      return fallback;
    }
    return static_cast<int64_t>(v->number);
  }

  // A non-empty array of non-empty strings.
  std::vector<std::string> StringList(const JsonValue& v, const char* key) {
    std::vector<std::string> out;
    if (v.type != Type::kArray) {
      Error(v.offset, std::string("\"") + key + "\" must be an array of strings");
      return out;
    }
    if (v.items.empty()) Error(v.offset, std::string("\"") + key + "\" is empty");
    for (const auto& item : v.items) {
      if (item->type != Type::kString || item->string.empty()) {
        Error(item->offset, std::string("\"") + key + "\" holds non-empty strings only");
        continue;
      }
      out.push_back(item->string);
    }
    return out;
  }

  void ReadRule(const JsonValue& v, RulePack& pack) {
    if (v.type != Type::kObject) {
      Error(v.offset, "a rule is an object {\"code\": ..., \"match\": ...}");
      return;
    }
    CheckKeys(v,
              {"code", "severity", "title", "summary", "recommendation", "kinds", "match",
               "captures", "min_count", "min_hosts", "absent_if", "max_evidence"},
              "rule");
    Rule rule;
    if (const JsonValue* code = RequiredString(v, "code", "rule")) {
      rule.code = code->string;
      if (!ValidCode(rule.code)) {
        Error(code->offset,
              "\"" + rule.code +
                  "\" is not a finding code: dotted lower case, at least two parts, each a "
                  "letter then letters, digits or '_' (\"team.disk_full\")");
      } else if (!seen_codes_.insert(rule.code).second) {
        Error(code->offset, "code \"" + rule.code + "\" is used by another rule of this pack");
      } else if (context_.code_owner) {
        const std::string owner = context_.code_owner(rule.code);
        if (!owner.empty()) {
          Error(code->offset, "code \"" + rule.code + "\" belongs to " + owner);
        }
      }
    }
    if (const JsonValue* s = RequiredString(v, "severity", "rule")) {
      if (s->string == "error") {
        rule.severity = Severity::kError;
      } else if (s->string == "warning") {
        rule.severity = Severity::kWarning;
      } else if (s->string == "info") {
        rule.severity = Severity::kInfo;
      } else {
        Error(s->offset, "\"severity\" is \"error\", \"warning\" or \"info\"");
      }
    }
    // A title is one line of a listing; summaries and recommendations are
    // paragraphs: tab and line feed are fine there, nothing else.
    if (const JsonValue* t = RequiredString(v, "title", "rule")) {
      NoControl(*t, "\"title\" (a title is one line)", false, false);
      rule.title = t->string;
    }
    if (const JsonValue* r = RequiredString(v, "recommendation", "rule")) {
      NoControl(*r, "\"recommendation\"", true, true);
      rule.recommendation = r->string;
    }
    rule.kinds = {"log"};
    if (const JsonValue* k = v.Find("kinds")) {
      std::vector<std::string> kinds = StringList(*k, "kinds");
      if (!kinds.empty()) rule.kinds.clear();
      for (size_t i = 0; i < kinds.size(); ++i) {
        const auto& known = RuleFileKinds();
        if (std::find(known.begin(), known.end(), kinds[i]) == known.end()) {
          std::string list;
          for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
          Error(k->items[i]->offset,
                "unknown file kind \"" + kinds[i] + "\" (known: " + list + ")");
          continue;
        }
        if (std::find(rule.kinds.begin(), rule.kinds.end(), kinds[i]) == rule.kinds.end())
          rule.kinds.push_back(kinds[i]);
      }
    }
    const JsonValue* match = Required(v, "match", "rule");
    bool match_ok = false;
    if (match) match_ok = ReadMatch(*match, rule.match);
    if (const JsonValue* c = v.Find("captures")) ReadCaptures(*c, rule, match_ok);
    if (const JsonValue* s = v.Find("summary")) {
      if (s->type != Type::kString) {
        Error(s->offset, "\"summary\" must be a string, not " + std::string(JsonTypeName(s->type)));
      } else if (NoControl(*s, "\"summary\"", true, true)) {
        rule.summary = s->string;
        if (match_ok || rule.match.kind != RuleMatch::Kind::kRegex) {
          size_t at = 0;
          const std::string problem = CheckTemplate(s->string, rule.match.group_names, &at);
          if (!problem.empty()) Error(InnerOffset(*s, at), problem);
        }
      }
    } else {
      rule.summary = "{count} matching line(s) on {hosts}, first at {first}.";
    }
    rule.min_count = OptionalInt(v, "min_count", 1, 1, 1'000'000'000);
    rule.min_hosts = OptionalInt(v, "min_hosts", 1, 1, 1'000'000);
    rule.max_evidence = OptionalInt(v, "max_evidence", 5, 1, kMaxEvidenceLimit);
    if (const JsonValue* a = v.Find("absent_if")) {
      rule.absent_if = StringList(*a, "absent_if");
      absent_if_.push_back({a, pack.rules.size()});
    }
    pack.rules.push_back(std::move(rule));
  }

  bool ReadMatch(const JsonValue& v, RuleMatch& m) {
    if (v.type != Type::kObject) {
      Error(v.offset,
            "\"match\" is an object: {\"literal\": ...}, {\"any\": [...]} or "
            "{\"regex\": ...}");
      return false;
    }
    CheckKeys(v, {"literal", "any", "regex", "ignore_case", "anchor"}, "match");
    const JsonValue* literal = v.Find("literal");
    const JsonValue* any = v.Find("any");
    const JsonValue* regex = v.Find("regex");
    const int kinds = (literal ? 1 : 0) + (any ? 1 : 0) + (regex ? 1 : 0);
    if (kinds != 1) {
      Error(v.offset, "\"match\" holds exactly one of \"literal\", \"any\" or \"regex\"");
      return false;
    }
    if (const JsonValue* ic = v.Find("ignore_case")) {
      if (ic->type != Type::kBool) {
        Error(ic->offset, "\"ignore_case\" must be true or false");
      } else {
        m.ignore_case = ic->boolean;
      }
    }
    const JsonValue* anchor = v.Find("anchor");
    if (anchor && !regex) {
      Error(anchor->offset, "\"anchor\" is for regex rules (a literal is its own anchor)");
    }
    if (literal) {
      m.kind = RuleMatch::Kind::kLiteral;
      if (literal->type != Type::kString || literal->string.empty()) {
        Error(literal->offset, "\"literal\" must be a non-empty string");
        return false;
      }
      if (!NoControl(*literal, "\"literal\"", true, false)) return false;
      if (!LiteralSize(*literal, "\"literal\"")) return false;
      m.literals = {literal->string};
      return true;
    }
    if (any) {
      m.kind = RuleMatch::Kind::kAny;
      const size_t before = errors_.size();
      m.literals = StringList(*any, "any");
      if (any->type == Type::kArray) {
        for (const auto& item : any->items) {
          if (item->type != Type::kString) continue;
          if (NoControl(*item, "an \"any\" literal", true, false))
            LiteralSize(*item, "an \"any\" literal");
        }
      }
      return errors_.size() == before;
    }
    m.kind = RuleMatch::Kind::kRegex;
    if (regex->type != Type::kString || regex->string.empty()) {
      Error(regex->offset, "\"regex\" must be a non-empty string");
      return false;
    }
    if (!NoControl(*regex, "\"regex\" (NUL would end it early)", true, false)) return false;
    m.regex = regex->string;
    PreparedRegex prepared = PrepareRegex(m.regex);
    if (!prepared.error.empty()) {
      Error(InnerOffset(*regex, prepared.error_at), "regex: " + prepared.error);
      return false;
    }
    const CompiledRegex compiled(prepared.posix, m.ignore_case);
    if (!compiled.error().empty()) {
      Error(regex->offset, "regex does not compile (POSIX extended syntax): " + compiled.error());
      return false;
    }
    m.posix = std::move(prepared.posix);
    m.group_names = std::move(prepared.group_names);
    m.group_names.resize(compiled.group_count() + 1);
    if (anchor) {
      if (anchor->type != Type::kString || anchor->string.size() < kMinAnchorBytes) {
        Error(anchor->offset, "\"anchor\" must be a string of at least 3 bytes");
        return false;
      }
      if (!NoControl(*anchor, "\"anchor\"", true, false)) return false;
      if (!LiteralSize(*anchor, "\"anchor\"")) return false;
      m.anchor = anchor->string;
      m.anchor_given = true;
      return true;
    }
    m.anchor = RequiredLiteral(m.posix);
    if (m.anchor.size() < kMinAnchorBytes) {
      Error(regex->offset,
            "regex has no literal of at least 3 bytes that every match contains, so it would run "
            "on every line; add \"anchor\": \"<text every matching line holds>\" to the match");
      return false;
    }
    literal_bytes_ += m.anchor.size();  // at most kMaxRegexBytes
    if (literal_bytes_ > kMaxPackLiteralBytes && !reported_literal_total_) {
      reported_literal_total_ = true;
      Error(regex->offset, "the literals and anchors of this pack exceed " +
                               std::to_string(kMaxPackLiteralBytes) + " bytes in all");
      return false;
    }
    return true;
  }

  void ReadCaptures(const JsonValue& v, Rule& rule, bool match_ok) {
    if (v.type != Type::kObject) {
      Error(v.offset, "\"captures\" is an object {\"host\": N or \"name\", \"rank\": ...}");
      return;
    }
    CheckKeys(v, {"host", "rank"}, "captures");
    if (rule.match.kind != RuleMatch::Kind::kRegex) {
      Error(v.offset, "\"captures\" needs a regex match (literals capture nothing)");
      return;
    }
    if (!match_ok) return;
    const auto& names = rule.match.group_names;
    const size_t groups = names.size() - 1;
    auto read = [&](const char* key, CaptureRef& ref) {
      const JsonValue* g = v.Find(key);
      if (!g) return;
      if (g->type == Type::kNumber && g->is_integer) {
        if (g->number < 1 || g->number > static_cast<double>(groups)) {
          Error(g->offset, std::string("\"") + key + "\": the regex has " + std::to_string(groups) +
                               " capture group" + (groups == 1 ? "" : "s"));
          return;
        }
        ref.group = static_cast<int>(g->number);
        return;
      }
      if (g->type == Type::kString) {
        for (size_t i = 1; i < names.size(); ++i) {
          if (names[i] == g->string) {
            ref.group = static_cast<int>(i);
            ref.name = g->string;
            return;
          }
        }
        Error(g->offset, "no group named \"" + g->string + "\" in the regex");
        return;
      }
      Error(g->offset, std::string("\"") + key + "\" is a group number or a group name");
    };
    read("host", rule.capture_host);
    read("rank", rule.capture_rank);
  }

  void CheckAbsentIf(const JsonValue&, const RulePack& pack) {
    for (const auto& [array, index] : absent_if_) {
      const Rule& rule = pack.rules[index];
      for (size_t i = 0; i < array->items.size() && i < rule.absent_if.size(); ++i) {
        const JsonValue& item = *array->items[i];
        if (item.type != Type::kString) continue;
        const std::string& code = item.string;
        if (code == rule.code) {
          Error(item.offset, "a rule cannot be absent_if its own code");
        } else if (!seen_codes_.count(code) &&
                   !(context_.known_code && context_.known_code(code))) {
          Error(item.offset, "absent_if names \"" + code +
                                 "\", which no rule of the packs in use emits (absent_if reads "
                                 "rule codes only)");
        }
      }
    }
  }

  std::string_view text_;
  const PackContext& context_;
  struct OffsetError {
    size_t offset;
    std::string message;
  };
  std::vector<OffsetError> errors_;
  std::set<std::string> seen_codes_;
  size_t literal_bytes_ = 0;  // literals and anchors so far
  bool reported_literal_total_ = false;
  std::vector<std::pair<const JsonValue*, size_t>> absent_if_;  // (array, rule index)
};

}  // namespace

const std::vector<std::string>& RuleFileKinds() {
  static const std::vector<std::string> kinds = {"log",   "sysinfo", "version", "config",
                                                 "other", "hlo",     "trace"};
  return kinds;
}

std::vector<RuleError> ParseRulePack(std::string_view text, const std::string& source,
                                     const PackContext& context, RulePack& pack) {
  RulePack read;
  PackReader reader(text, context);
  std::vector<RuleError> errors = reader.Read(read);
  if (!errors.empty()) return errors;
  read.source = source;
  read.text = std::string(text);
  pack = std::move(read);
  return errors;
}

std::string FormatRuleErrors(const std::string& source, const std::vector<RuleError>& errors) {
  std::string out;
  for (const RuleError& e : errors) {
    if (!out.empty()) out += '\n';
    out +=
        source + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) + ": " + e.message;
  }
  return out;
}

std::string RuleErrorMessage(const std::string& source, const std::vector<RuleError>& errors) {
  return std::to_string(errors.size()) + (errors.size() == 1 ? " error" : " errors") +
         " in rule pack " + source + "\n" + FormatRuleErrors(source, errors);
}

}  // namespace casefile::rules
