#include "parse/trace/trace_reader.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "parse/trace/trace_event_parser.h"

namespace casefile {
namespace {

// "{ }" with only whitespace inside: TSL's end-of-array marker.
bool IsEmptyObject(std::string_view object) {
  for (size_t i = 1; i + 1 < object.size(); ++i) {
    char c = object[i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return object.size() >= 2 && object.front() == '{' && object.back() == '}';
}

bool IsEmptyArgs(std::string_view args) { return args.empty() || IsEmptyObject(args); }

// B's args with E's members appended (the Trace Event Format merges them).
std::string MergeArgs(const std::string& begin, const std::string& end) {
  if (IsEmptyArgs(end)) return begin;
  if (IsEmptyArgs(begin)) return end;
  if (begin.back() != '}' || end.front() != '{') return begin;
  std::string merged = begin.substr(0, begin.size() - 1);
  merged.push_back(',');
  merged.append(end, 1, std::string::npos);
  return merged;
}

}  // namespace

TraceReader::TraceReader(uint32_t max_event_bytes, Callbacks cb)
    : cb_(std::move(cb)),
      tokenizer_(max_event_bytes,
                 TraceTokenizer::Callbacks{
                     [this](std::string_view object, uint64_t offset) { OnObject(object, offset); },
                     [this](uint64_t offset, std::string kind, std::string message) {
                       Issue(offset, std::move(kind), std::move(message));
                     }}),
      parser_(std::make_unique<trace_internal::TraceEventParser>()),
      fields_(std::make_unique<trace_internal::TraceEventFields>()) {}

TraceReader::~TraceReader() = default;

void TraceReader::Feed(std::string_view chunk) {
  if (finished_) throw Error(ErrorCode::kMisuse, "TraceReader::Feed called after Finish");
  chunk_ = chunk;
  chunk_start_ = fed_;
  counted_ = fed_;
  tokenizer_.Feed(chunk);
  // The rest of the chunk, so the next one starts with the right count.
  CountLinesTo(fed_ + chunk.size());
  fed_ += chunk.size();
  chunk_ = {};
}

void TraceReader::CountLinesTo(uint64_t end) {
  if (end <= counted_ || counted_ < chunk_start_) return;
  const char* p = chunk_.data() + (counted_ - chunk_start_);
  const char* stop = chunk_.data() + std::min<uint64_t>(end - chunk_start_, chunk_.size());
  while (p < stop) {
    p = static_cast<const char*>(std::memchr(p, '\n', stop - p));
    if (p == nullptr) break;
    ++lines_;
    ++p;
  }
  counted_ = end;
}

int64_t TraceReader::LineOf(std::string_view object, uint64_t offset) {
  // The object ends in the chunk being fed (the tokenizer hands it over when
  // its last byte arrives): count up to its end, then step back over the
  // newlines inside it.
  CountLinesTo(offset + object.size());
  int64_t inside = 0;
  for (const char *p = object.data(), *stop = object.data() + object.size(); p < stop; ++p) {
    p = static_cast<const char*>(std::memchr(p, '\n', stop - p));
    if (p == nullptr) break;
    ++inside;
  }
  return static_cast<int64_t>(lines_) - inside + 1;
}

void TraceReader::Issue(uint64_t offset, std::string kind, std::string message) {
  uint64_t& count = issue_counts_[kind];
  if (++count > kMaxIssuesPerKind) return;
  if (cb_.on_issue) cb_.on_issue(offset, std::move(kind), std::move(message));
}

TraceEventRow TraceReader::MakeRow(trace_internal::TraceEventFields& f) const {
  TraceEventRow row;
  row.pid = std::move(f.pid);
  row.tid = std::move(f.tid);
  row.name = std::move(f.name);
  row.category = std::move(f.cat);
  row.phase = std::move(f.ph);
  row.ts_us = f.ts.value_or(0);
  row.dur_us = f.dur;
  row.args_json = std::move(f.args);
  auto process = process_names_.find(row.pid);
  if (process != process_names_.end()) row.process_name = process->second;
  auto thread = thread_names_.find({row.pid, row.tid});
  if (thread != thread_names_.end()) row.thread_name = thread->second;
  return row;
}

void TraceReader::Emit(TraceEventRow&& row) {
  ++emitted_;
  if (cb_.on_event) cb_.on_event(std::move(row));
}

void TraceReader::OnObject(std::string_view object, uint64_t offset) {
  if (IsEmptyObject(object)) return;
  trace_internal::TraceEventFields& f = *fields_;
  std::string error = parser_->Parse(object, f);
  if (!error.empty()) {
    Issue(offset, "trace_event_invalid", "invalid trace event: " + error + "; skipped");
    return;
  }
  if (f.ph == "M") {
    Metadata(f);
    return;
  }
  const int64_t line_no = LineOf(object, offset);
  if (f.ph == "E") {
    End(f, offset);
    return;
  }
  const bool begin = f.ph == "B";  // before MakeRow, which moves f.ph into the row
  TraceEventRow row = MakeRow(f);
  row.offset = offset;
  row.line_no = line_no;
  if (begin) {
    Begin(std::move(row), offset);  // its object is gone by its E: raw stays empty
  } else {
    row.raw = object;
    Emit(std::move(row));
  }
}

void TraceReader::Metadata(const trace_internal::TraceEventFields& f) {
  if (f.name != "process_name" && f.name != "thread_name") return;
  std::optional<std::string> name = parser_->ArgsName(f.args);
  if (!name) return;
  if (f.name == "process_name") {
    if (process_names_.size() < kMaxNames || process_names_.count(f.pid)) {
      process_names_[f.pid] = std::move(*name);
    }
  } else if (thread_names_.size() < kMaxNames || thread_names_.count({f.pid, f.tid})) {
    thread_names_[{f.pid, f.tid}] = std::move(*name);
  }
}

void TraceReader::Begin(TraceEventRow&& row, uint64_t offset) {
  OpenStack& stack = open_[{row.pid, row.tid}];
  if (stack.rows.size() >= kMaxOpenPerThread || open_total_ >= kMaxOpenTotal) {
    Issue(offset, "trace_nesting_too_deep",
          "too many open B events (pid " + row.pid + ", tid " + row.tid +
              "); this one is kept without a duration");
    ++stack.overflow;
    Emit(std::move(row));
    return;
  }
  stack.rows.push_back(std::move(row));
  ++open_total_;
}

void TraceReader::End(trace_internal::TraceEventFields& f, uint64_t offset) {
  auto it = open_.find({f.pid, f.tid});
  if (it == open_.end() || (it->second.rows.empty() && it->second.overflow == 0)) {
    Issue(offset, "trace_unmatched_end",
          "E event \"" + f.name + "\" (pid " + f.pid + ", tid " + f.tid +
              ") has no open B event; skipped");
    return;
  }
  OpenStack& stack = it->second;
  if (stack.overflow > 0) {
    --stack.overflow;
    return;
  }
  TraceEventRow row = std::move(stack.rows.back());
  stack.rows.pop_back();
  --open_total_;
  if (stack.rows.empty()) open_.erase(it);
  row.phase.assign(1, 'X');  // (operator= "X" trips a GCC 12 -Wrestrict false positive)
  if (f.ts) row.dur_us = *f.ts - row.ts_us;
  row.args_json = MergeArgs(row.args_json, f.args);
  Emit(std::move(row));
}

void TraceReader::Finish() {
  if (finished_) return;
  finished_ = true;
  tokenizer_.Finish();
  for (auto& [key, stack] : open_) {
    for (TraceEventRow& row : stack.rows) Emit(std::move(row));
  }
  open_.clear();
  open_total_ = 0;
  for (const auto& [kind, count] : issue_counts_) {
    if (count > kMaxIssuesPerKind && cb_.on_issue) {
      cb_.on_issue(tokenizer_.bytes(), kind,
                   std::to_string(count - kMaxIssuesPerKind) + " more " + kind +
                       " issues in this trace were not listed");
    }
  }
}

}  // namespace casefile
