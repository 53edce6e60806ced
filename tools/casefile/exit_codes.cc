#include "exit_codes.h"

#include <csignal>
#include <cstring>
#include <string_view>

namespace casefile_cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void OnInterrupt(int) { g_interrupted = 1; }

}  // namespace

CliError UsageError(const std::string& command, const std::string& message) {
  std::string hint = command.empty() ? "casefile --help" : "casefile " + command + " --help";
  return CliError(kExitUsage, message + " (see '" + hint + "')");
}

int ExitCodeForStatus(casefile_status status) {
  switch (status) {
    case CASEFILE_OK:
    case CASEFILE_PARTIAL:
      return kExitOk;
    case CASEFILE_E_ARGUMENT:
    case CASEFILE_E_UNKNOWN_ANALYZER:
    case CASEFILE_E_QUERY:
    case CASEFILE_E_READ_ONLY:
    case CASEFILE_E_RULES:
    case CASEFILE_E_PLUGIN:
      return kExitUsage;
    case CASEFILE_E_IO:
    case CASEFILE_E_NOT_FOUND:
    case CASEFILE_E_CORRUPT:
    case CASEFILE_E_UNSUPPORTED:
    case CASEFILE_E_INDEX_VERSION:
    case CASEFILE_E_LIMIT:
    case CASEFILE_E_TIMEOUT:
      return kExitInput;
    case CASEFILE_E_ABORTED:
      return Interrupted() ? kExitInterrupted : kExitInternal;
    case CASEFILE_E_MISUSE:
    case CASEFILE_E_VERSION:
    case CASEFILE_E_NOMEM:
    case CASEFILE_E_INTERNAL:
      return kExitInternal;
  }
  return kExitInternal;
}

std::string CleanMessage(const char* message) {
  std::string m = message != nullptr ? message : "";
  constexpr std::string_view kPrefix = "casefile_";
  if (m.compare(0, kPrefix.size(), kPrefix) == 0) {
    size_t colon = m.find(": ");
    if (colon != std::string::npos && m.find(' ') > colon) m.erase(0, colon + 2);
  }
  return m;
}

void Check(casefile_status status, casefile_error*& err) {
  if (status == CASEFILE_OK || status == CASEFILE_PARTIAL) {
    casefile_error_free(err);
    err = nullptr;
    return;
  }
  std::string message = err != nullptr ? CleanMessage(casefile_error_message(err))
                                       : std::string(casefile_status_string(status));
  casefile_error_free(err);
  err = nullptr;
  if (status == CASEFILE_E_ABORTED && Interrupted()) message = "interrupted";
  if (message.empty()) message = casefile_status_string(status);
  throw CliError(ExitCodeForStatus(status), message);
}

bool Interrupted() { return g_interrupted != 0; }

void InstallInterruptHandler() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnInterrupt;
  // A second Ctrl-C kills at once, for when nothing is polling the flag.
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

}  // namespace casefile_cli
