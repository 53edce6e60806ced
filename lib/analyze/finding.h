// A finding: the contract of docs/FINDINGS.md. Every finding carries at least
// one piece of evidence pointing at a real line of the bundle.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace casefile {

enum class Severity { kInfo = 0, kWarning = 1, kError = 2 };
const char* SeverityName(Severity s);  // "info", "warning", "error"

struct Culprit {
  std::optional<std::string> host;
  std::optional<std::string> task;  // job/task id as the log names it ("worker/3")
  std::optional<int64_t> rank;
  bool operator<(const Culprit& o) const;
  bool operator==(const Culprit& o) const;
};

struct Evidence {
  std::string bundle;  // bundle display name
  std::string path;    // path inside the bundle
  int64_t line = 0;    // 1-based line number
  std::string text;    // the line as stored
  bool operator<(const Evidence& o) const;
};

struct Finding {
  std::string code;      // stable dotted id, e.g. "hang.bad_chip"
  std::string analyzer;  // the analyzer's name
  Severity severity = Severity::kError;
  std::string title;
  std::string summary;
  std::vector<Culprit> culprits;
  std::vector<Evidence> evidence;
  std::string recommendation;
  // An error that stands only when no other analyzer's error finding exists
  // (runtime.first_failure: "look here first" unless another finding already
  // names the cause). The runner lowers it to info otherwise and says which
  // finding explains the run.
  bool error_unless_explained = false;
};

// Sorts culprits and evidence and removes duplicates, so output is
// deterministic whatever order an analyzer found things in.
void Normalize(Finding& f);

}  // namespace casefile
