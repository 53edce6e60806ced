// Templates: signatures that differ in a few constant tokens merged into one
// pattern with <*> there ("Loading shard <*> of <NUM>"), Drain-style, once at
// the end of ingest. Done at the end rather than per line so that the
// per-line cost stays one hash lookup and the result depends only on the
// signatures in id order (deterministic, whatever the line order inside a
// signature).
//
// Rules (docs/SCHEMA.md, "Templates"): signatures are taken in id order and
// grouped by (level, token count, first token; a first token holding a mask
// groups as <*>). Within its group a signature joins the first template
// (of at most max_compared, oldest first) whose tokens equal its own at a
// share of positions >= threshold, where a position already <*> counts as
// different and two whole-token masks of different types (<NUM> vs <PATH>)
// forbid the merge; the positions that differ become <*>. Otherwise it starts
// a new template. Empty and "<overflow>" signatures never merge.
#pragma once

#include <cstddef>
#include <vector>

#include "index/index_types.h"
#include "parse/template/signature_table.h"

namespace casefile::templates {

inline constexpr std::string_view kWildcard = "<*>";

struct MergeOptions {
  // Drain uses 0.4-0.5; a higher share keeps lines whose constant words
  // differ (an ERROR about "timeout" and one about "refused") apart.
  double threshold = 0.6;
  // Templates of a group compared per signature; bounds the work on the
  // many-shapes case (a group holds up to kMaxSignatures signatures).
  size_t max_compared = 16;
};

struct MinedTemplates {
  std::vector<TemplateSignatureRow> signatures;  // by id, template_id set
  std::vector<TemplateRow> templates;            // by id
};

MinedTemplates MineTemplates(const std::vector<Signature>& signatures,
                             const MergeOptions& options = {});

// The share of positions where `a` and `b` hold the same token (0 when their
// lengths differ), and whether they may merge at all (see above). Exposed
// for the tests.
struct Similarity {
  double share = 0;
  bool compatible = true;
};
Similarity CompareTokens(const std::vector<std::string>& a, const std::vector<std::string>& b);

// A pattern split on single spaces.
std::vector<std::string> SplitTokens(std::string_view pattern);

}  // namespace casefile::templates
