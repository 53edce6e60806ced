#include "ingest/ingest.h"

#include <map>
#include <optional>

#include "bundle/bundle_reader.h"
#include "common/error.h"
#include "ingest/block_marks.h"
#include "ingest/file_sink.h"
#include "ingest/template_stage.h"
#include "parse/classify/classify.h"
#include "parse/template/template_miner.h"

namespace casefile {
namespace {

// Bytes of content looked at before a file is classified.
constexpr size_t kHeadBytes = 64 * 1024;
// The manifest is parsed from memory; a larger one is not a casefile manifest.
constexpr size_t kMaxManifestBytes = 64u << 20;  // as ParseManifest's own cap
// How often progress is reported.
constexpr uint64_t kProgressEvery = 8u << 20;

class IngestVisitor : public BundleVisitor {
 public:
  IngestVisitor(int64_t bundle_id, const Limits& limits, const IngestProgress& progress,
                IndexWriter& writer, IngestResult& result, uint64_t& bytes_done,
                TemplateStage& templates)
      : bundle_id_(bundle_id),
        limits_(limits),
        progress_(progress),
        writer_(writer),
        result_(result),
        bytes_done_(bytes_done),
        templates_(templates) {}

  void OnEntry(const EntryInfo& info, EntryData* data) override {
    FileRow row;
    row.bundle_id = bundle_id_;
    row.path = info.path;
    row.entry_type = EntryTypeName(info.type);
    row.link_target = info.link_target;
    row.mtime = info.mtime;
    row.gunzipped = info.gunzipped;
    row.size = info.size;
    Attribute(row);
    if (!data) {
      row.kind = "other";
      row.id = writer_.AddFile(row);
      files_.push_back(row);
      return;
    }
    ReadFile(info, *data, row);
  }

  void OnIssue(const IngestIssue& issue) override {
    writer_.AddIngestIssue(
        {bundle_id_, issue.path, static_cast<int64_t>(issue.offset), issue.kind, issue.message});
    // A limit that cut an entry marks its file row; the issue may come while
    // the entry is still being read or just after it.
    if (issue.kind == "entry_truncated" || issue.kind == "total_limit" ||
        issue.kind == "decompression_bomb") {
      if (!files_.empty() && files_.back().path == issue.path) {
        if (!files_.back().truncated) {
          files_.back().truncated = true;
          writer_.UpdateFile(files_.back());
        }
      } else {
        cut_path_ = issue.path;
      }
    }
  }

  // The manifest may come after the files it describes (archive order), so
  // its host and per-file attribution are applied once the bundle is read.
  void ApplyManifest() {
    if (!manifest_) return;
    for (auto& f : files_) {
      bool changed = false;
      auto it = manifest_->files.find(f.path);
      if (it != manifest_->files.end()) {
        const ManifestFile& mf = it->second;
        if (mf.host && f.host != mf.host) f.host = mf.host, changed = true;
        if (mf.task && f.task != mf.task) f.task = mf.task, changed = true;
        if (mf.rank && f.rank != mf.rank) f.rank = mf.rank, changed = true;
      }
      if (!f.host && manifest_->host) f.host = manifest_->host, changed = true;
      if (changed) writer_.UpdateFile(f);
    }
  }

  const std::optional<Manifest>& manifest() const { return manifest_; }

 private:
  void Attribute(FileRow& row) {
    // Rule order (docs/ARCHITECTURE.md): manifest entry, then path parts,
    // then the manifest's bundle host; line prefixes override per line.
    PathAttribution pa = AttributeFromPath(row.path);
    row.host = pa.host;
    row.task = pa.task;
    row.rank = pa.rank;
    if (manifest_) {
      auto it = manifest_->files.find(row.path);
      if (it != manifest_->files.end()) {
        if (it->second.host) row.host = it->second.host;
        if (it->second.task) row.task = it->second.task;
        if (it->second.rank) row.rank = it->second.rank;
      }
      if (!row.host) row.host = manifest_->host;
    }
  }

  void ReadFile(const EntryInfo& info, EntryData& data, FileRow& row) {
    // Classify from the first bytes, then replay them into the sink. Damage
    // inside those first bytes must not lose them: the file still gets its
    // row and what was read, then the error goes on to the bundle stage.
    std::string head;
    std::string_view chunk;
    bool ended = false;
    std::optional<Error> damage;
    try {
      while (head.size() < kHeadBytes) {
        chunk = data.Next();
        if (chunk.empty()) {
          ended = true;
          break;
        }
        head.append(chunk);
      }
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kCorrupt) throw;
      damage = e;
      ended = true;
    }
    FileKind kind = ClassifyFile(info.path, std::string_view(head).substr(0, kHeadBytes));
    if (manifest_) {
      auto it = manifest_->files.find(info.path);
      if (it != manifest_->files.end() && it->second.kind) kind = *it->second.kind;
    }
    row.kind = FileKindName(kind);
    row.id = writer_.AddFile(row);
    ++result_.files;

    if (kind == FileKind::kManifest && !damage) ReadManifest(info, head, ended, data);

    FileContext ctx{bundle_id_, row.id, row.path, kind, row.host, row.rank, row.mtime};
    if (MinesTemplates(kind)) templates_.RegisterFile(row.id, bundle_id_, row.path);
    auto sink = MakeFileSink(ctx, limits_, writer_);
    try {
      Feed(*sink, head, info.path);
      while (!ended) {
        chunk = data.Next();
        if (chunk.empty()) break;
        Feed(*sink, chunk, info.path);
      }
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kCorrupt) throw;
      damage = e;
    }
    // Keep what was read of this file, then let the bundle stage record
    // where the damage is and decide whether the next entry is readable.
    Close(*sink, row, damage.has_value());
    if (damage) throw *damage;
  }

  void Feed(FileSink& sink, std::string_view bytes, const std::string& path) {
    sink.Feed(bytes);
    bytes_done_ += bytes.size();
    since_progress_ += bytes.size();
    if (since_progress_ >= kProgressEvery) {
      since_progress_ = 0;
      if (progress_ && !progress_(bytes_done_, path)) {
        throw Error(ErrorCode::kAborted, "indexing aborted by the progress callback");
      }
    }
  }

  void Close(FileSink& sink, FileRow& row, bool truncated) {
    sink.Finish();
    const FileStats& st = sink.stats();
    row.size = static_cast<int64_t>(st.bytes);
    row.line_count = static_cast<int64_t>(st.lines);
    row.truncated = truncated || (!cut_path_.empty() && cut_path_ == row.path);
    cut_path_.clear();
    writer_.UpdateFile(row);
    files_.push_back(row);
    result_.lines += st.lines;
  }

  void ReadManifest(const EntryInfo& info, std::string& head, bool ended, EntryData& data) {
    // The manifest is small; read it whole (capped) before the sink sees it.
    std::string_view chunk;
    while (!ended && head.size() <= kMaxManifestBytes) {
      chunk = data.Next();
      if (chunk.empty()) break;
      head.append(chunk);
    }
    try {
      manifest_ = ParseManifest(head);
    } catch (const Error& e) {
      writer_.AddIngestIssue(
          {bundle_id_, info.path, 0, "manifest_invalid", info.path + ": " + e.what()});
    }
  }

  int64_t bundle_id_;
  const Limits& limits_;
  const IngestProgress& progress_;
  IndexWriter& writer_;
  IngestResult& result_;
  uint64_t& bytes_done_;
  TemplateStage& templates_;
  uint64_t since_progress_ = 0;
  std::optional<Manifest> manifest_;
  std::vector<FileRow> files_;
  std::string cut_path_;  // an entry a limit cut, reported before its file closed
};

}  // namespace

IngestResult IngestInputs(const std::vector<std::string>& inputs, const Limits& limits,
                          const IngestProgress& progress, IndexWriter& writer,
                          const LineMarking* marking) {
  IngestResult result;
  ReadBudget budget;
  uint64_t bytes_done = 0;
  std::optional<BlockMarks> marks;
  if (marking) {
    marks.emplace(*marking);
    writer.SetMeta(marking->meta_key, marking->meta_value);
  }
  // One stage for all inputs: signature ids are global to the index.
  TemplateStage templates(
      writer, marks ? std::function<void(Block&)>([&marks](Block& block) { marks->Prepare(block); })
                    : std::function<void(Block&)>());
  std::optional<Error> first_unreadable;
  size_t unreadable = 0;
  for (const auto& input : inputs) {
    BundleRow bundle;
    bundle.name = BundleDisplayName(input);
    bundle.path = input;
    bundle.identity = BundleIdentity(input);
    bundle.status = "complete";
    bundle.id = writer.AddBundle(bundle);
    IngestVisitor visitor(bundle.id, limits, progress, writer, result, bytes_done, templates);
    BundleReadResult read;
    try {
      read = ReadBundle(input, limits, budget, visitor);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kUnsupported && e.code() != ErrorCode::kCorrupt) throw;
      // One unreadable input among several must not cost the report on the
      // others: it is recorded, and the call fails only if nothing was readable.
      if (!first_unreadable) first_unreadable = e;
      ++unreadable;
      bundle.status = "unreadable";
      bundle.error = e.what();
      writer.AddIngestIssue({bundle.id, "", 0, "bundle_unreadable", e.what()});
      writer.UpdateBundle(bundle);
      result.partial = true;
      result.errors.push_back(e.what());
      continue;
    }
    visitor.ApplyManifest();
    bundle.format = read.format;
    bundle.entries = static_cast<int64_t>(read.entries);
    bundle.bytes = static_cast<int64_t>(read.bytes);
    if (visitor.manifest()) bundle.host = visitor.manifest()->host;
    if (read.partial) {
      bundle.status = "partial";
      bundle.error = read.error;
      result.partial = true;
      result.errors.push_back(read.error);
    }
    writer.UpdateBundle(bundle);
  }
  if (unreadable == inputs.size() && first_unreadable) throw *first_unreadable;
  templates.Finish();
  result.bytes = bytes_done;
  return result;
}

}  // namespace casefile
