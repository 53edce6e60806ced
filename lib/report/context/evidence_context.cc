// The lines around each piece of evidence, so a report shows the matched
// line in its place (the traceback above it, the retry below it).
#include "report/context/context_parts.h"

namespace casefile::context {

std::vector<std::vector<EvidenceContext>> LoadEvidenceContext(
    const IndexFacts& facts, const std::vector<Finding>& findings) {
  std::vector<std::vector<EvidenceContext>> out(findings.size());
  for (size_t i = 0; i < findings.size(); ++i) {
    const std::vector<Evidence>& ev = findings[i].evidence;
    const size_t n = std::min(ev.size(), kContextEvidence);
    out[i].resize(n);
    for (size_t j = 0; j < n; ++j) {
      const FileRow* f = facts.EvidenceFile(ev[j]);
      if (f == nullptr) continue;
      EvidenceContext& c = out[i][j];
      // LineText keeps the last decoded block: neighbours cost nothing more.
      for (int64_t line = ev[j].line - kContextLinesAround; line < ev[j].line; ++line) {
        if (line < 1) continue;
        if (auto text = facts.index->LineText(f->id, line)) c.before.push_back({line, *text});
      }
      for (int64_t line = ev[j].line + 1; line <= ev[j].line + kContextLinesAround; ++line) {
        if (auto text = facts.index->LineText(f->id, line)) c.after.push_back({line, *text});
      }
    }
  }
  return out;
}

}  // namespace casefile::context
