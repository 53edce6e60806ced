// The JSON report. Its shape is a contract (docs/CLI.md): keys are only ever
// added. Output is byte-identical for the same index and analyzers.
#include "common/json_writer.h"
#include "common/version.h"
#include "report/report.h"

namespace casefile {
namespace {

void WriteFinding(JsonWriter& w, const Finding& f) {
  w.BeginObject();
  w.Key("code").String(f.code);
  w.Key("analyzer").String(f.analyzer);
  w.Key("severity").String(SeverityName(f.severity));
  w.Key("title").String(f.title);
  w.Key("summary").String(f.summary);
  w.Key("culprits").BeginArray();
  for (const auto& c : f.culprits) {
    w.BeginObject();
    w.Key("host").OptString(c.host);
    w.Key("task").OptString(c.task);
    w.Key("rank").OptInt(c.rank);
    w.EndObject();
  }
  w.EndArray();
  w.Key("evidence").BeginArray();
  for (const auto& e : f.evidence) {
    w.BeginObject();
    w.Key("bundle").String(e.bundle);
    w.Key("path").String(e.path);
    w.Key("line").Int(e.line);
    w.Key("text").String(e.text);
    w.EndObject();
  }
  w.EndArray();
  w.Key("recommendation").String(f.recommendation);
  w.EndObject();
}

}  // namespace

std::string RenderFindingJson(const Finding& finding) {
  JsonWriter w(0);
  WriteFinding(w, finding);
  return w.Take();
}

std::string RenderJson(const Report& report) {
  JsonWriter w;
  w.BeginObject();
  w.Key("casefile_version").String(kVersionString);
  w.Key("bundles").BeginArray();
  for (const auto& b : report.bundles) {
    w.BeginObject();
    w.Key("name").String(b.name);
    w.Key("path").String(b.path);
    w.Key("format").String(b.format);
    w.Key("status").String(b.status);
    w.Key("error").String(b.error);
    w.Key("host").OptString(b.host);
    w.Key("entries").Int(b.entries);
    w.Key("bytes").Int(b.bytes);
    w.EndObject();
  }
  w.EndArray();
  w.Key("analyzers").BeginArray();
  for (const auto& a : report.analyzers) {
    w.BeginObject();
    w.Key("name").String(a.name);
    w.Key("version").String(a.version);
    w.Key("status").String(a.status);
    w.Key("reason").String(a.reason);
    w.Key("findings").Int(a.findings);
    w.EndObject();
  }
  w.EndArray();
  w.Key("findings").BeginArray();
  for (const auto& f : report.findings) WriteFinding(w, f);
  w.EndArray();
  w.Key("ingest_issues").BeginArray();
  for (const auto& i : report.ingest_issues) {
    w.BeginObject();
    w.Key("bundle").String(i.bundle);
    w.Key("path").String(i.row.path);
    w.Key("offset").Int(i.row.offset);
    w.Key("kind").String(i.row.kind);
    w.Key("message").String(i.row.message);
    w.EndObject();
  }
  w.EndArray();
  w.Key("ingest_issue_counts").BeginObject();
  for (const auto& [kind, n] : report.ingest_issue_counts) w.Key(kind).Int(n);
  w.EndObject();
  w.Key("warnings").BeginArray();
  for (const auto& warning : report.warnings) w.String(warning);
  w.EndArray();
  w.Key("network");
  WriteNetworkJson(w, report.network);
  w.EndObject();
  std::string out = w.Take();
  out += '\n';
  return out;
}

}  // namespace casefile
