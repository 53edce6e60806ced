// Builds a small index for one side of a diff test: files with lines (each
// with its template signature), template rows, and findings, written
// through IndexWriter as ingest would.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analyze/finding.h"
#include "diff/diff_types.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "test_util.h"

namespace casefile::test {

class DiffSideBuilder {
 public:
  DiffSideBuilder(const TempDir& tmp, std::string name) : db_(tmp.Join(name + ".db")) {
    writer_ = std::make_unique<IndexWriter>(db_);
    BundleRow b;
    b.name = name + ".tar.zst";
    b.path = "/runs/" + b.name;
    b.format = "tar.zst";
    b.status = "complete";
    bundle_ = writer_->AddBundle(b);
  }

  // A log file; its lines follow with Line() (files one after another).
  int64_t File(const std::string& path, const std::string& host = "") {
    EndFile();
    FileRow f;
    f.bundle_id = bundle_;
    f.path = path;
    f.kind = "log";
    f.entry_type = "file";
    if (!host.empty()) f.host = host;
    file_ = f;
    file_.id = writer_->AddFile(f);
    line_no_ = 0;
    return file_.id;
  }

  // Appends a line to the current file; returns its line number.
  int64_t Line(const std::string& text, uint32_t signature, Level level = Level::kInfo) {
    texts_.push_back(text);
    LineRecord r;
    r.file_id = file_.id;
    r.line_no = ++line_no_;
    r.offset = offset_;
    offset_ += text.size() + 1;
    r.level = level;
    r.signature = signature;
    r.text = texts_.back();
    writer_->AddLine(r);
    return r.line_no;
  }

  void Template(const TemplateRow& row) { writer_->AddTemplate(row); }
  void Signature(const TemplateSignatureRow& row) { writer_->AddTemplateSignature(row); }

  std::unique_ptr<IndexReader> Finish() {
    EndFile();
    writer_->Commit();
    writer_.reset();
    return IndexReader::Open(db_);
  }

 private:
  void EndFile() {
    if (file_.id == 0) return;
    writer_->EndFileLines(file_.id);
    file_.line_count = line_no_;
    file_.size = static_cast<int64_t>(offset_);
    writer_->UpdateFile(file_);
    file_.id = 0;
    offset_ = 0;
  }

  std::string db_;
  std::unique_ptr<IndexWriter> writer_;
  int64_t bundle_ = 0;
  FileRow file_;
  int64_t line_no_ = 0;
  uint64_t offset_ = 0;
  std::vector<std::string> texts_;
};

}  // namespace casefile::test
