// Transformers' scripts/distributed/torch-distributed-gpu-test.py. Each rank
// prints, under a file lock, "[<hostname>-<local_rank>] is OK (global rank:
// R/W)" once it could all-reduce, pass a barrier and allocate on its GPU, or
// "[<hostname>-<local_rank>] is broken" before re-raising; rank 0 then prints
// "pt=<torch>, cuda=<cuda>, nccl=<nccl tuple>". torchrun's "[default3]:" /
// "[rank3]:" wrappers are stripped before these readers see the message.
#include <string>

#include "parse/dist/comm_forms.h"
#include "parse/dist/comm_text.h"
#include "parse/dist/dist_kinds.h"
#include "parse/line/scan.h"

namespace casefile::dist {
namespace {

constexpr size_t npos = std::string_view::npos;

// "node-3-0" -> host "node-3", local rank 0. False when the label does not
// end in "-<digits>" (the script's label always does).
bool SplitLabel(std::string_view label, std::string_view& host, int64_t& local_rank) {
  const size_t dash = label.rfind('-');
  if (dash == npos || dash == 0 || dash + 1 >= label.size() || label.size() - dash > 6) {
    return false;
  }
  uint64_t v = 0;
  if (scan::ReadUint(label, dash + 1, 5, &v) != label.size() - dash - 1) return false;
  host = label.substr(0, dash);
  local_rank = static_cast<int64_t>(v);
  return true;
}

// The label of "[label]" whose ']' is at `close`: "" when no '[' opens it
// or it holds a blank.
std::string_view LabelBefore(std::string_view msg, size_t close) {
  const size_t open = msg.rfind('[', close);
  if (open == npos || open + 1 >= close) return {};
  const std::string_view label = msg.substr(open + 1, close - open - 1);
  if (label.find(' ') != npos || label.size() > 128) return {};
  return label;
}

bool ReadOk(std::string_view msg, DistEventRow& row) {
  constexpr std::string_view kOk = "] is OK (global rank: ";
  const size_t at = msg.find(kOk);
  if (at == npos) return false;
  const std::string_view label = LabelBefore(msg, at);
  if (label.empty()) return false;
  size_t i = at + kOk.size();
  uint64_t rank = 0, world = 0;
  size_t n = scan::ReadUint(msg, i, 9, &rank);
  if (n == 0 || !scan::At(msg, i + n, '/')) return false;
  i += n + 1;
  n = scan::ReadUint(msg, i, 9, &world);
  if (n == 0 || !scan::At(msg, i + n, ')')) return false;
  row.op = "ok";
  row.rank = static_cast<int64_t>(rank);
  row.value = static_cast<double>(world);
  std::string_view host = label;
  int64_t local_rank = -1;
  if (SplitLabel(label, host, local_rank)) row.local_rank = local_rank;
  row.detail = std::string(host);
  return true;
}

bool ReadBroken(std::string_view msg, DistEventRow& row) {
  constexpr std::string_view kBroken = "] is broken";
  while (!msg.empty() && (msg.back() == ' ' || msg.back() == '\t')) msg.remove_suffix(1);
  if (!msg.ends_with(kBroken)) return false;
  const std::string_view label = LabelBefore(msg, msg.size() - kBroken.size());
  std::string_view host;
  int64_t local_rank = -1;
  // The label must be the script's "<host>-<local_rank>": a user's "[x] is
  // broken" is not the test.
  if (label.empty() || !SplitLabel(label, host, local_rank)) return false;
  row.op = "broken";
  row.local_rank = local_rank;
  row.detail = std::string(host);
  return true;
}

bool ReadVersions(std::string_view msg, DistEventRow& row) {
  while (!msg.empty() && msg.front() == ' ') msg.remove_prefix(1);
  if (!msg.starts_with("pt=") || msg.find(", cuda=") == npos || msg.find("nccl=") == npos) {
    return false;
  }
  row.op = "versions";
  row.detail = std::string(ClipText(msg, 200));
  return true;
}

}  // namespace

bool MayBeGpuTest(std::string_view msg) {
  if (msg.find("] is ") != npos) return true;
  while (!msg.empty() && msg.front() == ' ') msg.remove_prefix(1);
  return msg.starts_with("pt=");
}

bool ReadGpuTest(std::string_view msg, DistEventRow& row) {
  return ReadOk(msg, row) || ReadBroken(msg, row) || ReadVersions(msg, row);
}

}  // namespace casefile::dist
