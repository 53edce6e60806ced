// Runs the command table for a collection: a few commands at a time (a hung
// nvidia-smi must not hold up df), each with its timeout and its fallback,
// and records what each did for the manifest's "commands".
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "collect/collect_options.h"

namespace casefile::collect {

inline constexpr unsigned kParallelCommands = 4;

// One command as it ran (a fallback is a record of its own, with the same
// name). stdout_path / stderr_path are filled in by the caller once the
// outputs have bundle paths.
struct CommandRecord {
  std::string name;
  std::vector<std::string> argv;
  std::optional<int> exit_status;
  std::optional<int> signal;
  uint64_t duration_ms = 0;
  bool timed_out = false;
  std::string error;  // "command not found", "timed out after 20000 ms; killed", ...
  bool output_truncated = false;
  std::string stdout_path;
  std::string stderr_path;
};

struct CommandOutput {
  size_t spec_index = 0;
  size_t record_index = 0;  // the record whose output this is
  std::string out;
  std::string err;
};

struct CommandRun {
  std::vector<CommandRecord> records;  // in table order; a fallback right after its command
  std::vector<CommandOutput> outputs;  // commands that started, in table order
  std::vector<CollectError> errors;    // timeouts, truncated output
};

// Called on the calling thread as commands finish; false cancels the rest
// (running commands are stopped as on a timeout) and RunCommandTable throws
// Error(kAborted).
using CommandProgressFn = std::function<bool(size_t done, size_t total, const std::string& name)>;

CommandRun RunCommandTable(const std::vector<CommandSpec>& table, uint32_t default_timeout_ms,
                           const CommandProgressFn& progress);

}  // namespace casefile::collect
