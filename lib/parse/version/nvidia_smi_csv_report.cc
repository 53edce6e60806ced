// `nvidia-smi --query-gpu=<fields> --format=csv[,noheader][,nounits]`
// (formats.md 6.5). The fields and their order are the caller's choice, so
// they are read from the header row ("name, compute_cap, index",
// "memory.total [MiB]") or from the "$ nvidia-smi --query-gpu=..." command
// line that printed the rows. Without either (a noheader file on its own)
// the columns cannot be known and the rows are skipped.
#include <array>
#include <string>

#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

const char* const kSource = kSourceNvidiaSmiCsv;

enum class Field : uint8_t { kOther, kName, kIndex, kComputeCap, kDriver };

// More columns than nvidia-smi has query fields is not a header.
inline constexpr size_t kMaxFields = 64;

struct Fields {
  std::array<Field, kMaxFields> kinds{};
  size_t count = 0;
};

Field FieldOf(std::string_view name) {
  if (name == "name" || name == "gpu_name") return Field::kName;
  if (name == "index") return Field::kIndex;
  if (name == "compute_cap") return Field::kComputeCap;
  if (name == "driver_version") return Field::kDriver;
  return Field::kOther;
}

// What nvidia-smi prints instead of rows when it cannot query the GPUs
// (or one of them). Under a noheader query they would read as a one-cell row.
bool IsSmiMessage(std::string_view text) {
  for (std::string_view m :
       {"No devices were found", "Failed to initialize NVML", "NVIDIA-SMI has failed",
        "NVML library version", "Unable to determine the device handle", "Field \"",
        "GPU access blocked", "Insufficient Permissions"}) {
    if (text.starts_with(m)) return true;
  }
  return false;
}

bool IsFieldName(std::string_view s) {
  if (s.empty() || s[0] < 'a' || s[0] > 'z') return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.')) return false;
  }
  return true;
}

// Reads a comma-separated field list: a header row ("memory.total [MiB]"
// carries its unit) or the value of --query-gpu= (no blanks).
bool ReadFields(std::string_view list, Fields* out) {
  Fields f;
  bool known = false;
  size_t i = 0;
  while (i <= list.size()) {
    size_t end = list.find(',', i);
    if (end == std::string_view::npos) end = list.size();
    std::string_view cell = Trim(list.substr(i, end - i));
    i = end + 1;
    const size_t unit = cell.find(" [");
    if (unit != std::string_view::npos && cell.ends_with("]")) cell = cell.substr(0, unit);
    if (!IsFieldName(cell) || f.count == kMaxFields) return false;
    f.kinds[f.count] = FieldOf(cell);
    known = known || f.kinds[f.count] != Field::kOther;
    ++f.count;
  }
  if (!known) return false;
  *out = f;
  return true;
}

class NvidiaSmiCsvReader final : public ReportReader {
 public:
  explicit NvidiaSmiCsvReader(const FactOut* out) : out_(*out) {}

  void Begin(std::string_view command) override;
  void Line(int64_t line_no, std::string_view text) override;

 private:
  const FactOut& out_;
  Fields fields_;
  bool have_fields_ = false;
  int row_ = 0;  // the GPU's position when no index column says it
  bool driver_emitted_ = false;
};

void NvidiaSmiCsvReader::Begin(std::string_view command) {
  have_fields_ = false;
  row_ = 0;
  driver_emitted_ = false;
  const size_t q = command.find("--query-gpu");
  if (q == std::string_view::npos) return;
  std::string_view rest = command.substr(q + 11);
  if (!rest.starts_with("=") && !rest.starts_with(" ")) return;
  rest = TrimLeft(rest.substr(1));
  rest = Unquote(FirstToken(rest));
  if (!ReadFields(rest, &fields_)) return;
  // With a header the header row repeats the fields; without it the
  // command is all that names them.
  have_fields_ = command.find("noheader") != std::string_view::npos;
}

void NvidiaSmiCsvReader::Line(int64_t line_no, std::string_view text) {
  if (IsNvidiaSmiCsvHeader(text, true)) {
    have_fields_ = ReadFields(text, &fields_);
    return;
  }
  // A blank line is no GPU: counting it would shift the row numbering.
  if (!have_fields_ || text.empty() || IsSmiMessage(text)) return;
  std::array<std::string_view, kMaxFields> cells;
  size_t n = 0;
  size_t i = 0;
  while (i <= text.size()) {
    size_t end = text.find(',', i);
    if (end == std::string_view::npos) end = text.size();
    if (n == fields_.count) return;  // more cells than fields: not a row of this query
    cells[n++] = Trim(text.substr(i, end - i));
    i = end + 1;
  }
  if (n != fields_.count) return;
  std::string detail = "GPU " + std::to_string(row_);
  for (size_t k = 0; k < n; ++k) {
    if (fields_.kinds[k] == Field::kIndex && !cells[k].empty() && IsDottedNumber(cells[k]) &&
        cells[k].find('.') == std::string_view::npos) {
      detail = std::string("GPU ").append(cells[k]);
    }
  }
  ++row_;
  for (size_t k = 0; k < n; ++k) {
    const std::string_view v = cells[k];
    if (IsNoValue(v)) continue;
    switch (fields_.kinds[k]) {
      case Field::kName:
        out_.Emit(line_no, kGpuName, v, detail, kSource);
        break;
      case Field::kComputeCap:
        if (IsDottedNumber(v)) out_.Emit(line_no, kGpuComputeCapability, v, detail, kSource);
        break;
      case Field::kDriver:
        // One driver per host: said once, not once per GPU.
        if (!driver_emitted_ && StartsWithDigit(v)) {
          out_.Emit(line_no, kDriver, v, "", kSource);
          driver_emitted_ = true;
        }
        break;
      case Field::kIndex:
      case Field::kOther:
        break;
    }
  }
}

}  // namespace

bool IsNvidiaSmiCsvHeader(std::string_view line, bool allow_single) {
  // Cheap rejections first: this runs on every line of a version file.
  if (line.empty() || line[0] < 'a' || line[0] > 'z') return false;
  const bool single = line.find(',') == std::string_view::npos;
  if (single && !allow_single) return false;
  Fields f;
  return ReadFields(line, &f);
}

std::unique_ptr<ReportReader> MakeNvidiaSmiCsvReader(const FactOut* out) {
  return std::make_unique<NvidiaSmiCsvReader>(out);
}

}  // namespace casefile::version
