#include "analyze/analyzers/runtime/runtime_inputs.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include "analyze/query_values.h"
#include "analyze/step_times.h"
#include "analyze/succeeded_hosts.h"

namespace casefile::runtime {
namespace {

using Value = std::optional<std::string>;

std::optional<RowKind> KindOf(std::string_view kind) {
  if (kind == "crash") return RowKind::kCrash;
  if (kind == "cuda_error") return RowKind::kCudaError;
  if (kind == "collective_error") return RowKind::kCollectiveError;
  if (kind == "launcher_failure") return RowKind::kLauncherFailure;
  return std::nullopt;
}

}  // namespace

int64_t KernelKill::FirstCitable() const {
  for (int64_t l : {victim_line, summary_line, slurm_line, trigger_line}) {
    if (l > 0) return l;
  }
  return 0;
}

void LoadFailureRows(const IndexReader& index, const std::vector<FileRow>& files,
                     RuntimeFacts& facts) {
  struct FileAttr {
    std::string host;
    std::optional<int64_t> rank;
  };
  std::unordered_map<int64_t, FileAttr> attr;
  for (const FileRow& f : files) attr[f.id] = {f.host.value_or(""), f.rank};

  index.Query(
      "SELECT file_id, line_no, ts_us, host, rank, kind, op, value, detail, seq, local_rank "
      "FROM dist_events "
      "WHERE kind IN ('crash', 'cuda_error', 'collective_error', 'launcher_failure') "
      "ORDER BY file_id, line_no",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        const int64_t file_id = IntOf(v[0]).value_or(0);
        const int64_t line_no = IntOf(v[1]).value_or(0);
        const std::string_view kind = v[5] ? std::string_view(*v[5]) : std::string_view();
        const std::optional<RowKind> k = KindOf(kind);
        if (!k || facts.rows.size() >= kMaxFailureRows) return true;
        FailureRow row;
        row.file_id = file_id;
        row.line_no = line_no;
        row.ts_us = IntOf(v[2]).value_or(kNoTimestamp);
        const auto it = attr.find(file_id);
        row.host = v[3] ? *v[3] : (it != attr.end() ? it->second.host : "");
        row.rank = IntOf(v[4]);
        if (!row.rank && it != attr.end()) row.rank = it->second.rank;
        if (!row.rank) row.local_rank = IntOf(v[10]);
        row.kind = *k;
        row.op = v[6];
        row.value = RealOf(v[7]);
        row.detail = v[8].value_or("");
        facts.rows.push_back(std::move(row));
        return true;
      });

  facts.succeeded = LoadLauncherSuccesses(index);

  // Step times matter only after a failure (IsRecovered): only the files
  // with a failure row are read.
  std::vector<int64_t> failed_files;
  for (const FailureRow& r : facts.rows) {
    if (failed_files.empty() || failed_files.back() != r.file_id) failed_files.push_back(r.file_id);
  }
  const StoredStepTimes steps = LoadStoredStepTimes(index, kMaxStepRows, &failed_files);
  facts.steps.reserve(steps.rows.size());
  for (const StoredStepTime& s : steps.rows) facts.steps.push_back({s.file_id, s.line_no, s.step});
}

}  // namespace casefile::runtime
