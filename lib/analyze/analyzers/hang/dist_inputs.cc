#include "analyze/analyzers/hang/dist_inputs.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <tuple>

#include "analyze/query_values.h"
#include "analyze/rank_map.h"
#include "analyze/step_times.h"

namespace casefile::hang {
namespace {

using Value = std::optional<std::string>;

}  // namespace

DistKind DistKindOf(std::string_view kind) {
  static const std::pair<std::string_view, DistKind> kKinds[] = {
      {"watchdog_timeout", DistKind::kWatchdogTimeout},
      {"work_progress", DistKind::kWorkProgress},
      {"nccl_failed", DistKind::kNcclFailed},
      {"watchdog_stuck", DistKind::kWatchdogStuck},
      {"store_timeout", DistKind::kStoreTimeout},
      {"collective_error", DistKind::kCollectiveError},
      {"cuda_error", DistKind::kCudaError},
      {"launcher_failure", DistKind::kLauncherFailure},
      {"crash", DistKind::kCrash},
      {"jax_coordination", DistKind::kJaxCoordination},
      {"program_progress", DistKind::kProgramProgress},
      {"step_time", DistKind::kStepTime},
      {"rank_host", DistKind::kRankHost},
  };
  for (const auto& [name, k] : kKinds) {
    if (name == kind) return k;
  }
  return DistKind::kOther;
}

int32_t FrData::Intern(std::string_view text) {
  auto it = ids_.find(std::string(text));
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<int32_t>(texts.size());
  texts.emplace_back(text);
  ids_.emplace(texts.back(), id);
  return id;
}

const FileInfo* DistInputs::File(int64_t id) const {
  auto it = std::lower_bound(files.begin(), files.end(), id,
                             [](const FileInfo& f, int64_t v) { return f.id < v; });
  return it != files.end() && it->id == id ? &*it : nullptr;
}

void DistInputs::SortFiles() {
  std::sort(files.begin(), files.end(),
            [](const FileInfo& a, const FileInfo& b) { return a.id < b.id; });
}

namespace {

// Step times (analyze/step_times.h) grouped by (host, rank), -1 for no rank,
// the file only when neither is known; host and rank fall back to the
// file's. A stored series is one file's, and they come in file order with
// their points in line order: so are the points of each group.
void LoadStepSeries(const IndexReader& index, DistInputs& in) {
  std::map<std::tuple<std::string, int64_t, int64_t>, size_t> series_of;
  size_t points = 0;
  uint32_t last_series = UINT32_MAX;
  size_t target = 0;
  ForEachStoredStepTime(
      index, nullptr,
      [&](uint32_t s, const StoredStepSeries& stored, int64_t line_no, std::optional<int64_t> step,
          double seconds) {
        if (!(seconds > 0)) return true;
        if (points++ >= kMaxStepPoints) return false;
        if (s != last_series) {
          last_series = s;
          const FileInfo* file = in.File(stored.file_id);
          const std::string host = stored.host ? *stored.host : (file ? file->host : "");
          std::optional<int64_t> rank = stored.rank;
          if (!rank && file) rank = file->rank;
          const int64_t key_file = host.empty() && !rank ? stored.file_id : 0;
          auto [it, added] =
              series_of.try_emplace(std::make_tuple(host, rank.value_or(-1), key_file), 0);
          if (added) {
            it->second = in.steps.size();
            StepSeries g;
            g.host = host;
            g.rank = rank;
            g.file_id = key_file;
            in.steps.push_back(std::move(g));
          }
          target = it->second;
        }
        in.steps[target].points.push_back({step, seconds, stored.file_id, line_no});
        return true;
      });
}

}  // namespace

DistInputs LoadDistInputs(const IndexReader& index, const std::vector<FileRow>& files) {
  DistInputs in;
  for (const FileRow& f : files) {
    if (f.entry_type != "file") continue;
    FileInfo info;
    info.id = f.id;
    info.path = f.path;
    info.kind = f.kind;
    info.host = f.host.value_or("");
    info.task = f.task.value_or("");
    info.rank = f.rank;
    info.line_count = f.line_count;
    in.files.push_back(std::move(info));
  }
  in.SortFiles();

  // The latest timestamp of each file, from the blocks' summaries (no line
  // is decoded).
  index.Query("SELECT file_id, max(max_ts) FROM line_blocks GROUP BY file_id",
              [&](const QueryRow& r) {
                const auto id = IntOf(r.values[0]);
                const auto ts = IntOf(r.values[1]);
                if (!id || !ts) return true;
                auto it = std::lower_bound(in.files.begin(), in.files.end(), *id,
                                           [](const FileInfo& f, int64_t v) { return f.id < v; });
                if (it != in.files.end() && it->id == *id) it->last_ts_us = *ts;
                return true;
              });

  std::map<DistKind, size_t> per_kind;
  index.Query(
      "SELECT file_id, line_no, ts_us, host, rank, kind, pg, pg_rank, seq, op, numel_in, "
      "numel_out, timeout_ms, elapsed_ms, last_enqueued, last_completed, value, detail, "
      "local_rank FROM dist_events WHERE kind NOT IN ('rank_host', 'store_timeout') ORDER BY "
      "kind, file_id, line_no",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        const DistKind kind = DistKindOf(v[5].value_or(""));
        if (kind == DistKind::kOther || kind == DistKind::kRankHost ||
            kind == DistKind::kStoreTimeout)
          return true;
        const int64_t file_id = IntOf(v[0]).value_or(0);
        const FileInfo* file = in.File(file_id);
        std::string host = v[3] ? *v[3] : (file ? file->host : "");
        std::optional<int64_t> rank = IntOf(v[4]);
        if (!rank) rank = DefaultGroupRank(v[6], IntOf(v[7]));
        if (!rank && file) rank = file->rank;
        const int64_t line_no = IntOf(v[1]).value_or(0);
        if (kind == DistKind::kProgramProgress) {
          const std::optional<int64_t> launch = IntOf(v[8]);
          if (!launch || host.empty() || in.progress.size() >= kMaxEventsPerKind) return true;
          in.progress.push_back({std::move(host), *launch, file_id, line_no});
          return true;
        }
        if (per_kind[kind]++ >= kMaxEventsPerKind) return true;
        DistEvent e;
        e.file_id = file_id;
        e.line_no = line_no;
        e.ts_us = IntOf(v[2]).value_or(kNoTimestamp);
        e.host = std::move(host);
        e.rank = rank;
        e.kind = kind;
        e.pg = v[6];
        e.pg_rank = IntOf(v[7]);
        e.seq = IntOf(v[8]);
        e.op = v[9];
        e.numel_in = IntOf(v[10]);
        e.numel_out = IntOf(v[11]);
        e.timeout_ms = IntOf(v[12]);
        e.elapsed_ms = IntOf(v[13]);
        e.last_enqueued = IntOf(v[14]);
        e.last_completed = IntOf(v[15]);
        e.value = RealOf(v[16]);
        e.detail = v[17];
        if (!rank) e.local_rank = IntOf(v[18]);
        in.events.push_back(std::move(e));
        return true;
      });
  LoadStepSeries(index, in);

  index.Query(
      "SELECT file_id, line_no, rank, pg_id, record_id, collective_seq_id, op, state, "
      "input_sizes, input_dtypes, is_p2p FROM fr_entries ORDER BY rank, file_id, record_id",
      [&](const QueryRow& r) {
        if (in.fr.entries.size() >= kMaxFrEntries) return false;
        const auto& v = r.values;
        FrEntry e;
        e.file_id = IntOf(v[0]).value_or(0);
        e.line_no = IntOf(v[1]).value_or(0);
        e.rank = IntOf(v[2]).value_or(-1);
        e.pg_id = v[3].value_or("");
        e.record_id = IntOf(v[4]).value_or(0);
        e.seq = IntOf(v[5]);
        e.op = in.fr.Intern(v[6].value_or(""));
        e.state = in.fr.Intern(v[7].value_or(""));
        e.input_sizes = in.fr.Intern(v[8].value_or(""));
        e.input_dtypes = in.fr.Intern(v[9].value_or(""));
        e.is_p2p = IntOf(v[10]).value_or(0) != 0;
        in.fr.entries.push_back(std::move(e));
        return true;
      });
  index.Query("SELECT file_id, rank, pg_id, \"desc\", ranks FROM fr_groups ORDER BY rank, file_id",
              [&](const QueryRow& r) {
                const auto& v = r.values;
                FrGroup g;
                g.file_id = IntOf(v[0]).value_or(0);
                g.rank = IntOf(v[1]).value_or(-1);
                g.pg_id = v[2].value_or("");
                g.desc = v[3].value_or("");
                g.ranks = v[4].value_or("");
                in.fr.groups.push_back(std::move(g));
                return true;
              });
  index.Query(
      "SELECT file_id, module_name, stage, host, fingerprint, xla_fingerprint FROM hlo_modules "
      "ORDER BY module_name, stage, file_id",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        HloModule m;
        m.file_id = IntOf(v[0]).value_or(0);
        m.module_name = v[1].value_or("");
        m.stage = v[2].value_or("");
        // The file's host is final (a late manifest may have changed it);
        // the row's was taken at ingest.
        const FileInfo* file = in.File(m.file_id);
        m.host = file && !file->host.empty() ? file->host : v[3].value_or("");
        m.fingerprint = v[4].value_or("");
        m.xla_fingerprint = v[5];
        in.hlo.push_back(std::move(m));
        return true;
      });
  return in;
}

}  // namespace casefile::hang
