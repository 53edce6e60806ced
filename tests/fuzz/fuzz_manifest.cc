// Fuzz target: the bundle manifest reader (ParseManifest, over the whole
// input) and file classification: ClassifyFile and the path attribution of
// a path taken from the first input line with the rest as content, and the
// whole input sniffed under a few fixed names of different kinds. The
// manifest either parses or throws Error(kCorrupt/kLimit); its paths come
// out normalised; every kind round-trips through its name.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/error.h"
#include "parse/classify/classify.h"
#include "parse/classify/manifest.h"
#include "parse/classify/path_attribution.h"

namespace {

void CheckManifest(std::string_view json) {
  try {
    const casefile::Manifest m = casefile::ParseManifest(json);
    for (const auto& [path, file] : m.files) {
      if (path.rfind("./", 0) == 0 || path.rfind('/', 0) == 0) std::abort();
      if (file.kind &&
          casefile::FileKindFromName(casefile::FileKindName(*file.kind)) != file.kind) {
        std::abort();
      }
    }
  } catch (const casefile::Error& e) {
    if (e.code() != casefile::ErrorCode::kCorrupt && e.code() != casefile::ErrorCode::kLimit) {
      std::abort();
    }
  }
}

void CheckKind(std::string_view path, std::string_view head) {
  const casefile::FileKind kind = casefile::ClassifyFile(path, head);
  if (casefile::FileKindFromName(casefile::FileKindName(kind)) != kind) std::abort();
  // Rule 1 decides on the path alone.
  if ((path == casefile::kManifestPath) != (kind == casefile::FileKind::kManifest)) std::abort();
}

void CheckAttribution(std::string_view path) {
  const casefile::PathAttribution a = casefile::AttributeFromPath(path);
  if (a.host && (a.host->empty() || a.host->size() > path.size())) std::abort();
  if (a.task && a.task->empty()) std::abort();
  // At most 9 digits.
  if (a.rank && (*a.rank < 0 || *a.rank > 999999999)) std::abort();
  (void)casefile::IsCommandLineFile(path);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  CheckManifest(input);

  const size_t nl = input.find('\n');
  const std::string_view path = input.substr(0, nl);
  const std::string_view head = nl == std::string_view::npos ? "" : input.substr(nl + 1);
  CheckKind(path, head);
  CheckAttribution(path);

  for (std::string_view name : {"casefile.json", "hosts/node03/logs/rank3", "profile/h.trace.json",
                                "fr/nccl_trace_rank_2", "versions/out.pkl", "conf/train.env"}) {
    CheckKind(name, input);
  }
  return 0;
}
