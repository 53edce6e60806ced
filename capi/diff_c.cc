// The C API of the diff: casefile_diff and its report handle. A bridge only:
// lib/engine/diff_run.h does the work.
#include <cstdlib>
#include <cstring>

#include "capi_internal.h"
#include "engine/diff_run.h"

using casefile::capi::CheckSession;
using casefile::capi::Fail;
using casefile::capi::Guard;
using casefile::capi::kDeadMagic;
using casefile::capi::kDiffReportMagic;

namespace {

const casefile_diff_report* LiveDiff(const casefile_diff_report* report) noexcept {
  if (report == nullptr || report->magic != kDiffReportMagic) return nullptr;
  return report;
}

bool AnyPartial(const std::vector<casefile::BundleRow>& bundles) {
  for (const casefile::BundleRow& b : bundles) {
    // "partial" or "unreadable": either way a side lacks some input.
    if (b.status != "complete") return true;
  }
  return false;
}

}  // namespace

extern "C" {

casefile_status casefile_diff_options_init(casefile_diff_options* opts, unsigned int version) {
  if (opts == nullptr) return CASEFILE_E_ARGUMENT;
  if (version < 1 || version > CASEFILE_DIFF_OPTIONS_VERSION) return CASEFILE_E_VERSION;
  *opts = casefile_diff_options CASEFILE_DIFF_OPTIONS_INIT;
  opts->version = version;
  return CASEFILE_OK;
}

casefile_status casefile_diff(casefile_diff_report** out, casefile_session* good,
                              casefile_session* bad, const casefile_diff_options* opts,
                              casefile_progress_fn progress, void* payload, casefile_error** err) {
  static constexpr const char* kFn = "casefile_diff";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_OUT(kFn, err, out);
  if (casefile_status st = CheckSession(kFn, good, err); st != CASEFILE_OK) return st;
  if (casefile_status st = CheckSession(kFn, bad, err); st != CASEFILE_OK) return st;
  if (good == bad) {
    return Fail(kFn, nullptr, err, CASEFILE_E_ARGUMENT,
                "'good' and 'bad' are the same session; open one per side");
  }
  if (opts != nullptr) {
    casefile_status st = casefile::capi::CheckOptionsVersion(
        kFn, nullptr, err, opts->version, CASEFILE_DIFF_OPTIONS_VERSION, "casefile_diff_options");
    if (st != CASEFILE_OK) return st;
  }
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    std::string current;
    casefile::ProgressFn fn = [&](uint64_t bytes_done, std::string_view path) -> bool {
      if (progress == nullptr) return true;
      current.assign(path);
      return progress(bytes_done, current.c_str(), payload) == 0;
    };
    const bool store = opts == nullptr || opts->no_store == 0;
    auto handle = std::make_unique<casefile_diff_report>();
    const bool good_indexed = good->session->indexed();
    const bool bad_indexed = bad->session->indexed();
    handle->report = casefile::DiffSessions(*good->session, *bad->session, store, fn);
    // casefile_session_index_reused tells the truth about an index this
    // call built or reused.
    if (!good_indexed) good->reused = good->session->reused();
    if (!bad_indexed) bad->reused = bad->session->reused();
    for (const auto& item : handle->report.headline) handle->headline.push_back(item.summary);
    const bool partial =
        AnyPartial(handle->report.good_bundles) || AnyPartial(handle->report.bad_bundles);
    *out = handle.release();
    return partial ? CASEFILE_PARTIAL : CASEFILE_OK;
  });
}

void casefile_diff_report_free(casefile_diff_report* report) {
  if (report == nullptr || report->magic != kDiffReportMagic) return;
  report->magic = kDeadMagic;
  delete report;
}

casefile_status casefile_diff_report_render(char** out, const casefile_diff_report* report,
                                            casefile_format format, casefile_error** err) {
  static constexpr const char* kFn = "casefile_diff_report_render";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_OUT(kFn, err, out);
  CASEFILE_CHECK_ARG(kFn, nullptr, err, report);
  if (LiveDiff(report) == nullptr) {
    return Fail(kFn, nullptr, err, CASEFILE_E_MISUSE,
                "'report' is not a live casefile_diff_report (freed, or another handle type)");
  }
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    std::string text;
    const int bits = casefile::capi::EnumBits(format);
    if (bits == CASEFILE_FORMAT_JSON) {
      text = casefile::diff::RenderDiffJson(report->report);
    } else if (bits == CASEFILE_FORMAT_TEXT || bits == CASEFILE_FORMAT_TEXT_COLOR) {
      text = casefile::diff::RenderDiffText(report->report, bits == CASEFILE_FORMAT_TEXT_COLOR);
    } else if (bits == CASEFILE_FORMAT_HTML) {
      text = casefile::diff::RenderDiffHtml(report->report);
    } else if (bits == CASEFILE_FORMAT_MARKDOWN) {
      text = casefile::diff::RenderDiffMarkdown(report->report);
    } else {
      throw casefile::Error(casefile::ErrorCode::kArgument,
                            "unknown format " + std::to_string(bits));
    }
    *out = casefile::capi::OwnedCopy(text);
    return CASEFILE_OK;
  });
}

size_t casefile_diff_report_headline_count(const casefile_diff_report* report) {
  const casefile_diff_report* r = LiveDiff(report);
  return r == nullptr ? 0 : r->headline.size();
}

const char* casefile_diff_report_headline(const casefile_diff_report* report, size_t index) {
  const casefile_diff_report* r = LiveDiff(report);
  if (r == nullptr || index >= r->headline.size()) return nullptr;
  return r->headline[index].c_str();
}

}  // extern "C"
