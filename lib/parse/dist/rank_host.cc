// The (host, rank) pairs a log reveals, so that analyzers can name the host
// of a rank that only its peers mention. Two sources: a line whose wrappers
// name both ("node-3: [rank12]: ..."), and NCCL's communicator lines on a
// host:pid:tid header ("comm 0x55d0 rank 12 nranks 16 cudaDev 4 ... - Init
// COMPLETE", "ncclCommInitRank comm ... rank 12 nranks 16 ..."), whose rank is
// the rank in that communicator: value = nranks lets readers prefer the
// largest communicator (the world). Each pair is emitted once per file.
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"

namespace casefile::dist {
namespace {

// Reads the decimal number right after `key` in `s`; -1 when none.
int64_t NumberAfter(std::string_view s, std::string_view key) {
  const size_t at = s.find(key);
  if (at == std::string_view::npos) return -1;
  size_t i = at + key.size();
  if (i >= s.size() || s[i] < '0' || s[i] > '9') return -1;
  int64_t v = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9' && v < (int64_t{1} << 40); ++i) {
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

class RankHostFamily : public DistFamily {
 public:
  // Lines whose wrappers name a host and a rank, and NCCL's "nranks" lines.
  RankHostFamily() : DistFamily(kAnchorNranks | kLineHostRank) {}

  bool ReadLine(const LineRecord& line, uint32_t anchors, const DistEmitter& out) override {
    if (line.host.empty()) return false;
    int64_t rank = line.rank;
    int64_t nranks = -1;
    // "comm 0x... rank R nranks N" (NCCL INFO); the literal is rare elsewhere.
    if (anchors & kAnchorNranks) {
      const std::string_view msg = line.message();
      const size_t comm = msg.find(" nranks ");
      if (comm != std::string_view::npos && msg.find("comm ") != std::string_view::npos) {
        const std::string_view head = msg.substr(0, comm + 1);
        const size_t r = head.rfind(" rank ");
        if (r != std::string_view::npos) {
          const int64_t v = NumberAfter(head.substr(r), " rank ");
          if (v >= 0) {
            rank = v;
            nranks = NumberAfter(msg.substr(comm), " nranks ");
          }
        }
      }
    }
    if (rank < 0) return false;
    // A rank's log names the same pair on every line: the last pair looked
    // up answers without building a key.
    if (rank == last_rank_ && nranks == last_nranks_ && line.host == last_host_) return false;
    last_host_.assign(line.host);
    last_rank_ = rank;
    last_nranks_ = nranks;
    auto key = std::make_tuple(std::string(line.host), rank, nranks);
    if (!seen_.insert(key).second || seen_.size() > kMaxPairs) return false;
    DistEventRow row = out.Start(line, kRankHost);
    row.rank = rank;
    if (nranks >= 0) row.value = static_cast<double>(nranks);
    out.Emit(row);
    return false;
  }

 private:
  // A file that names more pairs than this is not one rank's or one host's
  // log; the first pairs are kept.
  static constexpr size_t kMaxPairs = 4096;
  std::set<std::tuple<std::string, int64_t, int64_t>> seen_;
  std::string last_host_;
  int64_t last_rank_ = -1;
  int64_t last_nranks_ = -1;
};

}  // namespace

std::unique_ptr<DistFamily> MakeRankHostFamily() { return std::make_unique<RankHostFamily>(); }

}  // namespace casefile::dist
