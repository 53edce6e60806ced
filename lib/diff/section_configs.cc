// The configs section of the diff (docs/DIFF.md): settings added, removed or
// changed between the good and the bad run, from three places:
//  - config files (the `configs` table: DeepSpeed, HF, model, accelerate
//    configs flattened to dotted keys), matched across the sides by their
//    path with the host's name taken out, else by what kind of config they
//    are;
//  - the environment: environment dumps (env.txt; `configs` rows of files
//    named env/environ/environment/printenv or *.env) and, for hosts without
//    a dump, the NCCL_* variables NCCL reported "set by environment"
//    (`nccl_ranks.env`); XLA_FLAGS and LIBTPU_INIT_ARGS flag by flag;
//  - the job's command line (the collector's job/job_cmdline.txt), flag by
//    flag.
// Keys that only identify a host, rank, port or attempt are dropped, and
// values are compared with host names, IPs and times masked, so a run on
// other machines or at another time is not a difference.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyze/query_values.h"
#include "diff/config_keys.h"
#include "diff/config_values.h"
#include "diff/sections.h"
#include "parse/classify/classify.h"

namespace casefile::diff {
namespace {

constexpr size_t kMaxConfigRows = 2'000'000;
constexpr size_t kMaxShownValue = 200;
constexpr int64_t kMaxCmdlineLines = 64;
// How far after a process's first NCCL line its "set by environment" lines
// are looked for (they come with its first communicator's init).
constexpr int64_t kNcclEnvSearchLines = 20000;
// Scores (docs/DIFF.md, section configs).
constexpr double kPrecisionSwitch = 75;
constexpr double kImportantChanged = 70;
constexpr double kOtherChanged = 35;
constexpr double kImportantAddedRemoved = 55;
// A NCCL switch that turns a transport or an algorithm on or off: set or
// unset, it changes how every collective runs (NCCL_IB_DISABLE=1 sends
// everything over sockets), so it outranks a changed interface name.
constexpr double kTransportSwitch = 72;
constexpr double kOtherAddedRemoved = 25;
constexpr double kFileAddedRemoved = 25;

constexpr const char* kEnvDoc = "env";
constexpr const char* kCmdlineDoc = "cmdline";

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// An environment dump by its name, as parse/config reads one (.env, a file
// named .env, or env/environ/environment/printenv with no config extension).
bool IsEnvDump(std::string_view path) {
  std::string base = Lower(BaseName(path));
  if (base.size() > 3 && base.substr(base.size() - 3) == ".gz") base.resize(base.size() - 3);
  if (base == ".env") return true;
  const size_t dot = base.rfind('.');
  const std::string stem = dot == std::string::npos ? base : base.substr(0, dot);
  const std::string ext = dot == std::string::npos ? "" : base.substr(dot + 1);
  if (ext == "env") return true;
  static const std::set<std::string> kConfigExt = {"json", "yaml", "yml", "toml",
                                                   "ini",  "cfg",  "conf"};
  return (stem == "env" || stem == "environ" || stem == "environment" || stem == "printenv") &&
         !kConfigExt.count(ext);
}

// The path with what names the host or task replaced, so the same config
// of two runs on other machines has the same id.
std::string NormalizedPath(const FileRow& f) {
  std::string p = f.path;
  for (const std::optional<std::string>& name : {f.host, f.task}) {
    if (!name || name->size() < 2) continue;
    for (size_t at = p.find(*name); at != std::string::npos; at = p.find(*name, at + 6)) {
      p.replace(at, name->size(), "<host>");
    }
  }
  return p;
}

std::string Cut(const std::string& value) {
  if (value.size() <= kMaxShownValue) return value;
  return value.substr(0, kMaxShownValue) + "...";
}

struct Doc {
  std::string id;                    // how it is matched: normalised path, "env" or "cmdline"
  std::string kind;                  // deepspeed, hf_model, accelerate, env, cmdline, other
  std::string label;                 // how keys and summaries name it
  std::set<std::string> hosts;       // hosts that have it
  std::set<std::string> nccl_hosts;  // env: hosts whose NCCL reported its environment
  std::map<std::string, KeyValues> keys;
  std::map<std::string, ValueSource> first_line;  // per host: its first key's line
  // IsIdentityKey per key: every host repeats the same keys.
  std::unordered_map<std::string, bool> identity;
};

struct SideConfigs {
  std::map<std::string, Doc> docs;
  std::vector<std::string> host_names;
  // Sources that are a process's first NCCL line (the variable's own line
  // is looked up when cited), with the process's last NCCL line.
  std::map<ValueSource, int64_t> nccl_sources;
};

struct Row {
  std::string key, value;
  int64_t line_no = 0;
};

std::string KindOfConfig(const std::string& path, const std::vector<Row>& rows) {
  auto has = [&](std::string_view k) {
    return std::any_of(rows.begin(), rows.end(), [&](const Row& r) {
      return r.key == k || (r.key.size() > k.size() && r.key.compare(0, k.size(), k) == 0 &&
                            (r.key[k.size()] == '.' || r.key[k.size()] == '['));
    });
  };
  if (Lower(BaseName(path)) == "trainer_state.json" ||
      (has("global_step") && (has("best_metric") || has("is_world_process_zero")))) {
    return "trainer_state";
  }
  if (has("zero_optimization") || has("train_micro_batch_size_per_gpu") ||
      (has("train_batch_size") && (has("fp16") || has("bf16")))) {
    return "deepspeed";
  }
  if (has("model_type") || has("architectures")) return "hf_model";
  if (has("compute_environment") || has("distributed_type")) return "accelerate";
  return "other";
}

void AddValue(Doc& doc, const std::string& host, const std::string& key, const std::string& value,
              ValueSource source) {
  auto [known, fresh] = doc.identity.try_emplace(key, false);
  if (fresh) known->second = IsIdentityKey(key);
  if (known->second) return;
  doc.keys[key].by_host[host].Add(MaskIdentity(value, {host}), Cut(value), source);
  doc.first_line.emplace(host, source);  // rows come in document order
}

// An environment variable; XLA_FLAGS and LIBTPU_INIT_ARGS also flag by flag
// ("XLA_FLAGS --xla_gpu_enable_latency_hiding_scheduler").
void AddVariable(Doc& doc, const std::string& host, const std::string& name,
                 const std::string& value, ValueSource source) {
  if (IsFlagListVariable(name)) {
    for (const auto& [flag, flag_value] : WordsToKeys(SplitCommandWords(value), false)) {
      AddValue(doc, host, name + " " + flag, flag_value, source);
    }
    return;
  }
  AddValue(doc, host, name, value, source);
}

Doc& DocFor(SideConfigs& side, const std::string& id, const std::string& kind) {
  Doc& doc = side.docs[id];
  if (doc.id.empty()) {
    doc.id = id;
    doc.kind = kind;
  }
  return doc;
}

void LoadConfigFiles(const DiffSide& side, SideConfigs& out) {
  std::map<int64_t, std::vector<Row>> rows_by_file;
  size_t rows = 0;
  // log_history is the run's output (trainer_state.json), not its settings.
  side.index->Query(
      "SELECT file_id, key, value, line_no FROM configs WHERE key NOT LIKE 'log_history[%' "
      "ORDER BY rowid",
      [&](const QueryRow& r) {
        if (++rows > kMaxConfigRows) return false;
        rows_by_file[IntOf(r.values[0]).value_or(0)].push_back(
            {TextOf(r.values[1]), TextOf(r.values[2]), IntOf(r.values[3]).value_or(0)});
        return true;
      });
  for (const auto& [file_id, file_rows] : rows_by_file) {
    const FileRow* f = side.File(file_id);
    if (f == nullptr) continue;
    const std::string host = f->host.value_or("");
    if (IsEnvDump(f->path)) {
      Doc& doc = DocFor(out, kEnvDoc, "env");
      doc.hosts.insert(host);
      for (const Row& r : file_rows) AddVariable(doc, host, r.key, r.value, {file_id, r.line_no});
      continue;
    }
    const std::string kind = KindOfConfig(f->path, file_rows);
    if (kind == "trainer_state") continue;
    Doc& doc = DocFor(out, NormalizedPath(*f), kind);
    doc.hosts.insert(host);
    for (const Row& r : file_rows) AddValue(doc, host, r.key, r.value, {file_id, r.line_no});
  }
}

// "NCCL_IB_HCA=mlx5_0,mlx5_1,NCCL_SOCKET_IFNAME=eth0": values may hold
// commas, so entries are split where ",NCCL_" starts the next one.
std::vector<std::pair<std::string, std::string>> SplitNcclEnv(const std::string& env) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start < env.size()) {
    size_t next = env.find(",NCCL_", start);
    const std::string entry = env.substr(start, next == std::string::npos ? next : next - start);
    const size_t eq = entry.find('=');
    if (eq != std::string::npos && eq > 0)
      out.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
    if (next == std::string::npos) break;
    start = next + 1;
  }
  return out;
}

void LoadNcclEnvironment(const DiffSide& side, SideConfigs& out) {
  const auto dumps = out.docs.find(kEnvDoc);
  const std::set<std::string> dump_hosts =
      dumps == out.docs.end() ? std::set<std::string>{} : dumps->second.hosts;
  std::set<std::pair<std::string, int64_t>> seen;  // (host, pid): its first row only
  side.index->Query(
      "SELECT file_id, line_no, host, pid, env, last_line FROM nccl_ranks WHERE env <> '' "
      "ORDER BY file_id, line_no",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        const int64_t file_id = IntOf(v[0]).value_or(0);
        std::string host = TextOf(v[2]);
        if (!v[2]) {
          const FileRow* f = side.File(file_id);
          host = f != nullptr ? f->host.value_or("") : "";
        }
        if (dump_hosts.count(host)) return true;
        if (!seen.insert({host, IntOf(v[3]).value_or(-1)}).second) return true;
        const ValueSource source{file_id, IntOf(v[1]).value_or(0)};
        out.nccl_sources[source] = IntOf(v[5]).value_or(source.line_no);
        Doc& doc = DocFor(out, kEnvDoc, "env");
        doc.nccl_hosts.insert(host);
        for (const auto& [name, value] : SplitNcclEnv(TextOf(v[4]))) {
          AddVariable(doc, host, name, value, source);
        }
        return true;
      });
}

void LoadCommandLines(const DiffSide& side, SideConfigs& out) {
  for (const FileRow& f : side.files) {
    if (f.entry_type != "file" || f.kind == "binary" || !IsCommandLineFile(f.path)) continue;
    const std::string host = f.host.value_or("");
    std::vector<std::string> words;
    int64_t first_line = 0;
    side.index->ScanLines(f.id, [&](const LineRecord& rec) {
      if (rec.line_no > kMaxCmdlineLines) return false;
      std::vector<std::string> line_words = SplitCommandWords(rec.text);
      if (!line_words.empty() && first_line == 0) first_line = rec.line_no;
      words.insert(words.end(), line_words.begin(), line_words.end());
      return true;
    });
    if (words.empty()) continue;
    Doc& doc = DocFor(out, kCmdlineDoc, "cmdline");
    doc.hosts.insert(host);
    for (const auto& [key, value] : WordsToKeys(words, true)) {
      AddValue(doc, host, key, value, {f.id, first_line});
    }
  }
}

SideConfigs LoadSideConfigs(const DiffSide& side) {
  SideConfigs out;
  if (side.index == nullptr) return out;
  LoadConfigFiles(side, out);
  LoadNcclEnvironment(side, out);
  LoadCommandLines(side, out);
  std::set<std::string> names;
  for (const FileRow& f : side.files) {
    if (f.host) names.insert(*f.host);
  }
  for (const BundleRow& b : side.bundles) {
    if (b.host) names.insert(*b.host);
  }
  out.host_names.assign(names.begin(), names.end());
  return out;
}

// Points a cited process line at the line where NCCL printed the variable.
void RefineNcclSources(const DiffSide& side, const SideConfigs& configs, const std::string& name,
                       std::vector<ValueSource>& sources) {
  const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!plain) return;
  for (ValueSource& s : sources) {
    auto it = configs.nccl_sources.find(s);
    if (it == configs.nccl_sources.end()) continue;
    const int64_t last = std::min(it->second, s.line_no + kNcclEnvSearchLines);
    side.index->Query("SELECT line_no FROM lines WHERE file_id = " + std::to_string(s.file_id) +
                          " AND line_no BETWEEN " + std::to_string(s.line_no) + " AND " +
                          std::to_string(std::max(last, s.line_no)) + " AND instr(text, '" + name +
                          " set by environment') > 0 LIMIT 1",
                      [&](const QueryRow& r) {
                        s.line_no = IntOf(r.values[0]).value_or(s.line_no);
                        return false;
                      });
  }
}

// The hosts of a document that could show `key`: NCCL's report names only
// NCCL_* variables, so it stands in for a dump only for those.
std::set<std::string> HostsFor(const Doc& doc, const std::string& key) {
  if (key.rfind("NCCL_", 0) != 0 || doc.nccl_hosts.empty()) return doc.hosts;
  std::set<std::string> out = doc.hosts;
  out.insert(doc.nccl_hosts.begin(), doc.nccl_hosts.end());
  return out;
}

std::string DocDescription(const Doc& doc, const std::string& label) {
  if (doc.id == kEnvDoc) return "environment";
  if (doc.id == kCmdlineDoc) return "command line";
  return label;
}

bool IsPrecisionSwitch(const std::string& key, const ValueDelta& d) {
  if (!IsPrecisionKey(key)) return false;
  return (d.good && IsPrecisionValue(*d.good)) || (d.bad && IsPrecisionValue(*d.bad));
}

bool IsWordByte(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// Ends the key (an environment variable's name, a config path's last part).
bool IsTransportSwitch(std::string_view key) {
  for (std::string_view name :
       {"NCCL_IB_DISABLE", "NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_NET", "NCCL_P2P_LEVEL",
        "NCCL_NET_GDR_LEVEL", "NCCL_NVLS_ENABLE", "NCCL_COLLNET_ENABLE", "NCCL_ALGO", "NCCL_PROTO",
        "NCCL_CUMEM_ENABLE"}) {
    if (key.size() >= name.size() && key.substr(key.size() - name.size()) == name &&
        (key.size() == name.size() || !IsWordByte(key[key.size() - name.size() - 1])))
      return true;
  }
  return false;
}

double ScoreOf(const std::string& key, const ValueDelta& d, bool precision_switch) {
  if (precision_switch) return kPrecisionSwitch;
  if (IsTransportSwitch(key)) return kTransportSwitch;
  const bool important = WeightOfKey(key) == KeyWeight::kImportant;
  if (d.kind == "changed") return important ? kImportantChanged : kOtherChanged;
  return important ? kImportantAddedRemoved : kOtherAddedRemoved;
}

std::string Summary(const std::string& where_doc, const std::string& key, const ValueDelta& d) {
  std::string where = WhereText(d);
  if (!where.empty()) where = " " + where;
  if (d.kind == "changed") {
    return where_doc + ": " + key + " " + *d.good + " -> " + *d.bad + where;
  }
  if (d.kind == "added") return where_doc + ": " + key + " = " + *d.bad + " only in bad" + where;
  return where_doc + ": " + key + " = " + *d.good + " only in good" + where;
}

struct DocPair {
  const Doc* good = nullptr;
  const Doc* bad = nullptr;
  std::string label;
};

// Same id first; then, for what is left, the one config of a kind on each
// side (ds_config_bf16.json against ds_config_fp16.json).
std::vector<DocPair> MatchDocs(const SideConfigs& g, const SideConfigs& b) {
  std::vector<DocPair> pairs;
  std::vector<const Doc*> good_left, bad_left;
  for (const auto& [id, doc] : g.docs) {
    auto it = b.docs.find(id);
    if (it != b.docs.end()) {
      pairs.push_back({&doc, &it->second, ""});
    } else {
      good_left.push_back(&doc);
    }
  }
  for (const auto& [id, doc] : b.docs) {
    if (!g.docs.count(id)) bad_left.push_back(&doc);
  }
  auto count_kind = [](const std::vector<const Doc*>& docs, const std::string& kind) {
    return std::count_if(docs.begin(), docs.end(), [&](const Doc* d) { return d->kind == kind; });
  };
  std::vector<const Doc*> good_rest;
  for (const Doc* gd : good_left) {
    const Doc* match = nullptr;
    if (gd->kind != "other" && count_kind(good_left, gd->kind) == 1 &&
        count_kind(bad_left, gd->kind) == 1) {
      for (const Doc* bd : bad_left) {
        if (bd->kind == gd->kind) match = bd;
      }
    }
    if (match != nullptr) {
      pairs.push_back({gd, match, ""});
      bad_left.erase(std::find(bad_left.begin(), bad_left.end(), match));
    } else {
      good_rest.push_back(gd);
    }
  }
  for (const Doc* gd : good_rest) pairs.push_back({gd, nullptr, ""});
  for (const Doc* bd : bad_left) pairs.push_back({nullptr, bd, ""});
  // Labels: the file's base name, its whole (normalised) path when two
  // documents share a base name.
  std::map<std::string, int> base_count;
  for (DocPair& p : pairs) {
    const Doc* d = p.bad != nullptr ? p.bad : p.good;
    p.label = d->id == kEnvDoc || d->id == kCmdlineDoc ? d->id : BaseName(d->id);
    ++base_count[p.label];
  }
  for (DocPair& p : pairs) {
    if (base_count[p.label] > 1) p.label = (p.bad != nullptr ? p.bad : p.good)->id;
  }
  return pairs;
}

// A config file only one side has: one item for the file, not one per key.
DiffItem FileItem(const DiffSide& good, const DiffSide& bad, const DocPair& p) {
  const bool added = p.good == nullptr;
  const Doc& doc = added ? *p.bad : *p.good;
  const DiffSide& side = added ? bad : good;
  DiffItem item;
  item.section = "configs";
  item.kind = added ? "added" : "removed";
  item.key = p.label;
  (added ? item.bad : item.good) = doc.id;
  item.score = kFileAddedRemoved;
  const std::string what = doc.id == kEnvDoc       ? "environment dump"
                           : doc.id == kCmdlineDoc ? "job command line"
                                                   : "config file " + doc.id;
  item.summary =
      what + " (" + std::to_string(doc.keys.size()) + " keys) only in " + (added ? "bad" : "good");
  std::vector<ValueSource> sources;
  for (const auto& [host, source] : doc.first_line) {
    if (sources.size() >= 3) break;
    sources.push_back(source);
  }
  (added ? item.bad_evidence : item.good_evidence) = SourcesEvidence(side, sources);
  item.fields.push_back({"file", doc.id});
  item.fields.push_back({"config_kind", doc.kind});
  item.fields.push_back({"keys", static_cast<int64_t>(doc.keys.size())});
  item.fields.push_back({"hosts_total", static_cast<int64_t>(doc.hosts.size())});
  return item;
}

}  // namespace

std::vector<DiffItem> DiffConfigs(const DiffSide& good, const DiffSide& bad) {
  const SideConfigs g = LoadSideConfigs(good);
  const SideConfigs b = LoadSideConfigs(bad);
  std::vector<DiffItem> items;
  // Prefixes ("ds_config.json:fp16") whose precision switch explains the
  // keys added or removed under them.
  std::map<std::string, std::string> switched_blocks;  // block -> its switch key
  for (const DocPair& p : MatchDocs(g, b)) {
    if (p.good == nullptr || p.bad == nullptr) {
      items.push_back(FileItem(good, bad, p));
      continue;
    }
    std::set<std::string> keys;
    for (const auto& [k, v] : p.good->keys) keys.insert(k);
    for (const auto& [k, v] : p.bad->keys) keys.insert(k);
    for (const std::string& key : keys) {
      const auto gk = p.good->keys.find(key);
      const auto bk = p.bad->keys.find(key);
      std::vector<ValueDelta> deltas =
          CompareKey(gk == p.good->keys.end() ? nullptr : &gk->second, HostsFor(*p.good, key),
                     bk == p.bad->keys.end() ? nullptr : &bk->second, HostsFor(*p.bad, key));
      for (ValueDelta& d : deltas) {
        // Masked with every host name of each side: a value naming another
        // host of its own run (MASTER_ADDR-like keys under other names).
        if (d.good && d.bad &&
            MaskIdentity(*d.good, g.host_names) == MaskIdentity(*d.bad, b.host_names)) {
          continue;
        }
        if (p.good->id == kEnvDoc) {
          RefineNcclSources(good, g, key.substr(0, key.find(' ')), d.good_sources);
          RefineNcclSources(bad, b, key.substr(0, key.find(' ')), d.bad_sources);
        }
        const bool precision_switch = IsPrecisionSwitch(key, d);
        DiffItem item;
        item.section = "configs";
        item.key = p.label + ":" + key;
        FillFromDelta(good, bad, d, item);
        item.score = ScoreOf(key, d, precision_switch);
        item.summary = Summary(DocDescription(*p.bad, p.label), key, d);
        item.fields.insert(item.fields.begin(), {"config_key", key});
        item.fields.insert(item.fields.begin() + 1, {"file_good", p.good->id});
        item.fields.insert(item.fields.begin() + 2, {"file_bad", p.bad->id});
        item.fields.insert(item.fields.begin() + 3, {"config_kind", p.bad->kind});
        item.fields.push_back({"important", WeightOfKey(key) == KeyWeight::kImportant});
        if (precision_switch) {
          item.fields.push_back({"precision_switch", true});
          const size_t dot = key.rfind('.');
          if (dot != std::string::npos) switched_blocks[p.label + ":" + key.substr(0, dot)] = key;
        }
        items.push_back(std::move(item));
      }
    }
  }
  // fp16.enabled false -> true brings fp16.loss_scale, fp16.hysteresis...
  // with it: those are part of the switch, not differences of their own.
  for (DiffItem& item : items) {
    if (item.kind == "changed" || item.score == kPrecisionSwitch) continue;
    for (const auto& [block, switch_key] : switched_blocks) {
      if (item.key.size() > block.size() && item.key.compare(0, block.size(), block) == 0 &&
          item.key[block.size()] == '.') {
        item.score = kOtherAddedRemoved;
        item.fields.push_back({"part_of", switch_key});
        break;
      }
    }
  }
  RankItems(items);
  return items;
}

}  // namespace casefile::diff
