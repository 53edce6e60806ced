// Output helpers: result rows as an aligned table, CSV or JSON; text made safe
// for a terminal; byte counts for humans; the colour decision.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace casefile_cli {

enum class RowFormat { kTable, kCsv, kJson };
RowFormat ParseRowFormat(const std::string& name);  // "table", "csv", "json"

// Control bytes (ESC included) would let a log line drive the terminal; they
// are shown in caret notation ("^[") instead. Tabs are kept.
std::string TerminalSafe(std::string_view text);

// A JSON string literal. Invalid UTF-8 becomes U+FFFD, so the output always
// parses whatever bytes a log holds.
void AppendJsonString(std::string& out, std::string_view text);

// "532 B", "1.2 kB", "12.3 MB", "1.2 GB" (powers of 1000).
std::string HumanBytes(uint64_t bytes);

// Colour on stdout: a terminal, NO_COLOR unset or empty, and no --no-color.
bool UseColor(bool no_color_flag);

// Writes a rendered report to stdout (no path, or "-") or to `path`: a
// temporary file beside it (created exclusively, unpredictable name),
// renamed over it once complete, so a reader never sees half a report. A
// link is followed; a path that is not a regular file (a device, a pipe) is
// written in place, never replaced. `what` names it in errors ("the
// report"). Throws CliError(kExitInput).
void WriteReport(const std::optional<std::string>& path, std::string_view text, const char* what);

// Writes result rows as they arrive. Column names come with each row (the C
// API has no other way to learn them), so an empty result has no header.
class RowWriter {
 public:
  struct Options {
    RowFormat format = RowFormat::kTable;
    std::string null_text = "NULL";  // how the table shows SQL NULL
    std::vector<bool> json_numbers;  // per column: integers become JSON numbers
  };
  RowWriter(std::FILE* out, Options options);

  void Row(size_t count, const char* const* names, const char* const* values);
  // Flushes buffered table rows and closes the JSON array.
  void Finish();
  uint64_t rows() const { return rows_; }

 private:
  using Cells = std::vector<std::string>;
  void FlushTable();
  void WriteTableRow(const Cells& cells);
  void Write(const std::string& s);

  std::FILE* out_;
  Options options_;
  uint64_t rows_ = 0;
  Cells names_;
  // Table: the first rows are held to size the columns; later rows are
  // written at once with the same widths (memory stays bounded).
  std::vector<Cells> held_;
  std::vector<std::vector<bool>> held_null_;
  std::vector<size_t> widths_;
  std::vector<bool> right_align_;
  bool table_started_ = false;
};

}  // namespace casefile_cli
