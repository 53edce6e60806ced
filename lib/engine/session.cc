#include "engine/session.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "analyze/line_marks.h"
#include "analyze/runner.h"
#include "bundle/bundle_reader.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/version.h"
#include "engine/stored_findings.h"
#include "index/index_temp_files.h"
#include "index/index_writer.h"
#include "ingest/ingest.h"

namespace fs = std::filesystem;

namespace casefile {
namespace {

std::string AbsolutePath(const std::string& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) return p;
  std::string out = abs.lexically_normal().generic_string();
  // "dir/" and "dir" are the same input.
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string CacheDir() {
  if (const char* d = std::getenv("CASEFILE_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/casefile";
  if (const char* d = std::getenv("HOME"); d && *d) return std::string(d) + "/.cache/casefile";
  return (fs::temp_directory_path() / "casefile").string();
}

// What must match for an existing index to be reused: the library version,
// the limits (they change what is indexed) and every input's identity.
std::string InputsIdentity(const std::vector<std::string>& inputs, const Limits& l) {
  std::string id = std::string("casefile ") + kVersionString + "\n";
  id += "limits " + std::to_string(l.max_entry_bytes) + " " + std::to_string(l.max_total_bytes) +
        " " + std::to_string(l.max_entries) + " " + std::to_string(l.max_line_bytes) + " " +
        std::to_string(l.max_trace_event_bytes) + "\n";
  for (const auto& in : inputs) id += AbsolutePath(in) + "\t" + BundleIdentity(in) + "\n";
  return id;
}

// The absolute input paths, one per line: an index built for other inputs is
// never silently replaced (the user named it with --index).
std::string InputPaths(const std::vector<std::string>& inputs) {
  std::string out;
  for (const auto& in : inputs) out += AbsolutePath(in) + "\n";
  return out;
}

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string DefaultIndexPath(const std::vector<std::string>& inputs) {
  Fnv1a64 h;
  for (const auto& in : inputs) {
    h.Update(AbsolutePath(in));
    h.Update(std::string_view("\0", 1));
  }
  return CacheDir() + "/" + h.HexDigest() + ".casefile.db";
}

Session::Session(std::vector<std::string> inputs, SessionOptions options)
    : inputs_(std::move(inputs)), options_(std::move(options)) {
  if (inputs_.empty()) throw Error(ErrorCode::kArgument, "no input bundles given");
  for (const auto& in : inputs_) {
    std::error_code ec;
    if (!fs::exists(in, ec)) throw Error(ErrorCode::kNotFound, in + ": no such file or directory");
  }
  index_path_ = options_.index_path;
  if (index_path_.empty()) {
    index_path_ = DefaultIndexPath(inputs_);
    if (!options_.index_dir.empty()) {
      index_path_ = (fs::path(options_.index_dir) / fs::path(index_path_).filename()).string();
    }
  }
}

Session::~Session() = default;

IndexOutcome Session::Index(const ProgressFn& progress) {
  IndexOutcome outcome;
  const std::string identity = InputsIdentity(inputs_, options_.limits);
  reader_.reset();
  reused_ = false;
  // Temporaries of killed builds go whether this run builds or reuses.
  RemoveStaleIndexTemporaries(index_path_);
  std::error_code ec;
  if (fs::exists(index_path_, ec)) {
    std::unique_ptr<IndexReader> existing;
    try {
      existing = IndexReader::Open(index_path_);
    } catch (const Error& e) {
      // An index of an older schema is ours to rebuild; anything else at the
      // path is someone's file, never overwritten.
      if (e.code() != ErrorCode::kIndexVersion) {
        throw Error(ErrorCode::kArgument, "refusing to overwrite " + index_path_ +
                                              ": it is not a casefile index (" + e.what() + ")");
      }
    }
    if (existing) {
      const std::string paths = existing->Meta("input_paths");
      if (!options_.reindex && !paths.empty() && paths != InputPaths(inputs_)) {
        throw Error(ErrorCode::kArgument,
                    index_path_ + " is the index of other inputs; pass --reindex to replace it");
      }
      if (!options_.reindex && existing->Meta("inputs_identity") == identity) {
        outcome.reused = true;
        reused_ = true;
        for (const auto& b : existing->Bundles()) {
          if (b.status != "complete") {
            outcome.partial = true;
            outcome.errors.push_back(b.error);
          }
        }
        reader_ = std::move(existing);
        return outcome;
      }
    }
  }

  const fs::path parent = fs::path(index_path_).parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec)
      throw Error(ErrorCode::kIo, parent.string() + ": cannot create directory: " + ec.message());
  }
  {
    IndexWriter writer(index_path_);
    // The analyzers' line tests run at ingest, so an analysis reads only
    // the blocks that hold what they look for (analyze/line_marks.h).
    IngestResult r =
        IngestInputs(inputs_, options_.limits, progress, writer, &AnalysisLineMarking());
    writer.SetMeta("casefile_version", kVersionString);
    writer.SetMeta("created_at", UtcNow());
    writer.SetMeta("inputs_identity", identity);
    writer.SetMeta("input_paths", InputPaths(inputs_));
    writer.SetMeta("input_bytes", std::to_string(r.bytes));
    writer.SetMeta("input_lines", std::to_string(r.lines));
    writer.Commit();
    outcome.partial = r.partial;
    outcome.errors = std::move(r.errors);
  }
  reader_ = IndexReader::Open(index_path_);
  return outcome;
}

Report Session::Analyze(const std::vector<std::string>& analyzer_names, bool store_findings,
                        ReportParts parts) {
  if (!reader_) Index(nullptr);
  // One snapshot of the registry for the run and for the provenance it
  // records, so that a registration in between cannot mislabel the set.
  const AnalyzerList analyzers = AllAnalyzers();
  // The built-in analyzers run on the machine's cores, each worker over its
  // own reader of the finished index.
  AnalysisResult analysis = RunAnalyzers(*reader_, analyzer_names, analyzers,
                                         [this] { return IndexReader::Open(index_path_); });
  Report report = BuildReport(*reader_, std::move(analysis), parts);
  if (store_findings) {
    std::vector<StoredFinding> stored;
    for (const auto& f : report.findings) {
      stored.push_back({f.code, f.analyzer, SeverityName(f.severity), RenderFindingJson(f)});
    }
    try {
      // One transaction: the findings and their provenance together, so that
      // two processes analysing one index with different analyzer sets (a
      // plugin in one of them) cannot leave one's findings under the other's
      // provenance. Only a whole analysis in which no analyzer failed may
      // stand for what a new run would find (a failed one's findings are
      // missing); any other run clears the provenance.
      const bool whole = analyzer_names.empty() &&
                         std::none_of(report.analyzers.begin(), report.analyzers.end(),
                                      [](const AnalyzerStatus& a) { return a.status == "failed"; });
      std::optional<std::string> provenance;
      if (whole) provenance = FullAnalysisProvenance(analyzers);
      StoreFindings(index_path_, stored, {{kFindingsProvenanceKey, provenance}});
    } catch (const Error& e) {
      // The report matters more than its copy in the index.
      report.warnings.push_back("findings not stored in " + index_path_ + ": " + e.what());
    }
  }
  return report;
}

const IndexReader& Session::reader() const {
  if (!reader_) throw Error(ErrorCode::kMisuse, "the index was not built or opened yet");
  return *reader_;
}

void Session::Query(std::string_view sql, const std::function<bool(const QueryRow&)>& row_cb,
                    const QueryLimits& limits) {
  if (!reader_) throw Error(ErrorCode::kMisuse, "query before the index was built or opened");
  reader_->Query(sql, row_cb, limits);
}

}  // namespace casefile
