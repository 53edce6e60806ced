#include "ingest/template_stage.h"

#include <algorithm>

#include "parse/template/template_miner.h"

namespace casefile {

TemplateStage::TemplateStage(IndexWriter& writer, std::function<void(Block&)> before)
    : writer_(writer) {
  if (before) {
    writer_.SetBlockPreparer([this, before = std::move(before)](Block& block) {
      before(block);
      Prepare(block);
    });
  } else {
    writer_.SetBlockPreparer([this](Block& block) { Prepare(block); });
  }
}

TemplateStage::~TemplateStage() {
  // Ingest stopped on an error: the index will not be committed, and the
  // preparing thread must not call into this object once it is gone.
  if (!finished_) writer_.StopPreparer();
}

void TemplateStage::RegisterFile(int64_t file_id, int64_t bundle_id, const std::string& path) {
  std::lock_guard<std::mutex> lock(files_mu_);
  files_[file_id] = MinedFile{bundle_id, path};
}

bool TemplateStage::Mined(int64_t file_id, MinedFile* out) {
  std::lock_guard<std::mutex> lock(files_mu_);
  auto it = files_.find(file_id);
  if (it == files_.end()) return false;
  if (out != nullptr) *out = it->second;
  return true;
}

void TemplateStage::Prepare(Block& block) {
  // Blocks of one file come one after another: one lookup per file.
  if (block.file_id != last_file_) {
    last_file_ = block.file_id;
    last_mined_ = Mined(block.file_id, nullptr);
  }
  if (!last_mined_) return;
  // Texts are stored one after another, each followed by '\n'.
  size_t offset = 0;
  for (size_t i = 0; i < block.lines.size(); ++i) {
    BlockLine& line = block.lines[i];
    const std::string_view text(block.text.data() + offset, line.text_len);
    offset += size_t{line.text_len} + 1;
    const std::string_view message = text.substr(std::min<size_t>(line.msg_start, text.size()));
    const int64_t line_no = block.first_line + static_cast<int64_t>(i);
    bool first_overflow = false;
    line.signature = signatures_.Observe(static_cast<Level>(line.level), message, block.file_id,
                                         line_no, first_overflow);
    if (first_overflow) {
      overflowed_ = true;
      overflow_file_ = block.file_id;
      overflow_line_ = line_no;
      overflow_offset_ = line.offset;
    }
  }
}

void TemplateStage::Finish() {
  writer_.DrainPreparer();
  finished_ = true;
  if (overflowed_) {
    MinedFile file;
    Mined(overflow_file_, &file);
    writer_.AddIngestIssue(
        {file.bundle_id, file.path, static_cast<int64_t>(overflow_offset_), "template_limit",
         file.path + ": line " + std::to_string(overflow_line_) + " has a shape beyond the " +
             std::to_string(templates::kMaxSignatures) +
             " template signatures; from here on new shapes share the <overflow> signature of "
             "their level"});
  }
  // Templates are merged once, now that every signature and count is known,
  // so the lines' cost stayed one lookup and the merge is deterministic.
  templates::MinedTemplates mined = templates::MineTemplates(signatures_.signatures());
  for (const TemplateSignatureRow& row : mined.signatures) writer_.AddTemplateSignature(row);
  for (const TemplateRow& row : mined.templates) writer_.AddTemplate(row);
}

}  // namespace casefile
