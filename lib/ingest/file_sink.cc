#include "ingest/file_sink.h"

#include <ctime>
#include <set>

#include "common/error.h"
#include "ingest/flight_sink.h"
#include "parse/config/config_parser.h"
#include "parse/dist/dist_extractor.h"
#include "parse/dist/dist_kinds.h"
#include "parse/dist/step_series.h"
#include "parse/hlo/hlo_scanner.h"
#include "parse/line/ansi.h"
#include "parse/line/line_prefix.h"
#include "parse/line/line_splitter.h"
#include "parse/line/utf8.h"
#include "parse/numeric/numeric_extractor.h"
#include "parse/trace/comm_trace.h"
#include "parse/trace/trace_reader.h"
#include "parse/version/version_facts.h"

namespace casefile {
namespace {

// Configs are parsed from memory; larger "configs" are indexed as lines only.
constexpr size_t kMaxConfigBytes = 16u << 20;

int YearOf(int64_t epoch_seconds) {
  std::time_t t = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return tm.tm_year + 1900;
}

// Every text file becomes lines (so any line can be cited as evidence);
// HLO modules and configs are also summarised into their own tables, and
// log lines also feed the numeric extractors (metrics, overflow reports) and
// the distributed-run events (collective timeouts, launchers, step times).
class LineSink : public FileSink {
 public:
  LineSink(const FileContext& ctx, const Limits& limits, IndexWriter& writer)
      : ctx_(ctx),
        writer_(writer),
        splitter_(limits.max_line_bytes, [this](const RawLine& l) { OnLine(l); }) {
    // glog and syslog stamps carry no year: take it from the file's mtime
    // until a line with a full date says otherwise.
    time_ctx_.default_year = ctx.mtime > 0 ? YearOf(ctx.mtime) : 1970;
    year_from_mtime_ = ctx.mtime > 0;
    mtime_us_ = ctx.mtime * 1000000;
    if (ctx.kind == FileKind::kHlo) hlo_.emplace(ctx.path);
    if (ctx.kind == FileKind::kConfig) config_text_.emplace();
    if (ctx.kind == FileKind::kVersion) {
      versions_ = std::make_unique<version::VersionExtractor>(
          ctx.path, [this](const version::VersionFact& f) { AddVersion(f); });
    }
    // Version files too: a job log whose first lines are a version report
    // (a SLURM .out that starts with nvidia-smi, an install log that prints
    // nvcc -V) is classified as one, and its failures must not be lost.
    if (ctx.kind == FileKind::kLog || ctx.kind == FileKind::kVersion) {
      numeric_.emplace(
          ctx.file_id,
          numeric::NumericSinks{[this](const NumericFrameRow& r) { writer_.AddNumericFrame(r); },
                                [this](const MetricChunkRow& r) { writer_.AddMetricChunk(r); },
                                [this](const std::string& kind, const std::string& message) {
                                  writer_.AddIngestIssue({ctx_.bundle_id, ctx_.path, 0, kind,
                                                          ctx_.path + ": " + message});
                                }});
      // Step times are stored as metric series (step_series.h), the other
      // events one row each.
      steps_ = std::make_unique<dist::StepSeriesWriter>(
          ctx.file_id, [this](const MetricChunkRow& r) { writer_.AddMetricChunk(r); },
          [this](const std::string& kind, const std::string& message) {
            writer_.AddIngestIssue(
                {ctx_.bundle_id, ctx_.path, 0, kind, ctx_.path + ": " + message});
          });
      dist_.emplace(
          ctx.file_id,
          [this](const DistEventRow& r) {
            if (r.kind == dist::kStepTime) {
              steps_->Add(r);
            } else {
              writer_.AddDistEvent(r);
            }
          },
          [this](const NcclRankRow& r) { AddNcclRank(r); });
    }
    record_.file_id = ctx.file_id;
  }

  void Feed(std::string_view chunk) override {
    stats_.bytes += chunk.size();
    if (config_text_) {
      if (config_text_->size() + chunk.size() <= kMaxConfigBytes) {
        config_text_->append(chunk);
      } else {
        config_too_large_ = true;
      }
    }
    splitter_.Feed(chunk);
  }

  void Finish() override {
    splitter_.Finish();
    writer_.EndFileLines(ctx_.file_id);
    if (numeric_) numeric_->Finish();
    if (dist_) dist_->Finish();
    if (steps_) steps_->Finish();
    if (versions_) versions_->Finish();
    if (hlo_ && hlo_->is_module()) {
      HloModuleRow row = hlo_->Finish();
      row.file_id = ctx_.file_id;
      if (!row.host && ctx_.host) row.host = ctx_.host;
      writer_.AddHloModule(row);
    }
    if (config_text_) FinishConfig();
    if (stats_.truncated_lines > 0) {
      writer_.AddIngestIssue(
          {ctx_.bundle_id, ctx_.path, 0, "line_truncated",
           ctx_.path + ": " + std::to_string(stats_.truncated_lines) +
               " line(s) longer than the line limit were truncated, first at line " +
               std::to_string(stats_.first_truncated_line)});
    }
  }

  const FileStats& stats() const override { return stats_; }

 private:
  void OnLine(const RawLine& raw) {
    ++stats_.lines;
    uint32_t flags = raw.flags;
    std::string_view text = raw.text;
    if (StripAnsi(text, clean_)) {
      text = clean_;
      flags |= kLineHadAnsi;
    }
    if (!IsValidUtf8(text)) flags |= kLineInvalidUtf8;
    if (flags & kLineTruncated) {
      if (stats_.truncated_lines++ == 0)
        stats_.first_truncated_line = static_cast<int64_t>(stats_.lines);
    }
    LinePrefix p = ParseLinePrefix(text, time_ctx_);
    if ((p.wrappers & (kWrapIsoTime | kWrapDeepSpeed | kWrapCloudExport)) &&
        p.ts_us != kNoTimestamp) {
      time_ctx_.default_year = YearOf(p.ts_us / 1000000);
      year_from_mtime_ = false;
    } else if (year_from_mtime_ && p.ts_us != kNoTimestamp &&
               p.ts_us > mtime_us_ + kFutureSlackUs && (p.wrappers & (kWrapGlog | kWrapSyslog))) {
      // A year-less stamp after the file's own mtime was written the year
      // before ("I1231 23:59:59" in a file saved on 1 January).
      TimeContext previous = time_ctx_;
      --previous.default_year;
      p = ParseLinePrefix(text, previous);
    }
    record_.line_no = static_cast<int64_t>(stats_.lines);
    record_.offset = raw.offset;
    record_.ts_us = p.ts_us;
    record_.level = p.level;
    // Only what the line's own wrappers said; readers fall back to the
    // file's attribution, which a late manifest may still change.
    record_.rank = p.rank;
    record_.local_rank = p.local_rank;
    record_.host = p.host;
    record_.pid = p.pid;
    record_.msg_start = p.msg_start;
    record_.flags = flags;
    record_.text = text;
    writer_.AddLine(record_);
    if (hlo_) hlo_->AddLine(text);
    if (numeric_) numeric_->AddLine(record_);
    if (dist_) dist_->AddLine(record_);
    if (versions_) versions_->AddLine(record_.line_no, text);
  }

  // A communicator row, and the versions its process printed as versions
  // rows (source nccl_log), so the diff and version checks see what ran.
  void AddNcclRank(const NcclRankRow& r) {
    writer_.AddNcclRank(r);
    const std::string key = r.host.value_or("") + ":" + std::to_string(r.pid);
    if (!nccl_versioned_.insert(key).second) return;
    if (r.nccl_version) {
      writer_.AddVersion({ctx_.file_id, r.version_line.value_or(r.line_no), "nccl", *r.nccl_version,
                          r.host ? "host " + *r.host + " pid " + std::to_string(r.pid) : "",
                          "nccl_log"});
    }
  }

  void AddVersion(const version::VersionFact& f) {
    writer_.AddVersion({ctx_.file_id, f.line_no, f.component, f.version, f.detail, f.source});
  }

  void FinishConfig() {
    if (config_too_large_) {
      writer_.AddIngestIssue({ctx_.bundle_id, ctx_.path, static_cast<int64_t>(kMaxConfigBytes),
                              "config_too_large",
                              ctx_.path + ": larger than 16 MiB, indexed as lines only"});
      return;
    }
    try {
      ParseConfig(
          ConfigFormatForPath(ctx_.path), *config_text_,
          [&](std::string_view key, std::string_view value, int64_t line_no) {
            writer_.AddConfig({ctx_.file_id, std::string(key), std::string(value), line_no});
            // Environment dumps are configs; the CUDA paths and arch list in
            // them are version facts too.
            version::EnvVersionFacts(key, value, line_no,
                                     [this](const version::VersionFact& f) { AddVersion(f); });
          });
    } catch (const Error& e) {
      writer_.AddIngestIssue({ctx_.bundle_id, ctx_.path, 0, "config_invalid", e.what()});
    }
  }

  FileContext ctx_;
  IndexWriter& writer_;
  LineSplitter splitter_;
  TimeContext time_ctx_;
  bool year_from_mtime_ = false;  // the year guess still rests on the mtime
  int64_t mtime_us_ = 0;
  // Clock skew tolerated between a line's stamp and its file's mtime.
  static constexpr int64_t kFutureSlackUs = 2 * 86400 * 1000000LL;
  LineRecord record_;
  std::string clean_;
  std::optional<HloScanner> hlo_;
  std::optional<std::string> config_text_;
  std::optional<numeric::NumericExtractor> numeric_;
  std::optional<dist::DistExtractor> dist_;
  std::unique_ptr<dist::StepSeriesWriter> steps_;
  std::unique_ptr<version::VersionExtractor> versions_;
  bool config_too_large_ = false;
  std::set<std::string> nccl_versioned_;  // host:pid whose NCCL version is a versions row
  FileStats stats_;
};

class TraceSink : public FileSink {
 public:
  TraceSink(const FileContext& ctx, const Limits& limits, IndexWriter& writer)
      : ctx_(ctx),
        writer_(writer),
        reader_(
            limits.max_trace_event_bytes,
            TraceReader::Callbacks{[this](TraceEventRow&& row) {
                                     row.file_id = ctx_.file_id;
                                     comm_.Add(row);
                                     writer_.AddTraceEvent(row);
                                   },
                                   [this](uint64_t offset, std::string kind, std::string message) {
                                     writer_.AddIngestIssue(
                                         {ctx_.bundle_id, ctx_.path, static_cast<int64_t>(offset),
                                          std::move(kind), ctx_.path + ": " + message});
                                   }}) {}

  void Feed(std::string_view chunk) override {
    stats_.bytes += chunk.size();
    reader_.Feed(chunk);
  }

  void Finish() override {
    reader_.Finish();
    for (const auto& [pid, name] : reader_.process_names()) {
      writer_.SetTraceProcessName(ctx_.file_id, pid, name);
    }
    for (const auto& [key, name] : reader_.thread_names()) {
      writer_.SetTraceThreadName(ctx_.file_id, key.first, key.second, name);
    }
    comm_.Finish({[this](const TraceStatRow& r) { writer_.AddTraceStat(r); },
                  [this](const NetLinkRow& r) { writer_.AddNetLink(r); },
                  [this](const NetSizeRow& r) { writer_.AddNetSize(r); },
                  [this](const NetTimelineRow& r) { writer_.AddNetTimeline(r); },
                  [this](const TraceMarkRow& r) { writer_.AddTraceMark(r); }});
  }

  const FileStats& stats() const override { return stats_; }

 private:
  FileContext ctx_;
  IndexWriter& writer_;
  TraceReader reader_;
  trace_comm::CommTraceAggregator comm_{ctx_.file_id};
  FileStats stats_;
};

// Binary files are recorded (path, size) but not parsed.
class CountingSink : public FileSink {
 public:
  void Feed(std::string_view chunk) override { stats_.bytes += chunk.size(); }
  void Finish() override {}
  const FileStats& stats() const override { return stats_; }

 private:
  FileStats stats_;
};

}  // namespace

bool MinesTemplates(FileKind kind) {
  return kind == FileKind::kLog || kind == FileKind::kVersion || kind == FileKind::kSysinfo;
}

std::unique_ptr<FileSink> MakeFileSink(const FileContext& ctx, const Limits& limits,
                                       IndexWriter& writer) {
  switch (ctx.kind) {
    case FileKind::kTrace:
      return std::make_unique<TraceSink>(ctx, limits, writer);
    case FileKind::kBinary:
      return std::make_unique<CountingSink>();
    case FileKind::kFlightRecorder:
      // Lines as for any text (evidence), plus the fr_* rows (flight_sink.h).
      return MakeFlightSink(ctx, writer, std::make_unique<LineSink>(ctx, limits, writer));
    default:
      return std::make_unique<LineSink>(ctx, limits, writer);
  }
}

}  // namespace casefile
