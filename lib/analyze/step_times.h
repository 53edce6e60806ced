// Step times as the index stores them: metric_chunks series of name
// step_time (lib/parse/dist/step_series.h), decoded for the hang and runtime
// analyzers, the report's step-time context and the diff. One query reads
// a series' points a chunk at a time, so a run whose every rank logs every
// step costs a text decode per step, not an SQLite row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "index/index_reader.h"

namespace casefile {

// One series: the chunks of one file, host, rank and form.
struct StoredStepSeries {
  int64_t file_id = 0;
  std::optional<std::string> host;  // as the lines name it; NULL: the file's
  std::optional<int64_t> rank;      // as the lines name it; NULL: the file's
  std::string form;                 // "took", "tqdm total=1000"... (metric_chunks.form)
};

struct StoredStepTime {
  int64_t file_id = 0;
  int64_t line_no = 0;
  std::optional<int64_t> step;
  double seconds = 0;   // NaN for a non-finite value
  uint32_t series = 0;  // index into StoredStepTimes::series
};

// Called for each step time with its series (numbered from 0 in the order
// they come); false stops the reading.
using StepTimeFn =
    std::function<bool(uint32_t series_index, const StoredStepSeries& series, int64_t line_no,
                       std::optional<int64_t> step, double seconds)>;

// Every step time of the files in `only_files` (all when null), series by
// series: series in (file_id, host, rank, form) order, the points of one in
// line order. Nothing is held but the chunk being read. Throws
// Error(kCorrupt) on a points value that is not what ingest writes.
void ForEachStoredStepTime(const IndexReader& index, const std::vector<int64_t>* only_files,
                           const StepTimeFn& fn);

// How many step times ForEachStoredStepTime would give (the chunks' point
// counts: no points are decoded), to size what holds them.
size_t CountStoredStepTimes(const IndexReader& index, const std::vector<int64_t>* only_files);

struct StoredStepTimes {
  std::vector<StoredStepSeries> series;
  std::vector<StoredStepTime> rows;  // in (file_id, line_no) order
  bool truncated = false;            // more than max_rows were stored
};

// The first `max_rows` step times in (file_id, line_no) order, of the files
// in `only_files` when given; memory stays near max_rows rows.
StoredStepTimes LoadStoredStepTimes(const IndexReader& index, size_t max_rows,
                                    const std::vector<int64_t>* only_files = nullptr);

}  // namespace casefile
