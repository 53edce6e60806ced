// Template mining during ingest, off the parsing thread: the index writer
// runs Prepare() on every block of lines (IndexWriter::SetBlockPreparer), in
// the order the lines arrived, so signature ids stay in order of first
// occurrence and the result is deterministic. The parsing thread only says
// which files are mined (RegisterFile); at the end, Finish() waits for the
// last block and writes the template tables.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

#include "index/index_writer.h"
#include "index/line_block.h"
#include "parse/template/signature_table.h"

namespace casefile {

class TemplateStage {
 public:
  // Installs the preparer on `writer` (before any line is added). `before`,
  // when set, runs first on each block (the line marks, block_marks.h).
  explicit TemplateStage(IndexWriter& writer, std::function<void(Block&)> before = {});
  // Stops the writer's preparer (which calls into this object) when Finish()
  // did not run: ingest stopped on an error and the index is given up.
  ~TemplateStage();
  TemplateStage(const TemplateStage&) = delete;
  TemplateStage& operator=(const TemplateStage&) = delete;

  // A file whose lines are mined (its kind holds log lines); lines of other
  // files keep signature 0. Called on the parsing thread before its lines.
  void RegisterFile(int64_t file_id, int64_t bundle_id, const std::string& path);

  // Waits for every block, then writes the ingest issue of the signature cap
  // (when it was hit), the template_signatures and the templates rows.
  void Finish();

 private:
  struct MinedFile {
    int64_t bundle_id = 0;
    std::string path;
  };
  // On the writer's preparing thread.
  void Prepare(Block& block);
  bool Mined(int64_t file_id, MinedFile* out);

  IndexWriter& writer_;
  std::mutex files_mu_;  // RegisterFile (parsing thread) vs Prepare
  std::unordered_map<int64_t, MinedFile> files_;
  // Used by the preparing thread only, until Finish() has drained it.
  templates::SignatureTable signatures_;
  bool finished_ = false;
  int64_t last_file_ = 0;
  bool last_mined_ = false;
  // The first line that found the table full.
  bool overflowed_ = false;
  int64_t overflow_file_ = 0;
  int64_t overflow_line_ = 0;
  uint64_t overflow_offset_ = 0;
};

}  // namespace casefile
