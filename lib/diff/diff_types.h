// The diff of a good run against a bad run (docs/DIFF.md): what one section
// of the comparison reports, and the two sides it reads. Sections are free
// functions over two DiffSides (one file each, section_<name>.cc); the
// engine runs them all, ranks the items and picks the headline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "analyze/finding.h"
#include "index/index_reader.h"
#include "index/index_types.h"

namespace casefile::diff {

// One side of the diff: the index of its bundles (one index per side, even
// when a side is several bundles) and what every section needs from it,
// loaded once.
struct DiffSide {
  const char* name = "good";  // "good" or "bad": the side evidence comes from
  const IndexReader* index = nullptr;
  std::vector<std::string> inputs;  // as given by the user
  std::vector<BundleRow> bundles;
  std::vector<FileRow> files;     // ordered by id
  std::vector<Finding> findings;  // every analyzer's findings on this side
  int64_t total_lines = 0;        // sum of files.line_count

  const FileRow* File(int64_t file_id) const;  // nullptr when unknown
  // Evidence pointing at a line of this side: bundle display name and path
  // from the file, `text` as given (the caller read it from the index).
  Evidence MakeEvidence(int64_t file_id, int64_t line_no, std::string text) const;
  // The same, reading the line's text from the index.
  Evidence LineEvidence(int64_t file_id, int64_t line_no) const;
};

// Loads bundles, files and total_lines from `index`; findings are the
// caller's (the engine runs the analyzers or reads stored ones).
DiffSide LoadSide(const char* name, const IndexReader& index, std::vector<std::string> inputs,
                  std::vector<Finding> findings);

// A section-specific value of an item, rendered as a JSON scalar.
using DiffValue = std::variant<std::monostate, std::string, int64_t, double, bool>;
struct DiffField {
  std::string name;
  DiffValue value;
};

// One difference. `section` and `kind` together say what it is; `key` is what
// the difference is about (a component, a config key, a template pattern, a
// metric, a module...). Items of a section are ranked by `score` (higher is
// more suspicious), ties broken by key, then host, so output is deterministic.
struct DiffItem {
  std::string section;  // findings, versions, configs, templates, metrics, hlo, traces
  std::string kind;     // per section: new/resolved/persisting, added/removed/changed,
                        // vanished/frequency, diverged/slower/faster...
  std::string key;
  std::optional<std::string> host;  // when the difference is per host
  std::optional<std::string> good;  // the value on each side; nullopt: absent
  std::optional<std::string> bad;
  // 0..100, documented per section in docs/DIFF.md, comparable across
  // sections: the headline is the top of all items.
  double score = 0;
  std::string summary;                  // one sentence, used by the headline and the text report
  std::vector<Evidence> good_evidence;  // lines on the good side, when it has any
  std::vector<Evidence> bad_evidence;   // lines on the bad side
  std::vector<DiffField> fields;        // section-specific (counts, steps, ratios...)
  // Lines cited but not read yet, as (file id, line no) on each side:
  // BuildDiff reads them into good_evidence / bad_evidence only for the
  // items the report keeps, so a section of 10,000 items does not decode
  // 10,000 blocks.
  std::vector<std::pair<int64_t, int64_t>> good_lines, bad_lines;
};

// Sorts items most suspicious first (score desc, then key, host, kind).
void RankItems(std::vector<DiffItem>& items);

}  // namespace casefile::diff
