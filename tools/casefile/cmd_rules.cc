// casefile rules list | check FILE...: the rule packs in use (built-in, and
// those given with --rules, which main loads before this runs), and a
// validator for pack files that prints every error as FILE:LINE:COL.
#define CASEFILE_EXPERIMENTAL 1  // casefile_rules_describe

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "commands.h"
#include "exit_codes.h"
#include "output.h"

namespace casefile_cli {

const char kRulesHelp[] =
    R"(Usage: casefile rules list [--format text|json]
       casefile rules check FILE...

Rule packs are JSON files of one-line failure signatures (docs/RULES.md).
The built-in packs are compiled into casefile; more are added to any
command with --rules FILE.

  list    the packs in use and their rules: the built-in packs, then those
          given with --rules. JSON is the shape of docs/RULES.md, "Listing".
  check   validates each FILE on its own and against the other packs in
          use, printing every error as FILE:LINE:COLUMN: message, or
          "FILE: valid". A FILE named like a built-in pack (a copy of
          one) is valid, with a note that --rules would refuse it.

Options:
  --format F   list output: text (default) or json
  -h, --help   show this help

Exit codes:
  0  every pack valid (check), or listed
  2  usage error, or a pack that does not validate
  3  a FILE that cannot be read
)";

namespace {

// casefile_rules_describe's JSON, read back for the text listing. The CLI
// sees only casefile.h, so it reads the few shapes that JSON uses itself:
// objects, arrays, strings, integers, booleans.
struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject } type = Type::kNull;
  std::string text;  // string value, or the number as written
  bool boolean = false;
  std::vector<Json> items;
  // An object's members as two parallel lists: a std::pair of the type
  // being defined is ill-formed (clang rejects it; libstdc++ lets it pass).
  std::vector<std::string> keys;
  std::vector<Json> values;
  const Json& operator[](std::string_view key) const {
    static const Json kNull;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == key) return values[i];
    }
    return kNull;
  }
};

class JsonReader {
 public:
  explicit JsonReader(std::string_view s) : s_(s) {}
  Json Read() {
    Space();
    Json v;
    if (pos_ >= s_.size()) return v;
    const char c = s_[pos_];
    if (c == '{') {
      v.type = Json::Type::kObject;
      ++pos_;
      while (Space(), pos_ < s_.size() && s_[pos_] != '}') {
        std::string key = String();
        Space();
        ++pos_;  // ':'
        Json value = Read();
        v.keys.push_back(std::move(key));
        v.values.push_back(std::move(value));
        Space();
        if (pos_ < s_.size() && s_[pos_] == ',') ++pos_;
      }
      ++pos_;
    } else if (c == '[') {
      v.type = Json::Type::kArray;
      ++pos_;
      while (Space(), pos_ < s_.size() && s_[pos_] != ']') {
        v.items.push_back(Read());
        Space();
        if (pos_ < s_.size() && s_[pos_] == ',') ++pos_;
      }
      ++pos_;
    } else if (c == '"') {
      v.type = Json::Type::kString;
      v.text = String();
    } else if (s_.substr(pos_, 4) == "true" || s_.substr(pos_, 5) == "false") {
      v.type = Json::Type::kBool;
      v.boolean = c == 't';
      pos_ += v.boolean ? 4 : 5;
    } else if (s_.substr(pos_, 4) == "null") {
      pos_ += 4;
    } else {
      v.type = Json::Type::kNumber;
      const size_t start = pos_;
      while (pos_ < s_.size() &&
             std::string_view("+-.eE0123456789").find(s_[pos_]) != std::string_view::npos)
        ++pos_;
      v.text = std::string(s_.substr(start, pos_ - start));
    }
    return v;
  }

 private:
  void Space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r'))
      ++pos_;
  }
  std::string String() {
    std::string out;
    ++pos_;  // '"'
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\\' && pos_ < s_.size()) {
        const char e = s_[pos_++];
        switch (e) {
          case 'n':
            c = '\n';
            break;
          case 't':
            c = '\t';
            break;
          case 'r':
            c = '\r';
            break;
          case 'b':
            c = '\b';
            break;
          case 'f':
            c = '\f';
            break;
          case 'u': {
            // The writer escapes only control characters this way.
            const unsigned long cp =
                std::strtoul(std::string(s_.substr(pos_, 4)).c_str(), nullptr, 16);
            pos_ += 4;
            c = static_cast<char>(cp < 0x80 ? cp : '?');
            break;
          }
          default:
            c = e;
        }
      }
      out += c;
    }
    ++pos_;
    return out;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// Each line made safe for a terminal on its own (TerminalSafe would show the
// line breaks as ^J).
void PrintLines(std::string_view text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string line = TerminalSafe(text.substr(start, end - start));
    std::printf("%s\n", line.c_str());
    start = end + 1;
  }
}

std::string Describe() {
  char* json = nullptr;
  casefile_error* err = nullptr;
  Check(casefile_rules_describe(&json, &err), err);
  std::string out(json);
  casefile_string_free(json);
  return out;
}

void PrintText(const Json& root) {
  std::string out;
  for (const Json& pack : root["packs"].items) {
    const size_t rules = pack["rules"].items.size();
    out += pack["name"].text + " (" + (pack["builtin"].boolean ? "built-in" : pack["source"].text) +
           ", " + std::to_string(rules) + " rule" + (rules == 1 ? "" : "s") + ")\n";
    if (!pack["description"].text.empty()) out += "  " + pack["description"].text + "\n";
    size_t width = 0;
    for (const Json& r : pack["rules"].items) width = std::max(width, r["code"].text.size());
    for (const Json& r : pack["rules"].items) {
      std::string code = r["code"].text;
      code.resize(width, ' ');
      std::string severity = r["severity"].text;
      severity.resize(7, ' ');
      std::string kinds;
      for (const Json& k : r["kinds"].items) kinds += (kinds.empty() ? "" : ",") + k.text;
      std::string match = r["match"].text;
      if (match == "regex") {
        match += " /" + r["regex"].text + "/";
      } else {
        match += " ";
        bool first = true;
        for (const Json& l : r["literals"].items) {
          match += (first ? "\"" : ", \"") + l.text + "\"";
          first = false;
        }
      }
      if (r["ignore_case"].boolean) match += " (ignore case)";
      out += "  " + code + "  " + severity + "  " + r["title"].text + "\n";
      out += "  " + std::string(width, ' ') + "           " + kinds + ": " + match + "\n";
    }
  }
  PrintLines(out);
}

int RunList(const Args& args) {
  if (args.positional().size() > 1) {
    throw UsageError("rules", "unexpected argument '" + args.positional()[1] + "'");
  }
  const std::string format = args.Choice("format", {"text", "json"}, "text");
  const std::string json = Describe();
  if (format == "json") {
    std::fwrite(json.data(), 1, json.size(), stdout);
    std::fputc('\n', stdout);
    return kExitOk;
  }
  PrintText(JsonReader(json).Read());
  return kExitOk;
}

// The name a valid pack file declares when a built-in pack has it (a copy
// of a built-in pack: valid on its own, refused when added), else "".
std::string BuiltinNameOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const std::string name = JsonReader(text).Read()["name"].text;
  if (name.empty()) return "";
  // Named locals: a temporary in a range-for's init would die before the
  // loop reads it.
  const std::string described = Describe();
  const Json root = JsonReader(described).Read();
  for (const Json& pack : root["packs"].items) {
    if (pack["builtin"].boolean && pack["name"].text == name) return name;
  }
  return "";
}

int RunCheck(const Args& args) {
  const auto& files = args.positional();
  if (files.size() < 2) throw UsageError("rules", "check needs at least one FILE");
  if (args.Has("format")) throw UsageError("rules", "--format applies to 'rules list'");
  int exit_code = kExitOk;
  for (size_t i = 1; i < files.size(); ++i) {
    casefile_error* err = nullptr;
    const casefile_status status = casefile_rules_check_file(files[i].c_str(), &err);
    if (status == CASEFILE_OK) {
      std::printf("%s: valid\n", TerminalSafe(files[i]).c_str());
      if (const std::string builtin = BuiltinNameOf(files[i]); !builtin.empty()) {
        std::printf(
            "%s: note: \"%s\" is the name of a built-in rule pack: --rules and "
            "casefile_rules_add_file refuse a pack of that name\n",
            TerminalSafe(files[i]).c_str(), TerminalSafe(builtin).c_str());
      }
      continue;
    }
    const std::string message = err ? casefile_error_message(err) : "";
    casefile_error_free(err);
    if (status == CASEFILE_E_RULES) {
      // The first line names the call and the count; one error per line
      // follows.
      const size_t newline = message.find('\n');
      const std::string errors =
          newline == std::string::npos ? message : message.substr(newline + 1);
      PrintLines(errors);
      exit_code = std::max(exit_code, static_cast<int>(kExitUsage));
      continue;
    }
    std::fprintf(stderr, "casefile: %s\n", TerminalSafe(CleanMessage(message.c_str())).c_str());
    exit_code = std::max(exit_code, ExitCodeForStatus(status));
  }
  return exit_code;
}

}  // namespace

int RunRules(const CommandArgs& argv) {
  Args args("rules", argv, {{"format", true}});
  if (args.help()) return PrintHelp(kRulesHelp);
  if (args.positional().empty()) throw UsageError("rules", "expected 'list' or 'check FILE...'");
  const std::string& verb = args.positional()[0];
  if (verb == "list") return RunList(args);
  if (verb == "check") return RunCheck(args);
  throw UsageError("rules", "unknown subcommand '" + verb + "' (expected 'list' or 'check')");
}

}  // namespace casefile_cli
