// Helpers the trace rules share: finding shells, culprits, host lists, the
// way numbers are written (times, shares, bytes), mark evidence, and the
// name of a trace event from its JSON text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyze/analyzers/comm/comm_trace_inputs.h"
#include "analyze/finding.h"

namespace casefile::comm {

Finding NewTraceFinding(std::string_view code, Severity severity, std::string title);

// A host culprit ("" gives none; duplicates are removed by Normalize).
void AddHostCulprit(Finding& f, const std::string& host);

// "w-0, w-1 and 3 more" ("the host" for "").
std::string HostNames(const std::vector<std::string>& hosts, size_t max_named = 4);
// "1 host", "3 hosts".
std::string HostCount(const std::vector<std::string>& hosts);
// Per-trace sentences joined with "; ", the first kMaxCitedTraces of them,
// then "; and N more".
std::string JoinParts(const std::vector<std::string>& parts);
// The host of a trace, else its path.
std::string TraceName(const TraceFile& t);

// "850 us", "12.3 ms", "1.20 s".
std::string Micros(double us);
// "37%" (one decimal under 10%: "2.5%").
std::string Percent(double share);
// "16 GiB", "6 MiB", "4096 bytes": exact binary units when the value is a
// whole number of them, else one decimal.
std::string Bytes(double bytes);
// A number without a useless fraction: "3", "2.5".
std::string Number(double v);

// Evidence for a kept trace event (its line and the event as written).
Evidence MarkEvidence(const TraceFacts& facts, const TraceMark& m);
// Up to `max` marks of a kind of a trace as evidence; false when it has none.
bool AddMarkEvidence(const TraceFacts& facts, const TraceFile& t, const std::string& kind,
                     size_t max, Finding& f);

// " The job sets --megascale_grpc_premap_memory_bytes=N (16 GiB)." when a
// config names it, else "".
std::string PremapSentence(const TraceFacts& facts);
// " (now N; try 2N)" when a config names it, else "".
std::string PremapAdvice(const TraceFacts& facts);

// The "name" of a trace event object ("" when it has none). Cheap: the
// text is one kept event, never a whole trace.
std::string EventName(std::string_view event_json);

}  // namespace casefile::comm
