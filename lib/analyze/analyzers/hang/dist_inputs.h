// What the cross-rank hang rules read, as plain structs: the dist_events rows
// (attributed: a row without host or rank takes its file's), flight-recorder
// entries and groups, HLO module rows and the files. LoadDistInputs fills
// them from an index with one query per table; tests build them by hand.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/line_fields.h"
#include "index/index_reader.h"

namespace casefile::hang {

enum class DistKind {
  kWatchdogTimeout,
  kWorkProgress,
  kNcclFailed,
  kWatchdogStuck,
  kStoreTimeout,
  kCollectiveError,
  kCudaError,
  kLauncherFailure,
  kCrash,
  kJaxCoordination,
  kProgramProgress,
  kStepTime,
  kRankHost,
  kOther,
};

// The kind of a dist_events.kind text (parse/dist/dist_kinds.h); kOther for
// a kind this analyzer does not read.
DistKind DistKindOf(std::string_view kind);

struct FileInfo {
  int64_t id = 0;
  std::string path;
  std::string kind;
  std::string host;  // "" when unknown
  std::string task;  // "" when unknown
  std::optional<int64_t> rank;
  int64_t line_count = 0;
  int64_t last_ts_us = kNoTimestamp;  // the latest line timestamp of the file
};

// One dist_events row other than step_time and program_progress.
struct DistEvent {
  int64_t file_id = 0;
  int64_t line_no = 0;
  int64_t ts_us = kNoTimestamp;
  std::string host;  // the row's, else its file's; "" when unknown
  // The row's, else the default group's rank its [PG ...] prefix gives
  // (DefaultGroupRank), else its file's.
  std::optional<int64_t> rank;
  // The rank within the host the line's wrapper named (torchrun's
  // "[default3]:"), kept when no global rank is known: the culprit rules
  // map (host, local rank) to a global rank when the hosts' blocks allow.
  std::optional<int64_t> local_rank;
  DistKind kind = DistKind::kOther;
  std::optional<std::string> pg;
  std::optional<int64_t> pg_rank;
  std::optional<int64_t> seq;
  std::optional<std::string> op;
  std::optional<int64_t> numel_in;
  std::optional<int64_t> numel_out;
  std::optional<int64_t> timeout_ms;
  std::optional<int64_t> elapsed_ms;
  std::optional<int64_t> last_enqueued;
  std::optional<int64_t> last_completed;
  std::optional<double> value;
  std::optional<std::string> detail;
};

// step_time rows of one (host, rank), or of one host when no rank is known,
// or of one file when neither is; points in file order.
struct StepPoint {
  std::optional<int64_t> step;
  double seconds = 0;
  int64_t file_id = 0;
  int64_t line_no = 0;
};
struct StepSeries {
  std::string host;
  std::optional<int64_t> rank;
  int64_t file_id = 0;  // set only when neither host nor rank is known
  std::vector<StepPoint> points;
};

// A program_progress row: the launch id a host reached.
struct ProgressPoint {
  std::string host;
  int64_t launch_id = 0;
  int64_t file_id = 0;
  int64_t line_no = 0;
};

// Flight-recorder entries keep their repetitive texts (op, sizes, dtypes)
// once, in `texts`; entries refer to them by index.
struct FrEntry {
  int64_t file_id = 0;
  int64_t line_no = 0;
  int64_t rank = -1;
  std::string pg_id;
  int64_t record_id = 0;
  std::optional<int64_t> seq;  // collective_seq_id
  int32_t op = 0;              // index into FrData::texts
  int32_t input_sizes = 0;
  int32_t input_dtypes = 0;
  int32_t state = 0;
  bool is_p2p = false;
};
struct FrGroup {
  int64_t file_id = 0;
  int64_t rank = -1;
  std::string pg_id;
  std::string desc;
  std::string ranks;  // the member list as stored, "" when unknown
};
struct FrData {
  std::vector<FrEntry> entries;
  std::vector<FrGroup> groups;
  std::vector<std::string> texts;
  int32_t Intern(std::string_view text);
  const std::string& Text(int32_t id) const { return texts.at(static_cast<size_t>(id)); }

 private:
  std::unordered_map<std::string, int32_t> ids_;
};

struct HloModule {
  int64_t file_id = 0;
  std::string module_name;
  std::string stage;
  std::string host;  // the file's host, else the row's; "" when unknown
  std::string fingerprint;
  std::optional<std::string> xla_fingerprint;
};

struct DistInputs {
  std::vector<FileInfo> files;  // ascending id
  // Grouped by kind, then file and line order. rank_host rows are not kept
  // (the rank->host map reads them), nor store_timeout (comm's
  // rendezvous rule reads those).
  std::vector<DistEvent> events;
  std::vector<StepSeries> steps;
  std::vector<ProgressPoint> progress;
  FrData fr;
  std::vector<HloModule> hlo;

  // Binary search over `files`; nullptr for an unknown id.
  const FileInfo* File(int64_t id) const;
  void SortFiles();
};

// Caps on rows kept per table, so a pathological index costs bounded memory.
// Events are capped per kind (in file order), so that a flood of one kind
// (tracebacks repeated by every rank, say) cannot push out the watchdog
// timeouts that sort after it. A real job of 16k ranks logs a few lines of
// each kind per rank.
inline constexpr size_t kMaxEventsPerKind = 100'000;
inline constexpr size_t kMaxStepPoints = 4'000'000;
inline constexpr size_t kMaxFrEntries = 4'000'000;

// One query per table (dist_events, fr_entries, fr_groups, hlo_modules, and
// line_blocks for each file's latest timestamp).
DistInputs LoadDistInputs(const IndexReader& index, const std::vector<FileRow>& files);

}  // namespace casefile::hang
