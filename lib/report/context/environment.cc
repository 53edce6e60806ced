// The environment maintainers ask for in bug reports, beyond versions: the
// job's command line and the DeepSpeed config.
#include <algorithm>
#include <set>
#include <string_view>

#include "parse/classify/classify.h"
#include "report/context/context_parts.h"

namespace casefile::context {
namespace {

constexpr size_t kCommandLineBytes = 4096;

// Keys only a DeepSpeed config has at its top level.
bool IsDeepSpeedKey(std::string_view key) {
  static constexpr std::string_view kKeys[] = {"train_batch_size",
                                               "train_micro_batch_size_per_gpu",
                                               "gradient_accumulation_steps",
                                               "zero_optimization",
                                               "gradient_clipping",
                                               "fp16",
                                               "bf16",
                                               "steps_per_print",
                                               "wall_clock_breakdown",
                                               "zero_allow_untested_optimizer"};
  const std::string_view top = key.substr(0, key.find('.'));
  return std::find(std::begin(kKeys), std::end(kKeys), top) != std::end(kKeys);
}

}  // namespace

ReportEnvironment LoadEnvironment(const IndexFacts& facts) {
  ReportEnvironment env;
  // Command line: the first such file with stored lines, by host then path.
  std::vector<const FileRow*> cmdlines;
  for (const FileRow& f : facts.files) {
    if (f.entry_type == "file" && f.line_count > 0 && IsCommandLineFile(f.path))
      cmdlines.push_back(&f);
  }
  std::stable_sort(cmdlines.begin(), cmdlines.end(), [&](const FileRow* a, const FileRow* b) {
    return std::make_pair(facts.HostOf(*a), a->path) < std::make_pair(facts.HostOf(*b), b->path);
  });
  if (!cmdlines.empty()) {
    const FileRow* f = cmdlines.front();
    std::string text;
    for (int64_t line = 1; line <= f->line_count && text.size() < kCommandLineBytes; ++line) {
      auto t = facts.index->LineText(f->id, line);
      if (!t || t->empty()) continue;
      if (!text.empty()) text += ' ';
      // /proc/<pid>/cmdline separates arguments with NUL bytes.
      for (char c : *t) text += c == '\0' ? ' ' : c;
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    if (text.size() > kCommandLineBytes) text.resize(kCommandLineBytes);
    if (!text.empty()) {
      env.command_line = text;
      env.command_line_path = f->path;
    }
  }

  // DeepSpeed config: the config file with the most DeepSpeed keys (at
  // least two), first by id when several tie (hosts share one config).
  std::map<int64_t, int64_t> ds_keys;
  facts.index->Query("SELECT file_id, key FROM configs ORDER BY file_id", [&](const QueryRow& row) {
    if (IsDeepSpeedKey(CellText(row, 1))) ++ds_keys[CellInt(row, 0)];
    return true;
  });
  int64_t best = 0, best_count = 1;
  for (const auto& [file_id, n] : ds_keys) {
    if (n > best_count) {
      best = file_id;
      best_count = n;
    }
  }
  if (best != 0) {
    const FileRow* f = facts.File(best);
    env.deepspeed_config_path = f != nullptr ? f->path : "";
    facts.index->Query("SELECT key, value FROM configs WHERE file_id = " + std::to_string(best) +
                           " ORDER BY line_no, key",
                       [&](const QueryRow& row) {
                         ++env.deepspeed_config_keys;
                         if (env.deepspeed_config.size() < kContextConfigKeys) {
                           env.deepspeed_config.push_back({CellText(row, 0), CellText(row, 1)});
                         }
                         return true;
                       });
  }
  return env;
}

}  // namespace casefile::context
