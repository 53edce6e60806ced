// The JSON of a diff (docs/DIFF.md). Its shape is a contract: keys are only
// ever added. Output is byte-identical for the same two indexes.
#include <cmath>

#include "common/json_writer.h"
#include "common/version.h"
#include "diff/diff.h"

namespace casefile::diff {
namespace {

void WriteBundles(JsonWriter& w, const std::vector<BundleRow>& bundles) {
  w.BeginArray();
  for (const BundleRow& b : bundles) {
    w.BeginObject();
    w.Key("name").String(b.name);
    w.Key("path").String(b.path);
    w.Key("format").String(b.format);
    w.Key("status").String(b.status);
    w.Key("error").String(b.error);
    w.Key("host").OptString(b.host);
    w.EndObject();
  }
  w.EndArray();
}

void WriteEvidence(JsonWriter& w, const std::vector<Evidence>& evidence) {
  w.BeginArray();
  for (const Evidence& e : evidence) {
    w.BeginObject();
    w.Key("bundle").String(e.bundle);
    w.Key("path").String(e.path);
    w.Key("line").Int(e.line);
    w.Key("text").String(e.text);
    w.EndObject();
  }
  w.EndArray();
}

void WriteValue(JsonWriter& w, const DiffValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) {
    w.String(*s);
  } else if (const auto* i = std::get_if<int64_t>(&v)) {
    w.Int(*i);
  } else if (const auto* d = std::get_if<double>(&v)) {
    w.Double(*d);
  } else if (const auto* b = std::get_if<bool>(&v)) {
    w.Bool(*b);
  } else {
    w.Null();
  }
}

void WriteItem(JsonWriter& w, const DiffItem& item) {
  w.BeginObject();
  w.Key("section").String(item.section);
  w.Key("kind").String(item.kind);
  w.Key("key").String(item.key);
  w.Key("host").OptString(item.host);
  w.Key("good").OptString(item.good);
  w.Key("bad").OptString(item.bad);
  // Scores are set from documented constants and simple ratios; one decimal
  // keeps the output stable across compilers.
  w.Key("score").Double(std::round(item.score * 10) / 10);
  w.Key("summary").String(item.summary);
  w.Key("fields").BeginObject();
  for (const DiffField& f : item.fields) {
    w.Key(f.name);
    WriteValue(w, f.value);
  }
  w.EndObject();
  w.Key("good_evidence");
  WriteEvidence(w, item.good_evidence);
  w.Key("bad_evidence");
  WriteEvidence(w, item.bad_evidence);
  w.EndObject();
}

void WriteList(JsonWriter& w, const std::vector<DiffItem>& items) {
  w.BeginArray();
  for (const DiffItem& item : items) WriteItem(w, item);
  w.EndArray();
}

}  // namespace

std::string RenderDiffJson(const DiffReport& report) {
  JsonWriter w;
  w.BeginObject();
  w.Key("casefile_version").String(kVersionString);
  w.Key("good");
  WriteBundles(w, report.good_bundles);
  w.Key("bad");
  WriteBundles(w, report.bad_bundles);
  w.Key("headline");
  WriteList(w, report.headline);
  w.Key("findings").BeginObject();
  w.Key("new");
  WriteList(w, report.findings_new);
  w.Key("resolved");
  WriteList(w, report.findings_resolved);
  w.Key("persisting");
  WriteList(w, report.findings_persisting);
  w.EndObject();
  w.Key("versions");
  WriteList(w, report.versions);
  w.Key("configs");
  WriteList(w, report.configs);
  w.Key("templates").BeginObject();
  w.Key("new");
  WriteList(w, report.templates_new);
  w.Key("vanished");
  WriteList(w, report.templates_vanished);
  w.Key("changed");
  WriteList(w, report.templates_changed);
  w.EndObject();
  w.Key("metrics");
  WriteList(w, report.metrics);
  w.Key("hlo");
  WriteList(w, report.hlo);
  w.Key("traces");
  WriteList(w, report.traces);
  w.Key("totals").BeginObject();
  for (size_t i = 0; i < DiffReport::kListCount && i < report.totals.size(); ++i) {
    w.Key(DiffReport::ListNames()[i]).Int(report.totals[i]);
  }
  w.EndObject();
  w.Key("warnings").BeginArray();
  for (const std::string& s : report.warnings) w.String(s);
  w.EndArray();
  w.EndObject();
  std::string out = w.Take();
  out += '\n';
  return out;
}

}  // namespace casefile::diff
