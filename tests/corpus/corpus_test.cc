// Runs every corpus scenario (corpus/<scenario>/expected.json) through the
// engine, once with the inputs as directories and once as .tar.zst archives
// made at test time, and compares the findings with what expected.json pins:
// the exact set of codes (a missing or an unexpected code fails), each
// finding's culprits, and its evidence lines. Every evidence line is also
// checked against the bundle file itself, so a finding can never cite a line
// that is not there.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/session.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace casefile {
namespace {

struct ExpectedCulprit {
  std::map<std::string, std::optional<std::string>>
      fields;  // host/task/rank -> value (nullopt = null)
};

struct ExpectedEvidence {
  std::optional<std::string> bundle;
  std::string path;
  int64_t line = 0;
  std::string contains;
};

struct ExpectedFinding {
  std::string code;
  std::vector<ExpectedCulprit> culprits;
  std::vector<ExpectedEvidence> evidence;
};

struct Scenario {
  std::string name;
  fs::path dir;
  std::vector<std::string> inputs;
  std::vector<ExpectedFinding> findings;
};

std::string CorpusDir() { return std::string(CASEFILE_SOURCE_DIR) + "/corpus"; }

std::optional<std::string> JsonScalar(simdjson::dom::element v) {
  if (v.is_null()) return std::nullopt;
  if (v.is_string()) return std::string(std::string_view(v.get_string()));
  if (v.is_int64()) return std::to_string(int64_t(v.get_int64()));
  return std::string(simdjson::minify(v));
}

Scenario LoadScenario(const fs::path& dir) {
  Scenario s;
  s.name = dir.filename().string();
  s.dir = dir;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load((dir / "expected.json").string());
  for (auto in : doc["inputs"].get_array())
    s.inputs.emplace_back(std::string_view(in.get_string()));
  for (auto f : doc["findings"].get_array()) {
    ExpectedFinding ef;
    ef.code = std::string(std::string_view(f["code"].get_string()));
    for (auto c : f["culprits"].get_array()) {
      ExpectedCulprit ec;
      for (auto field : c.get_object()) ec.fields[std::string(field.key)] = JsonScalar(field.value);
      ef.culprits.push_back(std::move(ec));
    }
    for (auto e : f["evidence"].get_array()) {
      ExpectedEvidence ee;
      ee.path = std::string(std::string_view(e["path"].get_string()));
      ee.line = int64_t(e["line"].get_int64());
      if (auto b = e["bundle"]; !b.error())
        ee.bundle = std::string(std::string_view(b.get_string()));
      if (auto c = e["contains"]; !c.error())
        ee.contains = std::string(std::string_view(c.get_string()));
      ef.evidence.push_back(std::move(ee));
    }
    s.findings.push_back(std::move(ef));
  }
  return s;
}

std::vector<std::string> ScenarioNames() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(CorpusDir())) {
    if (fs::exists(e.path() / "expected.json")) names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The display name of a bundle without the archive suffix added by the test.
std::string BaseBundleName(std::string name) {
  const std::string suffix = ".tar.zst";
  if (name.size() > suffix.size() && name.ends_with(suffix))
    name.resize(name.size() - suffix.size());
  return name;
}

// A raw line of a file as a reader would see it: the last \r frame, without
// ANSI escapes.
// The content of a file as ingest reads it: a .gz member is gunzipped.
std::string ContentAsRead(const fs::path& file) {
  if (file.extension() != ".gz") return test::ReadFile(file.string());
  std::string out;
  FILE* p = popen(("gzip -dc '" + file.string() + "'").c_str(), "r");
  if (p == nullptr) return out;
  char buf[1 << 16];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  return out;
}

std::string RawLineClean(const fs::path& file, int64_t line_no) {
  std::string content = ContentAsRead(file);
  int64_t n = 1;
  size_t start = 0;
  while (n < line_no) {
    size_t nl = content.find('\n', start);
    if (nl == std::string::npos) return "<no such line>";
    start = nl + 1;
    ++n;
  }
  size_t end = content.find('\n', start);
  std::string line =
      content.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (size_t cr = line.rfind('\r'); cr != std::string::npos) line = line.substr(cr + 1);
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      size_t j = i + 2;
      while (j < line.size() && !(line[j] >= 0x40 && line[j] <= 0x7e)) ++j;
      i = j;
      continue;
    }
    out += line[i];
  }
  return out;
}

bool IsTraceFile(const fs::path& file) {
  const std::string name = file.filename().string();
  return name.find(".trace.json") != std::string::npos ||
         name.find(".pt.trace.json") != std::string::npos || name.ends_with("trace.json.gz");
}

bool CulpritMatches(const ExpectedCulprit& e, const Culprit& c) {
  for (const auto& [key, value] : e.fields) {
    std::optional<std::string> actual;
    if (key == "host")
      actual = c.host;
    else if (key == "task")
      actual = c.task;
    else if (key == "rank")
      actual = c.rank ? std::optional<std::string>(std::to_string(*c.rank)) : std::nullopt;
    else
      return false;
    if (actual != value) return false;
  }
  return true;
}

std::string Describe(const Report& r) {
  std::string out;
  for (const auto& f : r.findings) {
    out += "  " + f.code + ": " + f.summary + "\n";
    for (const auto& c : f.culprits)
      out += "    culprit host=" + c.host.value_or("null") + " task=" + c.task.value_or("null") +
             " rank=" + (c.rank ? std::to_string(*c.rank) : "null") + "\n";
    for (const auto& e : f.evidence)
      out += "    evidence " + e.bundle + ":" + e.path + ":" + std::to_string(e.line) + "\n";
  }
  return out;
}

class CorpusTest : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(CorpusTest, FindingsMatchExpected) {
  const auto& [name, as_archive] = GetParam();
  const Scenario s = LoadScenario(fs::path(CorpusDir()) / name);
  test::TempDir tmp;
  std::vector<std::string> inputs;
  std::map<std::string, fs::path> input_dir_by_name;  // bundle base name -> directory
  for (const auto& in : s.inputs) {
    const fs::path dir = s.dir / in;
    ASSERT_TRUE(fs::is_directory(dir)) << dir;
    const std::string base = dir.filename().string();
    input_dir_by_name[base] = dir;
    if (as_archive) {
      const std::string archive = tmp.Join(base + ".tar.zst");
      test::ArchiveDirectory(dir.string(), archive, "tar.zst");
      inputs.push_back(archive);
    } else {
      inputs.push_back(dir.string());
    }
  }
  SessionOptions opts;
  opts.index_path = tmp.Join("index.casefile.db");
  Session session(inputs, opts);
  const IndexOutcome outcome = session.Index(nullptr);
  EXPECT_FALSE(outcome.partial);
  const Report report = session.Analyze({}, /*store_findings=*/true);
  const std::string got = Describe(report);

  for (const auto& a : report.analyzers)
    EXPECT_NE(a.status, "failed") << a.name << ": " << a.reason;

  std::multiset<std::string> expected_codes, actual_codes;
  for (const auto& f : s.findings) expected_codes.insert(f.code);
  for (const auto& f : report.findings) actual_codes.insert(f.code);
  ASSERT_EQ(actual_codes, expected_codes) << "findings were:\n" << got;

  for (const auto& ef : s.findings) {
    const Finding* f = nullptr;
    for (const auto& candidate : report.findings) {
      if (candidate.code == ef.code) f = &candidate;
    }
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->culprits.size(), ef.culprits.size()) << ef.code << " culprits:\n" << got;
    for (const auto& ec : ef.culprits) {
      const bool found = std::any_of(f->culprits.begin(), f->culprits.end(),
                                     [&](const Culprit& c) { return CulpritMatches(ec, c); });
      EXPECT_TRUE(found) << ef.code << ": expected culprit not found; findings:\n" << got;
    }
    for (const auto& ee : ef.evidence) {
      const bool found =
          std::any_of(f->evidence.begin(), f->evidence.end(), [&](const Evidence& e) {
            return e.path == ee.path && e.line == ee.line &&
                   (!ee.bundle || BaseBundleName(e.bundle) == *ee.bundle) &&
                   e.text.find(ee.contains) != std::string::npos;
          });
      EXPECT_TRUE(found) << ef.code << ": expected evidence " << ee.path << ":" << ee.line
                         << " not cited; findings:\n"
                         << got;
    }
  }

  // Every cited line must be the real line of the bundle file.
  for (const auto& f : report.findings) {
    ASSERT_FALSE(f.evidence.empty()) << f.code << " has no evidence";
    for (const auto& e : f.evidence) {
      auto it = input_dir_by_name.find(BaseBundleName(e.bundle));
      ASSERT_NE(it, input_dir_by_name.end()) << "evidence names unknown bundle " << e.bundle;
      const fs::path file = it->second / e.path;
      if (IsTraceFile(file)) {
        // A trace's evidence is the event object (cut to 512 bytes) that
        // starts on the cited line; jax.profiler writes a trace on one line.
        EXPECT_NE(RawLineClean(file, e.line).find(e.text), std::string::npos)
            << f.code << " cites " << e.path << ":" << e.line << ": " << e.text;
        continue;
      }
      EXPECT_EQ(RawLineClean(file, e.line), e.text)
          << f.code << " cites " << e.path << ":" << e.line;
    }
  }
}

std::vector<std::tuple<std::string, bool>> AllCases() {
  std::vector<std::tuple<std::string, bool>> cases;
  for (const auto& n : ScenarioNames()) {
    cases.emplace_back(n, false);
    cases.emplace_back(n, true);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusTest, ::testing::ValuesIn(AllCases()), [](const auto& info) {
  std::string n = std::get<0>(info.param) + (std::get<1>(info.param) ? "_tar_zst" : "_dir");
  for (char& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

// Each finding code in docs/FINDINGS.md is pinned by at least one scenario,
// and at least two healthy scenarios exist (expected to produce nothing).
TEST(CorpusCoverage, EveryDocumentedCodeIsPinned) {
  const std::string doc = test::ReadFile(std::string(CASEFILE_SOURCE_DIR) + "/docs/FINDINGS.md");
  std::set<std::string> documented;
  for (size_t pos = 0; (pos = doc.find('`', pos)) != std::string::npos;) {
    size_t end = doc.find('`', pos + 1);
    if (end == std::string::npos) break;
    std::string tok = doc.substr(pos + 1, end - pos - 1);
    static const char* kPrefixes[] = {"hang.", "numeric.", "comm.", "build.", "runtime."};
    for (const char* p : kPrefixes) {
      if (tok.starts_with(p) && tok.find(' ') == std::string::npos && tok.size() > strlen(p))
        documented.insert(tok);
    }
    pos = end + 1;
  }
  ASSERT_FALSE(documented.empty());
  std::set<std::string> pinned;
  int healthy = 0;
  for (const auto& n : ScenarioNames()) {
    const Scenario s = LoadScenario(fs::path(CorpusDir()) / n);
    if (s.findings.empty()) ++healthy;
    for (const auto& f : s.findings) {
      pinned.insert(f.code);
      EXPECT_FALSE(f.evidence.empty()) << n << ": " << f.code << " pins no evidence line";
    }
  }
  for (const auto& code : documented)
    EXPECT_TRUE(pinned.count(code))
        << code << " is in docs/FINDINGS.md but no corpus scenario pins it";
  EXPECT_GE(healthy, 2);
}

// The same input gives byte-identical JSON, even from two separate indexes.
TEST(CorpusDeterminism, SameInputSameJson) {
  const auto names = ScenarioNames();
  ASSERT_FALSE(names.empty());
  const Scenario s = LoadScenario(fs::path(CorpusDir()) / names.front());
  std::vector<std::string> inputs;
  for (const auto& in : s.inputs) inputs.push_back((s.dir / in).string());
  test::TempDir tmp;
  std::string first;
  for (int i = 0; i < 2; ++i) {
    SessionOptions opts;
    opts.index_path = tmp.Join("run" + std::to_string(i) + ".db");
    Session session(inputs, opts);
    session.Index(nullptr);
    const std::string json = RenderJson(session.Analyze({}, false));
    if (i == 0)
      first = json;
    else
      EXPECT_EQ(json, first);
  }
}

}  // namespace
}  // namespace casefile
