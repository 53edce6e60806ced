#include "ingest/flight_sink.h"

#include <string>
#include <utility>

#include "parse/flight/flight_dump.h"

namespace casefile {
namespace {

class FlightSink : public FileSink {
 public:
  FlightSink(const FileContext& ctx, IndexWriter& writer, std::unique_ptr<FileSink> lines)
      : ctx_(ctx), writer_(writer), lines_(std::move(lines)) {}

  void Feed(std::string_view chunk) override {
    lines_->Feed(chunk);
    if (dump_.size() + chunk.size() <= flight::kMaxDumpBytes) {
      dump_.append(chunk);
    } else if (!too_large_) {
      too_large_ = true;
      dump_.append(chunk.substr(0, flight::kMaxDumpBytes - dump_.size()));
    }
  }

  void Finish() override {
    lines_->Finish();
    if (too_large_) {
      Issue("flight_recorder_too_large", static_cast<int64_t>(flight::kMaxDumpBytes),
            "larger than " + std::to_string(flight::kMaxDumpBytes >> 20) +
                " MiB: its rows come from the first " +
                std::to_string(flight::kMaxDumpBytes >> 20) +
                " MiB, all of it is indexed as lines");
    }
    flight::FlightSinks sinks{[this](const FrEntryRow& row) { writer_.AddFrEntry(row); },
                              [this](const FrGroupRow& row) { writer_.AddFrGroup(row); },
                              [this](const std::string& kind, int64_t offset,
                                     const std::string& message) { Issue(kind, offset, message); }};
    flight::ParseFlightDump(dump_, ctx_.path, ctx_.file_id, ctx_.rank, sinks);
    std::string().swap(dump_);
  }

  const FileStats& stats() const override { return lines_->stats(); }

 private:
  void Issue(const std::string& kind, int64_t offset, const std::string& message) {
    writer_.AddIngestIssue({ctx_.bundle_id, ctx_.path, offset, kind, ctx_.path + ": " + message});
  }

  FileContext ctx_;
  IndexWriter& writer_;
  std::unique_ptr<FileSink> lines_;
  std::string dump_;
  bool too_large_ = false;
};

}  // namespace

std::unique_ptr<FileSink> MakeFlightSink(const FileContext& ctx, IndexWriter& writer,
                                         std::unique_ptr<FileSink> lines) {
  return std::make_unique<FlightSink>(ctx, writer, std::move(lines));
}

}  // namespace casefile
