// Command-line parsing shared by the subcommands: long flags only
// ("--flag", "--flag VALUE", "--flag=VALUE"), "-h" for help, and "--" to end
// flags so a bundle or SQL may start with "-".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace casefile_cli {

struct FlagSpec {
  const char* name;  // without "--"
  bool takes_value;
};

class Args {
 public:
  // Throws UsageError(command, ...) for an unknown flag or a missing value.
  // "--help"/"-h" is always accepted and sets help().
  Args(const std::string& command, const std::vector<std::string>& argv,
       const std::vector<FlagSpec>& specs);

  bool help() const { return help_; }
  const std::vector<std::string>& positional() const { return positional_; }
  bool Has(const std::string& flag) const { return values_.count(flag) != 0; }
  // The flag's value (the last one given), or nullopt when absent.
  std::optional<std::string> Value(const std::string& flag) const;
  // One of `allowed`, or `fallback` when absent; a usage error otherwise.
  std::string Choice(const std::string& flag, const std::vector<std::string>& allowed,
                     const std::string& fallback) const;
  // A non-negative integer, or `fallback` when absent.
  long long NonNegative(const std::string& flag, long long fallback) const;
  // A size or count of at least 1 and at most `max`: digits, optionally
  // followed by K, M, G or T (or KiB, MiB, GiB, TiB; any case), powers of
  // 1024. `fallback` when absent.
  uint64_t Size(const std::string& flag, uint64_t fallback, uint64_t max) const;

 private:
  std::string command_;
  bool help_ = false;
  std::vector<std::string> positional_;
  std::map<std::string, std::string> values_;  // "" for flags without a value
};

// A flag's duration in milliseconds: a whole number with ms, s, m, h, d or w
// ("90", "90s", "500ms", "5m"; no unit means seconds). Zero is a usage error
// unless `allow_zero`. Messages name `command` and --`flag`.
uint64_t ParseDuration(const std::string& command, const std::string& flag, const std::string& text,
                       bool allow_zero = false);

// Splits "a,b, c" into {"a", "b", "c"}; empty items are a usage error.
std::vector<std::string> SplitList(const std::string& command, const std::string& flag,
                                   const std::string& list);

}  // namespace casefile_cli
