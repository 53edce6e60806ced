#include "parse/flight/dump_assembler.h"

#include <utility>

namespace casefile::flight_internal {

DumpAssembler::DumpAssembler(std::string_view path, int64_t file_id,
                             std::optional<int64_t> attributed_rank,
                             const flight::FlightSinks& sinks)
    : path_(path), file_id_(file_id), attributed_rank_(attributed_rank), sinks_(sinks) {}

void DumpAssembler::Issue(const std::string& kind, uint64_t offset, const std::string& message) {
  if (sinks_.issue) sinks_.issue(kind, static_cast<int64_t>(offset), message);
}

void DumpAssembler::Begin(DumpHeader header) {
  header_ = std::move(header);
  if (header_.rank) {
    rank_ = *header_.rank;
  } else if (std::optional<int64_t> named = flight::RankFromDumpName(path_)) {
    rank_ = *named;
  } else if (attributed_rank_) {
    rank_ = *attributed_rank_;
  } else {
    rank_ = -1;
    Issue("flight_recorder_no_rank", 0,
          "no \"rank\" in the dump and no rank in its name or path: its rows have rank -1");
  }
  for (const PgConfigItem& c : header_.config) {
    if (c.desc) desc_by_name_.emplace(c.key, *c.desc);
  }
}

void DumpAssembler::SkipEntry(uint64_t offset, const std::string& why) {
  if (skipped_++ == 0) {
    first_skip_offset_ = offset;
    first_skip_why_ = why;
  }
}

void DumpAssembler::AddEntry(PaddedJson json, uint64_t offset, int64_t line_no, size_t index) {
  FrEntryRow row;
  row.file_id = file_id_;
  row.rank = rank_;
  row.line_no = line_no;
  row.input_sizes = row.output_sizes = row.input_dtypes = row.output_dtypes = "[]";
  EntryGroup group;
  std::string why;
  if (!reader_.ReadEntry(json, row, group, why)) {
    SkipEntry(offset, why);
    return;
  }
  if (!group.has_record_id) row.record_id = static_cast<int64_t>(index);
  if (!row.pg_desc) {
    auto it = desc_by_name_.find(row.pg_id);
    if (it != desc_by_name_.end()) row.pg_desc = it->second;
  }
  if (group.numeric_id && group.name && !group.name->empty()) {
    name_by_id_.emplace(*group.numeric_id, *group.name);
  }
  ++entries_;
  if (sinks_.entry) sinks_.entry(row);
}

flight::FlightDumpSummary DumpAssembler::Finish(std::string format) {
  if (skipped_ > 0) {
    Issue("flight_recorder_entry_invalid", first_skip_offset_,
          std::to_string(skipped_) + " entr" + (skipped_ == 1 ? "y" : "ies") +
              " skipped, the first at byte " + std::to_string(first_skip_offset_) + ": " +
              first_skip_why_);
  }
  // One row per group: pg_config's (keyed by name) first, in dump order;
  // pg_status (keyed by numeric id) joins through the names the entries
  // gave each id, else through equal keys (default groups are named by
  // their id: "0", "1"...).
  std::vector<FrGroupRow> rows;
  std::map<std::string, size_t> row_of;
  for (const PgConfigItem& c : header_.config) {
    if (row_of.count(c.key)) continue;
    FrGroupRow row;
    row.file_id = file_id_;
    row.rank = rank_;
    row.pg_id = c.key;
    row.name = c.name;
    row.desc = c.desc;
    row.ranks = c.ranks;
    row_of.emplace(c.key, rows.size());
    rows.push_back(std::move(row));
  }
  for (const PgStatusItem& s : header_.status) {
    auto named = name_by_id_.find(s.key);
    const std::string& pg = named != name_by_id_.end() ? named->second : s.key;
    auto it = row_of.find(pg);
    if (it == row_of.end()) {
      FrGroupRow row;
      row.file_id = file_id_;
      row.rank = rank_;
      row.pg_id = pg;
      row.ranks = "[]";
      it = row_of.emplace(pg, rows.size()).first;
      rows.push_back(std::move(row));
    }
    FrGroupRow& row = rows[it->second];
    row.last_enqueued = s.last_enqueued;
    row.last_started = s.last_started;
    row.last_completed = s.last_completed;
  }
  if (sinks_.group) {
    for (const FrGroupRow& row : rows) sinks_.group(row);
  }
  flight::FlightDumpSummary summary;
  summary.format = std::move(format);
  summary.version = header_.version;
  summary.rank = rank_;
  summary.entries = entries_;
  summary.groups = rows.size();
  return summary;
}

}  // namespace casefile::flight_internal
