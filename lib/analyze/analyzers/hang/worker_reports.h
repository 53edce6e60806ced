// The workers' "Megascale hang detected" reports across all files of an
// index: one entry per reporting host, the summary sentence about them, and
// the two straggler rules that apply when no coordinator digest exists (a
// host behind the others; a host whose log stops early without reporting).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyze/analyzers/hang/hang_findings.h"

namespace casefile::hang {

// The reports of one host.
struct HostReports {
  std::string host;  // "" when neither the file nor the line names one
  int64_t file_id = 0;
  const HangReport* first = nullptr;  // cited as evidence
  const HangReport* last = nullptr;   // its latest position
  int64_t count = 0;
};

struct ReportView {
  std::map<std::string, HostReports> hosts;  // by "h:host", or "f:path" when no host is known
  int64_t total = 0;                         // report lines, all hosts
  int64_t earliest_ts = kNoTimestamp;
  std::optional<int64_t> timeout_us;  // the "Timeout:" of the reports
};

// Views into `files`, which must outlive the result.
ReportView CollectReports(const std::vector<FileScan>& files);

// "3 workers reported "Megascale hang detected" (5 reports): timed out
// waiting for 4 graphs to complete at launch_id 13650, already completed
// 100, timeout 1m." ("" when there is no report.)
std::string ReportContext(const ReportView& v);

struct Straggler {
  std::string host;
  std::string why;  // a clause for the summary
  int64_t file_id = 0;
  const SourceLine* line = nullptr;  // its report, or the last line of a silent log
};

// Hosts whose last report is behind the position most hosts report.
std::vector<Straggler> FindBehind(const ReportView& v);

// Hosts that never report and whose log (named like a reporting worker's
// log) ends more than the timeout plus kSilentMarginUs before the first report.
std::vector<Straggler> FindSilent(const std::vector<FileScan>& files, const ReportView& v);

}  // namespace casefile::hang
