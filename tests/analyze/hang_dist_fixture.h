// Builds the inputs of the cross-rank hang rules by hand (files, dist events,
// flight-recorder entries, HLO rows), so the rules are tested without an
// index. Evidence made here carries the file's path, the line number and the
// text "line <n>".
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "analyze/analyzers/hang/dist_common.h"
#include "analyze/analyzers/hang/dist_findings.h"
#include "analyze/analyzers/hang/dist_inputs.h"
#include "analyze/rank_map.h"

namespace casefile::hang::test {

class DistBundle {
 public:
  // A file; ids are 1, 2, 3... in call order.
  int64_t File(const std::string& path, const std::string& host = "",
               std::optional<int64_t> rank = std::nullopt, const std::string& task = "",
               int64_t line_count = 100, int64_t last_ts_us = kNoTimestamp,
               const std::string& kind = "log") {
    FileInfo f;
    f.id = static_cast<int64_t>(in.files.size()) + 1;
    f.path = path;
    f.kind = kind;
    f.host = host;
    f.task = task;
    f.rank = rank;
    f.line_count = line_count;
    f.last_ts_us = last_ts_us;
    in.files.push_back(f);
    return f.id;
  }

  // An event of `kind` at file:line, attributed as LoadDistInputs would
  // (host and rank given here are the attributed ones).
  DistEvent& Event(DistKind kind, int64_t file_id, int64_t line_no,
                   std::optional<int64_t> rank = std::nullopt, const std::string& host = "") {
    DistEvent e;
    e.kind = kind;
    e.file_id = file_id;
    e.line_no = line_no;
    e.rank = rank;
    e.host = host.empty() && in.File(file_id) ? in.File(file_id)->host : host;
    in.events.push_back(e);
    return in.events.back();
  }

  // "[Rank r] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=seq, OpType=op,
  // NumelIn=n, NumelOut=n, Timeout(ms)=600000)".
  DistEvent& Timeout(int64_t file_id, int64_t line_no, int64_t rank, int64_t seq,
                     const std::string& op = "ALLREDUCE", int64_t numel = 4194304) {
    DistEvent& e = Event(DistKind::kWatchdogTimeout, file_id, line_no, rank);
    e.seq = seq;
    e.op = op;
    e.numel_in = numel;
    e.numel_out = numel;
    e.timeout_ms = 600000;
    e.elapsed_ms = 600081;
    return e;
  }

  DistEvent& Progress(int64_t file_id, int64_t line_no, int64_t rank, std::optional<int64_t> seq,
                      std::optional<int64_t> enqueued, std::optional<int64_t> completed) {
    DistEvent& e = Event(DistKind::kWorkProgress, file_id, line_no, rank);
    e.seq = seq;
    e.last_enqueued = enqueued;
    e.last_completed = completed;
    return e;
  }

  void FrEntryAt(int64_t file_id, int64_t line_no, int64_t rank, const std::string& pg, int64_t seq,
                 const std::string& op, const std::string& sizes = "[[1024]]",
                 const std::string& dtypes = "[\"Float\"]", const std::string& state = "completed",
                 bool p2p = false) {
    FrEntry e;
    e.file_id = file_id;
    e.line_no = line_no;
    e.rank = rank;
    e.pg_id = pg;
    e.record_id = seq;
    e.seq = seq;
    e.op = in.fr.Intern(op);
    e.input_sizes = in.fr.Intern(sizes);
    e.input_dtypes = in.fr.Intern(dtypes);
    e.state = in.fr.Intern(state);
    e.is_p2p = p2p;
    in.fr.entries.push_back(e);
  }

  void Hlo(int64_t file_id, const std::string& module, const std::string& host,
           const std::string& fingerprint, std::optional<std::string> xla = std::nullopt,
           const std::string& stage = "before_optimizations") {
    HloModule m;
    m.file_id = file_id;
    m.module_name = module;
    m.stage = stage;
    m.host = host;
    m.fingerprint = fingerprint;
    m.xla_fingerprint = std::move(xla);
    in.hlo.push_back(m);
  }

  DistContext Context() {
    ranks.Finish();
    return DistContext{in, ranks, [this](int64_t file_id, int64_t line_no) {
                         Evidence e;
                         e.bundle = "bundle";
                         const FileInfo* f = in.File(file_id);
                         e.path = f ? f->path : "?";
                         e.line = line_no;
                         e.text = "line " + std::to_string(line_no);
                         return e;
                       }};
  }

  // Every hang finding, with no Megascale part.
  std::vector<Finding> Run(MxlaOutcome mxla = {}) {
    std::vector<Finding> out = CombineHangFindings(std::move(mxla), Context());
    for (Finding& f : out) Normalize(f);
    return out;
  }

  DistInputs in;
  RankHostMap ranks;
};

inline bool Cites(const Finding& f, const std::string& path, int64_t line) {
  for (const Evidence& e : f.evidence) {
    if (e.path == path && e.line == line) return true;
  }
  return false;
}

inline Culprit RankAt(int64_t rank, const std::string& host) {
  Culprit c;
  c.rank = rank;
  if (!host.empty()) c.host = host;
  return c;
}

inline Culprit HostOnly(const std::string& host) {
  Culprit c;
  c.host = host;
  return c;
}

inline const Finding* FindingOf(const std::vector<Finding>& fs, const std::string& code) {
  for (const Finding& f : fs) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

inline std::vector<std::string> Codes(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const Finding& f : fs) out.push_back(f.code);
  return out;
}

}  // namespace casefile::hang::test
