// The one exception type of the core. The C API bridge maps each ErrorCode to
// a casefile_status; nothing else may be thrown across stage boundaries
// (std::bad_alloc aside, which the bridge maps to CASEFILE_E_NOMEM).
#pragma once

#include <stdexcept>
#include <string>

namespace casefile {

enum class ErrorCode {
  kArgument,         // a caller passed something invalid
  kMisuse,           // an API used in the wrong order or on a closed handle
  kIo,               // the operating system refused a read or write
  kNotFound,         // an input path does not exist
  kCorrupt,          // input bytes that cannot be decoded (archive, gzip)
  kUnsupported,      // a format or feature we do not read
  kIndexVersion,     // an index written by an incompatible casefile
  kLimit,            // a configured resource limit was hit
  kQuery,            // SQL that SQLite rejected
  kReadOnly,         // a write attempted through the read-only query path
  kUnknownAnalyzer,  // an analyzer name that is not registered
  kRules,            // a rule pack that does not validate
  kPlugin,           // a plugin that cannot be loaded or was refused
  kAborted,          // a user callback asked to stop
  kInternal,         // a bug in casefile
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace casefile
