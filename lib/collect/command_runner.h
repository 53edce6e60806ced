// Runs one external command for the collector with a deadline: its own
// process group (so a timeout kills what it started too), stdin from
// /dev/null, stdout and stderr captured through poll() up to a cap. Nothing
// here throws for a command that fails: a missing binary, a non-zero exit, a
// signal or a timeout is recorded in the outcome, because a collection must
// go on when one tool is absent or hangs.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace casefile::collect {

inline constexpr size_t kMaxCommandOutputBytes = 32u << 20;

struct RunOptions {
  uint32_t timeout_ms = 20000;
  // After the timeout: SIGTERM to the group, this long to exit, then SIGKILL.
  uint32_t kill_grace_ms = 2000;
  size_t max_output_bytes = kMaxCommandOutputBytes;  // per stream; the rest is read and dropped
  // Checked every 100 ms; when set, the command is stopped as on a timeout.
  const std::atomic<bool>* cancel = nullptr;
  // Working directory of the command: "/" so that `python3 -m` never imports
  // a package from whatever directory the collector was started in.
  std::string cwd = "/";
  // Extra "KEY=VALUE" entries over the process environment (LC_ALL=C by
  // default, so that df, free and sysctl print in one format).
  std::vector<std::string> env_overrides = {"LC_ALL=C"};
};

struct CommandOutcome {
  std::vector<std::string> argv;
  bool started = false;
  std::string start_error;         // when not started: "command not found", or the OS's reason
  std::optional<int> exit_status;  // set when it exited
  std::optional<int> signal;       // set when a signal ended it
  bool timed_out = false;
  bool cancelled = false;
  uint64_t duration_ms = 0;
  std::string out;
  std::string err;
  bool out_truncated = false;
  bool err_truncated = false;

  // Started, exited on its own with status 0.
  bool succeeded() const { return started && exit_status == 0 && !timed_out && !cancelled; }
};

// Runs argv (argv[0] looked up in PATH). Never throws for the command's own
// failures; throws Error(kIo) only when no pipe can be created, and
// std::bad_alloc. Thread-safe: commands may run on several threads at once.
CommandOutcome RunCommand(const std::vector<std::string>& argv, const RunOptions& options);

}  // namespace casefile::collect
