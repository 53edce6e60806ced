// Versioned options structs: version checks, defaults, and conversion to the
// C++ options. Fields are only ever appended, so a struct of an older version
// is a prefix of the current one; version 0 is never valid (an uninitialised
// struct).
#include <cstddef>

#include "capi_internal.h"

// The version field must stay first: a caller's struct of any version is read
// through it before anything else.
static_assert(offsetof(casefile_open_options, version) == 0);
static_assert(offsetof(casefile_analyze_options, version) == 0);
static_assert(offsetof(casefile_diff_options, version) == 0);

namespace casefile::capi {

casefile_status CheckOptionsVersion(const char* function, casefile_session* session,
                                    casefile_error** err, unsigned int version,
                                    unsigned int current, const char* what) noexcept {
  if (version >= 1 && version <= current) return CASEFILE_OK;
  std::string message;
  try {
    message = std::string(what) + " version " + std::to_string(version) +
              " is not known to this library (it knows 1 to " + std::to_string(current) + ")";
  } catch (...) {
    message.clear();
  }
  return Fail(function, session, err, CASEFILE_E_VERSION, message);
}

SessionOptions ToSessionOptions(const casefile_open_options* opts) {
  SessionOptions out;
  if (opts == nullptr) return out;
  if (opts->index_path != nullptr) out.index_path = opts->index_path;
  out.reindex = opts->reindex != 0;
  // 0 keeps the default limit (common/limits.h), as the header promises.
  if (opts->max_entry_bytes != 0) out.limits.max_entry_bytes = opts->max_entry_bytes;
  if (opts->max_total_bytes != 0) out.limits.max_total_bytes = opts->max_total_bytes;
  if (opts->max_entries != 0) out.limits.max_entries = opts->max_entries;
  if (opts->max_line_bytes != 0) out.limits.max_line_bytes = opts->max_line_bytes;
  // Fields of version 2 exist only in a caller's struct of version 2 or later.
  if (opts->version >= 2 && opts->index_dir != nullptr) out.index_dir = opts->index_dir;
  return out;
}

std::vector<std::string> AnalyzerNames(const casefile_analyze_options* opts) {
  std::vector<std::string> names;
  if (opts == nullptr || opts->analyzer_count == 0) return names;
  if (opts->analyzers == nullptr) {
    throw Error(ErrorCode::kArgument, "opts->analyzers is NULL but opts->analyzer_count is " +
                                          std::to_string(opts->analyzer_count));
  }
  names.reserve(opts->analyzer_count);
  for (size_t i = 0; i < opts->analyzer_count; ++i) {
    if (opts->analyzers[i] == nullptr) {
      throw Error(ErrorCode::kArgument, "opts->analyzers[" + std::to_string(i) + "] is NULL");
    }
    names.emplace_back(opts->analyzers[i]);
  }
  return names;
}

}  // namespace casefile::capi

extern "C" {

casefile_status casefile_open_options_init(casefile_open_options* opts, unsigned int version) {
  if (opts == nullptr) return CASEFILE_E_ARGUMENT;
  if (version < 1 || version > CASEFILE_OPEN_OPTIONS_VERSION) return CASEFILE_E_VERSION;
  // A caller's struct of an older version is shorter: only the fields that
  // version has are written.
  const casefile_open_options defaults = CASEFILE_OPEN_OPTIONS_INIT;
  const size_t size =
      version == 1 ? offsetof(casefile_open_options, index_dir) : sizeof(casefile_open_options);
  std::memcpy(static_cast<void*>(opts), &defaults, size);
  opts->version = version;
  return CASEFILE_OK;
}

casefile_status casefile_analyze_options_init(casefile_analyze_options* opts,
                                              unsigned int version) {
  if (opts == nullptr) return CASEFILE_E_ARGUMENT;
  if (version < 1 || version > CASEFILE_ANALYZE_OPTIONS_VERSION) return CASEFILE_E_VERSION;
  // A caller's struct of an older version is shorter: only the fields that
  // version has are written.
  const casefile_analyze_options defaults = CASEFILE_ANALYZE_OPTIONS_INIT;
  const size_t size =
      version == 1 ? offsetof(casefile_analyze_options, omit) : sizeof(casefile_analyze_options);
  std::memcpy(static_cast<void*>(opts), &defaults, size);
  opts->version = version;
  return CASEFILE_OK;
}

}  // extern "C"
