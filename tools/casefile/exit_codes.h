// Exit codes of the casefile CLI, and the one error type its commands throw.
// docs/CLI.md lists the codes; scripts rely on them, so they never change.
#pragma once

#include <stdexcept>
#include <string>

#include "casefile.h"

namespace casefile_cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitFindings = 1,      // a finding at or above --fail-on
  kExitUsage = 2,         // bad command line, unknown analyzer, refused or bad SQL
  kExitInput = 3,         // input unreadable, corrupt or read only in part
  kExitInternal = 4,      // a bug, or out of memory
  kExitInterrupted = 130  // SIGINT, as a shell reports it
};

// What a command throws to stop: main prints "casefile: <message>" on stderr
// (plus a --help hint for usage errors) and exits with `code`.
class CliError : public std::runtime_error {
 public:
  CliError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// A usage error of `command` ("" for the top level).
CliError UsageError(const std::string& command, const std::string& message);

// The exit code a failed library call maps to.
int ExitCodeForStatus(casefile_status status);

// The library's message without its leading "casefile_<function>: " (the
// function name helps a binding's author, not a CLI user).
std::string CleanMessage(const char* message);

// Throws CliError for a failed status (anything but OK and PARTIAL). Frees
// `err` in every case and resets it. By reference, so that in
// Check(casefile_x(..., &err), err) the error is read after the call made it
// (a by-value argument may be copied before the other one runs).
void Check(casefile_status status, casefile_error*& err);

// Set by the SIGINT handler; progress and row callbacks poll it and stop.
bool Interrupted();
void InstallInterruptHandler();

}  // namespace casefile_cli
