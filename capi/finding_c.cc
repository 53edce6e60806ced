// Finding accessors: borrowed views of the copies the report owns.
#include "capi_internal.h"

namespace casefile::capi {

const casefile_finding* LiveFinding(const casefile_finding* finding) noexcept {
  if (finding == nullptr || finding->magic != kFindingMagic) return nullptr;
  return finding;
}

}  // namespace casefile::capi

using casefile::capi::LiveFinding;

namespace {

const char* Str(const casefile_finding* finding, const std::string casefile::Finding::*member) {
  const casefile_finding* f = LiveFinding(finding);
  return f == nullptr ? "" : (f->finding.*member).c_str();
}

}  // namespace

extern "C" {

const char* casefile_finding_code(const casefile_finding* finding) {
  return Str(finding, &casefile::Finding::code);
}

const char* casefile_finding_analyzer(const casefile_finding* finding) {
  return Str(finding, &casefile::Finding::analyzer);
}

casefile_severity casefile_finding_severity(const casefile_finding* finding) {
  const casefile_finding* f = LiveFinding(finding);
  if (f == nullptr) return CASEFILE_SEVERITY_INFO;
  switch (f->finding.severity) {
    case casefile::Severity::kInfo:
      return CASEFILE_SEVERITY_INFO;
    case casefile::Severity::kWarning:
      return CASEFILE_SEVERITY_WARNING;
    case casefile::Severity::kError:
      return CASEFILE_SEVERITY_ERROR;
  }
  return CASEFILE_SEVERITY_ERROR;
}

const char* casefile_finding_title(const casefile_finding* finding) {
  return Str(finding, &casefile::Finding::title);
}

const char* casefile_finding_summary(const casefile_finding* finding) {
  return Str(finding, &casefile::Finding::summary);
}

const char* casefile_finding_recommendation(const casefile_finding* finding) {
  return Str(finding, &casefile::Finding::recommendation);
}

size_t casefile_finding_culprit_count(const casefile_finding* finding) {
  const casefile_finding* f = LiveFinding(finding);
  return f == nullptr ? 0 : f->finding.culprits.size();
}

casefile_status casefile_finding_culprit(const casefile_finding* finding, size_t index,
                                         const char** host_out, const char** task_out,
                                         int64_t* rank_out) {
  if (host_out != nullptr) *host_out = nullptr;
  if (task_out != nullptr) *task_out = nullptr;
  if (rank_out != nullptr) *rank_out = -1;
  const casefile_finding* f = LiveFinding(finding);
  if (f == nullptr) return finding == nullptr ? CASEFILE_E_ARGUMENT : CASEFILE_E_MISUSE;
  if (index >= f->finding.culprits.size()) return CASEFILE_E_ARGUMENT;
  const casefile::Culprit& c = f->finding.culprits[index];
  if (host_out != nullptr && c.host) *host_out = c.host->c_str();
  if (task_out != nullptr && c.task) *task_out = c.task->c_str();
  if (rank_out != nullptr && c.rank) *rank_out = *c.rank;
  return CASEFILE_OK;
}

size_t casefile_finding_evidence_count(const casefile_finding* finding) {
  const casefile_finding* f = LiveFinding(finding);
  return f == nullptr ? 0 : f->finding.evidence.size();
}

casefile_status casefile_finding_evidence(const casefile_finding* finding, size_t index,
                                          const char** bundle_out, const char** path_out,
                                          int64_t* line_out, const char** text_out) {
  if (bundle_out != nullptr) *bundle_out = nullptr;
  if (path_out != nullptr) *path_out = nullptr;
  if (line_out != nullptr) *line_out = 0;
  if (text_out != nullptr) *text_out = nullptr;
  const casefile_finding* f = LiveFinding(finding);
  if (f == nullptr) return finding == nullptr ? CASEFILE_E_ARGUMENT : CASEFILE_E_MISUSE;
  if (index >= f->finding.evidence.size()) return CASEFILE_E_ARGUMENT;
  const casefile::Evidence& e = f->finding.evidence[index];
  if (bundle_out != nullptr) *bundle_out = e.bundle.c_str();
  if (path_out != nullptr) *path_out = e.path.c_str();
  if (line_out != nullptr) *line_out = e.line;
  if (text_out != nullptr) *text_out = e.text.c_str();
  return CASEFILE_OK;
}

}  // extern "C"
