// The hlo section of the diff (docs/DIFF.md): HLO modules matched by module
// name and dump stage across the two runs; a module whose set of
// fingerprints differs is "changed", one on a single side "added" or
// "removed". Fingerprints that differ between hosts of one side are the hang
// analyzer's business: here each side is just the set of what it compiled.
// When one side has no dumps at all, nothing is compared.
#include <map>
#include <set>

#include "analyze/query_values.h"
#include "diff/metric_stats.h"
#include "diff/sections.h"

namespace casefile::diff {
namespace {

constexpr double kChangedScore = 45;
constexpr double kAddedRemovedScore = 30;
// Lines of a dump searched for its "HloModule" header (evidence); dumps
// start with it, a comment or two may come first.
constexpr int64_t kHeaderScanLines = 8;

struct ModuleSide {
  std::set<std::string> fingerprints;
  std::set<std::string> hosts;
  int64_t instructions = 0;  // of the first dump (lowest file id)
  int64_t first_file = 0;
};

using Modules = std::map<std::pair<std::string, std::string>, ModuleSide>;  // (name, stage)

Modules Load(const DiffSide& side) {
  Modules out;
  if (side.index == nullptr || !HasTable(*side.index, "hlo_modules")) return out;
  side.index->Query(
      "SELECT m.file_id, m.module_name, m.stage, coalesce(m.host, f.host), m.fingerprint, "
      "m.instruction_count FROM hlo_modules AS m JOIN files AS f ON f.id = m.file_id "
      "ORDER BY m.file_id",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        ModuleSide& m = out[{TextOf(v[1]), TextOf(v[2])}];
        if (m.fingerprints.empty()) {
          m.first_file = IntOf(v[0]).value_or(0);
          m.instructions = IntOf(v[5]).value_or(0);
        }
        m.fingerprints.insert(TextOf(v[4]));
        if (v[3]) m.hosts.insert(*v[3]);
        return true;
      });
  return out;
}

std::string Join(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& x : s) out += (out.empty() ? "" : ",") + x;
  return out;
}

// The dump's HloModule header line, else its first line.
Evidence HeaderEvidence(const DiffSide& side, int64_t file_id) {
  for (int64_t line = 1; line <= kHeaderScanLines; ++line) {
    std::optional<std::string> text = side.index->LineText(file_id, line);
    if (!text) break;
    if (text->rfind("HloModule", 0) == 0) return side.MakeEvidence(file_id, line, *text);
  }
  return side.LineEvidence(file_id, 1);
}

std::string HostsText(const ModuleSide& m) {
  if (m.hosts.empty()) return "";
  return " on " + std::to_string(m.hosts.size()) + " host" + (m.hosts.size() == 1 ? "" : "s");
}

}  // namespace

std::vector<DiffItem> DiffHlo(const DiffSide& good, const DiffSide& bad) {
  const Modules g = Load(good), b = Load(bad);
  // A side without any dump is a bundle that did not collect them, not a
  // run that compiled nothing: every module would read as added or removed.
  if (g.empty() || b.empty()) return {};
  std::set<std::pair<std::string, std::string>> keys;
  for (const auto& [k, m] : g) keys.insert(k);
  for (const auto& [k, m] : b) keys.insert(k);
  std::vector<DiffItem> out;
  for (const auto& k : keys) {
    const auto gi = g.find(k), bi = b.find(k);
    const ModuleSide* gm = gi == g.end() ? nullptr : &gi->second;
    const ModuleSide* bm = bi == b.end() ? nullptr : &bi->second;
    if (gm && bm && gm->fingerprints == bm->fingerprints) continue;
    DiffItem item;
    item.section = "hlo";
    item.key = k.first + ":" + k.second;
    const std::string what = "HLO module " + k.first + " (" + k.second + ")";
    if (gm && bm) {
      item.kind = "changed";
      item.score = kChangedScore;
      item.summary = what + " compiled differently: fingerprint " + Join(gm->fingerprints) +
                     " -> " + Join(bm->fingerprints) + ", " + std::to_string(gm->instructions) +
                     " -> " + std::to_string(bm->instructions) + " instructions";
    } else if (bm) {
      item.kind = "added";
      item.score = kAddedRemovedScore;
      item.summary = what + " only in bad" + HostsText(*bm);
    } else {
      item.kind = "removed";
      item.score = kAddedRemovedScore;
      item.summary = what + " only in good" + HostsText(*gm);
    }
    item.fields.push_back({"module_name", k.first});
    item.fields.push_back({"stage", k.second});
    if (gm) {
      item.good = Join(gm->fingerprints);
      item.good_evidence.push_back(HeaderEvidence(good, gm->first_file));
      item.fields.push_back({"good_instructions", gm->instructions});
      item.fields.push_back({"good_fingerprints", static_cast<int64_t>(gm->fingerprints.size())});
      item.fields.push_back({"good_hosts", static_cast<int64_t>(gm->hosts.size())});
    }
    if (bm) {
      item.bad = Join(bm->fingerprints);
      item.bad_evidence.push_back(HeaderEvidence(bad, bm->first_file));
      item.fields.push_back({"bad_instructions", bm->instructions});
      item.fields.push_back({"bad_fingerprints", static_cast<int64_t>(bm->fingerprints.size())});
      item.fields.push_back({"bad_hosts", static_cast<int64_t>(bm->hosts.size())});
    }
    out.push_back(std::move(item));
  }
  RankItems(out);
  return out;
}

}  // namespace casefile::diff
