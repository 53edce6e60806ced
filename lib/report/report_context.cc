// Loads the report context part by part. A part that fails (a damaged block,
// a table an older writer left empty) leaves that part empty and a warning;
// the rest of the report still stands.
#include "report/report_context.h"

#include <exception>
#include <functional>

#include "report/context/context_parts.h"

namespace casefile {

ReportContext LoadReportContext(const IndexReader& index, const std::vector<Finding>& findings) {
  ReportContext c;
  c.evidence.resize(findings.size());
  context::IndexFacts facts;
  try {
    facts = context::LoadIndexFacts(index);
  } catch (const std::exception& e) {
    c.warnings.push_back(std::string("report context not loaded: ") + e.what());
    return c;
  }
  auto part = [&](const char* name, const std::function<void()>& load) {
    try {
      load();
    } catch (const std::exception& e) {
      c.warnings.push_back(std::string("report ") + name + " not shown: " + e.what());
    }
  };
  part("inventory", [&] { c.inventory = context::LoadInventory(facts); });
  part("versions", [&] { c.versions = context::LoadVersions(facts, &c.version_component_count); });
  part("timeline", [&] { c.timeline = context::LoadTimeline(facts, findings); });
  part("curves", [&] { context::LoadCurves(facts, findings, c); });
  part("step times",
       [&] { c.step_times = context::LoadStepTimes(facts, findings, &c.step_time_host_count); });
  part("latency matrix", [&] { c.latency = context::LoadLatency(facts); });
  part("evidence context", [&] { c.evidence = context::LoadEvidenceContext(facts, findings); });
  part("environment", [&] { c.environment = context::LoadEnvironment(facts); });
  return c;
}

}  // namespace casefile
