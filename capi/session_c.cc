// Sessions: opening inputs, building or reusing the index, and the
// session-level state a binding reads back (reuse, index path, last error).
#include <string_view>

#include "capi_internal.h"

namespace casefile::capi {

casefile_status CheckSession(const char* function, casefile_session* session,
                             casefile_error** err) noexcept {
  if (session == nullptr) {
    return Fail(function, nullptr, err, CASEFILE_E_ARGUMENT, "argument 'session' is NULL");
  }
  if (session->magic != kSessionMagic || session->session == nullptr) {
    return Fail(function, nullptr, err, CASEFILE_E_MISUSE,
                "'session' is not a live casefile_session (freed, or another handle type)");
  }
  return CASEFILE_OK;
}

}  // namespace casefile::capi

using casefile::capi::CheckSession;
using casefile::capi::Fail;
using casefile::capi::Guard;
using casefile::capi::kDeadMagic;
using casefile::capi::kSessionMagic;

extern "C" {

casefile_status casefile_session_open(casefile_session** out, const char* const* inputs,
                                      size_t input_count, const casefile_open_options* opts,
                                      casefile_error** err) {
  static constexpr const char* kFn = "casefile_session_open";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_OUT(kFn, err, out);
  CASEFILE_CHECK_ARG(kFn, nullptr, err, inputs);
  if (input_count == 0) {
    return Fail(kFn, nullptr, err, CASEFILE_E_ARGUMENT, "argument 'input_count' is 0");
  }
  if (opts != nullptr) {
    casefile_status st = casefile::capi::CheckOptionsVersion(
        kFn, nullptr, err, opts->version, CASEFILE_OPEN_OPTIONS_VERSION, "casefile_open_options");
    if (st != CASEFILE_OK) return st;
  }
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    std::vector<std::string> paths;
    paths.reserve(input_count);
    for (size_t i = 0; i < input_count; ++i) {
      if (inputs[i] == nullptr) {
        throw casefile::Error(casefile::ErrorCode::kArgument,
                              "argument 'inputs[" + std::to_string(i) + "]' is NULL");
      }
      paths.emplace_back(inputs[i]);
    }
    auto handle = std::make_unique<casefile_session>();
    handle->session = std::make_unique<casefile::Session>(std::move(paths),
                                                          casefile::capi::ToSessionOptions(opts));
    *out = handle.release();
    return CASEFILE_OK;
  });
}

void casefile_session_free(casefile_session* session) {
  if (session == nullptr || session->magic != kSessionMagic) return;
  session->magic = kDeadMagic;
  delete session;
}

casefile_status casefile_session_index(casefile_session* session, casefile_progress_fn progress,
                                       void* payload, casefile_error** err) {
  static constexpr const char* kFn = "casefile_session_index";
  CASEFILE_CLEAR_ERR(err);
  if (casefile_status st = CheckSession(kFn, session, err); st != CASEFILE_OK) return st;
  return Guard(kFn, session, err, [&]() -> casefile_status {
    session->reused = false;
    // The C callback needs a NUL-terminated path; one buffer is reused for
    // every call so progress costs no allocation per entry.
    std::string current;
    casefile::ProgressFn fn = [&](uint64_t bytes_done, std::string_view path) -> bool {
      if (progress == nullptr) return true;
      current.assign(path);
      return progress(bytes_done, current.c_str(), payload) == 0;
    };
    casefile::IndexOutcome outcome = session->session->Index(fn);
    session->reused = outcome.reused;
    return outcome.partial ? CASEFILE_PARTIAL : CASEFILE_OK;
  });
}

int casefile_session_index_reused(const casefile_session* session) {
  if (session == nullptr || session->magic != kSessionMagic) return 0;
  return session->reused ? 1 : 0;
}

const char* casefile_session_index_path(const casefile_session* session) {
  if (session == nullptr || session->magic != kSessionMagic || session->session == nullptr) {
    return "";
  }
  return session->session->index_path().c_str();
}

const char* casefile_session_last_error(const casefile_session* session) {
  if (session == nullptr || session->magic != kSessionMagic) return "";
  return session->last_error.c_str();
}

}  // extern "C"
