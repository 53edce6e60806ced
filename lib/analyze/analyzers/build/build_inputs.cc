#include "analyze/analyzers/build/build_inputs.h"

#include <algorithm>
#include <unordered_map>

#include "analyze/query_values.h"
#include "analyze/step_times.h"
#include "parse/dist/dist_kinds.h"
#include "parse/version/version_facts.h"

namespace casefile::build {

int SourceRank(std::string_view source) {
  namespace v = version;
  static constexpr const char* kOrder[] = {
      v::kSourceCollectEnv, v::kSourceNvcc,   v::kSourceNvidiaSmi,       v::kSourceNvidiaSmiCsv,
      v::kSourceDsReport,   v::kSourceJaxEnv, v::kSourceTransformersEnv, v::kSourceGcc,
      v::kSourcePip,        v::kSourceConda,  v::kSourceWhichNvcc,       v::kSourceCudaDirs,
      v::kSourceEnv,
  };
  for (size_t i = 0; i < std::size(kOrder); ++i) {
    if (source == kOrder[i]) return static_cast<int>(i);
  }
  return static_cast<int>(std::size(kOrder));
}

std::map<std::string, HostVersions> VersionsByHost(const std::vector<VersionFactRow>& rows) {
  std::map<std::string, HostVersions> out;
  for (const VersionFactRow& r : rows) {
    auto& list = out[r.host][r.component];
    if (!list.empty()) {
      const int have = SourceRank(list.front()->source);
      const int mine = SourceRank(r.source);
      if (mine > have) continue;
      if (mine < have) list.clear();
    }
    list.push_back(&r);
  }
  return out;
}

void LoadBuildFacts(const IndexReader& index, const std::vector<FileRow>& files,
                    BuildFacts& facts) {
  std::unordered_map<int64_t, const FileRow*> by_id;
  for (const FileRow& f : files) by_id[f.id] = &f;
  index.Query(
      // What the ranks' NCCL printed at run time (nccl_log) is the comm
      // analyzer's evidence (comm.version_mismatch); the build checks read
      // the installed environment's reports.
      "SELECT file_id, line_no, component, version, detail, source FROM versions "
      "WHERE source <> 'nccl_log' ORDER BY file_id, line_no",
      [&](const QueryRow& r) {
        if (facts.versions.size() >= kMaxVersionRows) return false;
        const auto& v = r.values;
        VersionFactRow row;
        row.file_id = IntOf(v[0]).value_or(0);
        row.line_no = IntOf(v[1]).value_or(0);
        const auto it = by_id.find(row.file_id);
        if (it != by_id.end()) row.host = it->second->host.value_or("");
        row.component = TextOf(v[2]);
        row.version = TextOf(v[3]);
        row.detail = TextOf(v[4]);
        row.source = TextOf(v[5]);
        facts.versions.push_back(std::move(row));
        return true;
      });
  index.Query(
      "SELECT file_id, line_no, host, rank, kind, op, detail, value, local_rank "
      "FROM dist_events WHERE kind = 'build_error' OR (kind = 'cuda_error' AND "
      "detail LIKE '%no kernel image%') OR (kind = 'crash' AND (detail LIKE '%undefined "
      "symbol: %' OR detail LIKE '%: cannot open shared object file%' OR (detail LIKE "
      "'%version `%' AND detail LIKE '%not found%'))) ORDER BY file_id, line_no",
      [&](const QueryRow& r) {
        if (facts.errors.size() >= kMaxErrorRows) return false;
        const auto& v = r.values;
        BuildErrorRow row;
        row.file_id = IntOf(v[0]).value_or(0);
        row.line_no = IntOf(v[1]).value_or(0);
        const auto it = by_id.find(row.file_id);
        row.host = v[2] ? *v[2] : (it != by_id.end() ? it->second->host.value_or("") : "");
        row.rank = IntOf(v[3]);
        if (!row.rank && it != by_id.end()) row.rank = it->second->rank;
        if (!row.rank) row.local_rank = IntOf(v[8]);
        const std::string kind = TextOf(v[4]);
        row.op = kind == dist::kCudaError ? std::string(kOpNoKernelImage)
                 : kind == dist::kCrash   ? std::string(kOpLoadFailed)
                                          : TextOf(v[5]);
        row.detail = TextOf(v[6]);
        row.value = RealOf(v[7]);
        facts.errors.push_back(std::move(row));
        return true;
      });
  // Step times, only of the files where a library failed to load.
  std::vector<int64_t> load_files;
  for (const BuildErrorRow& e : facts.errors) {
    if (e.op == kOpLoadFailed && (load_files.empty() || load_files.back() != e.file_id))
      load_files.push_back(e.file_id);
  }
  if (load_files.empty()) return;
  const StoredStepTimes steps = LoadStoredStepTimes(index, kMaxStepRows, &load_files);
  for (const StoredStepTime& s : steps.rows)
    facts.steps_after_load[s.file_id].emplace_back(s.line_no, s.step);
}

}  // namespace casefile::build
