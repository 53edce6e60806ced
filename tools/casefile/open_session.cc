#include "open_session.h"

#include <cstdint>
#include <cstdio>
#include <exception>

#include "exit_codes.h"
#include "output.h"
#include "progress.h"

namespace casefile_cli {
namespace {

struct QueryState {
  const RowCallback* on_row;
  std::exception_ptr error;
  bool stopped = false;
};

// The library's guard would turn an exception thrown through it into an
// internal error, so the trampoline catches everything and rethrows after.
int OnRow(size_t count, const char* const* names, const char* const* values, void* payload) {
  auto* state = static_cast<QueryState*>(payload);
  if (Interrupted()) return 1;
  try {
    if (!(*state->on_row)(count, names, values)) {
      state->stopped = true;
      return 1;
    }
    return 0;
  } catch (...) {
    state->error = std::current_exception();
    return 1;
  }
}

}  // namespace

IndexedSession OpenAndIndex(const std::vector<std::string>& inputs, const Args& args) {
  return OpenAndIndex(inputs, args, IndexPlace{args.Value("index"), std::nullopt});
}

void WarnPartial(casefile_session* session) {
  Query(session, "SELECT name, error, status FROM bundles WHERE status <> 'complete' ORDER BY id",
        [](size_t count, const char* const*, const char* const* values) {
          if (count >= 3) {
            const bool unreadable = values[2] && std::string_view(values[2]) == "unreadable";
            std::fprintf(stderr, "casefile: warning: %s %s: %s\n",
                         TerminalSafe(values[0] ? values[0] : "?").c_str(),
                         unreadable ? "could not be read at all" : "was read only in part",
                         TerminalSafe(values[1] ? values[1] : "").c_str());
          }
          return true;
        });
}

SessionPtr OpenSession(const std::vector<std::string>& inputs, const Args& args,
                       const IndexPlace& place) {
  std::vector<const char*> paths;
  for (const auto& in : inputs) paths.push_back(in.c_str());
  casefile_open_options opts = CASEFILE_OPEN_OPTIONS_INIT;
  opts.index_path = place.path ? place.path->c_str() : nullptr;
  opts.index_dir = place.dir ? place.dir->c_str() : nullptr;
  opts.reindex = args.Has("reindex") ? 1 : 0;
  // Absent flags stay 0, which the library reads as its default.
  opts.max_entry_bytes = args.Size("max-entry-bytes", 0, UINT64_MAX);
  opts.max_total_bytes = args.Size("max-total-bytes", 0, UINT64_MAX);
  opts.max_entries = args.Size("max-entries", 0, UINT64_MAX);
  opts.max_line_bytes = static_cast<uint32_t>(args.Size("max-line-bytes", 0, UINT32_MAX));

  casefile_session* raw = nullptr;
  casefile_error* err = nullptr;
  Check(casefile_session_open(&raw, paths.data(), paths.size(), &opts, &err), err);
  return SessionPtr(raw);
}

IndexedSession OpenAndIndex(const std::vector<std::string>& inputs, const Args& args,
                            const IndexPlace& place) {
  IndexedSession out;
  out.session = OpenSession(inputs, args, place);
  casefile_error* err = nullptr;

  casefile_status status;
  {
    ProgressDisplay progress;
    err = nullptr;
    status = casefile_session_index(out.session.get(), ProgressDisplay::Callback, &progress, &err);
  }
  Check(status, err);
  out.partial = status == CASEFILE_PARTIAL;
  out.reused = casefile_session_index_reused(out.session.get()) == 1;
  if (out.partial) WarnPartial(out.session.get());
  return out;
}

void Query(casefile_session* session, const std::string& sql, const RowCallback& on_row,
           const casefile_query_options* limits) {
  QueryState state{&on_row, nullptr};
  casefile_error* err = nullptr;
  casefile_status status =
      casefile_session_query_ex(session, sql.c_str(), limits, OnRow, &state, &err);
  if (state.error) {
    casefile_error_free(err);
    std::rethrow_exception(state.error);
  }
  if (status == CASEFILE_E_ABORTED && state.stopped) {
    casefile_error_free(err);
    return;
  }
  if (status == CASEFILE_E_READ_ONLY) {
    // The library's message already names what was refused ("query refused:
    // DELETE from files; the index is read-only, ..."); it is completed only
    // where it lacks a part, never prefixed a second time.
    std::string message = CleanMessage(casefile_error_message(err));
    casefile_error_free(err);
    if (message.empty()) message = "a statement that writes";
    if (message.compare(0, 14, "query refused:") != 0) message = "query refused: " + message;
    if (message.find("read-only") == std::string::npos) message += " (the index is read-only)";
    throw CliError(kExitUsage, message);
  }
  Check(status, err);
}

std::string SqlQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
  return out;
}

}  // namespace casefile_cli
