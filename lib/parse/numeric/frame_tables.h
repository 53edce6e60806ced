// Reads the tables Transformers' DebugUnderflowOverflow prints (see
// docs/FINDINGS.md, section numeric): the report dumped when an inf/nan is
// detected,
//
//   Detected inf/nan during batch_number=0
//   Last 21 forward frames:
//   abs min  abs max  metadata
//                     encoder.block.1.layer.1.DenseReluDense.dropout Dropout
//   0.00e+00 2.57e+02 input[0]
//   0.00e+00      inf output
//
// the trace-mode blocks ("*** Starting batch number=N ***" then the same
// table), and detect_overflow's "<label> has infs" / "<label> has nans"
// lines. Each tensor row becomes a NumericFrameRow.
//
// Lines arrive one at a time in file order. Tables are tracked per rank, so
// lines of other ranks interleaved with a table (a multi-rank log with
// [rankN]: prefixes) neither end it nor join it. A table ends at a line of
// its rank that is no table line, at the next report or batch header, after
// kMaxBlankRun blank lines, or at the end of the file (a truncated table
// keeps the rows read so far).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "index/index_types.h"

namespace casefile::numeric {

inline constexpr size_t kMaxOpenTables = 64;  // ranks with a table open at once
inline constexpr uint64_t kMaxFrameRowsPerFile = 200000;
inline constexpr int kMaxBlankRun = 4;
inline constexpr size_t kMaxModuleText = 512;  // module path, class, role and label bytes kept

struct FrameLine {
  int64_t line_no = 0;
  int32_t rank = -1;
  std::string_view host;
  std::string_view message;  // the line after its prefixes
};

class FrameTableParser {
 public:
  using RowFn = std::function<void(const NumericFrameRow&)>;
  FrameTableParser(int64_t file_id, RowFn emit);

  // `hits` are the prefilter's LiteralHit bits for the message. Returns true
  // when the line belonged to a table (or opened or closed one, or was a
  // detect_overflow line): the caller need not read it as anything else.
  // Cheap when no table is open and the line cannot open one.
  bool Feed(const FrameLine& line, uint32_t hits);
  void Finish();

  uint64_t rows() const { return rows_; }
  uint64_t dropped_rows() const { return dropped_; }

 private:
  struct Table {
    int32_t rank = -1;
    std::string kind;  // "overflow" or "trace"
    int64_t report_line = 0;
    std::optional<int64_t> batch;
    int64_t frame_index = -1;
    int64_t module_line = 0;
    std::string module_path;
    std::string module_class;
    int blank_run = 0;
  };

  Table* Find(int32_t rank);
  void Open(const FrameLine& line, const char* kind, std::optional<int64_t> batch);
  void Close(int32_t rank);
  void Emit(const Table& t, const FrameLine& line, std::string_view role, std::string_view min_text,
            std::string_view max_text);
  void EmitDetect(const FrameLine& line, std::string_view label, std::string_view what);

  int64_t file_id_;
  RowFn emit_;
  std::vector<Table> tables_;
  uint64_t rows_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace casefile::numeric
