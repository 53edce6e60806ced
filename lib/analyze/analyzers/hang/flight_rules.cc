#include "analyze/analyzers/hang/flight_rules.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "analyze/analyzers/hang/dist_common.h"

namespace casefile::hang {
namespace {

// Group members beyond this are not read (a member list is untrusted input).
constexpr size_t kMaxMembers = 1 << 20;

}  // namespace

std::vector<int64_t> ParseRankList(const std::string& text) {
  std::vector<int64_t> out;
  int64_t v = -1;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      v = (v < 0 ? 0 : v) * 10 + (c - '0');
      if (v > (int64_t{1} << 40)) return {};
    } else if (v >= 0) {
      out.push_back(v);
      v = -1;
      if (out.size() >= kMaxMembers) break;
    }
  }
  if (v >= 0 && out.size() < kMaxMembers) out.push_back(v);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

bool EmptyList(const std::string& text) {
  for (char c : text) {
    if (c != '[' && c != ']' && c != ' ') return false;
  }
  return true;
}

struct Group {
  std::string pg;
  std::vector<int64_t> members;                           // from pg_config; empty when unknown
  std::map<int64_t, std::vector<const FrEntry*>> by_seq;  // ascending rank in each
  std::map<int64_t, const FrEntry*> last;                 // rank -> its highest entry
};

std::optional<FrMismatch> FindMismatch(const Group& g, const FrData& fr) {
  for (const auto& [seq, entries] : g.by_seq) {
    if (entries.size() < 2) continue;
    bool dtypes_everywhere = true;
    for (const FrEntry* e : entries) dtypes_everywhere &= !EmptyList(fr.Text(e->input_dtypes));
    std::map<std::string, FrSide> sides;
    for (const FrEntry* e : entries) {
      const std::string& op = fr.Text(e->op);
      const std::string sizes = FrSizesMayDiffer(op) ? "" : fr.Text(e->input_sizes);
      const std::string dtypes = dtypes_everywhere ? fr.Text(e->input_dtypes) : "";
      FrSide& side = sides[op + '\x1f' + sizes + '\x1f' + dtypes];
      if (side.ranks.empty()) {
        side.op = op;
        side.input_sizes = sizes;
        side.input_dtypes = dtypes;
      }
      side.ranks.push_back(e->rank);
      side.entries.push_back(e);
    }
    if (sides.size() < 2) continue;
    FrMismatch m;
    m.pg = g.pg;
    m.seq = seq;
    for (auto& [key, side] : sides) m.sides.push_back(std::move(side));
    std::stable_sort(m.sides.begin(), m.sides.end(), [](const FrSide& a, const FrSide& b) {
      return a.ranks.size() > b.ranks.size();
    });
    const bool tie = m.sides[0].ranks.size() == m.sides[1].ranks.size();
    for (size_t i = tie ? 0 : 1; i < m.sides.size(); ++i) {
      m.culprits.insert(m.culprits.end(), m.sides[i].ranks.begin(), m.sides[i].ranks.end());
    }
    std::sort(m.culprits.begin(), m.culprits.end());
    return m;
  }
  return std::nullopt;
}

std::optional<FrMissing> FindMissing(const Group& g, const FrData& fr) {
  std::vector<int64_t> members = g.members;
  const bool from_config = !members.empty();
  if (!from_config) {
    for (const auto& [rank, e] : g.last) members.push_back(rank);
  }
  if (members.size() < 2) return std::nullopt;
  std::map<int64_t, size_t> counts;
  for (int64_t r : members) {
    auto it = g.last.find(r);
    if (it != g.last.end()) ++counts[*it->second->seq];
  }
  if (counts.empty()) return std::nullopt;
  const int64_t reached = ModeOf(counts, /*prefer_high=*/true);
  FrMissing m;
  m.pg = g.pg;
  m.reached = reached;
  std::vector<std::pair<int64_t, int64_t>> absent;
  for (int64_t r : members) {
    auto it = g.last.find(r);
    if (it == g.last.end()) {
      absent.push_back({r, -1});
    } else if (*it->second->seq < reached) {
      m.missing.push_back({r, *it->second->seq});
      m.missing_entries.push_back(it->second);
    }
  }
  // A member with no dump at all may only be a dump that was not collected:
  // trust that only when most members did dump.
  if (absent.size() * 2 < members.size())
    m.missing.insert(m.missing.end(), absent.begin(), absent.end());
  if (m.missing.empty()) return std::nullopt;
  std::sort(m.missing.begin(), m.missing.end());
  auto at = g.by_seq.find(reached);
  if (at != g.by_seq.end()) {
    m.waiting_entries = at->second;
    m.waiting = at->second.size();
    if (!at->second.empty()) m.op = fr.Text(at->second.front()->op);
  }
  return m;
}

}  // namespace

bool FrSizesMayDiffer(const std::string& op) {
  return op.find("all_to_all") != std::string::npos || op.find("alltoall") != std::string::npos ||
         op.find("scatter") != std::string::npos || op.find("gather") != std::string::npos;
}

FrFacts AnalyzeFlightRecorder(const FrData& fr) {
  FrFacts out;
  if (fr.entries.empty()) return out;
  // The member list each rank's dump gives for each of its groups: two
  // groups with the same id but other members are different groups. Lists
  // are interned (a 1,024-rank list is kilobytes, and every rank repeats
  // it), so that entries compare and key groups by a number.
  std::map<std::string, int32_t> list_ids;  // compact member list -> id
  std::vector<const std::string*> lists;
  std::map<std::pair<int64_t, std::string>, int32_t> members_of;
  for (const FrGroup& g : fr.groups) {
    std::string compact;
    for (char c : g.ranks) {
      if (c != ' ') compact += c;
    }
    auto [it, added] = list_ids.try_emplace(std::move(compact), static_cast<int32_t>(lists.size()));
    if (added) lists.push_back(&it->first);
    members_of.emplace(std::make_pair(g.rank, g.pg_id), it->second);
  }
  std::vector<const FrEntry*> sorted;
  sorted.reserve(fr.entries.size());
  for (const FrEntry& e : fr.entries) {
    if (!e.is_p2p && e.seq && e.rank >= 0) sorted.push_back(&e);
  }
  std::sort(sorted.begin(), sorted.end(), [](const FrEntry* a, const FrEntry* b) {
    return std::tie(a->rank, a->file_id, a->record_id, a->line_no) <
           std::tie(b->rank, b->file_id, b->record_id, b->line_no);
  });
  // Groups by (pg id, member list id; -1 when the dump gives none).
  std::map<std::pair<std::string, int32_t>, Group> groups;
  for (const FrEntry* ep : sorted) {
    const FrEntry& e = *ep;
    auto mit = members_of.find({e.rank, e.pg_id});
    const int32_t members = mit == members_of.end() ? -1 : mit->second;
    auto [it, added] = groups.try_emplace({e.pg_id, members});
    Group& g = it->second;
    if (added) {
      g.pg = e.pg_id;
      if (members >= 0) g.members = ParseRankList(*lists[static_cast<size_t>(members)]);
    }
    auto& at = g.by_seq[*e.seq];
    // Entries come sorted by rank: one per rank and sequence id (the first).
    if (at.empty() || at.back()->rank != e.rank) at.push_back(&e);
    const FrEntry*& last = g.last[e.rank];
    if (!last || *e.seq > *last->seq) last = &e;
  }
  for (const auto& [key, g] : groups) {
    if (!out.mismatch) out.mismatch = FindMismatch(g, fr);
    if (auto m = FindMissing(g, fr)) out.missing.push_back(std::move(*m));
  }
  return out;
}

}  // namespace casefile::hang
