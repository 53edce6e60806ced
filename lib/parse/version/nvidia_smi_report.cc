// nvidia-smi's human outputs (formats.md 6.5): the default table, the
// `nvidia-smi -q` "NVSMI LOG" and `nvidia-smi -L`.
//
// The table's frame width changed with driver generations (79, 87, 89
// characters), so nothing here relies on columns: the banner row is read by
// its labels ("Driver Version:", "CUDA Version:") and a GPU row by its
// cells, split on '|': "<index> <name> <On|Off>" then a Bus-Id cell. The
// processes table that follows is skipped.
#include <string>

#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

const char* const kSource = kSourceNvidiaSmi;

// The value after `label`, blanks and a ':' ("Driver Version: 550.54.15",
// -q's "Driver Version                  : 535.104.05"): one token, ended by
// a blank or '|'. "" when the label is absent.
std::string_view LabeledValue(std::string_view text, std::string_view label) {
  const size_t at = text.find(label);
  if (at == std::string_view::npos) return {};
  std::string_view rest = TrimLeft(text.substr(at + label.size()));
  if (!rest.starts_with(":")) return {};
  rest = TrimLeft(rest.substr(1));
  size_t end = 0;
  while (end < rest.size() && rest[end] != ' ' && rest[end] != '\t' && rest[end] != '|') ++end;
  return rest.substr(0, end);
}

// The whole value after "<label> ... :" of a -q line, for names with blanks.
std::string_view LabeledText(std::string_view text, std::string_view label) {
  const std::string_view t = TrimLeft(text);
  if (!t.starts_with(label)) return {};
  const std::string_view rest = TrimLeft(t.substr(label.size()));
  if (!rest.starts_with(":")) return {};
  return Trim(rest.substr(1));
}

bool IsAllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

class NvidiaSmiReader final : public ReportReader {
 public:
  explicit NvidiaSmiReader(const FactOut* out) : out_(*out) {}

  void Begin(std::string_view) override {
    in_processes_ = false;
    q_gpus_ = 0;
  }
  void Line(int64_t line_no, std::string_view text) override;

 private:
  void Versions(int64_t line_no, std::string_view text);
  bool GpuRow(int64_t line_no, std::string_view text);
  bool ListEntry(int64_t line_no, std::string_view text);

  const FactOut& out_;
  bool in_processes_ = false;
  int q_gpus_ = 0;  // "Product Name" lines seen in a -q log
};

void NvidiaSmiReader::Line(int64_t line_no, std::string_view text) {
  if (text.find("Version") != std::string_view::npos) {
    Versions(line_no, text);
    return;
  }
  const std::string_view product = LabeledText(text, "Product Name");
  if (!product.empty()) {
    if (!IsNoValue(product)) {
      out_.Emit(line_no, kGpuName, product, "GPU " + std::to_string(q_gpus_), kSource);
    }
    ++q_gpus_;
    return;
  }
  if (text.find("Processes:") != std::string_view::npos) {
    in_processes_ = true;
    return;
  }
  if (!in_processes_ && text.starts_with("|")) {
    GpuRow(line_no, text);
    return;
  }
  ListEntry(line_no, text);
}

void NvidiaSmiReader::Versions(int64_t line_no, std::string_view text) {
  const std::string_view driver = LabeledValue(text, "Driver Version");
  if (StartsWithDigit(driver)) out_.Emit(line_no, kDriver, driver, "", kSource);
  const std::string_view cuda = LabeledValue(text, "CUDA Version");
  if (StartsWithDigit(cuda)) out_.Emit(line_no, kDriverCuda, cuda, "", kSource);
}

bool NvidiaSmiReader::GpuRow(int64_t line_no, std::string_view text) {
  // "|   0  NVIDIA A100-SXM4-80GB   On  | 00000000:07:00.0 Off |  0 |"
  const size_t bar1 = text.find('|', 1);
  if (bar1 == std::string_view::npos) return false;
  const size_t bar2 = text.find('|', bar1 + 1);
  if (bar2 == std::string_view::npos) return false;
  const std::string_view bus = Trim(text.substr(bar1 + 1, bar2 - bar1 - 1));
  if (bus.find(':') == std::string_view::npos) return false;  // not a Bus-Id cell
  const std::string_view cell = Trim(text.substr(1, bar1 - 1));
  size_t pos = 0;
  const std::string_view index = NextToken(cell, &pos);
  if (!IsAllDigits(index)) return false;
  // The persistence mode ends the name (Windows shows the driver model).
  const size_t last = cell.find_last_of(" \t");
  if (last == std::string_view::npos || last < pos) return false;
  const std::string_view mode = cell.substr(last + 1);
  if (mode != "On" && mode != "Off" && mode != "WDDM" && mode != "TCC") return false;
  const std::string_view name = Trim(cell.substr(pos, last - pos));
  // A GPU the driver lost shows "ERR!" where its name was: no model.
  if (name.empty() || name == "ERR!" || IsNoValue(name)) return false;
  out_.Emit(line_no, kGpuName, name, std::string("GPU ").append(index), kSource);
  return true;
}

// nvidia-smi -L: "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)".
bool NvidiaSmiReader::ListEntry(int64_t line_no, std::string_view text) {
  if (!text.starts_with("GPU ")) return false;
  const size_t colon = text.find(':');
  const size_t uuid = text.find(" (UUID:");
  if (colon == std::string_view::npos || uuid == std::string_view::npos || uuid < colon) {
    return false;
  }
  const std::string_view index = text.substr(4, colon - 4);
  const std::string_view name = Trim(text.substr(colon + 1, uuid - colon - 1));
  if (!IsAllDigits(index) || name.empty()) return false;
  out_.Emit(line_no, kGpuName, name, std::string("GPU ").append(index), kSource);
  return true;
}

}  // namespace

std::unique_ptr<ReportReader> MakeNvidiaSmiReader(const FactOut* out) {
  return std::make_unique<NvidiaSmiReader>(out);
}

}  // namespace casefile::version
