#include "common/error.h"
#include "parse/version/report_dispatcher.h"
#include "parse/version/version_facts.h"

namespace casefile::version {

struct VersionExtractor::State {
  State(std::string_view path, VersionSink sink) : dispatcher(path, std::move(sink)) {}
  ReportDispatcher dispatcher;
};

VersionExtractor::VersionExtractor(std::string_view path, VersionSink sink) {
  if (!sink) throw Error(ErrorCode::kArgument, "VersionExtractor: the fact sink is empty");
  state_ = std::make_unique<State>(path, std::move(sink));
}

VersionExtractor::~VersionExtractor() = default;

void VersionExtractor::AddLine(int64_t line_no, std::string_view text) {
  state_->dispatcher.AddLine(line_no, text);
}

void VersionExtractor::Finish() { state_->dispatcher.Finish(); }

}  // namespace casefile::version
