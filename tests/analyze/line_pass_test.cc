// The shared line pass (analyze/line_pass.h): each scan sees, for each file
// it asked for, every line once and in order, whatever the number of
// threads; a file that cannot be read fails only the scans that read it; and
// an analyzer gets the same findings from the runner's shared pass as from a
// pass of its own.
#include "analyze/line_pass.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <functional>
#include <string>
#include <vector>

#include "analyze/analyzer.h"
#include "analyze/runner.h"
#include "common/error.h"
#include "index/index_writer.h"
#include "index/line_block.h"
#include "test_util.h"

namespace casefile {
namespace {

struct FileSpec {
  const char* path;
  const char* kind;
  int lines;          // each "PATH line N"
  int64_t size = -1;  // files.size: unknown unless given
};

// An index of one bundle holding `files`, in that order.
std::string WriteFiles(const test::TempDir& tmp, const std::vector<FileSpec>& files) {
  const std::string db = tmp.Join("i.db");
  IndexWriter w(db);
  BundleRow b;
  b.name = "bundle";
  b.status = "complete";
  const int64_t bid = w.AddBundle(b);
  for (const FileSpec& spec : files) {
    FileRow f;
    f.bundle_id = bid;
    f.path = spec.path;
    f.kind = spec.kind;
    f.entry_type = "file";
    f.line_count = spec.lines;
    f.size = spec.size;
    const int64_t fid = w.AddFile(f);
    for (int i = 1; i <= spec.lines; ++i) {
      LineRecord l;
      l.file_id = fid;
      l.line_no = i;
      const std::string text = std::string(spec.path) + " line " + std::to_string(i);
      l.text = text;
      w.AddLine(l);
    }
    w.EndFileLines(fid);
  }
  w.Commit();
  return db;
}

// Files a.log (3 lines), b.log (2,500 lines: several blocks), c.cfg (2
// lines, kind config), d.log (no lines).
std::string WriteIndex(const test::TempDir& tmp) {
  return WriteFiles(tmp, {{"logs/a.log", "log", 3},
                          {"logs/b.log", "log", 2500},
                          {"conf/c.cfg", "config", 2},
                          {"logs/d.log", "log", 0}});
}

// Records the lines of one file; throws at line `throw_at` when set.
class Recorder : public FileLineConsumer {
 public:
  explicit Recorder(int64_t throw_at) : throw_at_(throw_at) {}
  void Line(const LineRecord& rec) override {
    if (rec.line_no == throw_at_) throw Error(ErrorCode::kCorrupt, "cannot read line 7");
    lines.push_back(rec.line_no);
    texts.emplace_back(rec.text);
  }
  void Finish() override { ++finished; }
  std::vector<int64_t> lines;
  std::vector<std::string> texts;
  int finished = 0;

 private:
  int64_t throw_at_;
};

// Reads the files whose kind is `kind`; its consumers throw at line 7 of
// files whose path holds `throw_in` (when not empty).
class KindScan : public LineScan {
 public:
  KindScan(std::string kind, std::string throw_in = "")
      : kind_(std::move(kind)), throw_in_(std::move(throw_in)) {}
  std::unique_ptr<FileLineConsumer> ForFile(const FileRow& file) const override {
    if (file.kind != kind_) return nullptr;
    const bool fail = !throw_in_.empty() && file.path.find(throw_in_) != std::string::npos;
    return std::make_unique<Recorder>(fail ? 7 : -1);
  }

 private:
  std::string kind_;
  std::string throw_in_;
};

const Recorder* At(const LineScan& scan, size_t i) {
  return static_cast<const Recorder*>(scan.consumers.at(i).get());
}

void ExpectWholeFile(const Recorder* r, const FileRow& file) {
  ASSERT_NE(r, nullptr) << file.path;
  ASSERT_EQ(r->lines.size(), static_cast<size_t>(file.line_count)) << file.path;
  for (size_t k = 0; k < r->lines.size(); ++k) {
    ASSERT_EQ(r->lines[k], static_cast<int64_t>(k + 1)) << file.path;
    ASSERT_EQ(r->texts[k], file.path + " line " + std::to_string(k + 1));
  }
  EXPECT_EQ(r->finished, 1) << file.path;
}

TEST(LinePass, EachScanSeesEveryLineOfItsFilesOnceInOrderOnAnyThreadCount) {
  test::TempDir tmp;
  const std::string db = WriteIndex(tmp);
  auto index = IndexReader::Open(db);
  auto second = IndexReader::Open(db);
  const std::vector<FileRow> files = index->Files();
  ASSERT_EQ(files.size(), 4u);
  for (const std::vector<const IndexReader*>& readers :
       {std::vector<const IndexReader*>{index.get()},
        std::vector<const IndexReader*>{index.get(), second.get()}}) {
    KindScan logs("log"), configs("config");
    RunLinePass(files, {&logs, &configs}, readers);
    ASSERT_EQ(logs.consumers.size(), files.size());
    ASSERT_EQ(configs.consumers.size(), files.size());
    EXPECT_FALSE(logs.error);
    for (size_t i = 0; i < files.size(); ++i) {
      if (files[i].kind == "log") {
        ExpectWholeFile(At(logs, i), files[i]);
        EXPECT_EQ(At(configs, i), nullptr);
      } else {
        ExpectWholeFile(At(configs, i), files[i]);
        EXPECT_EQ(At(logs, i), nullptr);
      }
    }
  }
}

// Records the order in which the pass asks for the files' consumers.
class OrderScan : public LineScan {
 public:
  std::unique_ptr<FileLineConsumer> ForFile(const FileRow& file) const override {
    asked.push_back(file.path);
    return std::make_unique<Recorder>(-1);
  }
  mutable std::vector<std::string> asked;  // one reader: one thread
};

TEST(LinePass, TheLargestFilesAreReadFirstAndStillFillTheirOwnSlots) {
  // A bundle's one big log taken last would run alone at the end while the
  // other threads idle: the pass takes files by decreasing size (unknown
  // sizes last, ties in file order).
  test::TempDir tmp;
  // Names whose order (the files' order) is not the sizes' order.
  const std::string db = WriteFiles(tmp, {{"0_unknown.log", "log", 2, -1},
                                          {"a_small.log", "log", 2, 10},
                                          {"b_tie.log", "log", 2, 10},
                                          {"c_medium.log", "log", 2, 100},
                                          {"d_big.log", "log", 2, 1000}});
  auto index = IndexReader::Open(db);
  const std::vector<FileRow> files = index->Files();
  OrderScan scan;
  RunLinePass(files, {&scan}, {index.get()});
  ASSERT_EQ(files.front().path, "0_unknown.log");  // the files' own order
  EXPECT_EQ(scan.asked, (std::vector<std::string>{"d_big.log", "c_medium.log", "a_small.log",
                                                  "b_tie.log", "0_unknown.log"}));
  for (size_t i = 0; i < files.size(); ++i) ExpectWholeFile(At(scan, i), files[i]);
}

TEST(LinePass, AConsumerThatThrowsFailsItsOwnScanOnly) {
  test::TempDir tmp;
  const std::string db = WriteIndex(tmp);
  auto index = IndexReader::Open(db);
  auto second = IndexReader::Open(db);
  const std::vector<FileRow> files = index->Files();
  KindScan failing("log", "b.log"), logs("log"), configs("config");
  RunLinePass(files, {&failing, &logs, &configs}, {index.get(), second.get()});
  ASSERT_TRUE(failing.error);
  try {
    std::rethrow_exception(failing.error);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorrupt);
    EXPECT_STREQ(e.what(), "cannot read line 7");
  }
  EXPECT_FALSE(configs.error);
  EXPECT_FALSE(logs.error);
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].kind == "log") ExpectWholeFile(At(logs, i), files[i]);
    if (files[i].path == "logs/b.log") {
      EXPECT_EQ(At(failing, i), nullptr);  // its half-read consumer is dropped
    } else if (files[i].kind == "log") {
      ExpectWholeFile(At(failing, i), files[i]);
    } else {
      ExpectWholeFile(At(configs, i), files[i]);
    }
  }
}

// An analyzer over the shared pass: one finding per log file, citing its
// last line and the number of lines seen.
class CountingAnalyzer : public Analyzer {
 public:
  explicit CountingAnalyzer(std::string throw_in = "") : throw_in_(std::move(throw_in)) {
    info_.name = throw_in_.empty() ? "counting" : "failing";
    info_.version = "1";
    info_.needed_kinds = {"log"};
  }
  const AnalyzerInfo& info() const override { return info_; }
  bool RunsOnAnyThread() const override { return true; }
  std::unique_ptr<LineScan> MakeLineScan(const AnalysisContext&) const override {
    return std::make_unique<KindScan>("log", throw_in_);
  }
  void Run(AnalysisContext& ctx) const override {
    const auto scan = FilledLineScan<KindScan>(ctx, *this);
    for (size_t i = 0; i < ctx.files().size(); ++i) {
      const Recorder* r = At(*scan, i);
      if (!r || r->lines.empty()) continue;
      Finding f;
      f.code = info_.name + ".lines";
      f.severity = Severity::kInfo;
      f.summary = ctx.files()[i].path + ": " + std::to_string(r->lines.size()) + " lines";
      f.evidence.push_back(ctx.MakeEvidence(ctx.files()[i].id, r->lines.back(), r->texts.back()));
      ctx.Emit(std::move(f));
    }
  }

 private:
  AnalyzerInfo info_;
  std::string throw_in_;
};

// Records the lines of the blocks it wants: those whose first line
// `want` accepts.
class BlockRecorder : public Recorder {
 public:
  explicit BlockRecorder(std::function<bool(int64_t)> want)
      : Recorder(-1), want_(std::move(want)) {}
  bool Wants(const BlockInfo& block) const override { return want_(block.first_line); }

 private:
  std::function<bool(int64_t)> want_;
};

class BlockScan : public LineScan {
 public:
  explicit BlockScan(std::function<bool(int64_t)> want) : want_(std::move(want)) {}
  std::unique_ptr<FileLineConsumer> ForFile(const FileRow&) const override {
    return std::make_unique<BlockRecorder>(want_);
  }

 private:
  std::function<bool(int64_t)> want_;
};

// A damaged block fails the scans that wanted it, and only them: the
// others get the blocks they asked for, before it and after it.
TEST(LinePass, ADamagedBlockFailsOnlyTheScansThatWantedIt) {
  test::TempDir tmp;
  const std::string db = WriteFiles(tmp, {{"logs/b.log", "log", 9000}});
  const int64_t second = static_cast<int64_t>(kMaxBlockLines) + 1;
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    const std::string sql =
        "UPDATE line_blocks SET data = x'28b52ffd00' WHERE first_line = " + std::to_string(second);
    ASSERT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_changes(raw), 1);
    sqlite3_close(raw);
  }
  auto index = IndexReader::Open(db);
  const std::vector<FileRow> files = index->Files();
  ASSERT_EQ(index->Blocks(files[0].id).size(), 3u);
  BlockScan all([](int64_t) { return true; });
  BlockScan around([&](int64_t first) { return first != second; });
  BlockScan last([&](int64_t first) { return first > second; });
  RunLinePass(files, {&all, &around, &last}, {index.get()});
  ASSERT_TRUE(all.error);
  EXPECT_EQ(all.consumers[0], nullptr);
  EXPECT_FALSE(around.error);
  EXPECT_FALSE(last.error);
  const Recorder* r = At(around, 0);
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->lines.size(), 9000 - kMaxBlockLines);
  EXPECT_EQ(r->lines[kMaxBlockLines - 1], static_cast<int64_t>(kMaxBlockLines));
  EXPECT_EQ(r->lines[kMaxBlockLines], 2 * static_cast<int64_t>(kMaxBlockLines) + 1);
  EXPECT_EQ(r->finished, 1);
  const Recorder* l = At(last, 0);
  ASSERT_NE(l, nullptr);
  ASSERT_EQ(l->lines.size(), 9000 - 2 * kMaxBlockLines);
  EXPECT_EQ(l->lines.front(), 2 * static_cast<int64_t>(kMaxBlockLines) + 1);
  EXPECT_EQ(l->lines.back(), 9000);
}

TEST(LinePass, TheRunnersSharedPassGivesWhatAPassOfItsOwnGives) {
  test::TempDir tmp;
  const std::string db = WriteIndex(tmp);
  auto index = IndexReader::Open(db);
  // Alone: Run makes and fills its own scan.
  CountingAnalyzer alone;
  AnalysisContext ctx(*index);
  alone.Run(ctx);
  const std::vector<Finding> own = ctx.TakeFindings();
  ASSERT_EQ(own.size(), 2u);  // a.log and b.log; d.log has no lines

  AnalyzerList list{std::make_shared<CountingAnalyzer>(),
                    std::make_shared<CountingAnalyzer>("b.log")};
  const AnalysisResult r = RunAnalyzers(
      *index, {}, list, [&] { return IndexReader::Open(db); }, 2);
  ASSERT_EQ(r.analyzers.size(), 2u);
  EXPECT_EQ(r.analyzers[0].status, "ran") << r.analyzers[0].reason;
  EXPECT_EQ(r.analyzers[1].status, "failed");
  EXPECT_EQ(r.analyzers[1].reason, "cannot read line 7");
  ASSERT_EQ(r.findings.size(), own.size());
  for (size_t i = 0; i < own.size(); ++i) {
    EXPECT_EQ(r.findings[i].summary, own[i].summary);
    ASSERT_EQ(r.findings[i].evidence.size(), 1u);
    EXPECT_EQ(r.findings[i].evidence[0].line, own[i].evidence[0].line);
    EXPECT_EQ(r.findings[i].evidence[0].text, own[i].evidence[0].text);
  }
  EXPECT_EQ(r.findings[1].summary, "logs/b.log: 2500 lines");
}

}  // namespace
}  // namespace casefile
