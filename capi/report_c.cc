// Analysis and the report handle. The report owns copies of everything it
// exposes, so it outlives the session that produced it.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "capi_internal.h"

namespace casefile::capi {

const casefile_report* LiveReport(const casefile_report* report) noexcept {
  if (report == nullptr || report->magic != kReportMagic) return nullptr;
  return report;
}

}  // namespace casefile::capi

using casefile::capi::CheckSession;
using casefile::capi::Fail;
using casefile::capi::Guard;
using casefile::capi::LiveReport;

namespace {

const casefile::AnalyzerStatus* AnalyzerAt(const casefile_report* report, size_t index) {
  const casefile_report* r = LiveReport(report);
  if (r == nullptr || index >= r->report.analyzers.size()) return nullptr;
  return &r->report.analyzers[index];
}

}  // namespace

extern "C" {

casefile_status casefile_session_analyze(casefile_report** out, casefile_session* session,
                                         const casefile_analyze_options* opts,
                                         casefile_error** err) {
  static constexpr const char* kFn = "casefile_session_analyze";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_OUT(kFn, err, out);
  if (casefile_status st = CheckSession(kFn, session, err); st != CASEFILE_OK) return st;
  if (opts != nullptr) {
    casefile_status st = casefile::capi::CheckOptionsVersion(kFn, session, err, opts->version,
                                                             CASEFILE_ANALYZE_OPTIONS_VERSION,
                                                             "casefile_analyze_options");
    if (st != CASEFILE_OK) return st;
  }
  return Guard(kFn, session, err, [&]() -> casefile_status {
    std::vector<std::string> names = casefile::capi::AnalyzerNames(opts);
    bool store = opts == nullptr || opts->no_store == 0;
    // Fields of version 2 exist only in a caller's struct of version 2 or later.
    const uint64_t omit = opts != nullptr && opts->version >= 2 ? opts->omit : 0;
    if ((omit & ~uint64_t{CASEFILE_OMIT_CONTEXT}) != 0) {
      throw casefile::Error(casefile::ErrorCode::kArgument,
                            "opts->omit has bits this library does not know: " +
                                std::to_string(omit & ~uint64_t{CASEFILE_OMIT_CONTEXT}));
    }
    const bool no_context = (omit & CASEFILE_OMIT_CONTEXT) != 0;
    // Index here rather than inside Analyze so casefile_session_index_reused
    // tells the truth about this index too.
    if (!session->session->indexed()) {
      session->reused = false;
      casefile::IndexOutcome outcome =
          session->session->Index([](uint64_t, std::string_view) { return true; });
      session->reused = outcome.reused;
    }
    auto handle = std::make_unique<casefile_report>();
    handle->report = session->session->Analyze(
        names, store, no_context ? casefile::ReportParts::kNoContext : casefile::ReportParts::kAll);
    handle->no_context = no_context;
    handle->findings.reserve(handle->report.findings.size());
    for (const auto& f : handle->report.findings) {
      handle->findings.push_back(casefile_finding{casefile::capi::kFindingMagic, f});
    }
    *out = handle.release();
    return CASEFILE_OK;
  });
}

void casefile_report_free(casefile_report* report) {
  if (report == nullptr || report->magic != casefile::capi::kReportMagic) return;
  report->magic = casefile::capi::kDeadMagic;
  for (auto& f : report->findings) f.magic = casefile::capi::kDeadMagic;
  delete report;
}

casefile_status casefile_report_render(char** out, const casefile_report* report,
                                       casefile_format format, casefile_error** err) {
  static constexpr const char* kFn = "casefile_report_render";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_OUT(kFn, err, out);
  CASEFILE_CHECK_ARG(kFn, nullptr, err, report);
  if (LiveReport(report) == nullptr) {
    return Fail(kFn, nullptr, err, CASEFILE_E_MISUSE,
                "'report' is not a live casefile_report (freed, or another handle type)");
  }
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    std::string text;
    const int bits = casefile::capi::EnumBits(format);
    if (report->no_context && (bits == CASEFILE_FORMAT_HTML || bits == CASEFILE_FORMAT_MARKDOWN)) {
      throw casefile::Error(casefile::ErrorCode::kArgument,
                            "the report was made without its context (CASEFILE_OMIT_CONTEXT): "
                            "it renders as JSON or text, not as HTML or markdown");
    }
    if (bits == CASEFILE_FORMAT_JSON) {
      text = casefile::RenderJson(report->report);
    } else if (bits == CASEFILE_FORMAT_TEXT || bits == CASEFILE_FORMAT_TEXT_COLOR) {
      text = casefile::RenderText(report->report, bits == CASEFILE_FORMAT_TEXT_COLOR);
    } else if (bits == CASEFILE_FORMAT_HTML) {
      text = casefile::RenderHtml(report->report);
    } else if (bits == CASEFILE_FORMAT_MARKDOWN) {
      text = casefile::RenderMarkdown(report->report);
    } else {
      throw casefile::Error(casefile::ErrorCode::kArgument,
                            "unknown format " + std::to_string(bits));
    }
    *out = casefile::capi::OwnedCopy(text);
    return CASEFILE_OK;
  });
}

int casefile_report_max_severity(const casefile_report* report) {
  const casefile_report* r = LiveReport(report);
  if (r == nullptr) return -1;
  int max = -1;
  for (const auto& f : r->report.findings) max = std::max(max, static_cast<int>(f.severity));
  return max;
}

int casefile_report_has_ingest_issues(const casefile_report* report) {
  const casefile_report* r = LiveReport(report);
  if (r == nullptr) return 0;
  return (!r->report.ingest_issues.empty() || r->report.partial()) ? 1 : 0;
}

int casefile_report_is_partial(const casefile_report* report) {
  const casefile_report* r = LiveReport(report);
  return (r != nullptr && r->report.partial()) ? 1 : 0;
}

size_t casefile_report_finding_count(const casefile_report* report) {
  const casefile_report* r = LiveReport(report);
  return r == nullptr ? 0 : r->findings.size();
}

const casefile_finding* casefile_report_finding(const casefile_report* report, size_t index) {
  const casefile_report* r = LiveReport(report);
  if (r == nullptr || index >= r->findings.size()) return nullptr;
  return &r->findings[index];
}

size_t casefile_report_analyzer_count(const casefile_report* report) {
  const casefile_report* r = LiveReport(report);
  return r == nullptr ? 0 : r->report.analyzers.size();
}

const char* casefile_report_analyzer_name(const casefile_report* report, size_t index) {
  const casefile::AnalyzerStatus* a = AnalyzerAt(report, index);
  return a == nullptr ? nullptr : a->name.c_str();
}

const char* casefile_report_analyzer_status(const casefile_report* report, size_t index) {
  const casefile::AnalyzerStatus* a = AnalyzerAt(report, index);
  return a == nullptr ? nullptr : a->status.c_str();
}

const char* casefile_report_analyzer_reason(const casefile_report* report, size_t index) {
  const casefile::AnalyzerStatus* a = AnalyzerAt(report, index);
  return a == nullptr ? nullptr : a->reason.c_str();
}

}  // extern "C"
