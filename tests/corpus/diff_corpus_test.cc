// Runs every diff pair of the corpus (corpus/diff/<pair>/expected.json,
// written by corpus/gen_diff.py) through casefile::RunDiff, each side indexed
// into a temp dir, and compares the DiffReport with what expected.json pins:
// the exact set of headline items (a missing or an unexpected item fails,
// listed with its summary), items that must be in their section (with
// evidence lines when pinned), and sections that must be empty. Every
// evidence line of every item is also checked against the bundle file, so a
// diff can never cite a line that is not there.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "diff/diff.h"
#include "engine/diff_run.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace casefile {
namespace {

using diff::DiffItem;
using diff::DiffReport;

// A line the diff must cite. A pin without `line` (or without `path`) leaves
// that choice to the section: any cited line of the path holding `contains`.
struct ExpectedEvidence {
  std::optional<std::string> path;
  std::optional<int64_t> line;
  std::string contains;
};

struct ExpectedItem {
  std::string section;  // findings, versions, configs, templates, metrics, hlo, traces
  std::string kind;     // "" matches any kind
  std::optional<std::string> key;
  std::optional<std::string> key_contains;
  std::vector<ExpectedEvidence> good_evidence;
  std::vector<ExpectedEvidence> bad_evidence;
};

struct Pair {
  std::string name;
  fs::path dir;
  std::vector<std::string> good_inputs;  // relative to dir
  std::vector<std::string> bad_inputs;
  std::vector<ExpectedItem> headline;
  std::vector<ExpectedItem> include;
  std::vector<std::string> empty;  // "findings.new", "versions", ...
};

std::string DiffCorpusDir() { return std::string(CASEFILE_SOURCE_DIR) + "/corpus/diff"; }

std::string Str(simdjson::dom::element e) { return std::string(std::string_view(e.get_string())); }

std::vector<ExpectedEvidence> LoadEvidence(simdjson::dom::element item, const char* field) {
  std::vector<ExpectedEvidence> out;
  simdjson::dom::array list;
  if (item[field].get_array().get(list) != simdjson::SUCCESS) return out;
  for (auto e : list) {
    ExpectedEvidence ee;
    if (auto p = e["path"]; !p.error()) ee.path = Str(p.value());
    if (auto l = e["line"]; !l.error()) ee.line = int64_t(l.get_int64());
    ee.contains = Str(e["contains"].value());
    out.push_back(std::move(ee));
  }
  return out;
}

std::vector<ExpectedItem> LoadItems(simdjson::dom::element doc, const char* field) {
  std::vector<ExpectedItem> out;
  for (auto i : doc[field].get_array()) {
    ExpectedItem ei;
    ei.section = Str(i["section"].value());
    if (auto k = i["kind"]; !k.error()) ei.kind = Str(k.value());
    if (auto k = i["key"]; !k.error()) ei.key = Str(k.value());
    if (auto k = i["key_contains"]; !k.error()) ei.key_contains = Str(k.value());
    ei.good_evidence = LoadEvidence(i, "good_evidence");
    ei.bad_evidence = LoadEvidence(i, "bad_evidence");
    out.push_back(std::move(ei));
  }
  return out;
}

Pair LoadPair(const fs::path& dir) {
  Pair p;
  p.name = dir.filename().string();
  p.dir = dir;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load((dir / "expected.json").string());
  for (auto in : doc["good"].get_array()) p.good_inputs.push_back(Str(in));
  for (auto in : doc["bad"].get_array()) p.bad_inputs.push_back(Str(in));
  p.headline = LoadItems(doc, "headline");
  p.include = LoadItems(doc, "include");
  for (auto s : doc["empty"].get_array()) p.empty.push_back(Str(s));
  return p;
}

std::vector<std::string> PairNames() {
  std::vector<std::string> names;
  if (!fs::is_directory(DiffCorpusDir())) return names;
  for (const auto& e : fs::directory_iterator(DiffCorpusDir())) {
    if (fs::exists(e.path() / "expected.json")) names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The items of a section as named in expected.json (the JSON keys of
// docs/DIFF.md); nullptr for an unknown name.
const std::vector<DiffItem>* SectionItems(const DiffReport& r, const std::string& name) {
  if (name == "findings.new") return &r.findings_new;
  if (name == "findings.resolved") return &r.findings_resolved;
  if (name == "findings.persisting") return &r.findings_persisting;
  if (name == "versions") return &r.versions;
  if (name == "configs") return &r.configs;
  if (name == "templates.new") return &r.templates_new;
  if (name == "templates.vanished") return &r.templates_vanished;
  if (name == "templates.changed") return &r.templates_changed;
  if (name == "metrics") return &r.metrics;
  if (name == "hlo") return &r.hlo;
  if (name == "traces") return &r.traces;
  return nullptr;
}

// Where an expected item lives: findings and templates are split by kind.
std::vector<const std::vector<DiffItem>*> ListsFor(const DiffReport& r, const ExpectedItem& e) {
  if (e.section == "findings" || e.section == "templates") {
    if (const auto* list = SectionItems(r, e.section + "." + e.kind)) return {list};
    if (e.section == "findings")
      return {&r.findings_new, &r.findings_resolved, &r.findings_persisting};
    return {&r.templates_new, &r.templates_vanished, &r.templates_changed};
  }
  if (const auto* list = SectionItems(r, e.section)) return {list};
  return {};
}

std::string Quoted(const std::optional<std::string>& v) { return v ? "'" + *v + "'" : "-"; }

std::string DescribeItem(const DiffItem& i) {
  char score[32];
  snprintf(score, sizeof score, "%.1f", i.score);
  std::string out = i.section + "/" + i.kind + " key=" + Quoted(i.key) +
                    (i.host ? " host=" + *i.host : "") + " score=" + score +
                    " good=" + Quoted(i.good) + " bad=" + Quoted(i.bad) + "\n      " + i.summary +
                    "\n";
  for (const auto& e : i.good_evidence)
    out += "      good " + e.bundle + ":" + e.path + ":" + std::to_string(e.line) + "\n";
  for (const auto& e : i.bad_evidence)
    out += "      bad  " + e.bundle + ":" + e.path + ":" + std::to_string(e.line) + "\n";
  return out;
}

std::string DescribeList(const std::vector<DiffItem>& items, size_t max = 25) {
  if (items.empty()) return "    (none)\n";
  std::string out;
  for (size_t i = 0; i < items.size() && i < max; ++i) out += "    " + DescribeItem(items[i]);
  if (items.size() > max) out += "    ... " + std::to_string(items.size() - max) + " more\n";
  return out;
}

std::string DescribeExpected(const ExpectedItem& e) {
  return e.section + "/" + (e.kind.empty() ? "*" : e.kind) + " " +
         (e.key ? "key='" + *e.key + "'" : "key_contains='" + e.key_contains.value_or("") + "'");
}

// Same section, kind and key: the identity of an item, evidence aside.
bool SameItem(const ExpectedItem& e, const DiffItem& a) {
  if (a.section != e.section) return false;
  if (!e.kind.empty() && a.kind != e.kind) return false;
  if (e.key && a.key != *e.key) return false;
  if (e.key_contains && a.key.find(*e.key_contains) == std::string::npos) return false;
  return true;
}

bool Cites(const std::vector<Evidence>& cited, const ExpectedEvidence& e) {
  return std::any_of(cited.begin(), cited.end(), [&](const Evidence& c) {
    return (!e.path || c.path == *e.path) && (!e.line || c.line == *e.line) &&
           c.text.find(e.contains) != std::string::npos;
  });
}

std::string DescribePin(const ExpectedEvidence& e) {
  return e.path.value_or("<any file>") + ":" + (e.line ? std::to_string(*e.line) : "*") +
         " containing '" + e.contains + "'";
}

void ExpectEvidence(const ExpectedItem& e, const DiffItem& a, const std::string& where) {
  for (const auto& pin : e.good_evidence)
    EXPECT_TRUE(Cites(a.good_evidence, pin))
        << where << " " << DescribeExpected(e) << ": good evidence " << DescribePin(pin)
        << " not cited; the item:\n    " << DescribeItem(a);
  for (const auto& pin : e.bad_evidence)
    EXPECT_TRUE(Cites(a.bad_evidence, pin))
        << where << " " << DescribeExpected(e) << ": bad evidence " << DescribePin(pin)
        << " not cited; the item:\n    " << DescribeItem(a);
}

// A raw line of a file as the index keeps it: the last \r frame, without ANSI
// escapes.
std::string RawLineClean(const fs::path& file, int64_t line_no) {
  const std::string content = test::ReadFile(file.string());
  size_t start = 0;
  for (int64_t n = 1; n < line_no; ++n) {
    const size_t nl = content.find('\n', start);
    if (nl == std::string::npos) return "<no such line>";
    start = nl + 1;
  }
  const size_t end = content.find('\n', start);
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

// The input directory an evidence line of one side comes from: the one named
// by its bundle, else the side's only input.
std::optional<fs::path> SideDir(const Pair& p, const std::vector<std::string>& inputs,
                                const Evidence& e) {
  for (const auto& in : inputs) {
    if (fs::path(in).filename().string() == e.bundle) return p.dir / in;
  }
  if (inputs.size() == 1) return p.dir / inputs.front();
  return std::nullopt;
}

void ExpectRealLines(const Pair& p, const DiffItem& item) {
  auto check = [&](const std::vector<Evidence>& cited, const std::vector<std::string>& inputs,
                   const char* side) {
    for (const auto& e : cited) {
      const auto dir = SideDir(p, inputs, e);
      ASSERT_TRUE(dir.has_value()) << side << " evidence names unknown bundle " << e.bundle
                                   << " in\n    " << DescribeItem(item);
      EXPECT_EQ(RawLineClean(*dir / e.path, e.line), e.text)
          << side << " evidence " << e.path << ":" << e.line << " of\n    " << DescribeItem(item);
    }
  };
  check(item.good_evidence, p.good_inputs, "good");
  check(item.bad_evidence, p.bad_inputs, "bad");
}

DiffReport RunPair(const Pair& p, test::TempDir& tmp, const std::string& tag) {
  std::vector<std::string> good, bad;
  for (const auto& in : p.good_inputs) good.push_back((p.dir / in).string());
  for (const auto& in : p.bad_inputs) bad.push_back((p.dir / in).string());
  DiffRunOptions opts;
  opts.good_index_path = tmp.Join(tag + "good.casefile.db");
  opts.bad_index_path = tmp.Join(tag + "bad.casefile.db");
  return RunDiff(good, bad, opts, nullptr);
}

class DiffCorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DiffCorpusTest, ReportMatchesExpected) {
  const Pair p = LoadPair(fs::path(DiffCorpusDir()) / GetParam());
  for (const auto& in : p.good_inputs) ASSERT_TRUE(fs::is_directory(p.dir / in)) << in;
  for (const auto& in : p.bad_inputs) ASSERT_TRUE(fs::is_directory(p.dir / in)) << in;
  test::TempDir tmp;
  const DiffReport r = RunPair(p, tmp, "");

  // A section that threw is a warning, and would look empty below.
  for (const auto& w : r.warnings) ADD_FAILURE() << "diff warning: " << w;

  // Headline: exactly the expected items, each matched once.
  std::vector<bool> used(r.headline.size(), false);
  std::string missing;
  for (const auto& e : p.headline) {
    size_t found = r.headline.size();
    for (size_t i = 0; i < r.headline.size() && found == r.headline.size(); ++i) {
      if (!used[i] && SameItem(e, r.headline[i])) found = i;
    }
    if (found == r.headline.size()) {
      missing += "    " + DescribeExpected(e) + "\n";
      continue;
    }
    used[found] = true;
    ExpectEvidence(e, r.headline[found], "headline");
  }
  std::vector<DiffItem> unexpected;
  for (size_t i = 0; i < r.headline.size(); ++i) {
    if (!used[i]) unexpected.push_back(r.headline[i]);
  }
  EXPECT_TRUE(missing.empty()) << "headline lacks:\n"
                               << missing << "  headline was:\n"
                               << DescribeList(r.headline);
  EXPECT_TRUE(unexpected.empty()) << "headline has unexpected items:\n" << DescribeList(unexpected);
  EXPECT_LE(r.headline.size(), diff::kHeadlineItems);
  for (const auto& h : r.headline)
    EXPECT_GE(h.score, diff::kHeadlineMinScore)
        << "headline item below the threshold:\n    " << DescribeItem(h);

  // Items that must be in their section.
  for (const auto& e : p.include) {
    const auto lists = ListsFor(r, e);
    ASSERT_FALSE(lists.empty()) << "expected.json names unknown section " << e.section;
    const DiffItem* match = nullptr;
    std::vector<DiffItem> seen;
    for (const auto* list : lists) {
      for (const auto& a : *list) {
        if (match == nullptr && SameItem(e, a)) match = &a;
        seen.push_back(a);
      }
    }
    if (match == nullptr) {
      ADD_FAILURE() << "section " << e.section << " lacks " << DescribeExpected(e)
                    << "; it holds:\n"
                    << DescribeList(seen);
      continue;
    }
    ExpectEvidence(e, *match, "section");
  }

  // Sections that must be empty.
  for (const auto& name : p.empty) {
    const auto* list = SectionItems(r, name);
    ASSERT_NE(list, nullptr) << "expected.json names unknown section " << name;
    EXPECT_TRUE(list->empty()) << "section " << name << " must be empty; it holds:\n"
                               << DescribeList(*list);
  }

  // Every cited line is the real line of its file.
  for (const char* name :
       {"findings.new", "findings.resolved", "findings.persisting", "versions", "configs",
        "templates.new", "templates.vanished", "templates.changed", "metrics", "hlo", "traces"}) {
    for (const auto& item : *SectionItems(r, name)) ExpectRealLines(p, item);
  }
  for (const auto& item : r.headline) ExpectRealLines(p, item);
}

INSTANTIATE_TEST_SUITE_P(DiffCorpus, DiffCorpusTest, ::testing::ValuesIn(PairNames()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// The four pairs of issue #8 exist and each pins something to check.
TEST(DiffCorpusCoverage, PairsArePresent) {
  const auto names = PairNames();
  for (const char* want : {"diff_nccl_upgrade", "diff_fp16_loss_scale", "diff_straggler_host",
                           "diff_healthy_lengths"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end())
        << want << " missing: run python3 corpus/generate.py " << want;
  }
  for (const auto& n : names) {
    const Pair p = LoadPair(fs::path(DiffCorpusDir()) / n);
    EXPECT_FALSE(p.headline.empty() && p.include.empty() && p.empty.empty())
        << n << " pins nothing";
  }
}

// The same pair gives byte-identical JSON from two separate pairs of indexes,
// although the two sides differ in PIDs, times and noise.
TEST(DiffCorpusDeterminism, SameInputSameJson) {
  const auto names = PairNames();
  ASSERT_FALSE(names.empty());
  const Pair p = LoadPair(fs::path(DiffCorpusDir()) / names.front());
  test::TempDir tmp;
  const std::string first = diff::RenderDiffJson(RunPair(p, tmp, "a-"));
  const std::string second = diff::RenderDiffJson(RunPair(p, tmp, "b-"));
  EXPECT_EQ(first, second);
}

}  // namespace
}  // namespace casefile
