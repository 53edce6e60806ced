#include "engine/stored_findings.h"

#include <simdjson.h>

#include "analyze/registry.h"
#include "common/version.h"

namespace casefile {
namespace {

std::optional<std::string> OptString(simdjson::dom::element e) {
  if (e.is_null()) return std::nullopt;
  std::string_view v;
  if (e.get(v)) return std::nullopt;
  return std::string(v);
}

bool GetString(simdjson::dom::object o, const char* key, std::string& out) {
  std::string_view v;
  if (o[key].get(v)) return false;
  out = std::string(v);
  return true;
}

}  // namespace

std::string FullAnalysisProvenance() { return FullAnalysisProvenance(AllAnalyzers()); }

std::string FullAnalysisProvenance(const AnalyzerList& analyzers) {
  std::string out = std::string("casefile ") + kVersionString + ";";
  for (const auto& a : analyzers) {
    out += " ";
    out += a->info().name;
    out += ":";
    out += a->info().version;
  }
  return out;
}

std::optional<Finding> ParseFindingJson(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json.data(), json.size()).get(doc)) return std::nullopt;
  simdjson::dom::object o;
  if (doc.get(o)) return std::nullopt;
  Finding f;
  std::string severity;
  if (!GetString(o, "code", f.code) || !GetString(o, "analyzer", f.analyzer) ||
      !GetString(o, "severity", severity) || !GetString(o, "title", f.title) ||
      !GetString(o, "summary", f.summary) || !GetString(o, "recommendation", f.recommendation)) {
    return std::nullopt;
  }
  if (severity == "error") {
    f.severity = Severity::kError;
  } else if (severity == "warning") {
    f.severity = Severity::kWarning;
  } else if (severity == "info") {
    f.severity = Severity::kInfo;
  } else {
    return std::nullopt;
  }
  simdjson::dom::array culprits, evidence;
  if (o["culprits"].get(culprits) || o["evidence"].get(evidence)) return std::nullopt;
  for (simdjson::dom::element c : culprits) {
    Culprit cu;
    simdjson::dom::element host, task;
    if (c["host"].get(host) || c["task"].get(task)) return std::nullopt;
    cu.host = OptString(host);
    cu.task = OptString(task);
    int64_t rank;
    if (!c["rank"].get(rank)) cu.rank = rank;
    f.culprits.push_back(std::move(cu));
  }
  for (simdjson::dom::element e : evidence) {
    simdjson::dom::object eo;
    if (e.get(eo)) return std::nullopt;
    Evidence ev;
    int64_t line;
    if (!GetString(eo, "bundle", ev.bundle) || !GetString(eo, "path", ev.path) ||
        !GetString(eo, "text", ev.text) || eo["line"].get(line)) {
      return std::nullopt;
    }
    ev.line = line;
    f.evidence.push_back(std::move(ev));
  }
  return f;
}

std::optional<std::vector<Finding>> LoadStoredFindings(const IndexReader& index) {
  if (index.Meta(kFindingsProvenanceKey) != FullAnalysisProvenance()) return std::nullopt;
  std::vector<Finding> findings;
  bool ok = true;
  index.Query("SELECT json FROM findings ORDER BY id", [&](const QueryRow& row) {
    std::optional<Finding> f;
    if (!row.values.empty() && row.values[0]) f = ParseFindingJson(*row.values[0]);
    if (!f) {
      ok = false;
      return false;
    }
    findings.push_back(std::move(*f));
    return true;
  });
  if (!ok) return std::nullopt;
  return findings;
}

}  // namespace casefile
