// Which host each global rank ran on, gathered once per analysis from what
// the bundle reveals: NCCL communicator lines ("comm ... rank R nranks N" on a
// host:pid:tid header, dist_events kind rank_host with a value), lines whose
// wrappers name both a host and a rank, files attributed to both, and events
// whose rank comes from the line and host from the file.
//
// Sources rank from most to least trusted; a rank takes its host from the
// most trusted source that names it (within one source, the host named most
// often, then the smallest name, so the result does not depend on row order):
//   1. the communicator with the largest nranks (the world: its rank is the
//      global rank); smaller communicators are ignored, since their rank is
//      the rank inside a sub-group and would name the wrong host. Split
//      communicators (rank_host rows with detail "split": ncclCommSplit, or
//      a "parent" named) are sub-groups whatever their size and are never
//      read, so that one cannot pass for the world when the world's own
//      init lines are lost. When a pair of level 2 or 3 names a rank >=
//      that nranks, the largest communicator seen is not the world and no
//      communicator is used;
//   2. explicit pairs: a line's wrappers (or message) naming both, and files
//      whose attribution names both;
//   3. a line that names only the rank, in a file attributed to a host.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "index/index_reader.h"

namespace casefile {

// The global rank a torch "[PG ...]" log prefix gives without a "[rankN]:"
// wrapper: the rank in the group when the group is the default one, which
// every rank creates first (local id 0: "[PG 0 Rank 5]" in torch 2.2-2.3,
// "[PG ID 0 PG GUID 0(default_pg) Rank 5]" later) and which holds all ranks
// in order. `pg` is dist_events.pg as stored ("0", "0(default_pg)").
std::optional<int64_t> DefaultGroupRank(const std::optional<std::string>& pg,
                                        std::optional<int64_t> pg_rank);

class RankHostMap {
 public:
  enum class Source { kWorldComm = 0, kExplicit = 1, kAttributed = 2 };

  // A communicator line: rank `rank` of a communicator of `nranks` ranks on `host`.
  void AddCommunicator(int64_t rank, int64_t nranks, const std::string& host);
  // A pair from a source of level kExplicit or kAttributed.
  void AddPair(int64_t rank, const std::string& host, Source source);
  // Resolves the pairs; call once after the last Add. Later Adds are ignored.
  void Finish();

  // The host of a global rank; nullptr when nothing names it. Valid as long
  // as the map.
  const std::string* HostOf(int64_t rank) const;
  // The largest nranks of any communicator line; 0 when none was seen or
  // when it cannot be the world (see above). Valid after Finish.
  int64_t world_size() const { return world_size_; }
  // Resolved ranks in ascending order.
  const std::map<int64_t, std::string>& hosts() const { return resolved_; }
  // The global rank of local rank `local_rank` on `host` (torchrun's
  // "[defaultN]:", "--local_rank=N"), when every known host holds one full
  // block of K consecutive ranks starting at a multiple of K (the launchers'
  // layout); nullopt otherwise or for a local rank outside the block.
  std::optional<int64_t> GlobalOfLocal(const std::string& host, int64_t local_rank) const;

  // Builds the map from an index: one query over dist_events rows that carry
  // a rank (their file's host fills a missing host) plus the files rows.
  static RankHostMap Load(const IndexReader& index, const std::vector<FileRow>& files);

 private:
  struct HostVote {
    std::string host;
    int64_t count = 0;
  };
  struct CommPair {
    int64_t rank;
    int64_t nranks;
    std::string host;
  };
  void Cast(int64_t rank, const std::string& host, int level);
  void FindLocalBlocks();

  bool finished_ = false;
  int64_t world_size_ = 0;
  int64_t max_pair_rank_ = -1;  // the highest rank of an AddPair
  std::vector<CommPair> comm_;
  // rank -> per source level -> votes (few hosts per rank, so a small vector).
  std::unordered_map<int64_t, std::vector<std::vector<HostVote>>> votes_;
  std::map<int64_t, std::string> resolved_;
  // Where each host's block of ranks starts, and the block size (0: the
  // hosts do not hold equal aligned blocks, so no local rank is mapped).
  std::unordered_map<std::string, int64_t> local_base_;
  int64_t local_block_ = 0;
};

}  // namespace casefile
