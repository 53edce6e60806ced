#include "parse/version/report_dispatcher.h"

#include "parse/version/report_banner.h"
#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {

ReportDispatcher::ReportDispatcher(std::string_view path, VersionSink sink)
    : out_(std::move(sink)) {
  const FactOut* out = &out_;
  readers_[static_cast<size_t>(Report::kCollectEnv)] = MakeCollectEnvReader(out);
  readers_[static_cast<size_t>(Report::kNvcc)] = MakeNvccReader(out);
  readers_[static_cast<size_t>(Report::kNvidiaSmi)] = MakeNvidiaSmiReader(out);
  readers_[static_cast<size_t>(Report::kNvidiaSmiCsv)] = MakeNvidiaSmiCsvReader(out);
  readers_[static_cast<size_t>(Report::kGcc)] = MakeGccReader(out);
  readers_[static_cast<size_t>(Report::kPip)] = MakePipReader(out);
  readers_[static_cast<size_t>(Report::kCondaList)] = MakeCondaListReader(out);
  readers_[static_cast<size_t>(Report::kDsReport)] = MakeDsReportReader(out);
  readers_[static_cast<size_t>(Report::kTransformersEnv)] = MakeTransformersEnvReader(out);
  readers_[static_cast<size_t>(Report::kJaxEnv)] = MakeJaxEnvReader(out);
  readers_[static_cast<size_t>(Report::kWhichNvcc)] = MakeWhichNvccReader(out);
  readers_[static_cast<size_t>(Report::kCudaDirs)] = MakeCudaDirsReader(out);
  readers_[static_cast<size_t>(Report::kEnv)] = MakeEnvReader(out);
  current_ = ReportOfFileName(path);
  if (ReportReader* r = Reader(current_)) r->Begin({});
}

ReportDispatcher::~ReportDispatcher() = default;

ReportReader* ReportDispatcher::Reader(Report r) { return readers_[static_cast<size_t>(r)].get(); }

void ReportDispatcher::AddLine(int64_t line_no, std::string_view text) {
  text = TrimRight(text);
  if (line_no <= 1 && text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 BOM
  const Banner banner = DetectBanner(text, current_);
  if (banner.found) {
    if (ReportReader* r = Reader(current_)) r->End();
    current_ = banner.report;
    if (ReportReader* r = Reader(current_)) r->Begin(banner.command);
    if (banner.is_command) return;
  }
  if (ReportReader* r = Reader(current_)) r->Line(line_no, text);
}

void ReportDispatcher::Finish() {
  if (ReportReader* r = Reader(current_)) r->End();
  current_ = Report::kNone;
}

size_t ReportDispatcher::HeldBytes() const {
  size_t n = 0;
  for (const auto& r : readers_) {
    if (r) n += r->HeldBytes();
  }
  return n;
}

}  // namespace casefile::version
