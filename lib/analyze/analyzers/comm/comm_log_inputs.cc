#include "analyze/analyzers/comm/comm_log_inputs.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "analyze/analyzers/comm/comm_log_common.h"
#include "analyze/query_values.h"
#include "analyze/succeeded_hosts.h"
#include "analyze/summary_text.h"

namespace casefile::comm {
namespace {

std::optional<EventKind> KindOf(std::string_view kind) {
  if (kind == "nccl_warn") return EventKind::kNcclWarn;
  if (kind == "collective_error") return EventKind::kCollectiveError;
  if (kind == "rendezvous_error") return EventKind::kRendezvous;
  if (kind == "gpu_test") return EventKind::kGpuTest;
  if (kind == "crash") return EventKind::kCrash;
  if (kind == "cuda_error") return EventKind::kCudaError;
  if (kind == "launcher_failure") return EventKind::kLauncher;
  return std::nullopt;
}

// A collected ibstat or ibv_devinfo output, by its file name (the
// collector writes sysinfo/ibstat.txt and sysinfo/ibv_devinfo.txt).
bool IsIbStatusFile(const FileRow& f) {
  if (f.kind != "sysinfo") return false;
  const size_t slash = f.path.rfind('/');
  const std::string_view base =
      std::string_view(f.path).substr(slash == std::string::npos ? 0 : slash + 1);
  return base.find("ibstat") != std::string_view::npos ||
         base.find("ibv_devinfo") != std::string_view::npos;
}

// ibstat's "State: Active", ibv_devinfo's "state: PORT_ACTIVE (4)".
bool IsActivePortLine(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  text.remove_prefix(i);
  if (text.starts_with("State:")) return ContainsNoCase(text, "Active");
  if (text.starts_with("state:")) return text.find("PORT_ACTIVE") != std::string_view::npos;
  return false;
}

}  // namespace

void LoadCommLogFacts(const AnalysisContext& ctx, CommLogFacts& facts) {
  const IndexReader& index = ctx.index();
  struct FileAttr {
    std::string host;
    std::optional<int64_t> rank;
  };
  std::unordered_map<int64_t, FileAttr> attr;
  std::set<std::string> log_hosts;
  for (const FileRow& f : ctx.files()) {
    attr[f.id] = {f.host.value_or(""), f.rank};
    if (f.kind == "log" && f.host) log_hosts.insert(*f.host);
  }
  facts.log_hosts.assign(log_hosts.begin(), log_hosts.end());
  auto file_host = [&](int64_t file_id) {
    const auto it = attr.find(file_id);
    return it == attr.end() ? std::string() : it->second.host;
  };

  index.Query(
      "SELECT file_id, line_no, host, pid, rank, nranks, nnodes, comm, comm_id, parent, "
      "nccl_version, version_line, cuda_runtime, cuda_driver, net, net_devices, transports, env, "
      "init_line, complete_line, first_warn_line, last_line FROM nccl_ranks "
      "ORDER BY file_id, line_no",
      [&](const QueryRow& r) {
        if (facts.procs.size() >= kMaxProcRows) return false;
        const auto& v = r.values;
        NcclProc p;
        p.file_id = IntOf(v[0]).value_or(0);
        p.line_no = IntOf(v[1]).value_or(0);
        p.host = v[2] ? *v[2] : file_host(p.file_id);
        p.pid = IntOf(v[3]).value_or(-1);
        p.rank = IntOf(v[4]);
        p.nranks = IntOf(v[5]);
        p.nnodes = IntOf(v[6]);
        p.comm = TextOf(v[7]);
        p.comm_id = TextOf(v[8]);
        p.parent = TextOf(v[9]);
        p.nccl_version = TextOf(v[10]);
        p.version_line = IntOf(v[11]);
        p.cuda_runtime = TextOf(v[12]);
        p.cuda_driver = TextOf(v[13]);
        p.net = TextOf(v[14]);
        p.net_devices = TextOf(v[15]);
        p.transports = TextOf(v[16]);
        p.env = TextOf(v[17]);
        p.init_line = IntOf(v[18]);
        p.complete_line = IntOf(v[19]);
        p.first_warn_line = IntOf(v[20]);
        p.last_line = IntOf(v[21]).value_or(p.line_no);
        facts.procs.push_back(std::move(p));
        return true;
      });

  index.Query(
      "SELECT file_id, line_no, ts_us, host, rank, local_rank, kind, op, detail, value, "
      "timeout_ms FROM dist_events WHERE kind IN ('nccl_warn', 'collective_error', "
      "'rendezvous_error', 'gpu_test', 'crash', 'cuda_error', 'launcher_failure', "
      "'store_timeout') "
      "ORDER BY file_id, line_no",
      [&](const QueryRow& r) {
        if (facts.events.size() >= kMaxEventRows) return false;
        const auto& v = r.values;
        std::optional<EventKind> kind = KindOf(TextOf(v[6]));
        // Of the store timeouts, only a set-up wait that says how many
        // processes joined is a rendezvous failure (the others are a hang's).
        const bool not_all_joined =
            TextOf(v[6]) == "store_timeout" && TextOf(v[8]).find(" joined") != std::string::npos;
        if (not_all_joined) kind = EventKind::kRendezvous;
        if (!kind) return true;
        CommEvent e;
        e.file_id = IntOf(v[0]).value_or(0);
        e.line_no = IntOf(v[1]).value_or(0);
        e.ts_us = IntOf(v[2]).value_or(kNoTimestamp);
        e.host = v[3] ? *v[3] : file_host(e.file_id);
        e.rank = IntOf(v[4]);
        if (!e.rank) {
          const auto it = attr.find(e.file_id);
          if (it != attr.end()) e.rank = it->second.rank;
        }
        e.local_rank = IntOf(v[5]);
        e.kind = *kind;
        e.op = not_all_joined ? kRdzvNotAllJoined : TextOf(v[7]);
        e.detail = TextOf(v[8]);
        e.value = RealOf(v[9]);
        e.timeout_ms = IntOf(v[10]);
        facts.events.push_back(std::move(e));
        return true;
      });

  index.Query(
      "SELECT file_id, max(last_line) FROM metric_chunks WHERE name = 'step_time' "
      "GROUP BY file_id",
      [&](const QueryRow& r) {
        facts.last_step_line[IntOf(r.values[0]).value_or(0)] = IntOf(r.values[1]).value_or(0);
        return true;
      });

  index.Query(
      "SELECT file_id, max(max_ts) FROM line_blocks WHERE file_id IN (SELECT file_id FROM "
      "dist_events WHERE kind = 'rendezvous_error') GROUP BY file_id",
      [&](const QueryRow& r) {
        const auto ts = IntOf(r.values[1]);
        if (ts) facts.last_ts[IntOf(r.values[0]).value_or(0)] = *ts;
        return true;
      });

  facts.succeeded = LoadLauncherSuccesses(index);

  // Environment dumps: only NCCL's own variables matter here.
  index.Query(
      "SELECT c.file_id, c.line_no, c.key, c.value FROM configs AS c "
      "WHERE c.key IN ('NCCL_IB_DISABLE', 'NCCL_P2P_DISABLE', 'NCCL_NET', 'NCCL_IB_HCA') "
      "ORDER BY c.file_id, c.line_no",
      [&](const QueryRow& r) {
        if (facts.env.size() >= kMaxEnvRows) return false;
        const auto& v = r.values;
        EnvSetting s;
        s.file_id = IntOf(v[0]).value_or(0);
        s.line_no = IntOf(v[1]).value_or(0);
        s.host = file_host(s.file_id);
        s.key = TextOf(v[2]);
        s.value = TextOf(v[3]);
        facts.env.push_back(std::move(s));
        return true;
      });

  for (const FileRow& f : ctx.files()) {
    if (!IsIbStatusFile(f)) continue;
    index.ScanLines(f.id, [&](const LineRecord& rec) {
      if (facts.ib_ports.size() >= kMaxIbPortLines) return false;
      if (IsActivePortLine(rec.text))
        facts.ib_ports.push_back(
            {f.id, rec.line_no, !rec.host.empty() ? std::string(rec.host) : f.host.value_or("")});
      return true;
    });
  }

  facts.ranks = &ctx.rank_hosts();
  facts.line = [&ctx](int64_t file_id, int64_t line_no) {
    return ctx.MakeEvidence(file_id, line_no, ctx.index().LineText(file_id, line_no).value_or(""));
  };
  facts.lines_in = [&index](int64_t file_id, int64_t from, int64_t to,
                            const std::function<bool(const LogLine&)>& cb) {
    if (to < from) return;
    // The lines table decodes only the blocks that hold [from, to].
    index.Query("SELECT line_no, ts_us, host, pid, message FROM lines WHERE file_id = " +
                    std::to_string(file_id) + " AND line_no BETWEEN " + std::to_string(from) +
                    " AND " + std::to_string(to) + " ORDER BY line_no",
                [&](const QueryRow& r) {
                  const auto& v = r.values;
                  LogLine l;
                  l.line_no = IntOf(v[0]).value_or(0);
                  l.ts_us = IntOf(v[1]).value_or(kNoTimestamp);
                  l.host = TextOf(v[2]);
                  l.pid = IntOf(v[3]).value_or(-1);
                  l.message = TextOf(v[4]);
                  return cb(l);
                });
  };
}

}  // namespace casefile::comm
