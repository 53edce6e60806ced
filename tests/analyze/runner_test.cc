// The runner's contract: a failing analyzer is recorded and never stops the
// others; an analyzer without its inputs is "not_applicable" with the reason;
// a finding without evidence counts as a failure; output order is stable.
#include "analyze/runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "analyze/line_pass.h"
#include "common/error.h"
#include "index/index_writer.h"
#include "test_util.h"

namespace casefile {
namespace {

class FakeAnalyzer : public Analyzer {
 public:
  enum class Mode { kEmit, kThrow, kNoEvidence, kThrowInApplicability, kEmitFallback };
  FakeAnalyzer(std::string name, std::vector<std::string> kinds, Mode mode) : mode_(mode) {
    info_.name = std::move(name);
    info_.version = "1";
    info_.needed_kinds = std::move(kinds);
  }
  const AnalyzerInfo& info() const override { return info_; }
  std::optional<std::string> NotApplicable(const AnalysisContext& ctx) const override {
    if (mode_ == Mode::kThrowInApplicability) throw Error(ErrorCode::kInternal, "cannot decide");
    return Analyzer::NotApplicable(ctx);
  }
  void Run(AnalysisContext& ctx) const override {
    if (mode_ == Mode::kThrow) throw Error(ErrorCode::kInternal, "deliberate failure");
    Finding f;
    f.code = info_.name + ".code";
    f.severity = info_.name == "b" ? Severity::kWarning : Severity::kError;
    f.summary = "from " + info_.name;
    f.error_unless_explained = mode_ == Mode::kEmitFallback;
    if (mode_ == Mode::kEmit || mode_ == Mode::kEmitFallback) {
      ctx.index().ScanLines(ctx.files().front().id, [&](const LineRecord& l) {
        f.evidence.push_back(ctx.MakeEvidence(l.file_id, l.line_no, l.text));
        return false;
      });
    }
    ctx.Emit(f);
  }

 private:
  AnalyzerInfo info_;
  Mode mode_;
};

std::unique_ptr<IndexReader> OneLogIndex(const test::TempDir& tmp) {
  const std::string db = tmp.Join("i.db");
  {
    IndexWriter w(db);
    BundleRow b;
    b.name = "bundle";
    b.status = "complete";
    const int64_t bid = w.AddBundle(b);
    FileRow f;
    f.bundle_id = bid;
    f.path = "logs/a.log";
    f.kind = "log";
    f.entry_type = "file";
    const int64_t fid = w.AddFile(f);
    LineRecord l;
    l.file_id = fid;
    l.line_no = 1;
    l.text = "the first line";
    w.AddLine(l);
    w.EndFileLines(fid);
    w.Commit();
  }
  return IndexReader::Open(db);
}

TEST(Runner, FailureIsIsolatedAndNotApplicableExplained) {
  test::TempDir tmp;
  auto index = OneLogIndex(tmp);
  std::vector<std::unique_ptr<Analyzer>> list;
  list.push_back(std::make_unique<FakeAnalyzer>("a", std::vector<std::string>{"log"},
                                                FakeAnalyzer::Mode::kThrow));
  list.push_back(std::make_unique<FakeAnalyzer>("b", std::vector<std::string>{"log"},
                                                FakeAnalyzer::Mode::kEmit));
  list.push_back(std::make_unique<FakeAnalyzer>("c", std::vector<std::string>{"trace", "hlo"},
                                                FakeAnalyzer::Mode::kEmit));
  list.push_back(std::make_unique<FakeAnalyzer>("d", std::vector<std::string>{"log"},
                                                FakeAnalyzer::Mode::kNoEvidence));
  list.push_back(std::make_unique<FakeAnalyzer>("e", std::vector<std::string>{"log"},
                                                FakeAnalyzer::Mode::kEmit));
  const AnalysisResult r = RunAnalyzers(*index, {}, list);
  ASSERT_EQ(r.analyzers.size(), 5u);
  EXPECT_EQ(r.analyzers[0].status, "failed");
  EXPECT_EQ(r.analyzers[0].reason, "deliberate failure");
  EXPECT_EQ(r.analyzers[1].status, "ran");
  EXPECT_EQ(r.analyzers[1].findings, 1);
  EXPECT_EQ(r.analyzers[2].status, "not_applicable");
  EXPECT_EQ(r.analyzers[2].reason, "no trace or hlo files in the bundle");
  EXPECT_EQ(r.analyzers[3].status, "failed");
  EXPECT_NE(r.analyzers[3].reason.find("without evidence"), std::string::npos);
  ASSERT_EQ(r.findings.size(), 2u);
  // Errors before warnings, whatever the run order.
  EXPECT_EQ(r.findings[0].code, "e.code");
  EXPECT_EQ(r.findings[1].code, "b.code");
  const Evidence& ev = r.findings[1].evidence.at(0);
  EXPECT_EQ(ev.bundle, "bundle");
  EXPECT_EQ(ev.path, "logs/a.log");
  EXPECT_EQ(ev.line, 1);
  EXPECT_EQ(ev.text, "the first line");
}

TEST(Runner, SelectsByNameAndRejectsUnknown) {
  test::TempDir tmp;
  auto index = OneLogIndex(tmp);
  std::vector<std::unique_ptr<Analyzer>> list;
  list.push_back(std::make_unique<FakeAnalyzer>("a", std::vector<std::string>{"log"},
                                                FakeAnalyzer::Mode::kEmit));
  list.push_back(std::make_unique<FakeAnalyzer>("b", std::vector<std::string>{"log"},
                                                FakeAnalyzer::Mode::kEmit));
  const AnalysisResult r = RunAnalyzers(*index, {"b"}, list);
  ASSERT_EQ(r.analyzers.size(), 1u);
  EXPECT_EQ(r.analyzers[0].name, "b");
  try {
    RunAnalyzers(*index, {"nope"}, list);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnknownAnalyzer);
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos);
  }
}

// Records where it ran: the thread and the reader its context read.
class WhereAnalyzer : public Analyzer {
 public:
  struct Log {
    std::mutex m;
    std::map<std::string, std::pair<std::thread::id, const IndexReader*>> where;
  };
  WhereAnalyzer(std::string name, bool anywhere, Log& log) : anywhere_(anywhere), log_(log) {
    info_.name = std::move(name);
    info_.version = "1";
    info_.needed_kinds = {"log"};
  }
  const AnalyzerInfo& info() const override { return info_; }
  bool RunsOnAnyThread() const override { return anywhere_; }
  void Run(AnalysisContext& ctx) const override {
    // Every analyzer asks for the shared rank map: it is built once.
    EXPECT_EQ(ctx.rank_hosts().world_size(), 0);
    // Long enough that the workers overlap.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Finding f;
    f.code = info_.name + ".code";
    f.severity = Severity::kWarning;
    f.summary = "from " + info_.name;
    ctx.index().ScanLines(ctx.files().front().id, [&](const LineRecord& l) {
      f.evidence.push_back(ctx.MakeEvidence(l.file_id, l.line_no, l.text));
      return false;
    });
    ctx.Emit(f);
    std::lock_guard<std::mutex> lock(log_.m);
    log_.where[info_.name] = {std::this_thread::get_id(), &ctx.index()};
  }

 private:
  AnalyzerInfo info_;
  bool anywhere_;
  Log& log_;
};

AnalyzerList WhereList(WhereAnalyzer::Log& log) {
  AnalyzerList list;
  for (const char* name : {"p1", "p2", "s1", "p3", "p4"}) {
    list.push_back(std::make_shared<WhereAnalyzer>(name, name[0] == 'p', log));
  }
  return list;
}

TEST(Runner, AnalyzersSpreadOverThreadsGiveTheSequentialResult) {
  test::TempDir tmp;
  auto index = OneLogIndex(tmp);
  WhereAnalyzer::Log seq_log, par_log;
  const AnalysisResult seq = RunAnalyzers(*index, {}, WhereList(seq_log));
  int opened = 0;
  const AnalysisResult par = RunAnalyzers(
      *index, {}, WhereList(par_log),
      [&] {
        ++opened;
        return IndexReader::Open(tmp.Join("i.db"));
      },
      3);
  EXPECT_EQ(opened, 2);  // the calling thread reads through `index`
  ASSERT_EQ(par.analyzers.size(), seq.analyzers.size());
  for (size_t i = 0; i < seq.analyzers.size(); ++i) {
    EXPECT_EQ(par.analyzers[i].name, seq.analyzers[i].name);
    EXPECT_EQ(par.analyzers[i].status, seq.analyzers[i].status);
    EXPECT_EQ(par.analyzers[i].findings, 1);
  }
  ASSERT_EQ(par.findings.size(), 5u);
  for (size_t i = 0; i < par.findings.size(); ++i) {
    EXPECT_EQ(par.findings[i].code, seq.findings[i].code);
    ASSERT_EQ(par.findings[i].evidence.size(), 1u);
    EXPECT_EQ(par.findings[i].evidence[0].text, seq.findings[i].evidence[0].text);
    EXPECT_EQ(par.findings[i].evidence[0].line, seq.findings[i].evidence[0].line);
  }
  // The one that must stay on the calling thread did, over its reader; the
  // others ran on more than one thread, over more than one reader.
  const auto me = std::this_thread::get_id();
  EXPECT_EQ(par_log.where["s1"].first, me);
  EXPECT_EQ(par_log.where["s1"].second, index.get());
  std::set<std::thread::id> threads;
  std::set<const IndexReader*> readers;
  for (const char* name : {"p1", "p2", "p3", "p4"}) {
    threads.insert(par_log.where[name].first);
    readers.insert(par_log.where[name].second);
  }
  EXPECT_GT(threads.size(), 1u);
  EXPECT_EQ(threads.size(), readers.size());
  // Sequentially, everything runs here.
  for (const auto& [name, where] : seq_log.where) EXPECT_EQ(where.first, me) << name;
}

TEST(Runner, ReadersThatCannotBeOpenedMeanFewerThreads) {
  test::TempDir tmp;
  auto index = OneLogIndex(tmp);
  WhereAnalyzer::Log log;
  const AnalysisResult r = RunAnalyzers(
      *index, {}, WhereList(log),
      []() -> std::unique_ptr<IndexReader> { throw Error(ErrorCode::kIo, "no more readers"); }, 4);
  ASSERT_EQ(r.findings.size(), 5u);
  for (const AnalyzerStatus& a : r.analyzers) EXPECT_EQ(a.status, "ran") << a.name;
  for (const auto& [name, where] : log.where) {
    EXPECT_EQ(where.first, std::this_thread::get_id()) << name;
    EXPECT_EQ(where.second, index.get()) << name;
  }
}

// Analyzers that read no lines run beside the shared pass, on their own
// thread and reader, while the line scans are fed; the result is the
// sequential one.
struct Beside {
  std::mutex m;
  std::condition_variable cv;
  bool plain_ran = false;       // "n1" has run
  bool pass_saw_plain = false;  // the scan's consumer saw it while reading
  // Where each analyzer without lines ran: its thread and reader.
  std::map<std::string, std::pair<std::thread::id, const IndexReader*>> plain;
  std::thread::id scan_thread;  // where the line was fed
};

class BesideScan : public LineScan {
 public:
  explicit BesideScan(Beside& b) : b_(b) {}
  std::unique_ptr<FileLineConsumer> ForFile(const FileRow&) const override {
    struct Consumer : FileLineConsumer {
      Beside& b;
      explicit Consumer(Beside& b) : b(b) {}
      void Line(const LineRecord&) override {
        // Waits (bounded, so that a runner that does not overlap fails
        // rather than hangs) for the plain analyzer to have run.
        std::unique_lock<std::mutex> lock(b.m);
        b.scan_thread = std::this_thread::get_id();
        b.pass_saw_plain =
            b.cv.wait_for(lock, std::chrono::seconds(10), [&] { return b.plain_ran; });
      }
    };
    return std::make_unique<Consumer>(b_);
  }

 private:
  Beside& b_;
};

class BesideAnalyzer : public Analyzer {
 public:
  BesideAnalyzer(std::string name, bool reads_lines, Beside& b) : reads_lines_(reads_lines), b_(b) {
    info_.name = std::move(name);
    info_.version = "1";
    info_.needed_kinds = {"log"};
  }
  const AnalyzerInfo& info() const override { return info_; }
  bool RunsOnAnyThread() const override { return true; }
  std::unique_ptr<LineScan> MakeLineScan(const AnalysisContext&) const override {
    if (!reads_lines_) return nullptr;
    return std::make_unique<BesideScan>(b_);
  }
  void Run(AnalysisContext& ctx) const override {
    if (reads_lines_) FilledLineScan<BesideScan>(ctx, *this);
    Finding f;
    f.code = info_.name + ".code";
    f.severity = Severity::kWarning;
    f.summary = "from " + info_.name;
    f.evidence.push_back(ctx.MakeEvidence(ctx.files().front().id, 1, "the first line"));
    ctx.Emit(f);
    if (reads_lines_) return;
    std::lock_guard<std::mutex> lock(b_.m);
    b_.plain[info_.name] = {std::this_thread::get_id(), &ctx.index()};
    if (info_.name == "n1") {
      b_.plain_ran = true;
      b_.cv.notify_all();
    }
  }

 private:
  AnalyzerInfo info_;
  bool reads_lines_;
  Beside& b_;
};

AnalyzerList BesideList(Beside& b) {
  AnalyzerList list;
  // "n0" is prepared before the first line scan, "n1" after it.
  for (const char* name : {"n0", "l1", "n1", "l2"}) {
    list.push_back(std::make_shared<BesideAnalyzer>(name, name[0] == 'l', b));
  }
  return list;
}

TEST(Runner, AnalyzersWithoutLinesRunBesideThePass) {
  test::TempDir tmp;
  auto index = OneLogIndex(tmp);
  Beside par;
  std::vector<const IndexReader*> opened;
  const AnalysisResult r = RunAnalyzers(
      *index, {}, BesideList(par),
      [&] {
        auto reader = IndexReader::Open(tmp.Join("i.db"));
        opened.push_back(reader.get());
        return reader;
      },
      2);
  EXPECT_TRUE(par.pass_saw_plain) << "the plain analyzer did not run while the pass read";
  // Both ran on the side thread, through a reader of their own: "n0" too,
  // prepared before the first line scan was known.
  ASSERT_EQ(par.plain.size(), 2u);
  for (const auto& [name, where] : par.plain) {
    EXPECT_NE(where.first, par.scan_thread) << name;
    EXPECT_NE(where.first, std::this_thread::get_id()) << name;
    EXPECT_NE(where.second, index.get()) << name;
    EXPECT_NE(std::find(opened.begin(), opened.end(), where.second), opened.end()) << name;
  }
  EXPECT_EQ(par.plain["n0"], par.plain["n1"]);
  // The findings are the sequential run's: every analyzer ran, in the
  // deterministic order.
  ASSERT_EQ(r.analyzers.size(), 4u);
  std::vector<std::string> codes;
  for (const AnalyzerStatus& a : r.analyzers) EXPECT_EQ(a.status, "ran") << a.name;
  for (const Finding& f : r.findings) codes.push_back(f.code);
  EXPECT_EQ(codes, (std::vector<std::string>{"l1.code", "l2.code", "n0.code", "n1.code"}));
}

TEST(Runner, WithoutLineScansNothingRunsBeside) {
  // No pass to overlap: the analyzers share the threads as before, and no
  // reader is opened for a side thread.
  test::TempDir tmp;
  auto index = OneLogIndex(tmp);
  WhereAnalyzer::Log log;
  int opened = 0;
  const AnalysisResult r = RunAnalyzers(
      *index, {}, WhereList(log),
      [&] {
        ++opened;
        return IndexReader::Open(tmp.Join("i.db"));
      },
      2);
  EXPECT_EQ(opened, 1);
  ASSERT_EQ(r.findings.size(), 5u);
}

TEST(Finding, NormalizeSortsAndDeduplicates) {
  Finding f;
  f.culprits = {{std::string("h2"), std::nullopt, std::nullopt},
                {std::string("h1"), std::nullopt, 3},
                {std::string("h2"), std::nullopt, std::nullopt}};
  f.evidence = {{"b", "x.log", 9, "nine"}, {"b", "x.log", 2, "two"}, {"b", "x.log", 9, "nine"}};
  Normalize(f);
  ASSERT_EQ(f.culprits.size(), 2u);
  EXPECT_EQ(*f.culprits[0].host, "h1");
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].line, 2);
  EXPECT_EQ(f.evidence[1].line, 9);
}

// A fallback error stays an error alone, and becomes info (naming the
// finding that explains the run) beside another analyzer's error; a warning
// of another analyzer explains nothing.
TEST(Runner, FallbackErrorIsLoweredOnlyBesideAnotherError) {
  test::TempDir tmp;
  auto index = OneLogIndex(tmp);
  auto run = [&](const std::string& other_name) {
    std::vector<std::unique_ptr<Analyzer>> list;
    list.push_back(std::make_unique<FakeAnalyzer>("f", std::vector<std::string>{"log"},
                                                  FakeAnalyzer::Mode::kEmitFallback));
    if (!other_name.empty()) {
      list.push_back(std::make_unique<FakeAnalyzer>(other_name, std::vector<std::string>{"log"},
                                                    FakeAnalyzer::Mode::kEmit));
    }
    return RunAnalyzers(*index, {}, list);
  };
  auto find = [](const AnalysisResult& r) {
    for (const Finding& f : r.findings)
      if (f.code == "f.code") return f;
    ADD_FAILURE() << "no f.code";
    return Finding{};
  };

  const Finding alone = find(run(""));
  EXPECT_EQ(alone.severity, Severity::kError);
  EXPECT_EQ(alone.summary, "from f");

  const Finding beside_warning = find(run("b"));  // "b" emits a warning
  EXPECT_EQ(beside_warning.severity, Severity::kError);

  const Finding beside_error = find(run("c"));
  EXPECT_EQ(beside_error.severity, Severity::kInfo);
  EXPECT_EQ(beside_error.summary, "from f c.code explains the run.");
}

}  // namespace
}  // namespace casefile
