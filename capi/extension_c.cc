// External analyzers through the C API: registration, and the handles a run
// callback works with (read-only SQL on the index, finding builders). The
// analyzer itself is external_analyzer.h; this file converts arguments and
// errors around it.
#include <algorithm>

#include "analyze/registry.h"
#include "capi_internal.h"
#include "external_analyzer.h"
#include "row_convert.h"

using casefile::Error;
using casefile::ErrorCode;
using casefile::capi::CheckOptionsVersion;
using casefile::capi::ExternalAnalyzer;
using casefile::capi::Fail;
using casefile::capi::Guard;
using casefile::capi::IsLiveHandle;

namespace {

// CASEFILE_OK for an analysis handle whose callback is running now.
casefile_status CheckAnalysis(const char* function, casefile_analysis* analysis,
                              casefile_error** err) noexcept {
  if (analysis == nullptr) {
    return Fail(function, nullptr, err, CASEFILE_E_ARGUMENT, "argument 'analysis' is NULL");
  }
  if (!IsLiveHandle(analysis) || analysis->magic != casefile::capi::kAnalysisMagic) {
    return Fail(function, nullptr, err, CASEFILE_E_MISUSE,
                "not a live analysis handle: it is valid only during its run callback");
  }
  return CASEFILE_OK;
}

casefile_status CheckBuilder(const char* function, casefile_finding_builder* builder,
                             casefile_error** err) noexcept {
  if (builder == nullptr) {
    return Fail(function, nullptr, err, CASEFILE_E_ARGUMENT, "argument 'builder' is NULL");
  }
  if (!IsLiveHandle(builder) || builder->magic != casefile::capi::kBuilderMagic) {
    return Fail(function, nullptr, err, CASEFILE_E_MISUSE,
                "not a live finding builder: it was emitted or freed, or its run callback "
                "returned");
  }
  return CASEFILE_OK;
}

// Takes a live builder out of its analysis and frees it.
void ReleaseBuilder(casefile_finding_builder* builder) noexcept {
  auto& list = builder->analysis->builders;
  list.erase(std::remove(list.begin(), list.end(), builder), list.end());
  casefile::capi::RetireBuilder(builder);
}

void AddEvidence(casefile_finding_builder* builder, int64_t file_id, int64_t line) {
  const casefile::AnalysisContext& ctx = *builder->analysis->context;
  const casefile::FileRow* file = ctx.File(file_id);
  if (file == nullptr) {
    throw Error(ErrorCode::kArgument,
                "no file with id " + std::to_string(file_id) + " in the index");
  }
  // The text comes from the index, never from the caller: evidence is
  // always a real line.
  std::optional<std::string> text;
  if (line >= 1) text = ctx.index().LineText(file_id, line);
  if (!text) {
    throw Error(ErrorCode::kArgument, "file " + std::to_string(file_id) + " (" + file->path +
                                          ") has no line " + std::to_string(line) + " (it has " +
                                          std::to_string(file->line_count) + " stored lines)");
  }
  builder->finding.evidence.push_back(ctx.MakeEvidence(file_id, line, *text));
}

}  // namespace

namespace {

casefile_status AnalysisQuery(const char* function, casefile_analysis* analysis, const char* sql,
                              const casefile_query_options* opts, casefile_row_fn callback,
                              void* payload, casefile_error** err) {
  CASEFILE_CLEAR_ERR(err);
  if (casefile_status st = CheckAnalysis(function, analysis, err); st != CASEFILE_OK) return st;
  CASEFILE_CHECK_ARG(function, nullptr, err, sql);
  if (opts != nullptr) {
    if (casefile_status st = CheckOptionsVersion(function, nullptr, err, opts->version,
                                                 CASEFILE_QUERY_OPTIONS_VERSION, "query options");
        st != CASEFILE_OK) {
      return st;
    }
  }
  return Guard(function, nullptr, err, [&]() -> casefile_status {
    casefile::capi::RowToC rows(callback, payload);
    analysis->context->index().Query(
        sql, [&](const casefile::QueryRow& row) { return rows(row); },
        casefile::capi::ToQueryLimits(opts));
    if (rows.aborted()) throw Error(ErrorCode::kAborted, "the row callback returned non-zero");
    return CASEFILE_OK;
  });
}

}  // namespace

extern "C" {

casefile_status casefile_analyzer_register(const casefile_analyzer_def* def, casefile_error** err) {
  static constexpr const char* kFn = "casefile_analyzer_register";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_ARG(kFn, nullptr, err, def);
  if (casefile_status st = CheckOptionsVersion(
          kFn, nullptr, err, def->version, CASEFILE_ANALYZER_DEF_VERSION, "casefile_analyzer_def");
      st != CASEFILE_OK) {
    return st;
  }
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    std::shared_ptr<ExternalAnalyzer> analyzer = ExternalAnalyzer::FromDef(*def);
    std::vector<std::string>* plugin_names = casefile::capi::PluginRegistrations();
    // Reserved before registering, so that recording the name cannot fail
    // after the analyzer is in.
    if (plugin_names != nullptr) plugin_names->reserve(plugin_names->size() + 1);
    // This copy keeps the analyzer alive if the registry refuses it, so the
    // payload is disowned before it can be freed.
    analyzer->set_owns_payload(true);
    try {
      casefile::RegisterAnalyzer(analyzer);
    } catch (...) {
      analyzer->set_owns_payload(false);
      throw;
    }
    if (plugin_names != nullptr) plugin_names->push_back(analyzer->info().name);
    return CASEFILE_OK;
  });
}

casefile_status casefile_analyzer_unregister(const char* name, casefile_error** err) {
  static constexpr const char* kFn = "casefile_analyzer_unregister";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_ARG(kFn, nullptr, err, name);
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    if (casefile::IsReservedAnalyzerName(name)) {
      throw Error(ErrorCode::kArgument,
                  std::string("'") + name + "' is a built-in analyzer and cannot be unregistered");
    }
    if (!casefile::UnregisterAnalyzer(name)) {
      throw Error(ErrorCode::kUnknownAnalyzer,
                  std::string("no external analyzer named '") + name + "' is registered");
    }
    return CASEFILE_OK;
  });
}

casefile_status casefile_analysis_query(casefile_analysis* analysis, const char* sql,
                                        casefile_row_fn callback, void* payload,
                                        casefile_error** err) {
  return AnalysisQuery("casefile_analysis_query", analysis, sql, nullptr, callback, payload, err);
}

casefile_status casefile_analysis_query_ex(casefile_analysis* analysis, const char* sql,
                                           const casefile_query_options* opts,
                                           casefile_row_fn callback, void* payload,
                                           casefile_error** err) {
  return AnalysisQuery("casefile_analysis_query_ex", analysis, sql, opts, callback, payload, err);
}

void casefile_analysis_set_error(casefile_analysis* analysis, const char* message) {
  if (analysis == nullptr || !IsLiveHandle(analysis) ||
      analysis->magic != casefile::capi::kAnalysisMagic) {
    return;
  }
  try {
    analysis->error = message != nullptr ? message : "";
  } catch (...) {
    analysis->error.clear();  // the fallback reason names the return value
  }
}

casefile_status casefile_finding_builder_new(casefile_finding_builder** out,
                                             casefile_analysis* analysis, const char* code,
                                             casefile_severity severity, const char* title,
                                             casefile_error** err) {
  static constexpr const char* kFn = "casefile_finding_builder_new";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_OUT(kFn, err, out);
  if (casefile_status st = CheckAnalysis(kFn, analysis, err); st != CASEFILE_OK) return st;
  CASEFILE_CHECK_ARG(kFn, nullptr, err, code);
  CASEFILE_CHECK_ARG(kFn, nullptr, err, title);
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    const int bits = casefile::capi::EnumBits(severity);
    if (bits < CASEFILE_SEVERITY_INFO || bits > CASEFILE_SEVERITY_ERROR) {
      throw Error(ErrorCode::kArgument, "severity " + std::to_string(bits) + " is not known");
    }
    if (auto refused = analysis->analyzer->CodeRefused(code)) {
      // Emitting an undeclared code fails the analyzer (casefile.h), even
      // if the callback goes on and returns 0; the first reason is kept.
      if (analysis->violation.empty()) analysis->violation = *refused;
      throw Error(ErrorCode::kArgument, *refused);
    }
    if (*title == '\0') throw Error(ErrorCode::kArgument, "the title is empty");
    auto builder = std::make_unique<casefile_finding_builder>();
    builder->analysis = analysis;
    builder->finding.code = code;
    builder->finding.analyzer = analysis->analyzer->info().name;
    builder->finding.severity = static_cast<casefile::Severity>(bits);
    builder->finding.title = title;
    analysis->builders.push_back(builder.get());
    try {
      casefile::capi::AddLiveHandle(builder.get());
    } catch (...) {
      analysis->builders.pop_back();
      throw;
    }
    *out = builder.release();
    return CASEFILE_OK;
  });
}

casefile_status casefile_finding_builder_set_summary(casefile_finding_builder* builder,
                                                     const char* summary, casefile_error** err) {
  static constexpr const char* kFn = "casefile_finding_builder_set_summary";
  CASEFILE_CLEAR_ERR(err);
  if (casefile_status st = CheckBuilder(kFn, builder, err); st != CASEFILE_OK) return st;
  CASEFILE_CHECK_ARG(kFn, nullptr, err, summary);
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    builder->finding.summary = summary;
    return CASEFILE_OK;
  });
}

casefile_status casefile_finding_builder_set_recommendation(casefile_finding_builder* builder,
                                                            const char* recommendation,
                                                            casefile_error** err) {
  static constexpr const char* kFn = "casefile_finding_builder_set_recommendation";
  CASEFILE_CLEAR_ERR(err);
  if (casefile_status st = CheckBuilder(kFn, builder, err); st != CASEFILE_OK) return st;
  CASEFILE_CHECK_ARG(kFn, nullptr, err, recommendation);
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    builder->finding.recommendation = recommendation;
    return CASEFILE_OK;
  });
}

casefile_status casefile_finding_builder_add_culprit(casefile_finding_builder* builder,
                                                     const char* host, const char* task,
                                                     int64_t rank, casefile_error** err) {
  static constexpr const char* kFn = "casefile_finding_builder_add_culprit";
  CASEFILE_CLEAR_ERR(err);
  if (casefile_status st = CheckBuilder(kFn, builder, err); st != CASEFILE_OK) return st;
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    if (rank < -1) {
      throw Error(ErrorCode::kArgument,
                  "rank " + std::to_string(rank) + " is not valid (-1 means unknown)");
    }
    // An empty string says nothing either; it reads as unknown.
    const bool has_host = host != nullptr && *host != '\0';
    const bool has_task = task != nullptr && *task != '\0';
    if (!has_host && !has_task && rank == -1) {
      throw Error(ErrorCode::kArgument, "a culprit needs a host, a task or a rank");
    }
    casefile::Culprit c;
    if (has_host) c.host = host;
    if (has_task) c.task = task;
    if (rank >= 0) c.rank = rank;
    builder->finding.culprits.push_back(std::move(c));
    return CASEFILE_OK;
  });
}

casefile_status casefile_finding_builder_add_evidence(casefile_finding_builder* builder,
                                                      int64_t file_id, int64_t line,
                                                      casefile_error** err) {
  static constexpr const char* kFn = "casefile_finding_builder_add_evidence";
  CASEFILE_CLEAR_ERR(err);
  if (casefile_status st = CheckBuilder(kFn, builder, err); st != CASEFILE_OK) return st;
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    AddEvidence(builder, file_id, line);
    return CASEFILE_OK;
  });
}

casefile_status casefile_finding_builder_add_evidence_path(casefile_finding_builder* builder,
                                                           const char* bundle, const char* path,
                                                           int64_t line, casefile_error** err) {
  static constexpr const char* kFn = "casefile_finding_builder_add_evidence_path";
  CASEFILE_CLEAR_ERR(err);
  if (casefile_status st = CheckBuilder(kFn, builder, err); st != CASEFILE_OK) return st;
  CASEFILE_CHECK_ARG(kFn, nullptr, err, path);
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    const casefile::AnalysisContext& ctx = *builder->analysis->context;
    std::vector<const casefile::FileRow*> matches;
    for (const auto& f : ctx.files()) {
      if (f.path != path) continue;
      if (bundle != nullptr && ctx.BundleName(f.bundle_id) != bundle) continue;
      matches.push_back(&f);
    }
    const std::string where = bundle != nullptr ? " in bundle '" + std::string(bundle) + "'" : "";
    if (matches.empty()) {
      throw Error(ErrorCode::kArgument, "no file '" + std::string(path) + "'" + where);
    }
    if (matches.size() > 1) {
      std::string names;
      for (const auto* f : matches) {
        names += (names.empty() ? "'" : ", '") + ctx.BundleName(f->bundle_id) + "'";
      }
      throw Error(ErrorCode::kArgument, "'" + std::string(path) + "' is in several bundles (" +
                                            names + "): name the bundle");
    }
    AddEvidence(builder, matches.front()->id, line);
    return CASEFILE_OK;
  });
}

casefile_status casefile_finding_builder_emit(casefile_finding_builder* builder,
                                              casefile_error** err) {
  static constexpr const char* kFn = "casefile_finding_builder_emit";
  CASEFILE_CLEAR_ERR(err);
  if (casefile_status st = CheckBuilder(kFn, builder, err); st != CASEFILE_OK) return st;
  // Freed whatever the result, as the header promises.
  struct Free {
    casefile_finding_builder* b;
    ~Free() { ReleaseBuilder(b); }
  } free_builder{builder};
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    if (builder->finding.evidence.empty()) {
      // A finding without evidence is a bug of the analyzer (casefile.h):
      // like an undeclared code, it fails the analyzer whatever the callback
      // returns, so the report says why instead of silently lacking it.
      std::string message = "finding " + builder->finding.code +
                            " has no evidence: add a line with "
                            "casefile_finding_builder_add_evidence before emitting it";
      casefile_analysis* analysis = builder->analysis;
      if (analysis->violation.empty()) analysis->violation = message;
      throw Error(ErrorCode::kArgument, std::move(message));
    }
    builder->analysis->context->Emit(std::move(builder->finding));
    return CASEFILE_OK;
  });
}

void casefile_finding_builder_free(casefile_finding_builder* builder) {
  if (builder == nullptr || !IsLiveHandle(builder) ||
      builder->magic != casefile::capi::kBuilderMagic) {
    return;
  }
  ReleaseBuilder(builder);
}

}  // extern "C"
