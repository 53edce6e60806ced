// Fuzz target: a whole bundle through the engine, as `casefile analyze`
// runs it: the bytes are an archive (tar, .tar.gz, .tar.zst, zip) written
// to one file of a temp dir made once; a Session indexes it into that dir
// (reindexing every time, small limits), runs every analyzer and renders the
// JSON report. Only an input unreadable from its first byte may throw, and
// only Error(kUnsupported/kCorrupt); the report must be a JSON object and
// every evidence line a real line number. Slow per input by nature.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "common/error.h"
#include "engine/session.h"
#include "report/report.h"

namespace {

namespace fs = std::filesystem;

// The temp dir of the whole run; removed at exit.
struct TempDir {
  std::string path;
  TempDir() {
    char name[] = "/tmp/fuzz_ingest_XXXXXX";
    if (mkdtemp(name) == nullptr) std::abort();
    path = name;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

const TempDir& Dir() {
  static const TempDir dir;
  return dir;
}

void WriteFile(const std::string& path, const uint8_t* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  if (std::fclose(f) != 0) std::abort();
}

casefile::Limits SmallLimits() {
  casefile::Limits limits;
  limits.max_entry_bytes = 256 * 1024;
  limits.max_total_bytes = 1024 * 1024;
  limits.max_entries = 200;
  limits.max_line_bytes = 4096;
  limits.max_trace_event_bytes = 16 * 1024;
  limits.bomb_floor_bytes = 128 * 1024;
  return limits;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input = Dir().path + "/bundle";
  const std::string index = Dir().path + "/index.casefile.db";
  WriteFile(input, data, size);

  casefile::SessionOptions options;
  options.index_path = index;
  options.reindex = true;
  options.limits = SmallLimits();
  try {
    casefile::Session session({input}, options);
    session.Index(nullptr);
    const casefile::Report report = session.Analyze({}, false);
    for (const auto& f : report.findings) {
      if (f.code.empty()) std::abort();
      for (const auto& e : f.evidence) {
        if (e.line < 0) std::abort();
      }
    }
    const std::string json = casefile::RenderJson(report);
    if (json.empty() || json.front() != '{') std::abort();
  } catch (const casefile::Error& e) {
    if (e.code() != casefile::ErrorCode::kUnsupported &&
        e.code() != casefile::ErrorCode::kCorrupt) {
      std::fprintf(stderr, "unexpected error %d: %s\n", static_cast<int>(e.code()), e.what());
      std::abort();
    }
  }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(Dir().path, ec)) {
    if (entry.path() != input) fs::remove_all(entry.path(), ec);
  }
  return 0;
}
