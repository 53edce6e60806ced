// Mutated and randomly chunked traces: whatever the bytes, the reader never
// throws, reports only its documented issue kinds at offsets inside the
// input, and emits rows only for events it could parse. A fixed seed keeps
// the run deterministic, so it works as a plain regression test.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "parse/trace/trace_reader.h"

namespace casefile {
namespace {

constexpr std::string_view kSeedTrace = R"j({"schemaVersion": 1, "deviceProperties": [{"id": 0}],
"traceEvents": [
{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "GPU 0"}},
{"ph": "X", "cat": "kernel", "name": "k\"1", "pid": 1, "tid": 7, "ts": 1.5, "dur": 2.000, "args": {"a": [1, {"b": "]"}]}},
{"ph": "B", "name": "outer", "pid": "p", "tid": "t", "ts": "3.000"},
{"ph": "E", "pid": "p", "tid": "t", "ts": 4},
{"ph": "i", "s": "g", "name": "end", "pid": "", "tid": "", "ts": 5},
{}],
"distributedInfo": {"ranks": "[0, 1]"}})j";

TEST(TraceMutationTest, MutatedInputsKeepTheContract) {
  const std::set<std::string> kKinds = {
      "trace_event_invalid",    "trace_event_too_large", "trace_unmatched_end",
      "trace_nesting_too_deep", "trace_truncated",       "trace_syntax",
      "trace_no_events",        "trace_empty",           "trace_trailing_data"};
  static constexpr char kBytes[] = "{}[]\",:\\ \n0aXBE\x00\xff";
  const std::string bytes(kBytes, sizeof(kBytes) - 1);
  std::mt19937 rng(20240601);
  for (int round = 0; round < 3000; ++round) {
    std::string text(kSeedTrace);
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      size_t pos = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[pos] = bytes[rng() % bytes.size()];
          break;
        case 1:
          text.erase(pos, 1 + rng() % 8);
          break;
        default:
          text.insert(pos, 1, bytes[rng() % bytes.size()]);
          break;
      }
    }
    size_t rows = 0;
    bool bad_issue = false;
    TraceReader reader(64, {[&](TraceEventRow&& row) {
                              ++rows;
                              if (row.phase.empty()) bad_issue = true;
                            },
                            [&](uint64_t offset, std::string kind, std::string) {
                              if (!kKinds.count(kind) || offset > text.size()) bad_issue = true;
                            }});
    ASSERT_NO_THROW({
      size_t pos = 0;
      while (pos < text.size()) {
        size_t n = 1 + rng() % 40;
        reader.Feed(std::string_view(text).substr(pos, n));
        pos += n;
      }
      reader.Finish();
    }) << "round "
       << round;
    ASSERT_FALSE(bad_issue) << "round " << round << ": " << text;
    ASSERT_LE(rows, 5u) << "round " << round;
  }
}

}  // namespace
}  // namespace casefile
