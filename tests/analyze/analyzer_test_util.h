// What the end-to-end analyzer tests share: a bundle written under a temp
// dir goes through ingest into an index, one analyzer runs on it, and the
// findings are looked up by code.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analyze/runner.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "ingest/ingest.h"
#include "test_util.h"

namespace casefile::test {

inline std::unique_ptr<IndexReader> IndexOf(const TempDir& tmp, const std::string& root) {
  const std::string db = tmp.Join("i.db");
  {
    IndexWriter w(db);
    IngestInputs({root}, Limits{}, nullptr, w);
    w.Commit();
  }
  return IndexReader::Open(db);
}

inline AnalysisResult RunOne(const IndexReader& index, std::unique_ptr<Analyzer> analyzer) {
  std::vector<std::unique_ptr<Analyzer>> list;
  list.push_back(std::move(analyzer));
  return RunAnalyzers(index, {}, list);
}

inline const Finding* FindCode(const AnalysisResult& r, const std::string& code) {
  for (const Finding& f : r.findings) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

}  // namespace casefile::test
