// Throughput of the line layer on one core: split a generated buffer into
// lines, check each for ANSI escapes (stripping them when present), parse the
// wrapper prefix, and, separately, validate UTF-8. Not a test: it prints
// MB/s. Until it is wired into CMake, build it by hand from the repo root:
//   g++ -O2 -std=c++20 -Ilib -Iinclude tests/parse/line_bench.cpp lib/parse/line/*.cc
//       -o /tmp/line_bench && /tmp/line_bench [megabytes]
// The buffer mixes the line shapes of shared/reference/formats.md (torch,
// NCCL, Python logging, DeepSpeed, glog, tracebacks, a few coloured and
// progress-bar lines) in a fixed pseudo-random order, so runs are comparable.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "parse/line/ansi.h"
#include "parse/line/line_prefix.h"
#include "parse/line/line_splitter.h"
#include "parse/line/utf8.h"

namespace {

using casefile::LineSplitter;
using casefile::RawLine;

std::string MakeBuffer(size_t bytes) {
  const std::vector<std::string> shapes = {
      "[rank3]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [PG ID 0 PG GUID 0(default_pg) "
      "Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
      "OpType=BROADCAST, NumelIn=131072000, NumelOut=131072000, Timeout(ms)=600000) ran for "
      "600081 milliseconds before timing out.",
      "gpu-node-07:2017630:2017671 [2] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read",
      "gpu-node-07:2017630:2017671 [2] NCCL INFO comm 0x8ec0ac0 rank 6 nRanks 16 nNodes 2 "
      "localRanks 8 localRank 6 MNNVL 0",
      "2026-11-29 09:21:26,123 - transformers.trainer - INFO - {'loss': 0.1234, 'grad_norm': "
      "1.5078125, 'learning_rate': 1.9e-05, 'epoch': 0.52}",
      "[2025-12-18 20:27:22,783] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 748089",
      "  File \"/usr/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 1501, in "
      "_call_impl",
      "    return forward_call(*args, **kwargs)",
      "I1129 09:21:26.123456  1234 gpu_compiler.cc:1234] Compiled module jit_train_step in 12.3s",
      "[default0]:[titan] 2026-11-29 09:21:26,123 - root - INFO - step:  100  loss:  7.1234  "
      "memory: 61.23GiB(77.45%)  tps: 1,234  mfu: 41.23%",
      "1: [rank1]: Traceback (most recent call last):",
      "\x1b[36m(RayWorkerWrapper pid=3490362)\x1b[0m INFO 10-18 09:59:56 worker.py:7] ready",
      "[36m(WorkerDict pid=12, ip=10.0.0.1)[0m step 10 reward 0.5",
      "Map:  50%|#####     | 5000/10000 [00:32<00:32, 155.57 examples/s]\rMap: 100%|##########| "
      "10000/10000 [00:64<00:00, 155.57 examples/s]",
      "May 15 23:09:30 host-3 kernel: [  518.050606] Out of memory: Killed process 1440763 "
      "(python) total-vm:87033376kB, anon-rss:60356340kB, file-rss:0kB, shmem-rss:0kB",
      "[2025-03-12 10:11:12] gpu-node-07:2017630:2017671 [2] misc/ibvwrap.cc:187 NCCL WARN Call "
      "to ibv_modify_qp failed with error Network is unreachable",
      "Epoch 3/10: train loss 2.3456, val loss 2.4567, lr 3.0e-4, throughput 1234.5 samples/s",
  };
  // Plain lines and tracebacks dominate real logs; weight them up.
  const std::vector<int> weights = {4, 6, 6, 8, 2, 6, 6, 4, 8, 2, 1, 1, 1, 1, 1, 8};
  std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
  std::mt19937 rng(42);
  std::string buf;
  buf.reserve(bytes + 512);
  while (buf.size() < bytes) {
    buf += shapes[pick(rng)];
    buf += '\n';
  }
  return buf;
}

struct Totals {
  uint64_t lines = 0;
  uint64_t ansi = 0;
  uint64_t msg_bytes = 0;
  uint64_t invalid_utf8 = 0;
};

// The reference measured beside casefile in the same run (the machines are
// noisy: only same-run ratios mean anything): count newlines with memchr,
// what `wc -l` does.
double TimeNewlineCount(const std::string& buf, uint64_t* count) {
  const auto start = std::chrono::steady_clock::now();
  uint64_t n = 0;
  const char* p = buf.data();
  const char* const end = p + buf.size();
  while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p))))) {
    ++n;
    ++p;
  }
  *count = n;
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  return static_cast<double>(buf.size()) / 1e6 / took.count();
}

template <typename PerLine>
double TimeSplit(const std::string& buf, PerLine per_line) {
  constexpr size_t kChunk = 1 << 20;
  const auto start = std::chrono::steady_clock::now();
  LineSplitter splitter(64 * 1024, per_line);
  for (size_t i = 0; i < buf.size(); i += kChunk) {
    splitter.Feed(std::string_view(buf).substr(i, kChunk));
  }
  splitter.Finish();
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  return static_cast<double>(buf.size()) / 1e6 / took.count();
}

void Report(const char* what, std::vector<double> mbps) {
  std::sort(mbps.begin(), mbps.end());
  std::printf("%-36s min %7.0f MB/s  median %7.0f MB/s  max %7.0f MB/s\n", what, mbps.front(),
              mbps[mbps.size() / 2], mbps.back());
}

}  // namespace

int main(int argc, char** argv) {
  const size_t megabytes = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  const std::string buf = MakeBuffer(megabytes << 20);
  const casefile::TimeContext ctx{2025};
  constexpr int kRuns = 5;
  std::vector<double> reference, split, full, utf8;
  uint64_t newlines = 0;
  Totals totals;
  std::string scratch;
  for (int run = 0; run < kRuns; ++run) {
    Totals t;
    reference.push_back(TimeNewlineCount(buf, &newlines));
    split.push_back(TimeSplit(buf, [&](const RawLine& l) { t.msg_bytes += l.text.size(); }));
    t = {};
    full.push_back(TimeSplit(buf, [&](const RawLine& l) {
      std::string_view text = l.text;
      if (casefile::StripAnsi(text, scratch)) {
        text = scratch;
        ++t.ansi;
      }
      const casefile::LinePrefix p = casefile::ParseLinePrefix(text, ctx);
      t.msg_bytes += text.size() - p.msg_start;
      ++t.lines;
    }));
    totals = t;
    utf8.push_back(TimeSplit(
        buf, [&](const RawLine& l) { t.invalid_utf8 += casefile::IsValidUtf8(l.text) ? 0 : 1; }));
  }
  std::printf("buffer %zu MB, %llu lines (%.0f bytes/line), %llu with ANSI, %d runs\n",
              buf.size() >> 20, static_cast<unsigned long long>(totals.lines),
              static_cast<double>(buf.size()) / static_cast<double>(totals.lines),
              static_cast<unsigned long long>(totals.ansi), kRuns);
  Report("reference: memchr newline count", reference);
  Report("split only", split);
  Report("split + ANSI check + prefix parse", full);
  Report("split + UTF-8 check", utf8);
  std::sort(reference.begin(), reference.end());
  std::sort(full.begin(), full.end());
  std::printf("split + ANSI + prefix / reference: median %.3f\n",
              full[full.size() / 2] / reference[reference.size() / 2]);
  // Printed so the work cannot be optimised away.
  std::printf("message bytes %llu, newlines %llu\n",
              static_cast<unsigned long long>(totals.msg_bytes),
              static_cast<unsigned long long>(newlines));
  return 0;
}
