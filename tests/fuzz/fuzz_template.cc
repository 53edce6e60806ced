// Fuzz target: template mining (lib/parse/template) as ingest's TemplateStage
// runs it: every line of a log file, through the line layer (ingest_lines.h),
// is observed by a SignatureTable with its level and message, then
// MineTemplates merges the signatures. The first byte's low bit picks a
// table of 8 signatures instead of the production 65,536, so the overflow
// path is reached by inputs of fuzzing size. Checked:
//  - MaskedHash is a function of the masked message: lines whose full
//    MaskedPattern and level agree share a signature id and lines with
//    different ones never do (outside the <overflow> signatures);
//  - a new signature's pattern is MaskedPattern cut to kTemplatePatternBytes
//    and never cut inside a mask; counts add up to the lines observed;
//  - every signature maps to a template; templates' counts and signature
//    numbers add up; patterns stay within kTemplatePatternBytes.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_abort.h"
#include "ingest_lines.h"
#include "parse/template/signature_table.h"
#include "parse/template/template_mask.h"
#include "parse/template/template_miner.h"

namespace {

namespace t = casefile::templates;

// A pattern cut "never in the middle of a mask": no '<' of a mask without
// its '>' at the end.
void CheckCut(std::string_view cut, std::string_view full) {
  if (cut.size() > full.size() || full.substr(0, cut.size()) != cut) FUZZ_ABORT();
  for (std::string_view mask : {t::kMaskNum, t::kMaskHex, t::kMaskIp, t::kMaskPath}) {
    for (size_t k = 1; k < mask.size(); ++k) {
      // The cut ends with the first k bytes of a mask that the full pattern
      // continues: a mask cut in two.
      if (cut.size() < full.size() && cut.ends_with(mask.substr(0, k)) &&
          full.substr(cut.size() - k).starts_with(mask))
        FUZZ_ABORT();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t cap = size > 0 && (data[0] & 1) ? 8 : t::kMaxSignatures;
  t::SignatureTable table(cap);
  std::map<std::pair<int, std::string>, uint32_t> id_of_shape;
  std::map<uint32_t, std::pair<int, std::string>> shape_of_id;
  int64_t observed = 0;
  int overflows = 0;
  casefile::fuzz::FeedLikeIngest(
      input, 5, [&](const casefile::LineRecord& rec, const casefile::LinePrefix&) {
        const std::string_view message = rec.message();
        bool first_overflow = false;
        const uint32_t id = table.Observe(rec.level, message, 5, rec.line_no, first_overflow);
        ++observed;
        overflows += first_overflow;
        const auto& sigs = table.signatures();
        if (id < 1 || id > sigs.size()) FUZZ_ABORT();
        const t::Signature& sig = sigs[id - 1];
        if (sig.level != rec.level) FUZZ_ABORT();
        if (sig.overflow) return;
        std::string full = t::MaskedPattern(message, SIZE_MAX);
        if (sig.first_line_no == rec.line_no) {
          if (sig.pattern != t::MaskedPattern(message, casefile::kTemplatePatternBytes))
            FUZZ_ABORT();
          if (sig.pattern.size() > casefile::kTemplatePatternBytes) FUZZ_ABORT();
          // A literal "<NUM>" in the message is no mask: checked only without '<'.
          if (message.find('<') == std::string_view::npos) CheckCut(sig.pattern, full);
        }
        auto shape = std::make_pair(static_cast<int>(rec.level), std::move(full));
        auto [it, fresh] = id_of_shape.emplace(shape, id);
        if (!fresh && it->second != id) FUZZ_ABORT();
        auto [jt, fresh_id] = shape_of_id.emplace(id, shape);
        if (!fresh_id && jt->second != shape) FUZZ_ABORT();
      });
  if (overflows > 1 || (overflows == 1) != table.overflowed()) FUZZ_ABORT();

  const std::vector<t::Signature>& sigs = table.signatures();
  int64_t total = 0;
  for (const t::Signature& s : sigs) total += s.count;
  if (total != observed) FUZZ_ABORT();

  t::MinedTemplates mined = t::MineTemplates(sigs);
  if (mined.signatures.size() != sigs.size()) FUZZ_ABORT();
  std::vector<int64_t> counts(mined.templates.size() + 1), members(mined.templates.size() + 1);
  for (size_t i = 0; i < mined.signatures.size(); ++i) {
    const casefile::TemplateSignatureRow& r = mined.signatures[i];
    if (r.id != static_cast<int64_t>(i) + 1) FUZZ_ABORT();
    if (r.template_id < 1 || r.template_id > static_cast<int64_t>(mined.templates.size()))
      FUZZ_ABORT();
    counts[r.template_id] += r.count;
    ++members[r.template_id];
  }
  for (size_t i = 0; i < mined.templates.size(); ++i) {
    const casefile::TemplateRow& r = mined.templates[i];
    if (r.id != static_cast<int64_t>(i) + 1) FUZZ_ABORT();
    if (r.count != counts[r.id] || r.signatures != members[r.id] || r.signatures < 1) FUZZ_ABORT();
    if (r.pattern.size() > casefile::kTemplatePatternBytes) FUZZ_ABORT();
    if (r.example.size() > casefile::kTemplatePatternBytes) FUZZ_ABORT();
  }
  return 0;
}
