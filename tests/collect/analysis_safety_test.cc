// Redaction is analysis-safe: corpus scenarios with secrets planted into
// their logs are analysed as source trees and again after `collect` (secrets
// redacted, files moved under hosts/<host>/), and the two reports must name
// the same finding codes, the same culprits and the same evidence lines.
// Evidence paths of the bundles are mapped back to the source tree through
// each manifest's "source" field. The second scenario is the multi-host
// flow: one bundle per host (--host), analysed together.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "collect/collect.h"
#include "collect_fixture.h"
#include "engine/session.h"
#include "test_util.h"

namespace casefile::collect {
namespace {

namespace fs = std::filesystem;
using casefile::test::ReadFile;
using casefile::test::TempDir;
using casefile::test::WriteFile;

const char kHfToken[] = "hf_Zq8XbT4mWn2RkP6yVd0LcJ9sHa3GfE1uQo";
const char kBearer[] = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.Zm9vYmFyYmF6";
const char kPassword[] = "Pl4netHunt3rQ";
const char kAwsKeyId[] = "AKIAZ7Q2W3E4R5T6Y7U8";

// Plants secrets into a log: whole lines near the start and the middle, and
// a URL with a password appended to every line holding one of `markers`
// (lines the analyzers cite), so redaction happens inside evidence too.
void PlantSecrets(const std::string& path, const std::vector<std::string>& markers) {
  std::string text = ReadFile(path);
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    for (const auto& m : markers) {
      if (line.find(m) != std::string::npos) {
        line += std::string(" [proxy https://svc:") + kPassword + "@proxy.internal:3128]";
      }
    }
    out.push_back(line);
    if (i == 2) out.push_back(std::string("export HF_TOKEN=") + kHfToken);
    if (i == lines.size() / 2) {
      out.push_back(std::string("curl -H 'Authorization: Bearer ") + kBearer + "' https://x.io");
      out.push_back(std::string("AWS_ACCESS_KEY_ID=") + kAwsKeyId);
    }
  }
  std::string joined;
  for (const auto& l : out) joined += l + "\n";
  WriteFile(path, joined);
}

struct Cited {
  std::string code;
  std::set<std::string> culprits;                      // "host|task|rank"
  std::set<std::pair<std::string, int64_t>> evidence;  // source-relative path, line
  bool operator==(const Cited& o) const {
    return code == o.code && culprits == o.culprits && evidence == o.evidence;
  }
};

std::string CulpritKey(const Culprit& c) {
  return c.host.value_or("-") + "|" + c.task.value_or("-") + "|" +
         (c.rank ? std::to_string(*c.rank) : "-");
}

// `path_map`: (bundle name, path in bundle) -> path relative to the source
// root; identity when empty.
std::vector<Cited> Analyze(
    const std::vector<std::string>& inputs, const std::string& index,
    const std::map<std::pair<std::string, std::string>, std::string>& path_map) {
  SessionOptions options;
  options.index_path = index;
  Session session(inputs, options);
  Report report = session.Analyze({}, false);
  std::vector<Cited> out;
  for (const Finding& f : report.findings) {
    Cited c;
    c.code = f.code;
    for (const auto& culprit : f.culprits) c.culprits.insert(CulpritKey(culprit));
    for (const auto& e : f.evidence) {
      std::string path = e.path;
      if (!path_map.empty()) {
        auto it = path_map.find({e.bundle, e.path});
        path = it == path_map.end() ? "(not in the manifest) " + e.path : it->second;
      }
      c.evidence.insert({path, e.line});
    }
    out.push_back(std::move(c));
  }
  return out;
}

// Collects `sources` (relative to `root`) as one host's bundle; adds each
// packed file's bundle path -> source path (relative to root) to `path_map`.
CollectResult CollectHost(const std::string& root, const std::vector<std::string>& sources,
                          const std::string& host, const std::string& output,
                          std::map<std::pair<std::string, std::string>, std::string>& path_map) {
  CollectOptions o = test::IsolatedOptions(output);
  o.host = host;
  for (const auto& s : sources) o.logs.push_back(root + "/" + s);
  CollectResult r = Collect(o);
  JsonValue m = test::Manifest(test::ReadBundle(output));
  const std::string bundle = fs::path(output).filename().string();
  for (const auto& f : m.Find("files")->items) {
    std::string source = f.Find("source")->text;
    if (source.rfind(root + "/", 0) == 0) {
      path_map[{bundle, f.Find("path")->text}] = source.substr(root.size() + 1);
    }
  }
  const std::string bytes = test::DecompressedBytes(output);
  for (const char* secret : {kHfToken, kBearer, kPassword, kAwsKeyId}) {
    EXPECT_EQ(test::Count(bytes, secret), 0u) << secret;
  }
  return r;
}

void ExpectSameAnalysis(const std::vector<Cited>& source, const std::vector<Cited>& bundle) {
  ASSERT_EQ(source.size(), bundle.size());
  for (size_t i = 0; i < source.size(); ++i) {
    EXPECT_EQ(source[i].code, bundle[i].code) << i;
    EXPECT_EQ(source[i].culprits, bundle[i].culprits) << source[i].code;
    EXPECT_EQ(source[i].evidence, bundle[i].evidence) << source[i].code;
  }
}

bool HasCode(const std::vector<Cited>& findings, const std::string& code) {
  for (const auto& f : findings) {
    if (f.code == code) return true;
  }
  return false;
}

std::string Corpus(const std::string& scenario) {
  return std::string(CASEFILE_SOURCE_DIR) + "/corpus/" + scenario + "/bundle";
}

TEST(AnalysisSafety, CudaOomOneBundle) {
  TempDir dir;
  const std::string src = dir.Join("src");
  fs::copy(Corpus("runtime_cuda_oom"), src, fs::copy_options::recursive);
  PlantSecrets(src + "/logs/deepspeed_launcher.log", {"CUDA out of memory"});

  std::vector<Cited> source = Analyze({src}, dir.Join("src.db"), {});
  ASSERT_TRUE(HasCode(source, "runtime.cuda_oom"))
      << "the planted tree must still show the failure";

  std::map<std::pair<std::string, std::string>, std::string> path_map;
  // Each host's files as that host's bundle would hold them; the launcher
  // log (pdsh prefixes name the hosts per line) with the first.
  CollectResult a = CollectHost(src, {"logs", "config", "nodes/gpu-node-21"}, "gpu-node-21",
                                dir.Join("a.tar.zst"), path_map);
  EXPECT_EQ(a.redactions["hf_token"], 1u);
  EXPECT_EQ(a.redactions["bearer_token"], 1u);
  EXPECT_EQ(a.redactions["aws_access_key_id"], 1u);
  EXPECT_GE(a.redactions["url_password"], 2u);
  CollectHost(src, {"nodes/gpu-node-22"}, "gpu-node-22", dir.Join("b.tar.zst"), path_map);
  std::vector<Cited> bundles =
      Analyze({dir.Join("a.tar.zst"), dir.Join("b.tar.zst")}, dir.Join("bundles.db"), path_map);
  ExpectSameAnalysis(source, bundles);
}

TEST(AnalysisSafety, NcclTimeoutOneBundlePerHost) {
  TempDir dir;
  const std::string src = dir.Join("src");
  fs::copy(Corpus("hang_nccl_timeout_legacy"), src, fs::copy_options::recursive);
  for (const char* host : {"node-0", "node-1"}) {
    PlantSecrets(src + "/logs/" + host + "/train.log",
                 {"Watchdog caught collective operation timeout"});
  }
  std::vector<Cited> source = Analyze({src}, dir.Join("src.db"), {});
  ASSERT_TRUE(HasCode(source, "hang.collective_timeout"));

  std::map<std::pair<std::string, std::string>, std::string> path_map;
  for (const char* host : {"node-0", "node-1"}) {
    CollectResult r = CollectHost(src, {std::string("logs/") + host, std::string("env/") + host},
                                  host, dir.Join(std::string(host) + ".tar.zst"), path_map);
    EXPECT_EQ(r.redactions["hf_token"], 1u) << host;
  }
  std::vector<Cited> bundles = Analyze({dir.Join("node-0.tar.zst"), dir.Join("node-1.tar.zst")},
                                       dir.Join("bundles.db"), path_map);
  ExpectSameAnalysis(source, bundles);
}

}  // namespace
}  // namespace casefile::collect
