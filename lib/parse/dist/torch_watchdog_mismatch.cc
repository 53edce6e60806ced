// TORCH_DISTRIBUTED_DEBUG=DETAIL's check that every rank
// issues the same collective (ProcessGroupWrapper). A rank whose fingerprint
// differs from another's raises, on every rank that sees it:
//   "Detected mismatch between collectives on ranks. Rank 3 is running
//   collective: CollectiveFingerPrint(SequenceNumber=1503, OpType=BROADCAST,
//   TensorShape=[1], TensorDtypes=Long, TensorDeviceTypes=...), but Rank 0 is
//   running collective: CollectiveFingerPrint(SequenceNumber=1503,
//   OpType=ALLREDUCE, ...).Collectives differ in the following aspects: ..."
// (older releases print "OpType=BROADCAST" without the other fields, or
// "TensorShape(s)"). The rank speaking is the first one named. The hang
// analyzer runs this on the exception text of crash rows.
#include <cctype>
#include <string>

#include "parse/dist/torch_watchdog_fields.h"
#include "parse/dist/torch_watchdog_kinds.h"

namespace casefile::dist::torch {
namespace {

constexpr size_t npos = std::string_view::npos;
constexpr std::string_view kDetected = "Detected mismatch between collectives on ranks";
constexpr std::string_view kFingerprint = "CollectiveFingerPrint(";
// Bytes of a shape list kept ("[1024, 4096]").
constexpr size_t kMaxShape = 96;

// "OpType=BROADCAST TensorShape=[1]" of the fingerprint starting at `at`
// ("BROADCAST" alone when no shape is printed); "" when it names no op.
std::string FingerprintText(std::string_view s, size_t at, std::optional<int64_t>* seq) {
  const size_t end = s.find(kFingerprint, at + kFingerprint.size());
  const std::string_view fp = s.substr(at, end == npos ? npos : end - at);
  if (size_t sn = fp.find("SequenceNumber="); sn != npos) {
    sn += 15;
    *seq = IntAt(fp, sn);
  }
  const size_t op = fp.find("OpType=");
  if (op == npos) return "";
  size_t i = op + 7;
  while (i < fp.size() && (std::isupper(static_cast<unsigned char>(fp[i])) || fp[i] == '_')) ++i;
  // An op that runs to the end of the text was cut (a stored detail keeps
  // 512 bytes): "BROAD" is no op of its own.
  if (i == op + 7 || i == fp.size()) return "";
  std::string text(fp.substr(op + 7, i - op - 7));
  for (std::string_view key : {"TensorShape=", "TensorShapes="}) {
    const size_t sh = fp.find(key);
    if (sh == npos) continue;
    const size_t open = sh + key.size();
    size_t close = open;
    int depth = 0;
    for (; close < fp.size(); ++close) {
      if (fp[close] == '[') ++depth;
      if (fp[close] == ']' && --depth <= 0) break;
    }
    if (close < fp.size() && close - open < kMaxShape)
      text += " " + std::string(fp.substr(open, close - open + 1));
    break;
  }
  // A mismatch of dtypes alone (Float against Half) is one too.
  if (const size_t dt = fp.find("TensorDtypes="); dt != npos) {
    size_t end = dt + 13;
    while (end < fp.size() && end - dt < 13 + kMaxShape &&
           (std::isalnum(static_cast<unsigned char>(fp[end])) || fp[end] == '[' || fp[end] == ']' ||
            fp[end] == '_' || (fp[end] == ',' && end + 1 < fp.size() && fp[end + 1] != ' ')))
      ++end;
    if (end > dt + 13 && end < fp.size())
      text += " " + std::string(fp.substr(dt + 13, end - dt - 13));
  }
  return text;
}

}  // namespace

bool ReadCollectiveMismatch(std::string_view msg, DistEventRow& row) {
  const size_t at = msg.find(kDetected);
  if (at == npos) return false;
  const size_t self_rank = msg.find("Rank ", at + kDetected.size());
  const size_t self_fp = msg.find(kFingerprint, at);
  if (self_rank == npos || self_fp == npos) return false;
  size_t i = self_rank + 5;
  const std::optional<int64_t> self = IntAt(msg, i);
  std::optional<int64_t> seq;
  std::string mine = FingerprintText(msg, self_fp, &seq);
  if (!self || mine.empty()) return false;
  // Both ranks as the message numbers them (the wrapped group's), so that
  // they compare; a line's wrapper rank would be a global one.
  row.rank = *self;
  row.op = std::move(mine);
  if (seq) row.seq = *seq;
  // The other rank's fingerprint, when the text was not cut before its end.
  const size_t but = msg.find("but Rank ", self_fp);
  const size_t other_fp = but == npos ? npos : msg.find(kFingerprint, but);
  if (other_fp == npos) return true;
  i = but + 9;
  const std::optional<int64_t> other = IntAt(msg, i);
  std::optional<int64_t> other_seq;
  std::string theirs = FingerprintText(msg, other_fp, &other_seq);
  if (!other || theirs.empty()) return true;
  row.value = static_cast<double>(*other);
  row.detail = std::move(theirs);
  return true;
}

}  // namespace casefile::dist::torch
