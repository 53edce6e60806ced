// A hand-built index for one side of a diff, for the metrics, hlo and traces
// section tests: bundles, files and lines written with the IndexWriter, and
// rows of metric_chunks (step times through ingest's StepSeriesWriter), hlo_modules and the trace
// tables as ingest writes them (docs/SCHEMA.md), so the tests rest on the table contract only.
// Every log line is synthetic, written from the format facts.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "diff/diff_types.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "parse/dist/step_series.h"
#include "test_util.h"

namespace casefile::test {

class SideIndex {
 public:
  SideIndex(const TempDir& tmp, const std::string& name)
      : db_(tmp.Join(name + ".db")), writer_(std::make_unique<IndexWriter>(db_)) {
    BundleRow b;
    b.name = name + "-bundle";
    b.path = "/in/" + name;
    b.format = "directory";
    b.status = "complete";
    bundle_ = writer_->AddBundle(b);
  }

  IndexWriter& w() { return *writer_; }

  // A file with these lines (1-based line numbers in order).
  int64_t File(const std::string& path, const std::string& kind,
               const std::optional<std::string>& host, const std::vector<std::string>& lines,
               std::optional<int64_t> rank = std::nullopt) {
    FileRow f;
    f.bundle_id = bundle_;
    f.path = path;
    f.kind = kind;
    f.entry_type = "file";
    f.host = host;
    f.rank = rank;
    f.size = 0;
    f.line_count = static_cast<int64_t>(lines.size());
    const int64_t id = writer_->AddFile(f);
    int64_t n = 0;
    for (const std::string& text : lines) {
      LineRecord r;
      r.file_id = id;
      r.line_no = ++n;
      r.text = text;
      writer_->AddLine(r);
    }
    writer_->EndFileLines(id);
    return id;
  }

  // One metric_chunks row; points are (line, step or nullopt, value text),
  // encoded as docs/SCHEMA.md says: [line delta, step delta, "value"], the
  // first line delta 0 and the first step delta the step itself.
  void Chunk(int64_t file_id, const std::string& name,
             const std::vector<std::tuple<int64_t, std::optional<int64_t>, std::string>>& points,
             std::optional<std::string> host = std::nullopt,
             std::optional<int64_t> rank = std::nullopt, const std::string& form = "key_value") {
    MetricChunkRow c;
    c.file_id = file_id;
    c.name = name;
    c.form = form;
    c.host = std::move(host);
    c.rank = rank;
    c.first_line = std::get<0>(points.front());
    c.last_line = std::get<0>(points.back());
    c.point_count = static_cast<int64_t>(points.size());
    int64_t prev_line = c.first_line, prev_step = 0;
    c.points = "[";
    for (const auto& [line, step, value] : points) {
      if (c.points.size() > 1) c.points += ",";
      c.points += "[" + std::to_string(line - prev_line) + ",";
      c.points += step ? std::to_string(*step - prev_step) : "null";
      c.points += ",\"" + value + "\"]";
      prev_line = line;
      if (step) prev_step = *step;
      if (value == "nan" || value == "inf" || value == "-inf") ++c.nonfinite_count;
    }
    c.points += "]";
    writer_->AddMetricChunk(c);
  }

  void StepTime(int64_t file_id, int64_t line_no, int64_t step, double seconds,
                std::optional<std::string> host = std::nullopt,
                const std::string& detail = "step_time") {
    DistEventRow e;
    e.file_id = file_id;
    e.line_no = line_no;
    e.kind = "step_time";
    e.seq = step;
    e.value = seconds;
    e.host = std::move(host);
    e.detail = detail;
    // Stored as ingest stores them: series of the file (step_series.h),
    // written at Open. Lines of one file must come in order.
    auto& steps = steps_[file_id];
    if (!steps) {
      steps = std::make_unique<dist::StepSeriesWriter>(
          file_id, [this](const MetricChunkRow& r) { writer_->AddMetricChunk(r); }, nullptr);
    }
    steps->Add(e);
  }

  // Commits and opens the index; the side reads it.
  const diff::DiffSide& Open(const char* side_name) {
    for (auto& [file_id, steps] : steps_) steps->Finish();
    steps_.clear();
    writer_->Commit();
    writer_.reset();
    reader_ = IndexReader::Open(db_);
    side_ = diff::LoadSide(side_name, *reader_, {"/in/" + std::string(side_name)}, {});
    return side_;
  }

 private:
  std::string db_;
  std::unique_ptr<IndexWriter> writer_;
  std::map<int64_t, std::unique_ptr<dist::StepSeriesWriter>> steps_;
  int64_t bundle_ = 0;
  std::unique_ptr<IndexReader> reader_;
  diff::DiffSide side_;
};

// The field of an item, nullptr when absent.
inline const diff::DiffValue* FieldOf(const diff::DiffItem& item, const std::string& name) {
  for (const diff::DiffField& f : item.fields) {
    if (f.name == name) return &f.value;
  }
  return nullptr;
}

inline const diff::DiffItem* ItemOf(const std::vector<diff::DiffItem>& items,
                                    const std::string& kind, const std::string& key) {
  for (const diff::DiffItem& i : items) {
    if (i.kind == kind && i.key == key) return &i;
  }
  return nullptr;
}

inline double MaxScore(const std::vector<diff::DiffItem>& items) {
  double m = 0;
  for (const diff::DiffItem& i : items) m = std::max(m, i.score);
  return m;
}

}  // namespace casefile::test
