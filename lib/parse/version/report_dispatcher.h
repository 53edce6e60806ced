// Routes the lines of one version file to the reader of the report they
// belong to (report_banner.h). This is VersionExtractor's state, apart so
// that tests can read HeldBytes() and see memory stay bounded.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>

#include "parse/version/version_reader.h"

namespace casefile::version {

class ReportDispatcher {
 public:
  ReportDispatcher(std::string_view path, VersionSink sink);
  ~ReportDispatcher();
  ReportDispatcher(const ReportDispatcher&) = delete;
  ReportDispatcher& operator=(const ReportDispatcher&) = delete;

  void AddLine(int64_t line_no, std::string_view text);
  void Finish();

  Report current() const { return current_; }
  // Heap bytes the readers hold between lines. Bounded by a constant
  // (a few short strings) whatever the number of lines fed.
  size_t HeldBytes() const;

 private:
  ReportReader* Reader(Report r);

  FactOut out_;
  std::array<std::unique_ptr<ReportReader>, kReportCount> readers_;
  Report current_ = Report::kNone;
};

}  // namespace casefile::version
