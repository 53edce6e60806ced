// The pieces behind VersionExtractor: one ReportReader per report format,
// fed by ReportDispatcher (report_dispatcher.h) once a banner selected it.
// Readers keep no lines: what they hold between lines is a mode and at most
// a few short strings, so memory stays bounded whatever the file's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "parse/version/version_facts.h"

namespace casefile::version {

// The report a line belongs to.
enum class Report : uint8_t {
  kNone,  // before any banner, or after an unknown "$ command": lines skipped
  kCollectEnv,
  kNvcc,
  kNvidiaSmi,     // the table, `nvidia-smi -q` and `nvidia-smi -L`
  kNvidiaSmiCsv,  // `--query-gpu=... --format=csv`
  kGcc,
  kPip,  // pip freeze, pip list (columns, json)
  kCondaList,
  kDsReport,
  kTransformersEnv,
  kJaxEnv,
  kWhichNvcc,
  kCudaDirs,
  kEnv,  // `env` / `printenv` output inside a version file; keep it last (kReportCount)
};
inline constexpr size_t kReportCount = static_cast<size_t>(Report::kEnv) + 1;

// Hands facts to the sink with their line and source filled in.
class FactOut {
 public:
  explicit FactOut(VersionSink sink) : sink_(std::move(sink)) {}
  void Emit(int64_t line_no, std::string_view component, std::string_view version,
            std::string_view detail, const char* source) const;

 private:
  VersionSink sink_;
};

class ReportReader {
 public:
  virtual ~ReportReader() = default;
  // The report's banner was seen (again): forget the previous report.
  // `command` is the text after "$ " when a command line started it, else "".
  virtual void Begin(std::string_view command) = 0;
  // One line of the report, trailing whitespace and '\r' removed. A banner
  // that is itself a line of the report (nvidia-smi's driver row, a pip
  // freeze line, gcc's first line) is passed here after Begin().
  virtual void Line(int64_t line_no, std::string_view text) = 0;
  // The report ended (another banner, or the end of the file): emit what a
  // pending multi-line value holds.
  virtual void End() {}
  // Heap bytes held between lines (the bounded-memory invariant, tested).
  virtual size_t HeldBytes() const { return 0; }
};

// A fact a reader holds until a later line completes it (the end of a
// multi-line value). Its strings are capped at kMaxHeldText, so holding one
// costs bounded memory whatever the input.
inline constexpr size_t kMaxHeldText = 512;
struct HeldFact {
  bool set = false;
  int64_t line_no = 0;
  std::string component;
  std::string version;
  std::string detail;

  // False, holding nothing, when a field is longer than kMaxHeldText.
  bool Hold(int64_t line, std::string_view c, std::string_view v, std::string_view d);
  void Emit(const FactOut& out, const char* source);  // if set; then clears
  void Clear() { set = false; }
  size_t HeldBytes() const { return component.capacity() + version.capacity() + detail.capacity(); }
};

}  // namespace casefile::version
