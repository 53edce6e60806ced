// Status codes, error objects and the failure path shared by every entry point.
#include <cstdlib>

#include "capi_internal.h"

namespace casefile::capi {
namespace {

// Handed out when an error object cannot be allocated; casefile_error_free
// recognises it and does not delete it.
casefile_error kOutOfMemoryError{kErrorMagic, CASEFILE_E_NOMEM, {}};

}  // namespace

casefile_status StatusFromCode(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kArgument:
      return CASEFILE_E_ARGUMENT;
    case ErrorCode::kMisuse:
      return CASEFILE_E_MISUSE;
    case ErrorCode::kIo:
      return CASEFILE_E_IO;
    case ErrorCode::kNotFound:
      return CASEFILE_E_NOT_FOUND;
    case ErrorCode::kCorrupt:
      return CASEFILE_E_CORRUPT;
    case ErrorCode::kUnsupported:
      return CASEFILE_E_UNSUPPORTED;
    case ErrorCode::kIndexVersion:
      return CASEFILE_E_INDEX_VERSION;
    case ErrorCode::kLimit:
      return CASEFILE_E_LIMIT;
    case ErrorCode::kQuery:
      return CASEFILE_E_QUERY;
    case ErrorCode::kReadOnly:
      return CASEFILE_E_READ_ONLY;
    case ErrorCode::kUnknownAnalyzer:
      return CASEFILE_E_UNKNOWN_ANALYZER;
    case ErrorCode::kRules:
      return CASEFILE_E_RULES;
    case ErrorCode::kPlugin:
      return CASEFILE_E_PLUGIN;
    case ErrorCode::kAborted:
      return CASEFILE_E_ABORTED;
    case ErrorCode::kInternal:
      return CASEFILE_E_INTERNAL;
  }
  return CASEFILE_E_INTERNAL;
}

casefile_status Fail(const char* function, casefile_session* session, casefile_error** err,
                     casefile_status status, std::string_view message,
                     std::string_view detail) noexcept {
  std::string text;
  try {
    text.append(function).append(": ").append(message).append(detail);
  } catch (...) {
    text.clear();
  }
  if (session != nullptr && session->magic == kSessionMagic) {
    try {
      session->last_error = text;
    } catch (...) {
      session->last_error.clear();
    }
  }
  if (err != nullptr) {
    casefile_error* e = new (std::nothrow) casefile_error;
    if (e == nullptr) {
      *err = &kOutOfMemoryError;
    } else {
      e->status = status;
      try {
        e->message = std::move(text);
      } catch (...) {
        e->message.clear();
      }
      *err = e;
    }
  }
  return status;
}

}  // namespace casefile::capi

using casefile::capi::kDeadMagic;
using casefile::capi::kErrorMagic;

extern "C" {

const char* casefile_status_string(casefile_status status) {
  switch (casefile::capi::EnumBits(status)) {
    case CASEFILE_OK:
      return "success";
    case CASEFILE_PARTIAL:
      return "success, input read in part";
    case CASEFILE_E_ARGUMENT:
      return "invalid argument";
    case CASEFILE_E_MISUSE:
      return "API misuse";
    case CASEFILE_E_UNKNOWN_ANALYZER:
      return "unknown analyzer";
    case CASEFILE_E_VERSION:
      return "unknown options version";
    case CASEFILE_E_IO:
      return "I/O error";
    case CASEFILE_E_NOT_FOUND:
      return "not found";
    case CASEFILE_E_CORRUPT:
      return "corrupt input";
    case CASEFILE_E_UNSUPPORTED:
      return "unsupported input";
    case CASEFILE_E_INDEX_VERSION:
      return "incompatible index version";
    case CASEFILE_E_LIMIT:
      return "limit exceeded";
    case CASEFILE_E_TIMEOUT:
      return "query timed out";
    case CASEFILE_E_QUERY:
      return "query error";
    case CASEFILE_E_READ_ONLY:
      return "query refused: read-only";
    case CASEFILE_E_RULES:
      return "invalid rule pack";
    case CASEFILE_E_PLUGIN:
      return "plugin refused";
    case CASEFILE_E_NOMEM:
      return "out of memory";
    case CASEFILE_E_ABORTED:
      return "aborted by callback";
    case CASEFILE_E_INTERNAL:
      return "internal error";
  }
  return "unknown status";
}

casefile_status casefile_error_status(const casefile_error* err) {
  if (err == nullptr || err->magic != kErrorMagic) return CASEFILE_E_ARGUMENT;
  return err->status;
}

const char* casefile_error_message(const casefile_error* err) {
  if (err == nullptr || err->magic != kErrorMagic) return "";
  if (err == &casefile::capi::kOutOfMemoryError) return "out of memory";
  return err->message.c_str();
}

void casefile_error_free(casefile_error* err) {
  if (err == nullptr || err == &casefile::capi::kOutOfMemoryError) return;
  if (err->magic != kErrorMagic) return;  // foreign or already freed: leave it alone
  err->magic = kDeadMagic;
  delete err;
}

void casefile_string_free(char* str) { std::free(str); }

}  // extern "C"
