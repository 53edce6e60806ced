// Fuzz target: the distributed-run extractor (lib/parse/dist) on the lines of
// one log file, fed as ingest's LineSink feeds it (ingest_lines.h), then
// Finish(). Every row must name a line of the file and a kind of
// dist_kinds.h; a row's time, when set, is the time of a line of the file
// (or, for a torchrun failure entry, the time the entry prints);
// communicator rows must name lines in order inside the file.
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_abort.h"
#include "ingest_lines.h"
#include "parse/dist/dist_extractor.h"
#include "parse/dist/dist_kinds.h"

namespace {

namespace d = casefile::dist;

const std::set<std::string_view>& Kinds() {
  static const std::set<std::string_view> kinds = {d::kWatchdogTimeout,
                                                   d::kWorkProgress,
                                                   d::kNcclFailed,
                                                   d::kWatchdogStuck,
                                                   d::kStoreTimeout,
                                                   d::kCollectiveError,
                                                   d::kCudaError,
                                                   d::kLauncherFailure,
                                                   d::kLauncherSuccess,
                                                   d::kCrash,
                                                   d::kJaxCoordination,
                                                   d::kProgramProgress,
                                                   d::kStepTime,
                                                   d::kBuildError,
                                                   d::kBuildExtensionFailed,
                                                   d::kBuildCudaMismatch,
                                                   d::kBuildGccUnsupported,
                                                   d::kBuildArchUnsupported,
                                                   d::kRankHost,
                                                   d::kNcclWarn,
                                                   d::kRendezvousError,
                                                   d::kGpuTest};
  return kinds;
}

// Long enough for any field read from one line of at most 64 KiB plus the
// words the extractor adds; more means text piled up across lines.
constexpr size_t kMaxField = 80 * 1024;

void CheckText(const std::optional<std::string>& s) {
  if (s && s->size() > kMaxField) FUZZ_ABORT();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::set<int64_t> times;
  int64_t lines = 0;
  std::vector<casefile::DistEventRow> events;
  std::vector<casefile::NcclRankRow> ranks;
  {
    d::DistExtractor extractor(
        7, [&](const casefile::DistEventRow& r) { events.push_back(r); },
        [&](const casefile::NcclRankRow& r) { ranks.push_back(r); });
    lines = casefile::fuzz::FeedLikeIngest(
        input, 7, [&](const casefile::LineRecord& rec, const casefile::LinePrefix&) {
          if (rec.ts_us != casefile::kNoTimestamp) times.insert(rec.ts_us);
          extractor.AddLine(rec);
        });
    extractor.Finish();
  }
  for (const casefile::DistEventRow& e : events) {
    if (e.file_id != 7) FUZZ_ABORT();
    if (e.line_no < 1 || e.line_no > lines) FUZZ_ABORT();
    if (!Kinds().count(e.kind)) FUZZ_ABORT();
    // torchrun's failure summary may carry its entry's own "time :" value.
    if (e.ts_us != casefile::kNoTimestamp && !times.count(e.ts_us) && e.kind != d::kLauncherFailure)
      FUZZ_ABORT();
    CheckText(e.host);
    CheckText(e.pg);
    CheckText(e.op);
    CheckText(e.detail);
  }
  for (const casefile::NcclRankRow& r : ranks) {
    if (r.file_id != 7) FUZZ_ABORT();
    if (r.line_no < 1 || r.line_no > lines) FUZZ_ABORT();
    if (r.last_line < r.line_no || r.last_line > lines) FUZZ_ABORT();
    if (r.init_line && (*r.init_line < 1 || *r.init_line > lines)) FUZZ_ABORT();
    if (r.complete_line && (*r.complete_line < 1 || *r.complete_line > lines)) FUZZ_ABORT();
    if (r.version_line && (*r.version_line < 1 || *r.version_line > lines)) FUZZ_ABORT();
    if (r.first_warn_line && (*r.first_warn_line < 1 || *r.first_warn_line > lines)) FUZZ_ABORT();
    if (r.warn_count < 0 || r.channel_lines < 0) FUZZ_ABORT();
    if (r.warn_count > 0 && !r.first_warn_line) FUZZ_ABORT();
    if (r.env.size() > kMaxField || r.transports.size() > kMaxField) FUZZ_ABORT();
  }
  return 0;
}
