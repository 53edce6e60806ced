// `casefile verify`: reads a bundle written by `casefile collect` and checks
// it against its manifest: the manifest is the first entry and is valid
// (format_version known), every file it lists is present once with its size
// and SHA-256, and nothing else is there. Each problem is listed, not only
// the first. A bundle is read as a stream, once, in bounded memory (one
// digest per file).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace casefile::collect {

struct VerifyProblem {
  std::string path;  // the bundle path concerned ("" for the archive itself)
  std::string kind;  // "archive", "manifest", "missing", "extra", "size", "sha256", "duplicate",
                     // "entry_type"
  std::string message;
};

struct VerifyResult {
  uint64_t files_checked = 0;  // files listed by the manifest and found whole
  uint64_t bytes = 0;          // content bytes read
  std::vector<VerifyProblem> problems;
  bool ok() const { return problems.empty(); }
};

// Returns false to abort (VerifyBundle then throws Error(kAborted)).
using VerifyProgressFn = std::function<bool(uint64_t bytes_done, std::string_view path)>;

// Throws Error(kNotFound) when `path` does not exist, Error(kIo) when it
// cannot be opened; everything about its content is a problem in the result.
VerifyResult VerifyBundle(const std::string& path, const VerifyProgressFn& progress = {});

}  // namespace casefile::collect
