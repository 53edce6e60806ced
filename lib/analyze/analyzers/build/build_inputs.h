// What the build analyzer reads, as plain structs: the `versions` rows of
// every host (parse/version/version_facts.h names the components) and the
// build failures read from logs (dist_events of kind build_error, cuda_error
// rows that say "no kernel image is available", and crash rows whose
// exception is a library that does not load). LoadBuildFacts
// fills them from an index with two queries; tests build them by hand.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyze/finding.h"
#include "index/index_reader.h"

namespace casefile::build {

inline constexpr const char* kAnalyzerName = "build";

// build_error ops (parse/dist/dist_kinds.h), plus the one this analyzer
// gives cuda_error rows that report a missing kernel image.
inline constexpr const char* kOpNoKernelImage = "no_kernel_image";
// ... and crash rows whose exception is the dynamic loader's refusal of a
// library (undefined symbol, missing shared object, GLIBCXX version).
inline constexpr const char* kOpLoadFailed = "load_failed";

struct VersionFactRow {
  int64_t file_id = 0;
  int64_t line_no = 0;
  std::string host;  // the file's; "" when unknown
  std::string component;
  std::string version;
  std::string detail;
  std::string source;
};

struct BuildErrorRow {
  int64_t file_id = 0;
  int64_t line_no = 0;
  std::string host;  // the line's, else the file's; "" when unknown
  std::optional<int64_t> rank;
  // The local rank a "[defaultN]:" prefix named, when the global rank is unknown.
  std::optional<int64_t> local_rank;
  std::string op;      // extension_failed, cuda_mismatch, ... or kOpNoKernelImage
  std::string detail;  // "" when none
  std::optional<double> value;
};

// A compiler's error line found in the lines before a failed build.
struct CompilerErrorLine {
  int64_t line_no = 0;
  std::string text;
  size_t count = 0;  // compiler error lines in the searched window
};

struct BuildFacts {
  std::vector<VersionFactRow> versions;
  std::vector<BuildErrorRow> errors;  // ordered by file, line
  // Per file with a load_failed row: the (line, step) of its step times, in
  // line order. A library that failed to load before training went on in
  // the same log was an optional one the program fell back from.
  std::map<int64_t, std::vector<std::pair<int64_t, std::optional<int64_t>>>> steps_after_load;
  // Evidence for a line.
  std::function<Evidence(int64_t file_id, int64_t line_no)> line;
  // The first compiler error line of `file_id` in [from_line, to_line]
  // among the lines of `host` (a line's host, else its file's; "" for any);
  // nullopt when there is none.
  std::function<std::optional<CompilerErrorLine>(int64_t file_id, int64_t from_line,
                                                 int64_t to_line, const std::string& host)>
      first_compiler_error;
};

// Caps, so that a hostile index cannot make the analysis unbounded.
inline constexpr size_t kMaxVersionRows = 2'000'000;
inline constexpr size_t kMaxErrorRows = 200'000;
inline constexpr size_t kMaxStepRows = 4'000'000;

void LoadBuildFacts(const IndexReader& index, const std::vector<FileRow>& files, BuildFacts& facts);

// The versions of one host, by component: the rows of the most preferred
// source that reported the component (several rows for multi-valued
// components), in line order.
using HostVersions = std::map<std::string, std::vector<const VersionFactRow*>>;
// Per host ("" for files without one), in host order.
std::map<std::string, HostVersions> VersionsByHost(const std::vector<VersionFactRow>& rows);

// The rank of a source in the preference order of version_facts.h (lower is
// preferred); sources it does not list come last.
int SourceRank(std::string_view source);

}  // namespace casefile::build
