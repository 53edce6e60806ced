// The C API bridge's internals: the handle structs behind the opaque C types,
// the argument checks and the one guard every entry point runs its body in.
// Nothing here is exported: the shared library is built with hidden visibility
// and a version script that keeps only casefile_*.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "casefile.h"
#include "common/error.h"
#include "diff/diff.h"
#include "engine/session.h"
#include "report/report.h"

namespace casefile::capi {

// Each handle starts with a magic number so a handle of the wrong type, or
// one already freed (its magic is overwritten with kDeadMagic before the
// memory is released), is reported as CASEFILE_E_MISUSE instead of being
// used. Detection after free is best effort: the memory may have been reused.
inline constexpr uint32_t kErrorMagic = 0xCF0E4404u;
inline constexpr uint32_t kSessionMagic = 0xCF05E551u;
inline constexpr uint32_t kReportMagic = 0xCF0E9047u;
inline constexpr uint32_t kFindingMagic = 0xCF0F1D01u;
inline constexpr uint32_t kDiffReportMagic = 0xCF0D1FF0u;
inline constexpr uint32_t kAnalysisMagic = 0xCF0A7A15u;
inline constexpr uint32_t kBuilderMagic = 0xCF0B1D07u;
inline constexpr uint32_t kDeadMagic = 0xDEADCF00u;

}  // namespace casefile::capi

struct casefile_error {
  uint32_t magic = casefile::capi::kErrorMagic;
  casefile_status status = CASEFILE_E_INTERNAL;
  std::string message;
};

struct casefile_session {
  uint32_t magic = casefile::capi::kSessionMagic;
  std::unique_ptr<casefile::Session> session;
  bool reused = false;     // set by the last index (explicit or done by analyze)
  std::string last_error;  // message of the last failed call on this session
};

// A finding owns a copy of everything it exposes, so its borrowed strings
// live exactly as long as the report that holds it.
struct casefile_finding {
  uint32_t magic = casefile::capi::kFindingMagic;
  casefile::Finding finding;
};

struct casefile_report {
  uint32_t magic = casefile::capi::kReportMagic;
  casefile::Report report;
  std::vector<casefile_finding> findings;  // same order as report.findings
  // Made with CASEFILE_OMIT_CONTEXT: no HTML or markdown.
  bool no_context = false;
};

// A diff report owns its items; the headline's summaries are kept as their
// own strings for the borrowed accessor.
struct casefile_diff_report {
  uint32_t magic = casefile::capi::kDiffReportMagic;
  casefile::diff::DiffReport report;
  std::vector<std::string> headline;
};

namespace casefile {
class AnalysisContext;
}  // namespace casefile
namespace casefile::capi {
class ExternalAnalyzer;  // external_analyzer.h
}  // namespace casefile::capi

struct casefile_finding_builder;

// What an external analyzer's run callback receives: one analyzer running
// over one index. It lives exactly as long as that callback call; the
// bridge keeps a set of live analysis and builder handles
// (external_analyzer.h) so one used after its call is refused as
// CASEFILE_E_MISUSE without touching freed memory.
struct casefile_analysis {
  uint32_t magic = casefile::capi::kAnalysisMagic;
  const casefile::capi::ExternalAnalyzer* analyzer = nullptr;
  casefile::AnalysisContext* context = nullptr;
  std::string error;  // casefile_analysis_set_error; the failure reason
  // A broken contract (an undeclared code): the analyzer fails whatever
  // its callback returns, so a callback that ignores the status cannot
  // slip a finding past its declaration.
  std::string violation;
  // Builders started and not yet emitted or freed; freed when the callback
  // returns.
  std::vector<casefile_finding_builder*> builders;
};

// A finding being built; the analysis it belongs to emits it.
struct casefile_finding_builder {
  uint32_t magic = casefile::capi::kBuilderMagic;
  casefile_analysis* analysis = nullptr;
  casefile::Finding finding;
};

namespace casefile::capi {

// Records a failure: *err (when err is not NULL) and, for a live session, its
// last error, as "<function>: <message><detail>". Never throws (its inputs are
// views, so callers allocate nothing either): when even the message cannot be
// allocated, *err receives a static out-of-memory error that
// casefile_error_free ignores.
casefile_status Fail(const char* function, casefile_session* session, casefile_error** err,
                     casefile_status status, std::string_view message,
                     std::string_view detail = {}) noexcept;

casefile_status StatusFromCode(ErrorCode code) noexcept;

// The one guard. Runs `body` (which returns a casefile_status), mapping
// casefile::Error to its status, std::bad_alloc to CASEFILE_E_NOMEM and any
// other exception to CASEFILE_E_INTERNAL. The message is prefixed with the
// function name. No exception leaves it.
template <class Body>
casefile_status Guard(const char* function, casefile_session* session, casefile_error** err,
                      Body&& body) noexcept {
  try {
    return body();
  } catch (const QueryTimeoutError& e) {
    // An Error(kLimit) in the core; the C API names it apart, so that a
    // caller can tell a slow query from a result that is too large.
    return Fail(function, session, err, CASEFILE_E_TIMEOUT, e.what());
  } catch (const Error& e) {
    return Fail(function, session, err, StatusFromCode(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    return Fail(function, session, err, CASEFILE_E_NOMEM, "out of memory");
  } catch (const std::exception& e) {
    return Fail(function, session, err, CASEFILE_E_INTERNAL, "internal error: ", e.what());
  } catch (...) {
    return Fail(function, session, err, CASEFILE_E_INTERNAL, "internal error: unknown exception");
  }
}

// CASEFILE_OK when `session` is a live session handle; else records and
// returns CASEFILE_E_ARGUMENT (NULL) or CASEFILE_E_MISUSE (freed or foreign).
casefile_status CheckSession(const char* function, casefile_session* session,
                             casefile_error** err) noexcept;

// CASEFILE_OK when 1 <= version <= current, else records CASEFILE_E_VERSION
// ("<what> version N is not known ...").
casefile_status CheckOptionsVersion(const char* function, casefile_session* session,
                                    casefile_error** err, unsigned int version,
                                    unsigned int current, const char* what) noexcept;

// NULL options mean defaults; a 0 limit keeps the default limit.
SessionOptions ToSessionOptions(const casefile_open_options* opts);
// The bounds of a query: NULL options or a 0 field mean the default
// (index/query_limits.h). The caller has checked the version.
QueryLimits ToQueryLimits(const casefile_query_options* opts);
// The analyzers to run (empty = all). Throws Error(kArgument) for a NULL
// array with a non-zero count, or a NULL name.
std::vector<std::string> AnalyzerNames(const casefile_analyze_options* opts);

// A C caller may pass any int as an enum argument, but in C++ loading a value
// outside the enum's range is undefined; the argument's bits are read as an
// int instead, and compared with the enumerators as ints.
template <class Enum>
int EnumBits(const Enum& value) noexcept {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized");
  int bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// A copy of `text` the caller owns and frees with casefile_string_free:
// malloc, not new, since that calls free(). Throws std::bad_alloc.
inline char* OwnedCopy(const std::string& text) {
  char* buffer = static_cast<char*>(std::malloc(text.size() + 1));
  if (buffer == nullptr) throw std::bad_alloc();
  std::memcpy(buffer, text.c_str(), text.size() + 1);
  return buffer;
}

// Accessor helpers: a valid handle of the right type, else nullptr.
const casefile_report* LiveReport(const casefile_report* report) noexcept;
const casefile_finding* LiveFinding(const casefile_finding* finding) noexcept;

}  // namespace casefile::capi

// Argument checks run before the guard, in the order the header promises:
// `err` cleared, `*out` cleared, then each required argument named in the
// message. They return from the calling entry point.
#define CASEFILE_CLEAR_ERR(err) \
  do {                          \
    if ((err) != nullptr) {     \
      *(err) = nullptr;         \
    }                           \
  } while (0)

#define CASEFILE_CHECK_ARG(function, session, err, arg)                          \
  do {                                                                           \
    if ((arg) == nullptr) {                                                      \
      return ::casefile::capi::Fail(function, session, err, CASEFILE_E_ARGUMENT, \
                                    "argument '" #arg "' is NULL");              \
    }                                                                            \
  } while (0)

#define CASEFILE_CHECK_OUT(function, err, out)       \
  do {                                               \
    CASEFILE_CHECK_ARG(function, nullptr, err, out); \
    *(out) = nullptr;                                \
  } while (0)
