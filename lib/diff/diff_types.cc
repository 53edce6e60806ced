#include "diff/diff_types.h"

#include <algorithm>
#include <tuple>

namespace casefile::diff {

const FileRow* DiffSide::File(int64_t file_id) const {
  // Files() is ordered by bundle and path, not id: search, the lists are short.
  auto it = std::lower_bound(files.begin(), files.end(), file_id,
                             [](const FileRow& f, int64_t id) { return f.id < id; });
  if (it != files.end() && it->id == file_id) return &*it;
  return nullptr;
}

Evidence DiffSide::MakeEvidence(int64_t file_id, int64_t line_no, std::string text) const {
  Evidence e;
  if (const FileRow* f = File(file_id)) {
    e.path = f->path;
    for (const BundleRow& b : bundles) {
      if (b.id == f->bundle_id) e.bundle = b.name;
    }
  }
  e.line = line_no;
  e.text = std::move(text);
  return e;
}

Evidence DiffSide::LineEvidence(int64_t file_id, int64_t line_no) const {
  std::string text;
  if (index != nullptr && line_no > 0) text = index->LineText(file_id, line_no).value_or("");
  return MakeEvidence(file_id, line_no, std::move(text));
}

DiffSide LoadSide(const char* name, const IndexReader& index, std::vector<std::string> inputs,
                  std::vector<Finding> findings) {
  DiffSide side;
  side.name = name;
  side.index = &index;
  side.inputs = std::move(inputs);
  side.bundles = index.Bundles();
  side.files = index.Files();
  std::sort(side.files.begin(), side.files.end(),
            [](const FileRow& a, const FileRow& b) { return a.id < b.id; });
  for (const FileRow& f : side.files) side.total_lines += f.line_count;
  side.findings = std::move(findings);
  return side;
}

void RankItems(std::vector<DiffItem>& items) {
  std::stable_sort(items.begin(), items.end(), [](const DiffItem& a, const DiffItem& b) {
    if (a.score != b.score) return a.score > b.score;
    return std::tie(a.key, a.host, a.kind) < std::tie(b.key, b.host, b.kind);
  });
}

}  // namespace casefile::diff
