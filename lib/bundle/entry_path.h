// Normalisation of entry paths taken from archives and directory walks, so
// that no path handed on can climb out of the bundle or name an absolute file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace casefile::bundle {

// Longer raw paths are refused (pax headers allow any length; the kernel's
// PATH_MAX is a generous bound for anything a real bundle holds).
inline constexpr size_t kMaxEntryPathBytes = 4096;

struct NormalizedPath {
  // '/'-separated, no leading '/', no '.', '..' or empty components; empty
  // when nothing is left (or the raw path is too long).
  std::string path;
  // True when the raw path was changed in a way that matters: absolute, '..',
  // an inner '.', '//' or '\'. A leading "./" and a trailing '/' (what
  // `tar -C dir .` writes for every member, and every directory member) are
  // routine and do not set it.
  bool rewritten = false;
};

// '\' counts as a separator (archives written on Windows); '..' is resolved
// and clamped at the root, so "../../etc/passwd" becomes "etc/passwd".
NormalizedPath NormalizeEntryPath(std::string_view raw);

// True when `raw` names the bundle root itself ("." or "./"), which carries
// nothing and is skipped without an issue.
bool IsRootPath(std::string_view raw);

// True when `path` ends in ".gz" (any case).
bool HasGzipSuffix(std::string_view path);

}  // namespace casefile::bundle
