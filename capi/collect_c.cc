// Collecting bundles and verifying them. The result handles own copies of
// everything they expose, so their borrowed strings live until freed.
#include <cstring>
#include <utility>

#include "capi_internal.h"
#include "collect/collect.h"
#include "collect/verify.h"

namespace {

// Handle magics (see capi_internal.h): a foreign or freed handle reads as
// empty instead of being used.
constexpr uint32_t kCollectResultMagic = 0xCF0C0113u;
constexpr uint32_t kVerifyResultMagic = 0xCF0FE21Fu;

}  // namespace

struct casefile_collect_result {
  uint32_t magic = kCollectResultMagic;
  casefile::collect::CollectResult result;
  std::vector<std::pair<std::string, uint64_t>> kinds;  // result.redactions, in name order
  uint64_t redactions = 0;
};

struct casefile_verify_result {
  uint32_t magic = kVerifyResultMagic;
  casefile::collect::VerifyResult result;
};

using casefile::Error;
using casefile::ErrorCode;
using casefile::capi::Guard;

namespace {

const casefile_collect_result* LiveCollect(const casefile_collect_result* r) {
  return r != nullptr && r->magic == kCollectResultMagic ? r : nullptr;
}

const casefile_verify_result* LiveVerify(const casefile_verify_result* r) {
  return r != nullptr && r->magic == kVerifyResultMagic ? r : nullptr;
}

// A C array of strings as a vector; NULL items and a NULL array with a
// non-zero count are argument errors naming the field.
std::vector<std::string> Strings(const char* const* items, size_t count, const char* field) {
  std::vector<std::string> out;
  if (count == 0) return out;
  if (items == nullptr) {
    throw Error(ErrorCode::kArgument, std::string("opts->") + field + " is NULL with a count of " +
                                          std::to_string(count));
  }
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (items[i] == nullptr) {
      throw Error(ErrorCode::kArgument,
                  std::string("opts->") + field + "[" + std::to_string(i) + "] is NULL");
    }
    out.emplace_back(items[i]);
  }
  return out;
}

casefile::collect::CollectOptions ToCollectOptions(const casefile_collect_options& c) {
  casefile::collect::CollectOptions o;
  if (c.output != nullptr) o.output = c.output;
  o.logs = Strings(c.logs, c.log_count, "logs");
  o.hlo_dumps = Strings(c.hlo_dumps, c.hlo_dump_count, "hlo_dumps");
  o.traces = Strings(c.traces, c.trace_count, "traces");
  o.configs = Strings(c.configs, c.config_count, "configs");
  if (c.tensorboard_dir != nullptr) o.tensorboard_dir = c.tensorboard_dir;
  if (c.job_cmdline_file != nullptr) o.job_cmdline_file = c.job_cmdline_file;
  for (const std::string& label : Strings(c.labels, c.label_count, "labels")) {
    size_t eq = label.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error(ErrorCode::kArgument, "label '" + label + "' is not KEY=VALUE");
    }
    o.labels.emplace_back(label.substr(0, eq), label.substr(eq + 1));
  }
  if (c.host != nullptr) o.host = c.host;
  o.since_seconds = c.since_seconds;
  o.max_bytes = c.max_bytes;
  if (c.command_timeout_ms != 0) o.command_timeout_ms = c.command_timeout_ms;
  o.versions = c.no_versions == 0;
  o.redact = c.no_redact == 0;
  o.redact_hosts = c.redact_hosts != 0;
  o.deterministic = c.deterministic != 0;
  o.dry_run = c.dry_run != 0;
  o.discover = c.no_discover == 0;
  if (c.redact_key != nullptr) {
    o.redact_key = std::string(reinterpret_cast<const char*>(c.redact_key), c.redact_key_size);
  } else if (c.redact_key_size != 0) {
    throw Error(ErrorCode::kArgument, "opts->redact_key is NULL with a size");
  }
  o.command_line = Strings(c.command_line, c.command_line_count, "command_line");
  if (c.environment != nullptr || c.environment_count != 0) {
    o.environment = Strings(c.environment, c.environment_count, "environment");
  }
  if (c.zstd_level != 0) o.zstd_level = c.zstd_level;
  o.threads = c.threads;
  return o;
}

}  // namespace

extern "C" {

casefile_status casefile_collect_options_init(casefile_collect_options* opts,
                                              unsigned int version) {
  if (opts == nullptr) return CASEFILE_E_ARGUMENT;
  if (version < 1 || version > CASEFILE_COLLECT_OPTIONS_VERSION) return CASEFILE_E_VERSION;
  *opts = casefile_collect_options CASEFILE_COLLECT_OPTIONS_INIT;
  opts->version = version;
  return CASEFILE_OK;
}

casefile_status casefile_collect(casefile_collect_result** out,
                                 const casefile_collect_options* opts,
                                 casefile_collect_progress_fn progress, void* payload,
                                 casefile_error** err) {
  static constexpr const char* kFn = "casefile_collect";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_OUT(kFn, err, out);
  CASEFILE_CHECK_ARG(kFn, nullptr, err, opts);
  casefile_status st = casefile::capi::CheckOptionsVersion(kFn, nullptr, err, opts->version,
                                                           CASEFILE_COLLECT_OPTIONS_VERSION,
                                                           "casefile_collect_options");
  if (st != CASEFILE_OK) return st;
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    casefile::collect::CollectOptions options = ToCollectOptions(*opts);
    std::string current;
    casefile::collect::CollectProgressFn fn = [&](casefile::collect::CollectPhase phase,
                                                  uint64_t done, uint64_t total,
                                                  std::string_view path) -> bool {
      if (progress == nullptr) return true;
      current.assign(path);
      return progress(static_cast<casefile_collect_phase>(phase), done, total, current.c_str(),
                      payload) == 0;
    };
    auto handle = std::make_unique<casefile_collect_result>();
    handle->result = casefile::collect::Collect(options, fn);
    for (const auto& [kind, n] : handle->result.redactions) {
      handle->kinds.emplace_back(kind, n);
      handle->redactions += n;
    }
    const bool partial = handle->result.partial();
    *out = handle.release();
    return partial ? CASEFILE_PARTIAL : CASEFILE_OK;
  });
}

void casefile_collect_result_free(casefile_collect_result* result) {
  if (result == nullptr || result->magic != kCollectResultMagic) return;
  result->magic = casefile::capi::kDeadMagic;
  delete result;
}

uint64_t casefile_collect_result_file_count(const casefile_collect_result* result) {
  const casefile_collect_result* r = LiveCollect(result);
  return r == nullptr ? 0 : r->result.files;
}

uint64_t casefile_collect_result_bytes(const casefile_collect_result* result) {
  const casefile_collect_result* r = LiveCollect(result);
  return r == nullptr ? 0 : r->result.bytes;
}

uint64_t casefile_collect_result_archive_bytes(const casefile_collect_result* result) {
  const casefile_collect_result* r = LiveCollect(result);
  return r == nullptr ? 0 : r->result.archive_bytes;
}

uint64_t casefile_collect_result_redaction_count(const casefile_collect_result* result) {
  const casefile_collect_result* r = LiveCollect(result);
  return r == nullptr ? 0 : r->redactions;
}

size_t casefile_collect_result_redaction_kind_count(const casefile_collect_result* result) {
  const casefile_collect_result* r = LiveCollect(result);
  return r == nullptr ? 0 : r->kinds.size();
}

casefile_status casefile_collect_result_redaction_kind(const casefile_collect_result* result,
                                                       size_t index, const char** kind_out,
                                                       uint64_t* count_out) {
  const casefile_collect_result* r = LiveCollect(result);
  if (r == nullptr || index >= r->kinds.size()) return CASEFILE_E_ARGUMENT;
  if (kind_out != nullptr) *kind_out = r->kinds[index].first.c_str();
  if (count_out != nullptr) *count_out = r->kinds[index].second;
  return CASEFILE_OK;
}

size_t casefile_collect_result_error_count(const casefile_collect_result* result) {
  const casefile_collect_result* r = LiveCollect(result);
  return r == nullptr ? 0 : r->result.errors.size();
}

casefile_status casefile_collect_result_error(const casefile_collect_result* result, size_t index,
                                              const char** source_out, const char** message_out) {
  const casefile_collect_result* r = LiveCollect(result);
  if (r == nullptr || index >= r->result.errors.size()) return CASEFILE_E_ARGUMENT;
  const auto& e = r->result.errors[index];
  if (source_out != nullptr) *source_out = e.source.c_str();
  if (message_out != nullptr) *message_out = e.message.c_str();
  return CASEFILE_OK;
}

size_t casefile_collect_result_entry_count(const casefile_collect_result* result) {
  const casefile_collect_result* r = LiveCollect(result);
  return r == nullptr ? 0 : r->result.entries.size();
}

casefile_status casefile_collect_result_entry(const casefile_collect_result* result, size_t index,
                                              const char** action_out, const char** path_out,
                                              const char** source_out, const char** kind_out,
                                              uint64_t* size_out, uint64_t* redactions_out,
                                              const char** note_out) {
  const casefile_collect_result* r = LiveCollect(result);
  if (r == nullptr || index >= r->result.entries.size()) return CASEFILE_E_ARGUMENT;
  const auto& e = r->result.entries[index];
  if (action_out != nullptr) *action_out = e.action.c_str();
  if (path_out != nullptr) *path_out = e.path.c_str();
  if (source_out != nullptr) *source_out = e.source.c_str();
  if (kind_out != nullptr) *kind_out = e.kind.c_str();
  if (size_out != nullptr) *size_out = e.size;
  if (redactions_out != nullptr) *redactions_out = e.redactions;
  if (note_out != nullptr) *note_out = e.note.c_str();
  return CASEFILE_OK;
}

casefile_status casefile_verify_bundle(casefile_verify_result** out, const char* path,
                                       casefile_progress_fn progress, void* payload,
                                       casefile_error** err) {
  static constexpr const char* kFn = "casefile_verify_bundle";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_OUT(kFn, err, out);
  CASEFILE_CHECK_ARG(kFn, nullptr, err, path);
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    std::string current;
    casefile::collect::VerifyProgressFn fn = [&](uint64_t done, std::string_view entry) -> bool {
      if (progress == nullptr) return true;
      current.assign(entry);
      return progress(done, current.c_str(), payload) == 0;
    };
    auto handle = std::make_unique<casefile_verify_result>();
    handle->result = casefile::collect::VerifyBundle(path, fn);
    *out = handle.release();
    return CASEFILE_OK;
  });
}

void casefile_verify_result_free(casefile_verify_result* result) {
  if (result == nullptr || result->magic != kVerifyResultMagic) return;
  result->magic = casefile::capi::kDeadMagic;
  delete result;
}

int casefile_verify_result_ok(const casefile_verify_result* result) {
  const casefile_verify_result* r = LiveVerify(result);
  return r != nullptr && r->result.ok() ? 1 : 0;
}

uint64_t casefile_verify_result_file_count(const casefile_verify_result* result) {
  const casefile_verify_result* r = LiveVerify(result);
  return r == nullptr ? 0 : r->result.files_checked;
}

size_t casefile_verify_result_problem_count(const casefile_verify_result* result) {
  const casefile_verify_result* r = LiveVerify(result);
  return r == nullptr ? 0 : r->result.problems.size();
}

casefile_status casefile_verify_result_problem(const casefile_verify_result* result, size_t index,
                                               const char** path_out, const char** kind_out,
                                               const char** message_out) {
  const casefile_verify_result* r = LiveVerify(result);
  if (r == nullptr || index >= r->result.problems.size()) return CASEFILE_E_ARGUMENT;
  const auto& p = r->result.problems[index];
  if (path_out != nullptr) *path_out = p.path.c_str();
  if (kind_out != nullptr) *kind_out = p.kind.c_str();
  if (message_out != nullptr) *message_out = p.message.c_str();
  return CASEFILE_OK;
}

}  // extern "C"
