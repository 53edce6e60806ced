#include "index/lines_vtab.h"

#include <sqlite3.h>

#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "index/block_read_ahead.h"
#include "index/like_filter.h"
#include "index/line_block.h"
#include "index/schema.h"
#include "index/sqlite_util.h"

namespace casefile {
namespace {

// Column order of LinesVtabColumns(); a test checks the names match.
enum Column {
  kColFileId = 0,
  kColLineNo,
  kColOffset,
  kColTsUs,
  kColLevel,
  kColHost,
  kColRank,
  kColPid,
  kColFlags,
  kColText,
  kColMessage,
  kColSignatureId,
  kColTemplateId,
};

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Constraint slots: (column, operator) pairs the module uses to pick blocks.
// idxNum is a bitmask of slots; xFilter receives their values in slot order.
constexpr int kSlotColumns[] = {kColFileId, kColLineNo, kColTsUs};
constexpr int kSlotOps[] = {SQLITE_INDEX_CONSTRAINT_EQ, SQLITE_INDEX_CONSTRAINT_GT,
                            SQLITE_INDEX_CONSTRAINT_GE, SQLITE_INDEX_CONSTRAINT_LT,
                            SQLITE_INDEX_CONSTRAINT_LE};
constexpr int kOpsPerColumn = 5;
constexpr int kSlotCount = 3 * kOpsPerColumn;
// idxNum bits past the slots: a LIKE on text or on message, whose pattern
// comes after the slots' values (like_filter.h).
constexpr int kLikeText = 1 << 16;
constexpr int kLikeMessage = 1 << 17;

int SlotOf(int column, int op) {
  for (int c = 0; c < 3; ++c) {
    if (kSlotColumns[c] != column) continue;
    for (int o = 0; o < kOpsPerColumn; ++o) {
      if (kSlotOps[o] == op) return c * kOpsPerColumn + o;
    }
  }
  return -1;
}

// An inclusive integer range narrowed by constraints. Narrowing is always
// conservative (never excludes a row SQL would keep): SQLite re-checks every
// constraint on the rows we return, because no constraint is marked omit.
struct Range {
  int64_t lo = kMin;
  int64_t hi = kMax;
  bool empty = false;
  bool constrained = false;

  void AtLeast(int64_t v) { lo = std::max(lo, v); }
  void AtMost(int64_t v) { hi = std::min(hi, v); }

  void Apply(int op, sqlite3_value* raw) {
    // A private copy: numeric conversion must not alter SQLite's own value.
    sqlite3_value* v = sqlite3_value_dup(raw);
    if (!v) throw std::bad_alloc();
    int type = sqlite3_value_numeric_type(v);
    if (type == SQLITE_NULL) {
      empty = true;  // a comparison with NULL is never true
    } else if (type == SQLITE_INTEGER) {
      ApplyInt(op, sqlite3_value_int64(v));
    } else if (type == SQLITE_FLOAT) {
      ApplyDouble(op, sqlite3_value_double(v));
    }
    // TEXT or BLOB that is not a number: compares above every integer; keep
    // the full range and let SQLite decide.
    sqlite3_value_free(v);
    constrained = true;
  }

  void ApplyInt(int op, int64_t v) {
    switch (op) {
      case SQLITE_INDEX_CONSTRAINT_EQ:
        AtLeast(v);
        AtMost(v);
        break;
      case SQLITE_INDEX_CONSTRAINT_GT:
        if (v == kMax) {
          empty = true;
        } else {
          AtLeast(v + 1);
        }
        break;
      case SQLITE_INDEX_CONSTRAINT_GE:
        AtLeast(v);
        break;
      case SQLITE_INDEX_CONSTRAINT_LT:
        if (v == kMin) {
          empty = true;
        } else {
          AtMost(v - 1);
        }
        break;
      case SQLITE_INDEX_CONSTRAINT_LE:
        AtMost(v);
        break;
    }
  }

  void ApplyDouble(int op, double d) {
    // Out of the exactly representable range (or NaN): do not narrow.
    if (!(d > -9.0e18 && d < 9.0e18)) return;
    double fl = std::floor(d);
    double ce = std::ceil(d);
    switch (op) {
      case SQLITE_INDEX_CONSTRAINT_EQ:
        if (fl != d) {
          empty = true;
        } else {
          ApplyInt(op, static_cast<int64_t>(d));
        }
        break;
      case SQLITE_INDEX_CONSTRAINT_GT:
        AtLeast(static_cast<int64_t>(fl) + 1);
        break;
      case SQLITE_INDEX_CONSTRAINT_GE:
        AtLeast(static_cast<int64_t>(ce));
        break;
      case SQLITE_INDEX_CONSTRAINT_LT:
        AtMost(static_cast<int64_t>(ce) - 1);
        break;
      case SQLITE_INDEX_CONSTRAINT_LE:
        AtMost(static_cast<int64_t>(fl));
        break;
    }
  }

  bool Empty() const { return empty || lo > hi; }
};

struct LinesTable {
  sqlite3_vtab base;  // first: SQLite casts between the two
  sqlite3* db = nullptr;
  std::string schema;
};

struct LinesCursor {
  sqlite3_vtab_cursor base;  // first: SQLite casts between the two
  LinesTable* table = nullptr;
  Statement scan;         // blocks over a range of files
  Statement seek;         // blocks of one file from a line on
  Statement start;        // the block holding a given line of one file
  Statement attribution;  // the host and rank of a file, for lines without their own
  int64_t attribution_file = -1;
  std::string file_host;
  int64_t file_rank = -1;
  // template_signatures.template_id by signature id (index 0 unused), loaded
  // the first time a row's template_id is asked for.
  std::vector<int64_t> template_of;
  bool templates_loaded = false;
  sqlite3_stmt* active = nullptr;
  bool statement_done = false;  // `active` has no more rows
  DecodedBlock block;           // decoded here, while the scan is short
  // Decoded on a second thread once the scan has read kSyncBlocks blocks
  // (see block_read_ahead.h); the one in use, when set.
  std::unique_ptr<BlockReadAhead> read_ahead;
  std::unique_ptr<DecodedBlock> ahead_block;
  int64_t blocks_read = 0;  // by this scan (since Filter)
  bool have_block = false;
  bool eof = true;
  int64_t file_id = 0;
  int64_t first_line = 0;
  size_t idx = 0;
  Range files, line_nos, ts;
  std::optional<LikeFilter> like;  // lines that cannot match are skipped
  bool like_message = false;       // the LIKE reads message, not text

  int64_t LineNo() const { return first_line + static_cast<int64_t>(idx); }
  const DecodedBlock& Block() const { return ahead_block ? *ahead_block : block; }
};

// Blocks a scan decodes on its own thread before it starts decoding ahead
// on a second one: a point lookup or a LIMIT reads one or two blocks and
// should not start a thread.
constexpr int64_t kSyncBlocks = 2;

bool ReadsAhead(const LinesCursor& c) {
  static const bool kCores = std::thread::hardware_concurrency() > 1;
  return kCores && c.blocks_read >= kSyncBlocks;
}

// Hands the next rows of `active` to the decoder until it holds enough.
void FeedReadAhead(LinesCursor& c) {
  if (!c.read_ahead) c.read_ahead = std::make_unique<BlockReadAhead>();
  while (!c.statement_done && c.read_ahead->HasRoom()) {
    int rc = sqlite3_step(c.active);
    if (rc == SQLITE_DONE) {
      c.statement_done = true;
      return;
    }
    if (rc != SQLITE_ROW) ThrowSqlite(c.table->db, rc, "cannot read line blocks");
    c.read_ahead->Submit(sqlite3_column_int64(c.active, 0), sqlite3_column_int64(c.active, 1),
                         sqlite3_column_int64(c.active, 2), sqlite3_column_int64(c.active, 3),
                         sqlite3_column_blob(c.active, 4),
                         static_cast<size_t>(sqlite3_column_bytes(c.active, 4)));
  }
}

// Loads the next block of `active` into the cursor; false when there is
// none. Throws for a block that does not decode.
bool LoadNextBlock(LinesCursor& c) {
  if (c.ahead_block) c.read_ahead->Recycle(std::move(c.ahead_block));
  int64_t line_count = 0;
  if (ReadsAhead(c)) {
    FeedReadAhead(c);
    if (c.read_ahead->in_flight() == 0) return false;
    BlockReadAhead::Decoded d = c.read_ahead->Take();
    if (d.error) {
      c.read_ahead->Recycle(std::move(d.block));
      std::rethrow_exception(d.error);
    }
    c.ahead_block = std::move(d.block);
    c.file_id = d.file_id;
    c.first_line = d.first_line;
    line_count = d.line_count;
    // The decoder works on the next blocks while this one is read.
    FeedReadAhead(c);
  } else {
    if (c.statement_done) return false;
    int rc = sqlite3_step(c.active);
    if (rc == SQLITE_DONE) {
      c.statement_done = true;
      return false;
    }
    if (rc != SQLITE_ROW) ThrowSqlite(c.table->db, rc, "cannot read line blocks");
    c.file_id = sqlite3_column_int64(c.active, 0);
    c.first_line = sqlite3_column_int64(c.active, 1);
    line_count = sqlite3_column_int64(c.active, 2);
    int64_t raw_bytes = sqlite3_column_int64(c.active, 3);
    const void* data = sqlite3_column_blob(c.active, 4);
    int size = sqlite3_column_bytes(c.active, 4);
    c.block.Decode(data, static_cast<size_t>(size), raw_bytes);
  }
  ++c.blocks_read;
  if (c.Block().size() != static_cast<size_t>(line_count)) {
    throw Error(ErrorCode::kCorrupt, "corrupt line block in index: line count differs from row");
  }
  return true;
}

// A line stores only what its own wrappers said; a line without a host or a
// rank takes its file's (files.host/rank), which the manifest may have set
// after the lines were written. So `files` stays the one place to fix
// attribution, and lines follow it.
void LoadFileAttribution(LinesCursor& c) {
  if (c.attribution_file == c.file_id) return;
  if (!c.attribution) {
    char* q = sqlite3_mprintf("SELECT host, rank FROM \"%w\".files WHERE id = ?1",
                              c.table->schema.c_str());
    std::string sql = q ? q : "";
    sqlite3_free(q);
    if (sql.empty()) throw std::bad_alloc();
    c.attribution = Statement(c.table->db, sql);
  }
  c.attribution.Reset();
  c.attribution.Bind(1, c.file_id);
  c.file_host.clear();
  c.file_rank = -1;
  if (c.attribution.Step()) {
    if (!c.attribution.IsNull(0)) c.file_host = c.attribution.Text(0);
    if (!c.attribution.IsNull(1)) c.file_rank = c.attribution.Int(1);
  }
  c.attribution.Reset();
  c.attribution_file = c.file_id;
}

// The signature -> template mapping, read once per cursor (a few thousand
// rows; at most the signature cap).
void LoadTemplateMap(LinesCursor& c) {
  if (c.templates_loaded) return;
  char* q = sqlite3_mprintf("SELECT id, template_id FROM \"%w\".template_signatures",
                            c.table->schema.c_str());
  std::string sql = q ? q : "";
  sqlite3_free(q);
  if (sql.empty()) throw std::bad_alloc();
  Statement s(c.table->db, sql);
  while (s.Step()) {
    int64_t id = s.Int(0);
    if (id <= 0 || id > std::numeric_limits<uint32_t>::max()) continue;
    if (c.template_of.size() <= static_cast<size_t>(id)) c.template_of.resize(id + 1, 0);
    c.template_of[id] = s.Int(1);
  }
  c.templates_loaded = true;
}

std::string BlockColumns(const std::string& schema) {
  // INDEXED BY pins the (file_id, first_line) index: rows come out in order
  // without a sort, which would pull every blob of a full scan into memory.
  char* q = sqlite3_mprintf(
      "SELECT file_id, first_line, line_count, raw_bytes, data FROM \"%w\".line_blocks "
      "INDEXED BY line_blocks_by_line ",
      schema.c_str());
  std::string s = q ? q : "";
  sqlite3_free(q);
  if (s.empty()) throw std::bad_alloc();
  return s;
}

// Time filter shared by the scan statements: ?5 non-zero means no filter.
constexpr const char* kTsFilter = "AND (?5 OR (max_ts >= ?6 AND min_ts <= ?7)) ";

void SetError(sqlite3_vtab* vtab, const std::string& message) {
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("%s", message.c_str());
}

// Runs `body`, turning exceptions into an SQLite error on the table.
template <typename F>
int Guard(sqlite3_vtab* vtab, F&& body) {
  try {
    body();
    return SQLITE_OK;
  } catch (const Error& e) {
    SetError(vtab, e.what());
    return e.code() == ErrorCode::kCorrupt ? SQLITE_CORRUPT : SQLITE_ERROR;
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (const std::exception& e) {
    SetError(vtab, e.what());
    return SQLITE_ERROR;
  }
}

int Connect(sqlite3* db, void*, int argc, const char* const* argv, sqlite3_vtab** out, char** err) {
  if (argc < 3) {
    *err = sqlite3_mprintf("casefile_lines: missing schema name");
    return SQLITE_ERROR;
  }
  int rc = sqlite3_declare_vtab(db, LinesVtabDeclaration().c_str());
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  auto* table = new (std::nothrow) LinesTable();
  if (!table) return SQLITE_NOMEM;
  table->db = db;
  table->schema = argv[1];
  *out = &table->base;
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* vtab) {
  delete reinterpret_cast<LinesTable*>(vtab);
  return SQLITE_OK;
}

int BestIndex(sqlite3_vtab*, sqlite3_index_info* info) {
  int slot_constraint[kSlotCount];
  for (int& s : slot_constraint) s = -1;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable) continue;
    int slot = SlotOf(c.iColumn, c.op);
    if (slot >= 0 && slot_constraint[slot] < 0) slot_constraint[slot] = i;
  }
  int mask = 0;
  int argv = 0;
  for (int s = 0; s < kSlotCount; ++s) {
    if (slot_constraint[s] < 0) continue;
    mask |= 1 << s;
    info->aConstraintUsage[slot_constraint[s]].argvIndex = ++argv;
    info->aConstraintUsage[slot_constraint[s]].omit = 0;
  }
  auto has = [&](int column, int op) { return (mask >> SlotOf(column, op)) & 1; };
  // One LIKE on text or message, checked again by SQLite (omit stays 0).
  int like_mask = 0;
  for (int i = 0; i < info->nConstraint && like_mask == 0; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable || c.op != SQLITE_INDEX_CONSTRAINT_LIKE) continue;
    if (c.iColumn != kColText && c.iColumn != kColMessage) continue;
    like_mask = c.iColumn == kColText ? kLikeText : kLikeMessage;
    info->aConstraintUsage[i].argvIndex = ++argv;
    info->aConstraintUsage[i].omit = 0;
  }
  auto bounded = [&](int column, bool low) {
    return low ? has(column, SQLITE_INDEX_CONSTRAINT_GT) || has(column, SQLITE_INDEX_CONSTRAINT_GE)
               : has(column, SQLITE_INDEX_CONSTRAINT_LT) || has(column, SQLITE_INDEX_CONSTRAINT_LE);
  };
  bool file_eq = has(kColFileId, SQLITE_INDEX_CONSTRAINT_EQ);
  bool line_eq = has(kColLineNo, SQLITE_INDEX_CONSTRAINT_EQ);
  // Rough row counts: enough for SQLite to prefer narrow plans and to drive
  // joins from `files` into `lines` by file_id.
  double rows = 1e7;
  if (file_eq) {
    rows /= 1000;
  } else if (bounded(kColFileId, true) || bounded(kColFileId, false)) {
    rows /= 4;
  }
  if (line_eq) {
    rows = file_eq ? 1 : rows / 10000;
  } else if (bounded(kColLineNo, true) && bounded(kColLineNo, false)) {
    rows /= 1000;
  } else if (bounded(kColLineNo, true) || bounded(kColLineNo, false)) {
    rows /= 3;
  }
  if (has(kColTsUs, SQLITE_INDEX_CONSTRAINT_EQ)) {
    rows /= 1000;
  } else if (bounded(kColTsUs, true) && bounded(kColTsUs, false)) {
    rows /= 100;
  } else if (bounded(kColTsUs, true) || bounded(kColTsUs, false)) {
    rows /= 3;
  }
  if (like_mask) rows /= 2;  // still every block decoded, fewer rows out
  if (rows < 1) rows = 1;
  info->idxNum = mask | like_mask;
  info->estimatedRows = static_cast<sqlite3_int64>(rows);
  info->estimatedCost = rows;
  if (file_eq && line_eq) info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;

  // Rows come out ordered by (file_id, line_no); consume an ORDER BY that
  // asks for that order (line_no alone is enough when file_id is fixed).
  bool ordered = info->nOrderBy > 0;
  int pos = 0;  // 0: expecting file_id, 1: expecting line_no, 2: rows unique
  for (int i = 0; i < info->nOrderBy && ordered; ++i) {
    const auto& o = info->aOrderBy[i];
    if (pos == 2) break;
    if (o.desc) {
      ordered = false;
    } else if (o.iColumn == kColFileId && pos == 0) {
      pos = 1;
    } else if (o.iColumn == kColFileId && file_eq) {
      continue;
    } else if (o.iColumn == kColLineNo && (pos == 1 || file_eq)) {
      pos = 2;
    } else {
      ordered = false;
    }
  }
  if (ordered) info->orderByConsumed = 1;
  return SQLITE_OK;
}

int Open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) {
  return Guard(vtab, [&] {
    auto cursor = std::make_unique<LinesCursor>();
    cursor->base = {};
    cursor->table = reinterpret_cast<LinesTable*>(vtab);
    *out = &cursor.release()->base;
  });
}

int Close(sqlite3_vtab_cursor* cur) {
  delete reinterpret_cast<LinesCursor*>(cur);
  return SQLITE_OK;
}

// Moves to the next line that passes the cursor's ranges, loading blocks as
// needed; sets eof when there is none.
void Seek(LinesCursor& c) {
  for (;;) {
    if (c.have_block) {
      for (; c.idx < c.Block().size(); ++c.idx) {
        int64_t line_no = c.LineNo();
        if (line_no > c.line_nos.hi) {
          c.idx = c.Block().size();
          break;
        }
        if (line_no < c.line_nos.lo) continue;
        if (c.ts.constrained) {
          int64_t ts = c.Block().line(c.idx).ts_us;
          if (ts == kNoTimestamp || ts < c.ts.lo || ts > c.ts.hi) continue;
        }
        if (c.like) {
          std::string_view text = c.Block().Text(c.idx);
          if (c.like_message) {
            text = text.substr(std::min<size_t>(c.Block().line(c.idx).msg_start, text.size()));
          }
          if (!c.like->MayMatch(text)) continue;
        }
        return;
      }
    }
    c.have_block = false;
    if (!LoadNextBlock(c)) {
      c.eof = true;
      return;
    }
    c.have_block = true;
    c.idx = 0;
    if (c.line_nos.lo > c.first_line) {
      c.idx = static_cast<size_t>(std::min<uint64_t>(
          static_cast<uint64_t>(c.line_nos.lo) - static_cast<uint64_t>(c.first_line),
          c.Block().size()));
    }
  }
}

void BindTs(Statement& s, const Range& ts) {
  s.Bind(5, int64_t{ts.constrained ? 0 : 1});
  s.Bind(6, ts.lo);
  s.Bind(7, ts.hi);
}

int Filter(sqlite3_vtab_cursor* cur, int idx_num, const char*, int argc, sqlite3_value** argv) {
  auto& c = *reinterpret_cast<LinesCursor*>(cur);
  return Guard(cur->pVtab, [&] {
    c.files = Range();
    c.line_nos = Range();
    c.ts = Range();
    c.like.reset();
    c.like_message = (idx_num & kLikeMessage) != 0;
    c.have_block = false;
    c.eof = false;
    // What was decoded ahead for the last scan is not this one's.
    if (c.read_ahead) {
      c.read_ahead->Drain();
      if (c.ahead_block) c.read_ahead->Recycle(std::move(c.ahead_block));
    }
    c.statement_done = false;
    c.blocks_read = 0;
    c.active = nullptr;
    int arg = 0;
    for (int s = 0; s < kSlotCount; ++s) {
      if (!((idx_num >> s) & 1)) continue;
      if (arg >= argc) {
        throw Error(ErrorCode::kInternal, "casefile_lines: missing constraint value");
      }
      Range& range = s < kOpsPerColumn ? c.files : s < 2 * kOpsPerColumn ? c.line_nos : c.ts;
      range.Apply(kSlotOps[s % kOpsPerColumn], argv[arg++]);
    }
    if (idx_num & (kLikeText | kLikeMessage)) {
      if (arg >= argc) {
        throw Error(ErrorCode::kInternal, "casefile_lines: missing LIKE pattern");
      }
      // A NULL pattern matches nothing, which SQLite decides on its own.
      if (const unsigned char* p = sqlite3_value_text(argv[arg])) {
        LikeFilter f(std::string_view(reinterpret_cast<const char*>(p),
                                      static_cast<size_t>(sqlite3_value_bytes(argv[arg]))));
        if (f.filters()) c.like = std::move(f);
      }
      ++arg;
    }
    if (c.files.Empty() || c.line_nos.Empty() || c.ts.Empty()) {
      c.eof = true;
      return;
    }
    const std::string& schema = c.table->schema;
    sqlite3* db = c.table->db;
    if (c.files.lo == c.files.hi) {
      // One file: find the block holding the first wanted line with one
      // index seek, then read forward only as far as the last wanted line.
      if (!c.start) {
        char* q = sqlite3_mprintf(
            "SELECT first_line FROM \"%w\".line_blocks INDEXED BY line_blocks_by_line "
            "WHERE file_id = ?1 AND first_line <= ?2 ORDER BY first_line DESC LIMIT 1",
            schema.c_str());
        std::string sql = q ? q : "";
        sqlite3_free(q);
        c.start = Statement(db, sql);
        c.seek = Statement(db, BlockColumns(schema) +
                                   "WHERE file_id = ?1 AND first_line >= ?3 AND first_line <= ?4 " +
                                   kTsFilter + "ORDER BY file_id, first_line");
      }
      c.start.Reset();
      c.start.Bind(1, c.files.lo);
      c.start.Bind(2, c.line_nos.lo);
      int64_t from = c.start.Step() ? c.start.Int(0) : kMin;
      c.start.Reset();
      c.seek.Reset();
      c.seek.Bind(1, c.files.lo);
      c.seek.Bind(3, from);
      c.seek.Bind(4, c.line_nos.hi);
      BindTs(c.seek, c.ts);
      c.active = c.seek.get();
    } else {
      if (!c.scan) {
        c.scan = Statement(db, BlockColumns(schema) +
                                   "WHERE file_id >= ?1 AND file_id <= ?2 AND first_line <= ?4 "
                                   "AND first_line + line_count > ?3 " +
                                   kTsFilter + "ORDER BY file_id, first_line");
      }
      c.scan.Reset();
      c.scan.Bind(1, c.files.lo);
      c.scan.Bind(2, c.files.hi);
      c.scan.Bind(3, c.line_nos.lo);
      c.scan.Bind(4, c.line_nos.hi);
      BindTs(c.scan, c.ts);
      c.active = c.scan.get();
    }
    Seek(c);
  });
}

int Next(sqlite3_vtab_cursor* cur) {
  auto& c = *reinterpret_cast<LinesCursor*>(cur);
  return Guard(cur->pVtab, [&] {
    ++c.idx;
    Seek(c);
  });
}

int Eof(sqlite3_vtab_cursor* cur) { return reinterpret_cast<LinesCursor*>(cur)->eof ? 1 : 0; }

int ColumnValue(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto& c = *reinterpret_cast<LinesCursor*>(cur);
  const DecodedLine& l = c.Block().line(c.idx);
  switch (col) {
    case kColFileId:
      sqlite3_result_int64(ctx, c.file_id);
      break;
    case kColLineNo:
      sqlite3_result_int64(ctx, c.LineNo());
      break;
    case kColOffset:
      sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(l.offset));
      break;
    case kColTsUs:
      if (l.ts_us != kNoTimestamp) sqlite3_result_int64(ctx, l.ts_us);
      break;
    case kColLevel:
      if (l.level != Level::kUnknown) {
        sqlite3_result_text(ctx, LevelName(l.level), -1, SQLITE_STATIC);
      }
      break;
    case kColHost: {
      std::string_view host = c.Block().Host(c.idx);
      if (host.empty()) {
        LoadFileAttribution(c);
        host = c.file_host;
      }
      if (!host.empty()) {
        sqlite3_result_text(ctx, host.data(), static_cast<int>(host.size()), SQLITE_TRANSIENT);
      }
      break;
    }
    case kColRank: {
      int64_t rank = l.rank;
      if (rank == -1) {
        LoadFileAttribution(c);
        rank = c.file_rank;
      }
      if (rank != -1) sqlite3_result_int64(ctx, rank);
      break;
    }
    case kColPid:
      if (l.pid != -1) sqlite3_result_int64(ctx, l.pid);
      break;
    case kColFlags:
      sqlite3_result_int64(ctx, l.flags);
      break;
    case kColText:
    case kColMessage: {
      std::string_view text = c.Block().Text(c.idx);
      if (col == kColMessage) text = text.substr(std::min<size_t>(l.msg_start, text.size()));
      sqlite3_result_text(ctx, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
      break;
    }
    case kColSignatureId:
      if (l.signature != 0) sqlite3_result_int64(ctx, l.signature);
      break;
    case kColTemplateId:
      if (l.signature != 0) {
        int rc = Guard(cur->pVtab, [&] { LoadTemplateMap(c); });
        if (rc != SQLITE_OK) return rc;
        if (l.signature < c.template_of.size() && c.template_of[l.signature] != 0) {
          sqlite3_result_int64(ctx, c.template_of[l.signature]);
        }
      }
      break;
    default:
      break;  // NULL
  }
  return SQLITE_OK;
}

int Rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  auto& c = *reinterpret_cast<LinesCursor*>(cur);
  // Unique for file ids below 2^31 and line numbers below 2^32.
  *out = static_cast<sqlite3_int64>((static_cast<uint64_t>(c.file_id) << 32) +
                                    static_cast<uint64_t>(c.LineNo()));
  return SQLITE_OK;
}

const sqlite3_module kLinesModule = {
    /* iVersion */ 0,
    /* xCreate */ Connect,
    /* xConnect */ Connect,
    /* xBestIndex */ BestIndex,
    /* xDisconnect */ Disconnect,
    /* xDestroy */ Disconnect,
    /* xOpen */ Open,
    /* xClose */ Close,
    /* xFilter */ Filter,
    /* xNext */ Next,
    /* xEof */ Eof,
    /* xColumn */ ColumnValue,
    /* xRowid */ Rowid,
    /* xUpdate: none, the table is read-only */ nullptr,
    /* xBegin */ nullptr,
    /* xSync */ nullptr,
    /* xCommit */ nullptr,
    /* xRollback */ nullptr,
    /* xFindFunction */ nullptr,
    /* xRename */ nullptr,
    /* xSavepoint */ nullptr,
    /* xRelease */ nullptr,
    /* xRollbackTo */ nullptr,
    /* xShadowName */ nullptr,
};

}  // namespace

void RegisterLinesModule(sqlite3* db) {
  int rc = sqlite3_create_module_v2(db, kLinesModuleName, &kLinesModule, nullptr, nullptr);
  if (rc != SQLITE_OK) ThrowSqlite(db, rc, "cannot register the lines module");
}

}  // namespace casefile
