#include "args.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <string_view>

#include "exit_codes.h"

namespace casefile_cli {

Args::Args(const std::string& command, const std::vector<std::string>& argv,
           const std::vector<FlagSpec>& specs)
    : command_(command) {
  bool flags_done = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (flags_done || arg.size() < 2 || arg[0] != '-') {
      positional_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      help_ = true;
      continue;
    }
    // "-o FILE" is the one short option: --output, where a command has it.
    const bool short_output =
        arg == "-o" && std::any_of(specs.begin(), specs.end(), [](const FlagSpec& s) {
          return std::string_view(s.name) == "output";
        });
    if (!short_output && arg.compare(0, 2, "--") != 0) {
      throw UsageError(command_, "unknown option '" + arg + "'");
    }
    std::string name = short_output ? std::string("output") : arg.substr(2);
    std::optional<std::string> value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.erase(eq);
    }
    const FlagSpec* spec = nullptr;
    for (const auto& s : specs) {
      if (name == s.name) spec = &s;
    }
    if (spec == nullptr) throw UsageError(command_, "unknown option '--" + name + "'");
    if (spec->takes_value) {
      if (!value) {
        if (i + 1 >= argv.size()) {
          throw UsageError(command_, "option '--" + name + "' needs a value");
        }
        value = argv[++i];
      }
      values_[name] = *value;
    } else {
      if (value) throw UsageError(command_, "option '--" + name + "' takes no value");
      values_[name] = "";
    }
  }
}

std::optional<std::string> Args::Value(const std::string& flag) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Args::Choice(const std::string& flag, const std::vector<std::string>& allowed,
                         const std::string& fallback) const {
  std::optional<std::string> v = Value(flag);
  if (!v) return fallback;
  std::string list;
  for (const auto& a : allowed) {
    if (*v == a) return a;
    list += (list.empty() ? "" : ", ") + a;
  }
  throw UsageError(command_, "--" + flag + " must be one of " + list + ", not '" + *v + "'");
}

long long Args::NonNegative(const std::string& flag, long long fallback) const {
  std::optional<std::string> v = Value(flag);
  if (!v) return fallback;
  errno = 0;
  char* end = nullptr;
  long long n = std::strtoll(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0' || errno != 0 || n < 0 || (*v)[0] == '+' || (*v)[0] == ' ') {
    throw UsageError(command_, "--" + flag + " needs a non-negative integer, not '" + *v + "'");
  }
  return n;
}

uint64_t Args::Size(const std::string& flag, uint64_t fallback, uint64_t max) const {
  std::optional<std::string> v = Value(flag);
  if (!v) return fallback;
  auto bad = [&](const std::string& why) {
    return UsageError(command_, "--" + flag + " '" + *v + "' " + why);
  };
  const std::string& text = *v;
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) throw bad("is not a positive integer (optionally with K, M, G or T)");
  if (digits < text.size() && (text[digits] == '.' || text[digits] == ',')) {
    throw bad("is not a whole number");
  }
  std::string unit = text.substr(digits);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const struct {
    const char* name;
    unsigned shift;
  } kUnits[] = {{"", 0},   {"k", 10},   {"kib", 10}, {"m", 20},  {"mib", 20},
                {"g", 30}, {"gib", 30}, {"t", 40},   {"tib", 40}};
  unsigned shift = 64;
  for (const auto& u : kUnits) {
    if (unit == u.name) shift = u.shift;
  }
  if (shift == 64) throw bad("has an unknown unit (use K, M, G, T or KiB, MiB, GiB, TiB)");
  // Digits are accumulated with an overflow check; strtoull would accept a
  // sign and leading spaces.
  uint64_t n = 0;
  const std::string too_large = "is too large (at most " + std::to_string(max) + ")";
  for (size_t i = 0; i < digits; ++i) {
    uint64_t d = static_cast<uint64_t>(text[i] - '0');
    if (n > (UINT64_MAX - d) / 10) throw bad(too_large);
    n = n * 10 + d;
  }
  if (n == 0) throw bad("must be at least 1");
  if (shift > 0 && n > (UINT64_MAX >> shift)) throw bad(too_large);
  n <<= shift;
  if (n > max) throw bad(too_large);
  return n;
}

std::vector<std::string> SplitList(const std::string& command, const std::string& flag,
                                   const std::string& list) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? comma : comma - start);
    size_t b = item.find_first_not_of(" \t");
    size_t e = item.find_last_not_of(" \t");
    item = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    if (item.empty()) throw UsageError(command, "--" + flag + " has an empty item: '" + list + "'");
    items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

uint64_t ParseDuration(const std::string& command, const std::string& flag, const std::string& text,
                       bool allow_zero) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  auto bad = [&]() {
    return UsageError(command, "--" + flag + " '" + text +
                                   "' is not a duration (a whole number with ms, s, m, h, d or w)");
  };
  if (digits == 0 || digits > 12) throw bad();
  uint64_t n = std::stoull(text.substr(0, digits));
  const std::string unit = text.substr(digits);
  static const std::map<std::string, uint64_t> kUnits = {{"", 1000},
                                                         {"s", 1000},
                                                         {"ms", 1},
                                                         {"m", 60 * 1000},
                                                         {"h", 3600 * 1000},
                                                         {"d", 86400 * 1000},
                                                         {"w", 7 * 86400 * 1000ull}};
  auto it = kUnits.find(unit);
  if (it == kUnits.end()) throw bad();
  if (n == 0 && !allow_zero) throw UsageError(command, "--" + flag + " must be more than 0");
  return n * it->second;
}

}  // namespace casefile_cli
