#include "parse/trace/comm_marks.h"

#include <algorithm>
#include <cstdio>

#include "common/json_writer.h"

namespace casefile::trace_comm {
namespace {

// Worse first: lower score, then the later offset.
bool Worse(const MarkCandidate& a, const MarkCandidate& b) {
  if (a.score != b.score) return a.score < b.score;
  return a.row.offset > b.row.offset;
}
// std heap helpers keep the "largest" at the front; with this order the
// front is the worst candidate.
bool HeapLess(const MarkCandidate& a, const MarkCandidate& b) { return Worse(b, a); }

// A JSON string: the common escaper (which also makes invalid UTF-8 valid).
void AppendJsonString(std::string& out, std::string_view s) {
  out.push_back('"');
  AppendJsonEscaped(out, s);
  out.push_back('"');
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string Cut(std::string_view s) {
  if (s.size() <= kTraceMarkTextBytes) return std::string(s);
  size_t n = kTraceMarkTextBytes;
  // Do not split a UTF-8 sequence: back up over continuation bytes.
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n));
}

}  // namespace

std::string MarkText(const TraceEventRow& row) {
  if (!row.raw.empty()) return Cut(row.raw);
  std::string out = "{\"name\":";
  AppendJsonString(out, row.name);
  out += ",\"ph\":";
  AppendJsonString(out, row.phase);
  out += ",\"ts\":" + Number(row.ts_us);
  if (row.dur_us) out += ",\"dur\":" + Number(*row.dur_us);
  out += ",\"pid\":";
  AppendJsonString(out, row.pid);
  out += ",\"tid\":";
  AppendJsonString(out, row.tid);
  out += ",\"composed_from\":\"B/E\"}";
  return Cut(out);
}

TraceMarkRow MarkOf(const TraceEventRow& row, const char* kind, std::string detail) {
  TraceMarkRow m;
  m.file_id = row.file_id;
  m.kind = kind;
  m.line_no = row.line_no;
  m.offset = static_cast<int64_t>(row.offset);
  m.ts_us = row.ts_us;
  m.dur_us = row.dur_us;
  m.pid = row.pid;
  m.text = MarkText(row);
  m.detail = std::move(detail);
  return m;
}

bool MarkPool::WouldKeep(double score, int64_t offset) const {
  if (heap_.size() < cap_) return true;
  const MarkCandidate& worst = heap_.front();
  if (score != worst.score) return score > worst.score;
  return offset < worst.row.offset;
}

void MarkPool::Add(MarkCandidate c) {
  if (cap_ == 0 || !WouldKeep(c.score, c.row.offset)) return;
  if (heap_.size() >= cap_) {
    std::pop_heap(heap_.begin(), heap_.end(), HeapLess);
    heap_.pop_back();
  }
  heap_.push_back(std::move(c));
  std::push_heap(heap_.begin(), heap_.end(), HeapLess);
}

std::vector<MarkCandidate> MarkPool::Take() {
  std::vector<MarkCandidate> out = std::move(heap_);
  heap_.clear();
  std::sort(out.begin(), out.end(), [](const MarkCandidate& a, const MarkCandidate& b) {
    if (a.row.ts_us != b.row.ts_us) return a.row.ts_us < b.row.ts_us;
    return a.row.offset < b.row.offset;
  });
  return out;
}

std::vector<MarkCandidate> SegmentedMarkPool::Take(double from, size_t n) {
  // Candidates are unique per (score, offset) order, so the best n of the
  // union do not depend on how the cells were filled or merged.
  MarkPool best(n);
  for (size_t i = 0; i < bins_.size(); ++i) {
    for (const MarkCandidate& c : bins_.cell(i).pool.kept()) {
      if (c.when >= from) best.Add(c);
    }
  }
  bins_ = TimeBins<Cell>(kMarkSegments);
  return best.Take();
}

}  // namespace casefile::trace_comm
