// `casefile collect`: gathers a host's logs, HLO dumps, traces, configs,
// version and system outputs and its environment into one redacted,
// verifiable .tar.zst (docs/BUNDLE_FORMAT.md).
//
// How the bundle is written without a temporary copy: the manifest must be
// the first entry and holds every file's size and SHA-256, and a tar header
// declares its file's size before the bytes. So the collection reads every
// file twice: pass 1 (scan.h, several files at once) reads and redacts each
// file to learn its size, digest, kind and redactions; the manifest is
// written; pass 2 streams exactly the bytes pass 1 measured into the
// archive: redacted again where pass 1 redacted something, else copied, each
// 1 MiB segment checked against pass 1 before it is written. Both passes
// read a file only up to the size it had when pass 1 opened it, so a log
// still being appended to packs the same bytes twice. A file changed in
// place between the passes cannot be unwritten: pass 2 packs at most the
// declared size (NUL-padded where it stopped), the collection reports the
// file as changed, and `casefile verify` fails on its digest.
#pragma once

#include "collect/collect_options.h"

namespace casefile::collect {

// Throws Error(kArgument) for invalid options (no output, a bad label, an
// unusable zstd level), Error(kIo) when the output cannot be written,
// Error(kAborted) when progress returned false (the output is removed).
// Everything about the inputs is recorded in the result instead.
CollectResult Collect(const CollectOptions& options, const CollectProgressFn& progress = {});

}  // namespace casefile::collect
