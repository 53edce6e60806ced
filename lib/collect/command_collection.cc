#include "collect/command_collection.h"

#include <chrono>
#include <mutex>
#include <thread>

#include "collect/command_runner.h"
#include "common/error.h"

namespace casefile::collect {
namespace {

struct Slot {
  std::vector<CommandRecord> records;
  std::optional<CommandOutput> output;
  std::vector<CollectError> errors;
};

CommandRecord ToRecord(const std::string& name, const CommandOutcome& o, uint32_t timeout_ms) {
  CommandRecord r;
  r.name = name;
  r.argv = o.argv;
  r.exit_status = o.exit_status;
  r.signal = o.signal;
  r.duration_ms = o.duration_ms;
  r.timed_out = o.timed_out;
  r.output_truncated = o.out_truncated || o.err_truncated;
  if (!o.started) {
    r.error = o.start_error;
  } else if (o.timed_out) {
    r.error = "timed out after " + std::to_string(timeout_ms) + " ms; killed";
  } else if (o.cancelled) {
    r.error = "cancelled";
  }
  return r;
}

void RunOne(const CommandSpec& spec, size_t index, uint32_t default_timeout_ms,
            const std::atomic<bool>& cancel, Slot& slot) {
  RunOptions options;
  options.timeout_ms = spec.timeout_ms != 0 ? spec.timeout_ms : default_timeout_ms;
  options.cancel = &cancel;
  const std::string source = "command:" + spec.name;

  CommandOutcome first = RunCommand(spec.argv, options);
  slot.records.push_back(ToRecord(spec.name, first, options.timeout_ms));
  const CommandOutcome* used = first.started ? &first : nullptr;
  std::optional<CommandOutcome> second;
  // A timeout is not retried with the fallback: whatever hung (a wedged GPU
  // driver) would most likely hang it too.
  if (!first.succeeded() && !first.timed_out && !first.cancelled && !spec.fallback_argv.empty()) {
    second = RunCommand(spec.fallback_argv, options);
    slot.records.push_back(ToRecord(spec.name, *second, options.timeout_ms));
    if (second->started) used = &*second;
  }
  for (const CommandOutcome* o : {&first, second ? &*second : nullptr}) {
    if (o == nullptr) continue;
    if (o->timed_out) {
      slot.errors.push_back({source, "'" + o->argv[0] + "' timed out after " +
                                         std::to_string(options.timeout_ms) +
                                         " ms and was killed; its output so far is packed"});
    }
    if (o->out_truncated || o->err_truncated) {
      slot.errors.push_back({source, "'" + o->argv[0] + "' wrote more than " +
                                         std::to_string(kMaxCommandOutputBytes) +
                                         " bytes; only the first are packed"});
    }
  }
  if (used != nullptr) {
    CommandOutput out;
    out.spec_index = index;
    out.record_index = used == &first ? 0 : 1;  // relative to this command's records
    out.out = used->out;
    out.err = used->err;
    slot.output = std::move(out);
  }
}

}  // namespace

CommandRun RunCommandTable(const std::vector<CommandSpec>& table, uint32_t default_timeout_ms,
                           const CommandProgressFn& progress) {
  std::vector<Slot> slots(table.size());
  std::atomic<bool> cancel{false};
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::mutex failure_mutex;
  std::exception_ptr failure;

  auto worker = [&]() {
    while (true) {
      size_t i = next.fetch_add(1);
      if (i >= table.size() || cancel.load()) return;
      try {
        RunOne(table[i], i, default_timeout_ms, cancel, slots[i]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        cancel = true;
      }
      done.fetch_add(1);
    }
  };
  unsigned n =
      table.size() < kParallelCommands ? static_cast<unsigned>(table.size()) : kParallelCommands;
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < n; ++t) threads.emplace_back(worker);

  // Progress is reported from this thread only: a C callback must not be
  // called from threads the caller never made.
  size_t reported = 0;
  bool aborted = false;
  while (true) {
    size_t d = done.load();
    if (d != reported) {
      reported = d;
      const std::string& name = table[d < table.size() ? d : table.size() - 1].name;
      if (progress && !progress(d, table.size(), name)) {
        aborted = true;
        cancel = true;
      }
    }
    if (d >= table.size() || cancel.load()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  if (aborted) throw Error(ErrorCode::kAborted, "the progress callback asked to stop");

  CommandRun run;
  for (size_t i = 0; i < slots.size(); ++i) {
    Slot& s = slots[i];
    size_t base = run.records.size();
    for (auto& r : s.records) run.records.push_back(std::move(r));
    for (auto& e : s.errors) run.errors.push_back(std::move(e));
    if (s.output) {
      s.output->record_index += base;
      run.outputs.push_back(std::move(*s.output));
    }
  }
  return run;
}

}  // namespace casefile::collect
