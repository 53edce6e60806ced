#include "index/index_writer.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_set>
#include <vector>

#include "common/error.h"
#include "common/hash.h"
#include "common/version.h"
#include "index/bounded_queue.h"
#include "index/early_writeback.h"
#include "index/index_reader.h"
#include "index/index_store.h"
#include "index/index_temp_files.h"
#include "index/object_pool.h"

namespace casefile {
namespace {

// Items in flight between the threads. Each is at most one block (~256 KiB
// of text) or one batch of ops (~1 MiB), so the queue bounds memory to a few
// MiB while giving the storage thread slack to absorb the caller's jitter.
constexpr size_t kQueueItems = 4;
constexpr size_t kOpsPerBatch = 4096;
constexpr size_t kOpsBytesPerBatch = 1u << 20;
// Blocks kept for reuse; more than the queue can hold is never needed.
// Blocks the caller compressed are StoredBlocks, pooled the same way.
constexpr size_t kPooledBlocks = kQueueItems + 2;

// Makes the file's bytes durable before the rename publishes it: without
// this a power loss right after Commit() could leave the final name on a
// file whose pages never reached the disk (SQLite itself runs with
// synchronous=OFF for the build).
void SyncFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fsync(fd) != 0) {
    int err = errno;
    if (fd >= 0) close(fd);
    throw Error(ErrorCode::kIo,
                "cannot flush the new index " + path + " to disk: " + std::strerror(err));
  }
  close(fd);
}

// Makes the rename itself durable. Best effort: the index is already in
// place and whole, and some filesystems refuse fsync on a directory.
void SyncDirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  fsync(fd);
  close(fd);
}

std::string UtcNow() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Rough bytes an op holds, to cap a batch's memory.
size_t OpBytes(const WriteOp& op) {
  return std::visit(
      [](const auto& o) -> size_t {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, TraceEventRow>) {
          return 128 + o.name.size() + o.category.size() + o.args_json.size() + o.pid.size() +
                 o.tid.size();
        } else if constexpr (std::is_same_v<T, ConfigRow>) {
          return 64 + o.key.size() + o.value.size();
        } else if constexpr (std::is_same_v<T, IngestIssueRow>) {
          return 64 + o.path.size() + o.message.size();
        } else if constexpr (std::is_same_v<T, MetricChunkRow>) {
          return 128 + o.points.size();
        } else if constexpr (std::is_same_v<T, DistEventRow>) {
          return 256 + (o.detail ? o.detail->size() : 0);
        } else if constexpr (std::is_same_v<T, FrEntryRow>) {
          return 256 + o.input_sizes.size() + o.output_sizes.size() + o.input_dtypes.size() +
                 o.output_dtypes.size() + (o.frame ? o.frame->size() : 0);
        } else if constexpr (std::is_same_v<T, VersionRow>) {
          return 96 + o.component.size() + o.version.size() + o.detail.size();
        } else if constexpr (std::is_same_v<T, NcclRankRow>) {
          return 256 + o.net_devices.size() + o.transports.size() + o.env.size();
        } else if constexpr (std::is_same_v<T, TraceMarkRow>) {
          return 128 + o.text.size() + o.detail.size() + o.pid.size();
        } else if constexpr (std::is_same_v<T, TraceStatRow>) {
          return 64 + o.key.size() + o.detail.size();
        } else if constexpr (std::is_same_v<T, NetLinkRow>) {
          return 96 + o.src.size() + o.dst.size();
        } else if constexpr (std::is_same_v<T, TemplateSignatureRow>) {
          return 96 + o.pattern.size() + o.level.size();
        } else if constexpr (std::is_same_v<T, TemplateRow>) {
          return 128 + o.pattern.size() + o.example.size() + o.level.size();
        } else if constexpr (std::is_same_v<T, FrGroupRow>) {
          return 128 + o.ranks.size();
        } else {
          return 256;
        }
      },
      op);
}

}  // namespace

struct IndexWriter::Impl {
  enum class State { kOpen, kCommitted, kClosed };

  std::string final_path;
  std::string temp_path;
  // Declared before the store, and reset after it: closing the writeback's
  // descriptor of the file would drop SQLite's POSIX locks on it
  // (early_writeback.h). Used by the storing thread only.
  std::unique_ptr<EarlyWriteback> writeback;
  std::unique_ptr<IndexStore> store;
  BoundedQueue<WorkItem> queue{kQueueItems};
  std::thread thread;
  State state = State::kOpen;

  // The preparing stage, when a preparer is set: the caller hands every
  // item to prep_queue and the preparing thread, after running the preparer
  // on a block, does what the caller does without one (FlushBlock's tail).
  std::function<void(Block&)> preparer;
  BoundedQueue<WorkItem> prep_queue{kQueueItems};
  std::thread prep_thread;
  std::unique_ptr<BlockCompressor> prep_compressor;

  // Set by the storage thread when it fails; read by every call.
  std::atomic<bool> failed{false};
  std::mutex error_mu;
  std::exception_ptr error;

  ObjectPool<Block> blocks{kPooledBlocks};
  ObjectPool<StoredBlock> stored_blocks{kPooledBlocks};
  // The caller's own compressor, made the first time the storage thread
  // falls behind (see FlushBlock).
  std::unique_ptr<BlockCompressor> caller_compressor;

  // Caller-thread state.
  std::unique_ptr<Block> current;
  int64_t current_file = 0;
  int64_t next_line = 1;
  int64_t next_block_no = 0;
  std::unordered_set<int64_t> ended_files;
  std::vector<WriteOp> pending_ops;
  size_t pending_bytes = 0;
  int64_t next_bundle_id = 1;
  int64_t next_file_id = 1;
  std::map<int64_t, std::string> bundle_identities;

  void Run() {
    pthread_setname_np(pthread_self(), "cf-index-store");  // for top and perf
    try {
      BlockCompressor compressor;
      StoredBlock scratch;
      // Line blocks are most of the file's bytes: they pace the writeback.
      EarlyWriteback& writeback = *this->writeback;
      for (;;) {
        std::optional<WorkItem> item = queue.Pop();
        if (!item) return;
        for (const WriteOp& op : item->ops) store->Apply(op);
        if (item->block) {
          compressor.Compress(*item->block, scratch);
          store->StoreBlock(scratch);
          writeback.Stored(scratch.data.size());
          Recycle(std::move(item->block));
        }
        if (item->stored) {
          store->StoreBlock(*item->stored);
          writeback.Stored(item->stored->data.size());
          Recycle(std::move(item->stored));
        }
        if (item->finish) return;
      }
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(error_mu);
        error = std::current_exception();
      }
      failed.store(true, std::memory_order_release);
      queue.Close();  // wakes a caller waiting for room
    }
  }

  void PrepRun() {
    pthread_setname_np(pthread_self(), "cf-index-prep");
    try {
      for (;;) {
        std::optional<WorkItem> item = prep_queue.Pop();
        if (!item) return;
        if (item->barrier) {
          item->barrier->set_value();
          continue;
        }
        const bool finish = item->finish;
        if (item->block) {
          preparer(*item->block);
          Store(std::move(*item), prep_compressor);
        } else {
          Push(std::move(*item));
        }
        if (finish) return;
      }
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
      }
      failed.store(true, std::memory_order_release);
      prep_queue.Close();
      queue.Close();
    }
  }

  // Hands an item to the next stage: the preparing thread when there is
  // one, else the storage thread.
  void Forward(WorkItem item) {
    if (preparer) {
      if (!prep_queue.Push(std::move(item))) RethrowStored();
    } else {
      Push(std::move(item));
    }
  }

  [[noreturn]] void RethrowStored() {
    std::exception_ptr e;
    {
      std::lock_guard<std::mutex> lock(error_mu);
      e = error;
    }
    if (e) std::rethrow_exception(e);
    throw Error(ErrorCode::kInternal, "index storage thread stopped without an error");
  }

  void Check() {
    if (state != State::kOpen) {
      throw Error(ErrorCode::kMisuse, state == State::kCommitted
                                          ? "index writer used after Commit()"
                                          : "index writer used after a failed Commit()");
    }
    if (failed.load(std::memory_order_acquire)) RethrowStored();
  }

  void Push(WorkItem item) {
    if (!queue.Push(std::move(item))) RethrowStored();
  }

  std::unique_ptr<Block> TakeBlock() {
    if (std::unique_ptr<Block> b = blocks.Take()) return b;
    auto b = std::make_unique<Block>();
    b->lines.reserve(kMaxBlockLines);
    b->text.reserve(kMaxBlockTextBytes + 4096);
    return b;
  }

  void Recycle(std::unique_ptr<Block> b) {
    // A block that took one huge line gives its buffer back rather than
    // keeping megabytes alive in the pool.
    if (b->text.capacity() > 4 * kMaxBlockTextBytes) {
      std::string().swap(b->text);
      b->text.reserve(kMaxBlockTextBytes + 4096);
    }
    blocks.Give(std::move(b));
  }

  void Recycle(std::unique_ptr<StoredBlock> b) {
    if (b->data.capacity() > 4 * kMaxBlockTextBytes) b->data.Release();
    stored_blocks.Give(std::move(b));
  }

  void FlushOps() {
    if (pending_ops.empty()) return;
    WorkItem item;
    item.ops.swap(pending_ops);
    pending_ops.reserve(64);
    pending_bytes = 0;
    Forward(std::move(item));
  }

  void FlushBlock() {
    if (!current || current->lines.empty()) return;
    WorkItem item;
    item.ops.swap(pending_ops);
    pending_bytes = 0;
    item.block = std::move(current);
    ++next_block_no;
    if (preparer) {
      Forward(std::move(item));
      return;
    }
    Store(std::move(item), caller_compressor);
  }

  // Queues a block for the storage thread, or compresses it on this thread
  // when the storage thread is behind. `compressor` is this thread's own.
  void Store(WorkItem item, std::unique_ptr<BlockCompressor>& compressor) {
    switch (queue.TryPush(item)) {
      case BoundedQueue<WorkItem>::TryResult::kPushed:
        return;
      case BoundedQueue<WorkItem>::TryResult::kClosed:
        RethrowStored();
      case BoundedQueue<WorkItem>::TryResult::kFull:
        break;
    }
    // The storage thread is behind: compression is most of its work, so
    // rather than wait idle, compress this block here. This balances the
    // two threads by itself whichever side is slower.
    if (!compressor) compressor = std::make_unique<BlockCompressor>();
    std::unique_ptr<StoredBlock> stored = stored_blocks.Take();
    if (!stored) stored = std::make_unique<StoredBlock>();
    compressor->Compress(*item.block, *stored);
    Recycle(std::move(item.block));
    item.stored = std::move(stored);
    Push(std::move(item));
  }

  void AddOp(WriteOp op) {
    Check();
    pending_bytes += OpBytes(op);
    pending_ops.push_back(std::move(op));
    if (pending_ops.size() >= kOpsPerBatch || pending_bytes >= kOpsBytesPerBatch) FlushOps();
  }

  void CheckFileId(int64_t file_id) {
    if (file_id < 1 || file_id >= next_file_id) {
      throw Error(ErrorCode::kArgument, "unknown file id " + std::to_string(file_id));
    }
  }

  void EndCurrentFile() {
    if (current_file == 0) return;
    FlushBlock();
    if (current) Recycle(std::move(current));  // an empty block: nothing to store
    ended_files.insert(current_file);
    current_file = 0;
  }

  void StartFile(int64_t file_id) {
    CheckFileId(file_id);
    if (ended_files.count(file_id)) {
      throw Error(ErrorCode::kMisuse,
                  "lines of file " + std::to_string(file_id) + " arrived after the file was ended");
    }
    EndCurrentFile();
    current_file = file_id;
    next_line = 1;
    next_block_no = 0;
  }

  void StartBlock(int64_t first_line) {
    current = TakeBlock();
    current->Reset(current_file, next_block_no, first_line);
  }

  // Removes the temporary file and forgets the store; never throws.
  void Discard() noexcept {
    if (prep_thread.joinable()) {
      prep_queue.Close();
      prep_thread.join();
    }
    if (thread.joinable()) {
      queue.Close();
      thread.join();
    }
    store.reset();
    writeback.reset();
    if (!temp_path.empty()) std::remove(temp_path.c_str());
  }
};

IndexWriter::IndexWriter(const std::string& final_path) : impl_(std::make_unique<Impl>()) {
  impl_->final_path = final_path;
  // Temporaries of writers that were killed would pile up run after run.
  RemoveStaleIndexTemporaries(final_path);
  impl_->temp_path = TempIndexPathFor(final_path);
  try {
    impl_->writeback = std::make_unique<EarlyWriteback>(impl_->temp_path);
    impl_->store = std::make_unique<IndexStore>(impl_->temp_path);
    impl_->thread = std::thread([impl = impl_.get()] { impl->Run(); });
  } catch (...) {
    impl_->Discard();
    throw;
  }
}

IndexWriter::~IndexWriter() {
  if (impl_->state != Impl::State::kCommitted) impl_->Discard();
}

int64_t IndexWriter::AddBundle(const BundleRow& row) {
  impl_->Check();
  AddBundleOp op{row};
  op.row.id = impl_->next_bundle_id;
  impl_->AddOp(std::move(op));
  impl_->bundle_identities[impl_->next_bundle_id] = row.identity;
  return impl_->next_bundle_id++;
}

void IndexWriter::UpdateBundle(const BundleRow& row) {
  impl_->Check();
  if (row.id < 1 || row.id >= impl_->next_bundle_id) {
    throw Error(ErrorCode::kArgument, "unknown bundle id " + std::to_string(row.id));
  }
  impl_->AddOp(UpdateBundleOp{row});
  impl_->bundle_identities[row.id] = row.identity;
}

int64_t IndexWriter::AddFile(const FileRow& row) {
  impl_->Check();
  if (row.bundle_id < 1 || row.bundle_id >= impl_->next_bundle_id) {
    throw Error(ErrorCode::kArgument,
                "file " + row.path + " names unknown bundle id " + std::to_string(row.bundle_id));
  }
  AddFileOp op{row};
  op.row.id = impl_->next_file_id;
  impl_->AddOp(std::move(op));
  return impl_->next_file_id++;
}

void IndexWriter::UpdateFile(const FileRow& row) {
  impl_->Check();
  impl_->CheckFileId(row.id);
  impl_->AddOp(UpdateFileOp{row});
}

void IndexWriter::AddLine(const LineRecord& line) {
  Impl& w = *impl_;
  w.Check();
  if (line.file_id != w.current_file) w.StartFile(line.file_id);
  if (line.line_no != w.next_line) {
    throw Error(ErrorCode::kMisuse,
                "lines of file " + std::to_string(line.file_id) + " out of order: expected line " +
                    std::to_string(w.next_line) + ", got " + std::to_string(line.line_no));
  }
  if (!w.current) w.StartBlock(line.line_no);
  int host = w.current->HostIndex(line.host);
  if (host < 0) {
    // The block's host table is full: close it and start a fresh one.
    w.FlushBlock();
    w.StartBlock(line.line_no);
    host = w.current->HostIndex(line.host);
  }
  AppendLine(*w.current, line, host);
  ++w.next_line;
  if (w.current->Full()) w.FlushBlock();
}

void IndexWriter::SetBlockPreparer(std::function<void(Block&)> preparer) {
  Impl& w = *impl_;
  w.Check();
  if (w.preparer || w.current_file != 0 || w.next_block_no != 0 || !w.ended_files.empty()) {
    throw Error(ErrorCode::kMisuse, "SetBlockPreparer after lines, or twice");
  }
  w.preparer = std::move(preparer);
  w.prep_thread = std::thread([impl = impl_.get()] { impl->PrepRun(); });
}

void IndexWriter::DrainPreparer() {
  Impl& w = *impl_;
  w.Check();
  if (!w.preparer) return;
  w.FlushBlock();
  w.FlushOps();
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> reached = done->get_future();
  WorkItem barrier;
  barrier.barrier = done;
  w.Forward(std::move(barrier));
  // The preparing thread acknowledges the barrier, or fails and closes its
  // queue; then the promise is never set and the error is rethrown.
  while (reached.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
    if (w.failed.load(std::memory_order_acquire)) w.RethrowStored();
  }
}

void IndexWriter::StopPreparer() noexcept {
  Impl& w = *impl_;
  if (!w.prep_thread.joinable()) return;
  w.prep_queue.Close();
  w.prep_thread.join();
  w.state = Impl::State::kClosed;
}

void IndexWriter::EndFileLines(int64_t file_id) {
  impl_->Check();
  impl_->CheckFileId(file_id);
  if (file_id == impl_->current_file) {
    impl_->EndCurrentFile();
  } else {
    impl_->ended_files.insert(file_id);
  }
}

void IndexWriter::AddTraceEvent(const TraceEventRow& row) {
  impl_->CheckFileId(row.file_id);
  TraceEventRow stored = row;
  stored.raw = {};  // points into the reader's buffer, which moves on
  impl_->AddOp(std::move(stored));
}

void IndexWriter::SetTraceProcessName(int64_t file_id, const std::string& pid,
                                      const std::string& name) {
  impl_->CheckFileId(file_id);
  impl_->AddOp(TraceNameOp{file_id, pid, "", name, false});
}

void IndexWriter::SetTraceThreadName(int64_t file_id, const std::string& pid,
                                     const std::string& tid, const std::string& name) {
  impl_->CheckFileId(file_id);
  impl_->AddOp(TraceNameOp{file_id, pid, tid, name, true});
}

void IndexWriter::AddHloModule(const HloModuleRow& row) {
  impl_->CheckFileId(row.file_id);
  impl_->AddOp(row);
}

void IndexWriter::AddConfig(const ConfigRow& row) {
  impl_->CheckFileId(row.file_id);
  impl_->AddOp(row);
}

void IndexWriter::AddNumericFrame(const NumericFrameRow& row) {
  impl_->CheckFileId(row.file_id);
  impl_->AddOp(row);
}

void IndexWriter::AddMetricChunk(const MetricChunkRow& row) {
  impl_->CheckFileId(row.file_id);
  impl_->AddOp(row);
}

void IndexWriter::AddDistEvent(const DistEventRow& row) {
  impl_->CheckFileId(row.file_id);
  impl_->AddOp(row);
}

void IndexWriter::AddFrEntry(const FrEntryRow& row) {
  impl_->CheckFileId(row.file_id);
  impl_->AddOp(row);
}

void IndexWriter::AddFrGroup(const FrGroupRow& row) {
  impl_->CheckFileId(row.file_id);
  impl_->AddOp(row);
}

void IndexWriter::AddVersion(const VersionRow& row) {
  impl_->CheckFileId(row.file_id);
  impl_->AddOp(row);
}

void IndexWriter::AddNcclRank(const NcclRankRow& row) {
  impl_->CheckFileId(row.file_id);
  impl_->AddOp(row);
}

void IndexWriter::AddTraceStat(const TraceStatRow& row) {
  impl_->CheckFileId(row.file_id);
  impl_->AddOp(row);
}

void IndexWriter::AddNetLink(const NetLinkRow& row) {
  impl_->CheckFileId(row.file_id);
  impl_->AddOp(row);
}

void IndexWriter::AddNetSize(const NetSizeRow& row) {
  impl_->CheckFileId(row.file_id);
  impl_->AddOp(row);
}

void IndexWriter::AddNetTimeline(const NetTimelineRow& row) {
  impl_->CheckFileId(row.file_id);
  impl_->AddOp(row);
}

void IndexWriter::AddTraceMark(const TraceMarkRow& row) {
  impl_->CheckFileId(row.file_id);
  impl_->AddOp(row);
}

void IndexWriter::AddTemplateSignature(const TemplateSignatureRow& row) {
  impl_->Check();
  impl_->AddOp(row);
}

void IndexWriter::AddTemplate(const TemplateRow& row) {
  impl_->Check();
  impl_->AddOp(row);
}

void IndexWriter::AddIngestIssue(const IngestIssueRow& row) {
  if (row.bundle_id < 1 || row.bundle_id >= impl_->next_bundle_id) {
    throw Error(ErrorCode::kArgument,
                "ingest issue names unknown bundle id " + std::to_string(row.bundle_id));
  }
  impl_->AddOp(row);
}

void IndexWriter::SetMeta(const std::string& key, const std::string& value) {
  impl_->AddOp(SetMetaOp{key, value});
}

void IndexWriter::Commit() {
  Impl& w = *impl_;
  if (w.state != Impl::State::kOpen) w.Check();  // throws kMisuse
  try {
    w.Check();
    w.EndCurrentFile();
    w.FlushOps();
    WorkItem finish;
    finish.finish = true;
    w.Forward(std::move(finish));
    if (w.prep_thread.joinable()) w.prep_thread.join();
    w.thread.join();
    if (w.failed.load(std::memory_order_acquire)) w.RethrowStored();

    Fnv1a64 inputs;
    for (const auto& [id, identity] : w.bundle_identities) {
      inputs.Update(identity);
      inputs.Update(std::string_view("\n", 1));
    }
    std::map<std::string, std::string> forced = {
        {"schema_version", std::to_string(kIndexSchemaVersion)},
        {"casefile_version", kVersionString},
        {"line_block_format", std::to_string(kBlockFormatVersion)},
    };
    std::map<std::string, std::string> defaults = {
        {"created_at", UtcNow()},
        {"inputs_identity", inputs.HexDigest()},
    };
    w.store->Finish(forced, defaults);
    w.store.reset();
    w.writeback.reset();
    SyncFile(w.temp_path);
    // The one step that publishes the index: before it the final path holds
    // the old index (or nothing), after it the whole new one. Two writers of
    // the same index both succeed; the later rename wins, and a reader of
    // the earlier file keeps reading it.
    if (std::rename(w.temp_path.c_str(), w.final_path.c_str()) != 0) {
      int err = errno;
      throw Error(ErrorCode::kIo, "cannot move the new index into place at " + w.final_path + ": " +
                                      std::strerror(err));
    }
    w.state = Impl::State::kCommitted;
    SyncDirectoryOf(w.final_path);
  } catch (...) {
    w.state = Impl::State::kClosed;
    w.Discard();
    throw;
  }
}

}  // namespace casefile
