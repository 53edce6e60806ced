// What the numeric analyzer reads from the index: DebugUnderflowOverflow
// tables (numeric_frames), metric series (metric_chunks, one series at a
// time so memory does not grow with the length of the run), trainer_state
// log histories and precision settings (configs), and command lines
// (the first lines of each log). Host and rank fall back to the file's when
// a row names none.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "index/index_reader.h"
#include "parse/numeric/metric_value.h"

namespace casefile::numeric {

struct Who {
  std::string host;             // "" when unknown
  std::optional<int64_t> rank;  // nullopt when unknown
  bool operator==(const Who& o) const { return host == o.host && rank == o.rank; }
  bool operator<(const Who& o) const;
};

// A line of the bundle: file and line number.
struct LineRef {
  int64_t file_id = 0;
  int64_t line_no = 0;
  bool operator<(const LineRef& o) const {
    return file_id != o.file_id ? file_id < o.file_id : line_no < o.line_no;
  }
};

struct FrameRowData {
  int64_t line_no = 0;
  std::optional<int64_t> frame_index;
  std::optional<int64_t> module_line_no;
  std::string module_path;
  std::string module_class;
  std::string role;
  std::string min_text;
  std::string max_text;
};

// One DebugUnderflowOverflow table: a report ("overflow") or a traced batch
// ("trace"), rows in line order.
struct FrameTable {
  int64_t file_id = 0;
  int64_t report_line_no = 0;
  std::string kind;
  std::optional<int64_t> batch;
  Who who;
  std::vector<FrameRowData> rows;
};

// A detect_overflow line ("output has infs").
struct DetectLine {
  LineRef line;
  std::string label;
  std::string what;  // "inf" or "nan"
  Who who;
};

struct FrameInputs {
  std::vector<FrameTable> tables;
  std::vector<DetectLine> detects;
};

struct SeriesPoint {
  int64_t line_no = 0;
  std::optional<int64_t> step;
  double value = 0;
  ValueKind kind = ValueKind::kFinite;
  bool finite() const { return kind == ValueKind::kFinite; }
};

// The series of one file, host, rank and log form, by metric name.
struct MetricGroup {
  int64_t file_id = 0;
  std::string form;
  Who who;
  std::vector<std::pair<std::string, std::vector<SeriesPoint>>> series;
  const std::vector<SeriesPoint>* Find(const std::string& name) const;
};

// A config value with its place.
struct ConfigValue {
  LineRef line;
  std::string key;
  std::string value;
};

struct PrecisionInputs {
  std::vector<ConfigValue> bf16_dtypes;    // model configs: torch_dtype / dtype = bfloat16
  std::vector<ConfigValue> fp16_settings;  // fp16.enabled, fp16, mixed_precision
  std::vector<LineRef> fp16_flags;         // command lines passing --fp16
  std::optional<double> min_loss_scale;    // DeepSpeed fp16.min_loss_scale
};

// Throws casefile::Error when the index is unreadable.
FrameInputs LoadFrames(const IndexReader& index, const std::vector<FileRow>& files);

// Calls `cb` once per group, in (file, host, rank, form) order; the group
// is valid during the call only.
void ScanMetricGroups(const IndexReader& index, const std::vector<FileRow>& files,
                      const std::function<void(const MetricGroup&)>& cb);

// HF trainer_state.json log histories (configs rows log_history[i].loss,
// .grad_norm, .eval_loss, .step), one group per file, form "trainer_state".
std::vector<MetricGroup> LoadTrainerStates(const IndexReader& index,
                                           const std::vector<FileRow>& files);

// Precision settings; the command-line scan for --fp16 runs only when a
// bf16 model and an fp16 "auto" setting were both found.
PrecisionInputs LoadPrecision(const IndexReader& index);

// Lines scanned for a command line per log file.
inline constexpr int64_t kCommandLineScan = 1000;

// True when the index has the numeric tables (indexes written before them
// do not).
bool HasNumericTables(const IndexReader& index);

// The exceptions of NaN checks (NumericFacts::nan_checks) from the crash
// rows: one query, filtered by the checks' words.
void LoadNanChecks(const IndexReader& index, const std::vector<FileRow>& files,
                   const std::function<void(LineRef, Who, std::string)>& add);

}  // namespace casefile::numeric
