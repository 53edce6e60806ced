#include "analyze/line_pass.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <span>
#include <thread>

#include "analyze/analyzer.h"
#include "common/error.h"

namespace casefile {

void RunLinePass(const std::vector<FileRow>& files, const std::vector<LineScan*>& scans,
                 const std::vector<const IndexReader*>& readers) {
  for (LineScan* s : scans) {
    s->consumers.clear();
    s->consumers.resize(files.size());
    s->error = nullptr;
  }
  if (scans.empty() || readers.empty()) return;
  std::mutex error_mu;  // guards LineScan::error and error_file
  // The file of each scan's error, so that the first in file order is kept
  // whichever thread met it first.
  std::vector<size_t> error_file(scans.size(), SIZE_MAX);
  auto record = [&](size_t k, size_t i, std::exception_ptr e) {
    const std::lock_guard<std::mutex> lock(error_mu);
    scans[k]->consumers[i].reset();  // half a file's lines are never merged
    if (i < error_file[k]) {
      error_file[k] = i;
      scans[k]->error = std::move(e);
    }
  };
  // The largest files first, whichever thread takes them: a bundle's one
  // big log then starts at once instead of last, when it would run alone
  // while the other threads had finished. Consumers still fill their file's
  // slot, so the result does not depend on the order.
  std::vector<size_t> order(files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return files[a].size > files[b].size; });
  std::atomic<size_t> next{0};
  auto work = [&](const IndexReader& reader) {
    std::vector<FileLineConsumer*> live;  // null once its scan failed on this file
    std::vector<size_t> which;            // the scan of each
    for (size_t taken = next++; taken < order.size(); taken = next++) {
      const size_t i = order[taken];
      const FileRow& file = files[i];
      live.clear();
      which.clear();
      for (size_t k = 0; k < scans.size(); ++k) {
        try {
          if (auto c = scans[k]->ForFile(file)) {
            live.push_back(c.get());
            which.push_back(k);
            scans[k]->consumers[i] = std::move(c);
          }
        } catch (...) {
          record(k, i, std::current_exception());
        }
      }
      if (live.empty()) continue;
      // A consumer that throws fails its own scan only; the lines still go
      // to the others.
      // `only`, when given, skips the consumers it holds 0 for.
      auto each = [&](auto&& call, const std::vector<char>* only = nullptr) {
        for (size_t c = 0; c < live.size(); ++c) {
          if (!live[c] || (only && !(*only)[c])) continue;
          try {
            call(*live[c]);
          } catch (...) {
            live[c] = nullptr;
            record(which[c], i, std::current_exception());
          }
        }
      };
      try {
        const std::vector<BlockInfo> blocks = reader.Blocks(file.id);
        each([&](FileLineConsumer& c) { c.Plan(blocks); });
        // Each block's lines go to the consumers that want it: the others
        // would find nothing in it (that is what their marks say), and the
        // rule automaton costs as much as decoding.
        std::vector<char> wants(live.size(), 0);
        size_t asked = 0;  // index in `blocks` of the block last asked about
        size_t from = 0;   // where the scan (re)starts
        auto wanted = [&](const BlockInfo& b) {
          asked = static_cast<size_t>(&b - blocks.data());
          bool any = false;
          for (size_t c = 0; c < live.size(); ++c) {
            wants[c] = 0;
            if (!live[c]) continue;
            try {
              wants[c] = live[c]->Wants(b);
            } catch (...) {
              live[c] = nullptr;
              record(which[c], i, std::current_exception());
            }
            any = any || wants[c];
          }
          return any;
        };
        auto line = [&](const LineRecord& rec) {
          each([&](FileLineConsumer& c) { c.Line(rec); }, &wants);
          return true;
        };
        while (from < blocks.size()) {
          asked = SIZE_MAX;
          try {
            reader.ScanBlocks(file.id, std::span(blocks).subspan(from), wanted, line);
            break;
          } catch (...) {
            // A block that cannot be read fails the scans that wanted it,
            // as each would have failed reading the file alone; the others
            // go on with the blocks after it. An error before any block
            // (the statement) is the file's.
            if (asked == SIZE_MAX) throw;
            for (size_t c = 0; c < live.size(); ++c) {
              if (!live[c] || !wants[c]) continue;
              live[c] = nullptr;
              record(which[c], i, std::current_exception());
            }
            from = asked + 1;
          }
        }
        each([](FileLineConsumer& c) { c.Finish(); });
        for (size_t c = 0; c < live.size(); ++c) {
          if (live[c] && live[c]->Empty()) scans[which[c]]->consumers[i].reset();
        }
      } catch (...) {
        // The file's blocks could not be listed: every scan still reading it
        // fails, as its analyzer would have failed reading the file alone.
        for (size_t c = 0; c < live.size(); ++c) {
          if (live[c]) record(which[c], i, std::current_exception());
        }
      }
    }
  };
  std::vector<std::thread> workers;
  for (size_t t = 1; t < readers.size(); ++t) workers.emplace_back(work, std::cref(*readers[t]));
  work(*readers[0]);
  for (std::thread& t : workers) t.join();
}

std::unique_ptr<LineScan> TakeFilledLineScan(AnalysisContext& ctx, const Analyzer& analyzer) {
  std::unique_ptr<LineScan> scan = ctx.TakeLineScan();
  if (!scan) {
    scan = analyzer.MakeLineScan(ctx);
    if (!scan) {
      throw Error(ErrorCode::kInternal,
                  "analyzer '" + analyzer.info().name + "' reads lines but made no line scan");
    }
    RunLinePass(ctx.files(), {scan.get()}, {&ctx.index()});
  }
  if (scan->error) std::rethrow_exception(scan->error);
  return scan;
}

}  // namespace casefile
