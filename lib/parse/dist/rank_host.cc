// The (host, rank) pairs a log reveals, so that analyzers can name the host
// of a rank that only its peers mention. Two sources: a line whose wrappers
// name both ("node-3: [rank12]: ..."), and NCCL's communicator lines on a
// host:pid:tid header ("comm 0x55d0 rank 12 nranks 16 cudaDev 4 ... - Init
// COMPLETE", "ncclCommInitRank comm ... rank 12 nranks 16 ...", "comm 0x55d0
// rank 12 nRanks 16 nNodes 2 ..."), whose rank is
// the rank in that communicator: value = nranks lets readers prefer the
// largest communicator (the world). A communicator split from another
// ("ncclCommSplit comm ... parent 0x... color C key K - Init COMPLETE", the
// older "comm ... parent 0x... color C key K commId ...") is a sub-group
// whatever its size: its rows carry detail kSplitDetail, so that readers can
// leave it out even when the world's own lines are lost. Each pair is
// emitted once per file.
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"

namespace casefile::dist {
namespace {

constexpr size_t npos = std::string_view::npos;

// Reads the decimal number right after `key` in `s`; -1 when none.
int64_t NumberAfter(std::string_view s, std::string_view key) {
  const size_t at = s.find(key);
  if (at == npos) return -1;
  size_t i = at + key.size();
  if (i >= s.size() || s[i] < '0' || s[i] > '9') return -1;
  int64_t v = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9' && v < (int64_t{1} << 40); ++i) {
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

// What an NCCL communicator line says; rank -1 when the line is none.
struct Comm {
  int64_t rank = -1;
  int64_t nranks = -1;
  bool split = false;
};

// "comm 0x... rank R nranks N ..." (NCCL INFO), or the "comm 0x... rank R
// nRanks N nNodes M localRanks L localRank l MNNVL 0" line every rank
// prints while in init since NCCL 2.18 (the only one of a rank stuck in
// init); the literals are rare elsewhere.
Comm ReadComm(std::string_view msg) {
  Comm c;
  std::string_view key = " nranks ";
  size_t at = msg.find(key);
  if (at == npos) {
    key = " nRanks ";
    at = msg.find(key);
  }
  const size_t comm = msg.find("comm ");
  if (at == npos || comm == npos) return c;
  const std::string_view head = msg.substr(0, at + 1);
  const size_t r = head.rfind(" rank ");
  if (r == npos) return c;
  c.rank = NumberAfter(head.substr(r), " rank ");
  if (c.rank < 0) return c;
  c.nranks = NumberAfter(msg.substr(at), key);
  // The split form names the function, the older one only the parent.
  c.split = msg.find("ncclCommSplit") != npos || msg.find(" parent ", at) != npos;
  return c;
}

class RankHostFamily : public DistFamily {
 public:
  // Lines whose wrappers name a host and a rank, and NCCL's "nranks" lines.
  RankHostFamily() : DistFamily(kAnchorNranks | kLineHostRank) {}

  bool ReadLine(const LineRecord& line, uint32_t anchors, const DistEmitter& out) override {
    if (line.host.empty()) return false;
    if (anchors & kAnchorNranks) {
      const Comm c = ReadComm(line.message());
      if (c.rank >= 0) {
        Add(line, c.rank, c.nranks, c.split, out);
        // A split communicator's rank does not replace the wrapper's.
        if (!c.split) return false;
      }
    }
    if (line.rank >= 0) Add(line, line.rank, -1, false, out);
    return false;
  }

 private:
  // A file that names more pairs than this is not one rank's or one host's
  // log; the first pairs are kept.
  static constexpr size_t kMaxPairs = 4096;

  void Add(const LineRecord& line, int64_t rank, int64_t nranks, bool split,
           const DistEmitter& out) {
    // A rank's log names the same pair on every line: the last pair looked
    // up answers without building a key.
    if (rank == last_rank_ && nranks == last_nranks_ && split == last_split_ &&
        line.host == last_host_)
      return;
    last_host_.assign(line.host);
    last_rank_ = rank;
    last_nranks_ = nranks;
    last_split_ = split;
    auto key = std::make_tuple(std::string(line.host), rank, nranks, split);
    if (!seen_.insert(key).second || seen_.size() > kMaxPairs) return;
    DistEventRow row = out.Start(line, kRankHost);
    row.rank = rank;
    if (nranks >= 0) row.value = static_cast<double>(nranks);
    if (split) row.detail = kSplitDetail;
    out.Emit(row);
  }

  std::set<std::tuple<std::string, int64_t, int64_t, bool>> seen_;
  std::string last_host_;
  int64_t last_rank_ = -1;
  int64_t last_nranks_ = -1;
  bool last_split_ = false;
};

}  // namespace

std::unique_ptr<DistFamily> MakeRankHostFamily() { return std::make_unique<RankHostFamily>(); }

}  // namespace casefile::dist
