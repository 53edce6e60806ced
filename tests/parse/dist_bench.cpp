// Cost per line of the distributed-run families (parse/dist/) on one core:
// the shared anchor scan alone, each family given the anchors of its lines,
// and DistExtractor as ingest runs it. Not a test: it prints ns/line.
//   dist_bench [log file]
// Without a file it generates the frequent line shapes of training logs
// (glog messages, NCCL INFO lines, [rankN]: torch lines, step/loss lines)
// with random words, plus a rare family line, in a fixed pseudo-random
// order so that runs are comparable.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "parse/dist/dist_extractor.h"
#include "parse/dist/dist_family.h"
#include "parse/dist/dist_prefilter.h"
#include "parse/line/line_prefix.h"

namespace {

using namespace casefile;
using Clock = std::chrono::steady_clock;

std::string MakeLog(size_t lines) {
  const char* words[] = {"cache",     "backward",  "host",     "compile", "layer",
                         "optimizer", "stream",    "gradient", "device",  "all-reduce",
                         "fusion",    "bucket",    "shard",    "miss",    "hit",
                         "tensor",    "attention", "forward",  "step",    "checkpoint"};
  std::mt19937 rng(5);
  std::string log;
  for (size_t i = 0; i < lines; ++i) {
    char head[160];
    switch (rng() % 4) {
      case 0:
        std::snprintf(head, sizeof(head), "I1129 09:21:%02zu.547340  4042 runtime.cc:%u]", i % 60,
                      static_cast<unsigned>(rng() % 999));
        break;
      case 1:
        std::snprintf(head, sizeof(head),
                      "node-042:200042:200142 [1] NCCL INFO Channel %02u/0 : %u[7] -> %u[0] via "
                      "NET/IB/1/GDRDMA",
                      static_cast<unsigned>(rng() % 32), static_cast<unsigned>(rng() % 512),
                      static_cast<unsigned>(rng() % 512));
        break;
      case 2:
        std::snprintf(head, sizeof(head),
                      "[rank%u]:[I1129 09:21:00.584101123 ProcessGroupNCCL.cpp:%u]",
                      static_cast<unsigned>(rng() % 512), static_cast<unsigned>(rng() % 3000));
        break;
      default:
        std::snprintf(head, sizeof(head),
                      "2026-11-29 09:21:00,555 - train - INFO - step %zu loss=2.5000 "
                      "grad_norm=2.021 lr=3.0e-4",
                      i);
        break;
    }
    log += head;
    for (unsigned w = 0, n = 3 + rng() % 10; w < n; ++w) {
      log += ' ';
      log += words[rng() % std::size(words)];
    }
    log += '\n';
    if (rng() % 5000 == 0)
      log += "Traceback (most recent call last):\n  File \"a.py\"\nKeyError: 1\n";
  }
  return log;
}

double NsPerLine(Clock::time_point a, Clock::time_point b, size_t lines) {
  return std::chrono::duration<double, std::nano>(b - a).count() / static_cast<double>(lines);
}

}  // namespace

int main(int argc, char** argv) {
  std::string log;
  if (argc > 1) {
    std::ifstream in(argv[1], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    log = ss.str();
  } else {
    log = MakeLog(1'000'000);
  }
  std::vector<LineRecord> recs;
  TimeContext tc;
  tc.default_year = 2026;
  for (size_t start = 0, end; (end = log.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string_view text = std::string_view(log).substr(start, end - start);
    const LinePrefix p = ParseLinePrefix(text, tc);
    LineRecord r;
    r.line_no = static_cast<int64_t>(recs.size()) + 1;
    r.text = text;
    r.msg_start = p.msg_start;
    r.rank = p.rank;
    r.host = p.host;
    r.ts_us = p.ts_us;
    recs.push_back(r);
  }
  if (recs.empty()) return 1;

  std::vector<uint32_t> anchors(recs.size());
  auto a = Clock::now();
  for (size_t i = 0; i < recs.size(); ++i) anchors[i] = dist::LineAnchors(recs[i]);
  auto b = Clock::now();
  double total = NsPerLine(a, b, recs.size());
  std::printf("%-10s %6.1f ns/line\n", "scan", total);

  using Make = std::unique_ptr<dist::DistFamily> (*)();
  const std::pair<const char*, Make> families[] = {{"torch", dist::MakeTorchWatchdogFamily},
                                                   {"crash", dist::MakeCrashFamily},
                                                   {"launcher", dist::MakeLauncherFamily},
                                                   {"jax", dist::MakeJaxCoordinationFamily},
                                                   {"progress", dist::MakeProgramProgressFamily},
                                                   {"step", dist::MakeStepTimeFamily},
                                                   {"rank_host", dist::MakeRankHostFamily},
                                                   {"build", dist::MakeBuildLinesFamily},
                                                   {"comm", dist::MakeCommLinesFamily}};
  for (const auto& [name, make] : families) {
    size_t rows = 0;
    dist::DistEmitter out(1, [&rows](const DistEventRow&) { ++rows; });
    auto family = make();
    a = Clock::now();
    for (size_t i = 0; i < recs.size(); ++i) family->AddLine(recs[i], anchors[i], out);
    family->Finish(out);
    b = Clock::now();
    total += NsPerLine(a, b, recs.size());
    std::printf("%-10s %6.1f ns/line  %zu rows\n", name, NsPerLine(a, b, recs.size()), rows);
  }
  std::printf("%-10s %6.1f ns/line\n", "sum", total);

  size_t rows = 0;
  dist::DistExtractor extractor(1, [&rows](const DistEventRow&) { ++rows; });
  a = Clock::now();
  for (const LineRecord& r : recs) extractor.AddLine(r);
  extractor.Finish();
  b = Clock::now();
  std::printf(
      "%-10s %6.1f ns/line  %zu rows, %zu lines, %.0f MB/s\n", "extractor",
      NsPerLine(a, b, recs.size()), rows, recs.size(),
      static_cast<double>(log.size()) / std::chrono::duration<double, std::micro>(b - a).count());
  return 0;
}
