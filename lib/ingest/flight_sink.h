// Ingest of PyTorch flight-recorder dumps (files.kind flight_recorder): the
// dump goes to the line sink like any text, so evidence can cite the line an
// entry starts on, and is also buffered (up to flight::kMaxDumpBytes) and
// parsed whole at Finish into fr_entries and fr_groups.
#pragma once

#include <memory>

#include "index/index_writer.h"
#include "ingest/file_sink.h"

namespace casefile {

// `lines` is the sink that stores the dump's lines; the returned sink feeds
// it every chunk and owns it. Past kMaxDumpBytes the rest still becomes
// lines, the rows come from the first kMaxDumpBytes (read as a truncated
// dump) and an ingest issue "flight_recorder_too_large" is recorded.
std::unique_ptr<FileSink> MakeFlightSink(const FileContext& ctx, IndexWriter& writer,
                                         std::unique_ptr<FileSink> lines);

}  // namespace casefile
