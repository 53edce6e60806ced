// What the caller's thread hands to the storage thread: batches of row
// operations, in call order, and full line blocks.
#pragma once

#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "index/block_compressor.h"
#include "index/index_types.h"
#include "index/line_block.h"

namespace casefile {

struct AddBundleOp {
  BundleRow row;
};
struct UpdateBundleOp {
  BundleRow row;
};
struct AddFileOp {
  FileRow row;
};
struct UpdateFileOp {
  FileRow row;
};
struct SetMetaOp {
  std::string key;
  std::string value;
};
// Names a process (thread empty) or a thread of one trace file.
struct TraceNameOp {
  int64_t file_id = 0;
  std::string pid;
  std::string tid;
  std::string name;
  bool is_thread = false;
};

using WriteOp = std::variant<AddBundleOp, UpdateBundleOp, AddFileOp, UpdateFileOp, SetMetaOp,
                             TraceNameOp, TraceEventRow, HloModuleRow, ConfigRow, IngestIssueRow,
                             NumericFrameRow, MetricChunkRow, DistEventRow, FrEntryRow, FrGroupRow,
                             VersionRow, NcclRankRow, TraceStatRow, NetLinkRow, NetSizeRow,
                             NetTimelineRow, TraceMarkRow, TemplateSignatureRow, TemplateRow>;

// One queue item: the ops first, then a block, either still to compress
// (`block`) or already compressed by the caller (`stored`); any part may be
// empty. `finish` asks the storage thread to stop after this item.
struct WorkItem {
  std::vector<WriteOp> ops;
  std::unique_ptr<Block> block;
  std::unique_ptr<StoredBlock> stored;
  bool finish = false;
  // Set on an item the preparing thread only acknowledges (DrainPreparer).
  // Shared: the caller may give up waiting (an error) before it is set.
  std::shared_ptr<std::promise<void>> barrier;
};

}  // namespace casefile
