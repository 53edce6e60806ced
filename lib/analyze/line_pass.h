// One decoding of the lines for every analyzer that reads them. Three
// built-in analyzers read every line of most files (hang's Megascale parser,
// runtime's kernel and timestamp scan, the rule automaton); decoding the
// zstd line blocks is most of the cost of each, so the runner decodes each
// file's blocks once and hands the lines to each analyzer that asked for
// the file, over the threads of the analysis (a file at a time, whichever
// thread is free).
//
// Not every block is read: ingest marks each block with what the scans look
// for in its lines (line_marks.h), each consumer says which blocks it needs
// (Wants), and the pass decodes only the blocks some consumer of the file
// wants, handing each block's lines only to the consumers that want it (in
// order). A consumer's result must be the same whether it is given every
// block or only those it wants (tests/corpus/line_marks_corpus_test.cc).
//
// An analyzer takes part by returning a LineScan from
// Analyzer::MakeLineScan: ForFile gives a consumer for the lines of one
// file (or none), and Run finds the filled scan, one consumer per file in
// the context's file order, through FilledLineScan. Consumers see a file's
// lines in order on one thread, so they need no locks; ForFile may be
// called for different files on different threads at once.
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "index/index_reader.h"

namespace casefile {

class AnalysisContext;
class Analyzer;

class FileLineConsumer {
 public:
  virtual ~FileLineConsumer() = default;
  // Before the first line: the file's blocks, without their lines.
  virtual void Plan(const std::vector<BlockInfo>& blocks) { (void)blocks; }
  // Whether this consumer needs the lines of `block`. Asked for each block
  // in turn, after the lines it was given of the blocks before it; true
  // unless the consumer knows (from the block's marks) that it holds
  // nothing for it. Only the blocks it wants reach Line().
  virtual bool Wants(const BlockInfo& block) const {
    (void)block;
    return true;
  }
  // Lines come in order; host and rank are the file's where the line names
  // none (as IndexReader::ScanLines gives them).
  virtual void Line(const LineRecord& rec) = 0;
  // After the file's last line. A consumer should drop here what it needed
  // only while reading (parsers, scratch): it is kept until its analyzer
  // runs, and a bundle may hold a hundred thousand files.
  virtual void Finish() {}
  // After Finish: true when the file gave the scan nothing, so the pass may
  // drop the consumer (its slot is then null, as for a file not read).
  virtual bool Empty() const { return false; }
};

class LineScan {
 public:
  virtual ~LineScan() = default;
  // A consumer of `file`'s lines, or nullptr when the scan does not read
  // that file. Called from any thread, for several files at once: it must
  // only read the scan's state.
  virtual std::unique_ptr<FileLineConsumer> ForFile(const FileRow& file) const = 0;

  // Filled by the pass: one entry per file passed to RunLinePass, in that
  // order, null where ForFile gave none or the consumer was Empty().
  std::vector<std::unique_ptr<FileLineConsumer>> consumers;
  // Set when a file could not be read for this scan (a corrupt block it
  // wanted): the first such error in file order. The analyzer then fails
  // with it, as it would have reading alone.
  std::exception_ptr error;
};

// Decodes the lines of each of `files` read by at least one of `scans`,
// once, on as many threads as `readers` (each thread reads through its own
// reader; readers[0] is the calling thread's). Fills each scan's consumers
// and error; never throws for what one file holds.
void RunLinePass(const std::vector<FileRow>& files, const std::vector<LineScan*>& scans,
                 const std::vector<const IndexReader*>& readers);

// The analyzer's scan, filled: the one the runner's shared pass filled (it
// is handed over from the context), else one made by `analyzer` and run now
// over the context's reader alone (an analyzer run on its own, as tests do).
// Rethrows the pass's error for this scan.
std::unique_ptr<LineScan> TakeFilledLineScan(AnalysisContext& ctx, const Analyzer& analyzer);

template <class Scan>
std::unique_ptr<Scan> FilledLineScan(AnalysisContext& ctx, const Analyzer& analyzer) {
  std::unique_ptr<LineScan> scan = TakeFilledLineScan(ctx, analyzer);
  return std::unique_ptr<Scan>(static_cast<Scan*>(scan.release()));
}

}  // namespace casefile
