// What the JSON and pickle readers of a dump share: the rank decision, the
// entry rows, the join of pg_config and pg_status into group rows, and the
// issues. A reader calls Begin once the top level is known, AddEntry per
// entry in dump order, then Finish.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parse/flight/flight_dump.h"
#include "parse/flight/flight_fields.h"

namespace casefile::flight_internal {

struct DumpHeader {
  std::optional<int64_t> rank;  // the top-level "rank" key
  std::optional<std::string> version;
  std::vector<PgConfigItem> config;
  std::vector<PgStatusItem> status;
};

class DumpAssembler {
 public:
  DumpAssembler(std::string_view path, int64_t file_id, std::optional<int64_t> attributed_rank,
                const flight::FlightSinks& sinks);

  void Issue(const std::string& kind, uint64_t offset, const std::string& message);
  void Begin(DumpHeader header);
  // `json` holds the entry as JSON; `offset` is where the entry starts in the
  // dump, `line_no` its line; `index` its position in the entries list.
  void AddEntry(PaddedJson json, uint64_t offset, int64_t line_no, size_t index);
  // An entry skipped by the reader itself (not an object, cut short).
  void SkipEntry(uint64_t offset, const std::string& why);
  flight::FlightDumpSummary Finish(std::string format);

  FieldReader& reader() { return reader_; }

 private:
  std::string path_;
  int64_t file_id_;
  std::optional<int64_t> attributed_rank_;
  const flight::FlightSinks& sinks_;
  FieldReader reader_;
  DumpHeader header_;
  int64_t rank_ = -1;
  size_t entries_ = 0;
  // Group names by numeric id, learnt from the entries (pg_status is keyed
  // by id, pg_config by name).
  std::map<std::string, std::string> name_by_id_;
  std::map<std::string, std::string> desc_by_name_;
  size_t skipped_ = 0;
  uint64_t first_skip_offset_ = 0;
  std::string first_skip_why_;
};

}  // namespace casefile::flight_internal
