// Throughput of the storage part of `casefile index`: synthetic log-like
// lines (with the metadata the parse stage would attach) go through
// IndexWriter, and the run prints MB/s of log text, lines/s, the index size
// against the text, peak RSS and where the CPU time went.
//
//   index_bench [--mb 1024] [--out /tmp/casefile-bench.db] [--file-mb 4]
//               [--dump lines.txt]
//
// --dump also writes the line pool as a text file, to compare with command
// line tools (zstd -b, wc -l) on the same bytes.
//
// The lines are generated before the clock starts (a 64 MiB pool, cycled
// with fresh line numbers, offsets and timestamps), so the figures are the
// writer's alone. Build: link with cf_index (the lead wires it into CMake).
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "index/index_reader.h"
#include "index/index_writer.h"

namespace {

using casefile::Level;
using casefile::LineRecord;

// Small, fast, deterministic generator (xorshift64*).
struct Rng {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  uint64_t Next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545f4914f6cdd1dull;
  }
  uint64_t Below(uint64_t n) { return Next() % n; }
};

struct PoolLine {
  uint32_t text_off, text_len, msg_start;
  Level level;
  int64_t ts;  // microseconds since the pool's start; -1 when the text has none
};

const char* const kModules[] = {"gpu_compiler.cc", "nccl_utils.cc", "trainer.py",
                                "data_loader.py",  "checkpoint.py", "collective_ops.cc",
                                "pjrt_client.cc",  "optimizer.py"};
const char* const kWords[] = {"step",    "loss",       "grad_norm", "allreduce",  "barrier",
                              "shard",   "microbatch", "tokens",    "throughput", "checkpoint",
                              "compile", "module",     "device",    "stream",     "buffer",
                              "timeout", "peer"};

// What stays the same over a stretch of a real log: the clock only moves
// forward, and one process (node, pid, rank) writes thousands of lines.
struct Writer {
  int64_t clock_us = 0;
  int node = 0, pid = 0, rank = 0, thread = 0;
};

// Appends one line in one of several shapes seen in training logs; returns
// where its message starts. Numbers in messages are random, which makes the
// text compress worse than real logs do: the size figures are pessimistic.
uint32_t MakeLine(Rng& rng, Writer& w, std::string& out, Level& level, int64_t& ts) {
  char buf[512];
  int n = 0;
  uint32_t msg = 0;
  w.clock_us += static_cast<int64_t>(rng.Below(2000));
  const int64_t c = w.clock_us % 86400000000;
  const int hh = static_cast<int>(c / 3600000000), mm = static_cast<int>(c / 60000000 % 60),
            ss = static_cast<int>(c / 1000000 % 60), us = static_cast<int>(c % 1000000);
  ts = -1;
  switch (rng.Below(10)) {
    case 0:
    case 1:
    case 2: {  // glog
      level = rng.Below(20) == 0 ? Level::kWarning : Level::kInfo;
      ts = w.clock_us;
      n = std::snprintf(buf, sizeof buf, "%c0501 %02d:%02d:%02d.%06d %7d %s:%d] ",
                        level == Level::kWarning ? 'W' : 'I', hh, mm, ss, us,
                        w.thread + static_cast<int>(rng.Below(4)), kModules[rng.Below(8)],
                        static_cast<int>(rng.Below(3000)));
      msg = static_cast<uint32_t>(n);
      n += std::snprintf(buf + n, sizeof buf - n, "%s %s took %llu us on device %d, %s=%llu",
                         kWords[rng.Below(17)], kWords[rng.Below(17)],
                         static_cast<unsigned long long>(rng.Below(10000000)),
                         static_cast<int>(rng.Below(8)), kWords[rng.Below(17)],
                         static_cast<unsigned long long>(rng.Below(1ull << 40)));
      break;
    }
    case 3:
    case 4:
    case 5: {  // python logging
      level = Level::kInfo;
      ts = w.clock_us / 1000 * 1000;
      n = std::snprintf(buf, sizeof buf, "2024-05-01 %02d:%02d:%02d,%03d - INFO - %s:%d - ", hh, mm,
                        ss, us / 1000, kModules[rng.Below(8)], static_cast<int>(rng.Below(900)));
      msg = static_cast<uint32_t>(n);
      n += std::snprintf(
          buf + n, sizeof buf - n, "step %d loss=%.4f lr=%.3e grad_norm=%.3f tokens/s=%d",
          static_cast<int>(rng.Below(100000)), rng.Below(100000) / 10000.0, rng.Below(1000) * 1e-7,
          rng.Below(100000) / 1000.0, static_cast<int>(rng.Below(500000)));
      break;
    }
    case 6:
    case 7: {  // NCCL
      level = Level::kInfo;
      int peer = static_cast<int>(rng.Below(256));
      n = std::snprintf(buf, sizeof buf, "node-%d:%d:%d [%d] NCCL INFO ", w.node, w.pid,
                        w.thread + static_cast<int>(rng.Below(4)), w.rank % 8);
      msg = static_cast<uint32_t>(n);
      n += std::snprintf(buf + n, sizeof buf - n, "Channel %02d/0 : %d[%d] -> %d[%d] via P2P/IPC",
                         static_cast<int>(rng.Below(32)), w.rank, w.rank % 8, peer, peer % 8);
      break;
    }
    case 8: {  // progress bar remnant
      level = Level::kUnknown;
      int done = static_cast<int>(rng.Below(1000));
      n = std::snprintf(
          buf, sizeof buf,
          "Epoch %d: %3d%%|%-10.*s| %d/1000 [01:%02d<02:%02d, %d.%02dit/s, loss=%.3f]",
          static_cast<int>(rng.Below(10)), done / 10, done / 100, "##########", done,
          static_cast<int>(rng.Below(60)), static_cast<int>(rng.Below(60)),
          static_cast<int>(rng.Below(20)), static_cast<int>(rng.Below(100)),
          rng.Below(10000) / 1000.0);
      break;
    }
    default: {  // traceback-ish / error
      level = rng.Below(4) == 0 ? Level::kError : Level::kUnknown;
      n = std::snprintf(buf, sizeof buf, "  File \"/opt/app/%s\", line %d, in %s_%s",
                        kModules[rng.Below(8)], static_cast<int>(rng.Below(2000)),
                        kWords[rng.Below(17)], kWords[rng.Below(17)]);
      break;
    }
  }
  out.append(buf, static_cast<size_t>(n));
  return msg;
}

double Seconds(const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; }

// A field of /proc/self/status ("VmHWM:", "VmRSS:"), in MB.
double ProcStatusMb(const char* field) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  double kb = -1;
  const size_t n = std::strlen(field);
  while (std::fgets(line, sizeof line, f)) {
    if (!std::strncmp(line, field, n)) kb = std::atof(line + n);
  }
  std::fclose(f);
  return kb / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  double target_mb = 1024;
  double file_mb = 4;
  std::string out = "/tmp/casefile-bench.db";
  std::string dump;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--mb"))
      target_mb = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--out"))
      out = argv[i + 1];
    else if (!std::strcmp(argv[i], "--file-mb"))
      file_mb = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--dump"))
      dump = argv[i + 1];
  }

  // The pool: 64 MiB of lines.
  Rng rng;
  std::string pool_text;
  std::vector<PoolLine> pool;
  pool_text.reserve(70u << 20);
  Writer writer;
  while (pool_text.size() < (64u << 20)) {
    if (pool.size() % 20000 == 0) {  // another process's stretch of log
      writer.node = static_cast<int>(rng.Below(32));
      writer.pid = 1000 + static_cast<int>(rng.Below(60000));
      writer.rank = static_cast<int>(rng.Below(256));
      writer.thread = 1000 + static_cast<int>(rng.Below(60000));
    }
    PoolLine p;
    p.text_off = static_cast<uint32_t>(pool_text.size());
    p.msg_start = MakeLine(rng, writer, pool_text, p.level, p.ts);
    p.text_len = static_cast<uint32_t>(pool_text.size() - p.text_off);
    pool.push_back(p);
  }
  if (!dump.empty()) {
    FILE* f = std::fopen(dump.c_str(), "wb");
    if (!f) return 1;
    for (const PoolLine& p : pool) {
      std::fwrite(pool_text.data() + p.text_off, 1, p.text_len, f);
      std::fputc('\n', f);
    }
    std::fclose(f);
  }
  rusage before{};
  getrusage(RUSAGE_SELF, &before);

  const uint64_t target = static_cast<uint64_t>(target_mb * 1e6);
  const uint64_t per_file = static_cast<uint64_t>(file_mb * 1e6);
  uint64_t bytes = 0, lines = 0;
  auto t0 = std::chrono::steady_clock::now();
  {
    casefile::IndexWriter w(out);
    casefile::BundleRow b;
    b.name = "bench";
    b.identity = "bench";
    int64_t bundle = w.AddBundle(b);
    size_t next = 0;
    const int64_t day = 1714521600000000;  // 2024-05-01T00:00:00Z
    int64_t cycle_us = 0;
    for (int file_no = 0; bytes < target; ++file_no) {
      casefile::FileRow f;
      f.bundle_id = bundle;
      f.path =
          "host-" + std::to_string(file_no % 256) + "/worker_" + std::to_string(file_no) + ".log";
      f.kind = "log";
      int64_t file_id = w.AddFile(f);
      std::string host = "host-" + std::to_string(file_no % 256);
      uint64_t offset = 0, file_bytes = 0;
      int64_t line_no = 0;
      while (file_bytes < per_file && bytes < target) {
        const PoolLine& p = pool[next];
        if (++next == pool.size()) {
          next = 0;
          cycle_us += writer.clock_us;  // time keeps moving forward
        }
        LineRecord l;
        l.file_id = file_id;
        l.line_no = ++line_no;
        l.offset = offset;
        l.text = std::string_view(pool_text.data() + p.text_off, p.text_len);
        l.msg_start = p.msg_start;
        l.level = p.level;
        if (p.ts >= 0) l.ts_us = day + cycle_us + p.ts;
        l.host = host;
        l.rank = file_no % 256;
        l.pid = 4000 + file_no % 256;
        w.AddLine(l);
        offset += p.text_len + 1;
        file_bytes += p.text_len + 1;
        bytes += p.text_len + 1;
        ++lines;
      }
      w.EndFileLines(file_id);
      f.id = file_id;
      f.line_count = line_no;
      f.size = static_cast<int64_t>(file_bytes);
      w.UpdateFile(f);
    }
    w.Commit();
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  rusage self{}, thread{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_THREAD, &thread);
  struct stat st {};
  stat(out.c_str(), &st);
  double cpu_all = Seconds(self.ru_utime) + Seconds(self.ru_stime) - Seconds(before.ru_utime) -
                   Seconds(before.ru_stime);
  // The main thread also built the pool before the clock started.
  double cpu_caller = Seconds(thread.ru_utime) + Seconds(thread.ru_stime) -
                      Seconds(before.ru_utime) - Seconds(before.ru_stime);
  std::printf("log text:      %.1f MB in %llu lines, %llu files of ~%.0f MB\n", bytes / 1e6,
              static_cast<unsigned long long>(lines),
              static_cast<unsigned long long>((bytes + per_file - 1) / per_file), file_mb);
  std::printf("time:          %.2f s\n", secs);
  std::printf("throughput:    %.1f MB/s, %.2f M lines/s\n", bytes / 1e6 / secs, lines / 1e6 / secs);
  std::printf("index size:    %.1f MB = %.1f%% of the text\n", st.st_size / 1e6,
              100.0 * st.st_size / bytes);
  std::printf("peak RSS:      %.1f MB (of which the 64 MiB line pool and its table: %.1f MB)\n",
              self.ru_maxrss / 1024.0, before.ru_maxrss / 1024.0);
  std::printf("CPU:           caller thread %.2f s, storage thread %.2f s\n", cpu_caller,
              cpu_all - cpu_caller);

  // Reading back: a full scan through the `lines` virtual table. Peak RSS is
  // reset first (Linux clear_refs) so the figure is the scan's own; where
  // the kernel refuses the reset, no figure is printed.
  bool hwm_reset = false;
  if (FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
    hwm_reset = std::fputs("5", f) >= 0;
    hwm_reset = std::fclose(f) == 0 && hwm_reset;
  }
  hwm_reset = hwm_reset && ProcStatusMb("VmHWM:") <= ProcStatusMb("VmRSS:") + 1;
  const double rss_before_queries = ProcStatusMb("VmRSS:");
  {
    auto reader = casefile::IndexReader::Open(out);
    for (const char* sql :
         {"SELECT count(*) FROM lines", "SELECT count(*) FROM lines WHERE text LIKE '%timeout%'"}) {
      std::string result;
      auto q0 = std::chrono::steady_clock::now();
      reader->Query(sql, [&](const casefile::QueryRow& row) {
        result = row.values[0].value_or("NULL");
        return true;
      });
      double qs = std::chrono::duration<double>(std::chrono::steady_clock::now() - q0).count();
      std::printf("query:         %s -> %s in %.2f s (%.1f MB/s of text)\n", sql, result.c_str(),
                  qs, bytes / 1e6 / qs);
    }
  }
  if (hwm_reset) {
    std::printf("peak RSS:      queries added %.1f MB\n",
                ProcStatusMb("VmHWM:") - rss_before_queries);
  }
  std::remove(out.c_str());
  return 0;
}
