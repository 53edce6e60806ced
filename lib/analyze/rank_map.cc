#include "analyze/rank_map.h"

#include <charconv>
#include <cmath>
#include <string_view>

#include "analyze/query_values.h"
#include "parse/dist/dist_kinds.h"

namespace casefile {
namespace {

constexpr int kLevels = 3;
// Ranks (and communicator sizes) beyond this are not ranks but misread
// numbers; the cap also bounds the ranks a rule may expect.
constexpr int64_t kMaxRank = 1 << 22;
// Distinct hosts remembered per rank and source: a real rank runs on one
// host (a few across restarts); a hostile bundle naming a rank with
// thousands of hosts must not make each vote a long scan.
constexpr size_t kMaxHostsPerRank = 16;

}  // namespace

std::optional<int64_t> DefaultGroupRank(const std::optional<std::string>& pg,
                                        std::optional<int64_t> pg_rank) {
  if (!pg || !pg_rank || *pg_rank < 0) return std::nullopt;
  if (pg->find("(default_pg)") != std::string::npos) return pg_rank;
  std::string_view id(*pg);
  id = id.substr(0, id.find('('));
  while (!id.empty() && id.front() == ' ') id.remove_prefix(1);
  while (!id.empty() && id.back() == ' ') id.remove_suffix(1);
  return id == "0" ? pg_rank : std::nullopt;
}

void RankHostMap::AddCommunicator(int64_t rank, int64_t nranks, const std::string& host) {
  if (finished_ || host.empty() || rank < 0 || nranks <= rank || nranks > kMaxRank) return;
  comm_.push_back({rank, nranks, host});
  if (nranks > world_size_) world_size_ = nranks;
}

void RankHostMap::AddPair(int64_t rank, const std::string& host, Source source) {
  if (finished_ || host.empty() || rank < 0 || rank >= kMaxRank) return;
  if (rank > max_pair_rank_) max_pair_rank_ = rank;
  Cast(rank, host, static_cast<int>(source));
}

void RankHostMap::Cast(int64_t rank, const std::string& host, int level) {
  if (host.empty() || rank < 0 || rank >= kMaxRank || level < 0 || level >= kLevels) return;
  auto& levels = votes_[rank];
  if (levels.empty()) levels.resize(kLevels);
  for (HostVote& v : levels[level]) {
    if (v.host == host) {
      ++v.count;
      return;
    }
  }
  if (levels[level].size() < kMaxHostsPerRank) levels[level].push_back({host, 1});
}

void RankHostMap::Finish() {
  if (finished_) return;
  // The largest communicator is the world only if no line names a global
  // rank beyond it: when the world's own init lines are missing (a log cut
  // at its head), the largest left may be a sub-group, whose ranks are
  // ranks inside the group. Then no communicator line is trusted.
  if (max_pair_rank_ >= world_size_) {
    comm_.clear();
    world_size_ = 0;
  }
  // Only the world communicator's ranks are global ranks.
  for (const CommPair& c : comm_) {
    if (c.nranks == world_size_) Cast(c.rank, c.host, static_cast<int>(Source::kWorldComm));
  }
  comm_.clear();
  finished_ = true;
  for (const auto& [rank, levels] : votes_) {
    for (const auto& level : levels) {
      const HostVote* best = nullptr;
      for (const HostVote& v : level) {
        if (!best || v.count > best->count || (v.count == best->count && v.host < best->host))
          best = &v;
      }
      if (best) {
        resolved_[rank] = best->host;
        break;
      }
    }
  }
  votes_.clear();
  FindLocalBlocks();
}

void RankHostMap::FindLocalBlocks() {
  std::map<std::string, std::vector<int64_t>> by_host;
  for (const auto& [rank, host] : resolved_) by_host[host].push_back(rank);
  size_t k = 0;
  for (const auto& [host, ranks] : by_host) {
    if (k == 0) k = ranks.size();
    // `ranks` is ascending (resolved_ iterates in rank order).
    if (ranks.size() != k || ranks.back() - ranks.front() + 1 != static_cast<int64_t>(k) ||
        ranks.front() % static_cast<int64_t>(k) != 0)
      return;
  }
  for (const auto& [host, ranks] : by_host) local_base_[host] = ranks.front();
  local_block_ = static_cast<int64_t>(k);
}

std::optional<int64_t> RankHostMap::GlobalOfLocal(const std::string& host,
                                                  int64_t local_rank) const {
  const auto it = local_base_.find(host);
  if (it == local_base_.end() || local_rank < 0 || local_rank >= local_block_) return std::nullopt;
  return it->second + local_rank;
}

const std::string* RankHostMap::HostOf(int64_t rank) const {
  auto it = resolved_.find(rank);
  return it == resolved_.end() ? nullptr : &it->second;
}

RankHostMap RankHostMap::Load(const IndexReader& index, const std::vector<FileRow>& files) {
  RankHostMap map;
  std::unordered_map<int64_t, const FileRow*> by_id;
  for (const FileRow& f : files) {
    by_id[f.id] = &f;
    if (f.rank && f.host) map.AddPair(*f.rank, *f.host, Source::kExplicit);
  }
  index.Query(
      "SELECT rank, host, kind, value, file_id, pg, pg_rank, detail FROM dist_events "
      "WHERE rank IS NOT NULL OR pg_rank IS NOT NULL",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        const bool rank_host = v[2] && *v[2] == "rank_host";
        // A split communicator's rank is a rank inside its sub-group.
        if (rank_host && v[7] && *v[7] == dist::kSplitDetail) return true;
        std::optional<int64_t> rank = IntOf(v[0]);
        if (!rank) rank = DefaultGroupRank(v[5], IntOf(v[6]));
        if (!rank) return true;
        if (v[1]) {
          const std::optional<double> nranks = rank_host ? RealOf(v[3]) : std::nullopt;
          if (nranks) {
            map.AddCommunicator(*rank, static_cast<int64_t>(*nranks), *v[1]);
          } else {
            map.AddPair(*rank, *v[1], Source::kExplicit);
          }
          return true;
        }
        const std::optional<int64_t> file_id = IntOf(v[4]);
        if (!file_id) return true;
        auto it = by_id.find(*file_id);
        if (it != by_id.end() && it->second->host)
          map.AddPair(*rank, *it->second->host, Source::kAttributed);
        return true;
      });
  map.Finish();
  return map;
}

}  // namespace casefile
