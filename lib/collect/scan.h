// Pass 1 of a collection: every file is read and redacted once, without
// writing anything, to learn what the manifest must say before the first
// byte of the bundle is written (its size, SHA-256, kind and redactions).
// Files that --max-bytes cuts are read once more (ScanTail) to find the
// line start where their kept part begins and hash that part.
#pragma once

#include <cstdint>
#include <functional>

#include "collect/planned_file.h"
#include "collect/redactor.h"

namespace casefile::collect {

// Told the content bytes just processed; returns false to abort (the scan
// then throws Error(kAborted)).
using ScanProgressFn = std::function<bool(uint64_t bytes)>;

// Fills f's scan fields. Throws Error(kIo) / Error(kUnsupported) when the
// source cannot be read (the caller records it and leaves the file out).
void ScanFile(PlannedFile& f, const Redactor* redactor, const ScanProgressFn& progress);

// True when the file's bytes are not text a redaction could rewrite without
// corrupting them (a binary file, a pickled flight-recorder dump).
bool IsBinaryContent(const PlannedFile& f);

// Plans keeping at most `keep` bytes from the end of f's content: sets
// f.tail (kept_from at a line start; mid-line only when no line starts in
// the last `keep` bytes) and f.sha256 of the kept bytes. Throws as ScanFile,
// and Error(kIo) when the source no longer yields the scanned content.
void ScanTail(PlannedFile& f, uint64_t keep, const Redactor* redactor,
              const ScanProgressFn& progress);

}  // namespace casefile::collect
