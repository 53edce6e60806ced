#include "analyze/analyzers/numeric/numeric_inputs.h"

#include <charconv>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "analyze/query_values.h"
#include "common/error.h"
#include "parse/dist/dist_kinds.h"
#include "parse/numeric/metric_chunk.h"

namespace casefile::numeric {
namespace {

using Value = std::optional<std::string>;

class FileIndex {
 public:
  explicit FileIndex(const std::vector<FileRow>& files) {
    for (const FileRow& f : files) by_id_[f.id] = &f;
  }
  const FileRow* Get(int64_t id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : it->second;
  }
  // The row's own attribution, else its file's.
  Who Attribute(int64_t file_id, const Value& host, const Value& rank) const {
    Who w;
    const FileRow* f = Get(file_id);
    w.host = host ? *host : (f && f->host ? *f->host : "");
    w.rank = IntOf(rank);
    if (!w.rank && f) w.rank = f->rank;
    return w;
  }

 private:
  std::unordered_map<int64_t, const FileRow*> by_id_;
};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return s;
}

// "--fp16" as a flag that turns fp16 on: followed by the end, a blank or
// "=true"/" True"; not "--fp16_opt_level", not "--fp16 False".
bool EnablesFp16(const std::string& text) {
  for (size_t at = text.find("--fp16"); at != std::string::npos; at = text.find("--fp16", at + 6)) {
    size_t i = at + 6;
    if (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '=' && text[i] != '"' &&
        text[i] != '\'') {
      continue;
    }
    if (i < text.size() && text[i] == '=') ++i;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    const std::string next = Lower(text.substr(i, 5));
    if (next.starts_with("false") || next.starts_with("0 ") || next == "0" ||
        next.starts_with("no")) {
      continue;
    }
    return true;
  }
  return false;
}

}  // namespace

bool Who::operator<(const Who& o) const { return std::tie(host, rank) < std::tie(o.host, o.rank); }

const std::vector<SeriesPoint>* MetricGroup::Find(const std::string& name) const {
  for (const auto& [n, points] : series) {
    if (n == name) return &points;
  }
  return nullptr;
}

bool HasNumericTables(const IndexReader& index) {
  int found = 0;
  index.Query(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('numeric_frames', "
      "'metric_chunks')",
      [&](const QueryRow&) {
        ++found;
        return true;
      });
  return found == 2;
}

FrameInputs LoadFrames(const IndexReader& index, const std::vector<FileRow>& files) {
  const FileIndex fi(files);
  FrameInputs out;
  index.Query(
      "SELECT file_id, line_no, report_line_no, report_kind, batch, frame_index, module_line_no, "
      "module_path, module_class, role, min_text, max_text, host, rank FROM numeric_frames "
      "ORDER BY file_id, report_line_no, line_no",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        const int64_t file_id = IntOf(v[0]).value_or(0);
        const int64_t report_line = IntOf(v[2]).value_or(0);
        const std::string kind = TextOf(v[3]);
        const Who who = fi.Attribute(file_id, v[12], v[13]);
        if (kind == "detect") {
          out.detects.push_back(
              {{file_id, IntOf(v[1]).value_or(0)}, TextOf(v[9]), TextOf(v[11]), who});
          return true;
        }
        if (out.tables.empty() || out.tables.back().file_id != file_id ||
            out.tables.back().report_line_no != report_line || out.tables.back().kind != kind) {
          FrameTable t;
          t.file_id = file_id;
          t.report_line_no = report_line;
          t.kind = kind;
          t.batch = IntOf(v[4]);
          t.who = who;
          out.tables.push_back(std::move(t));
        }
        FrameRowData row;
        row.line_no = IntOf(v[1]).value_or(0);
        row.frame_index = IntOf(v[5]);
        row.module_line_no = IntOf(v[6]);
        row.module_path = TextOf(v[7]);
        row.module_class = TextOf(v[8]);
        row.role = TextOf(v[9]);
        row.min_text = TextOf(v[10]);
        row.max_text = TextOf(v[11]);
        out.tables.back().rows.push_back(std::move(row));
        return true;
      });
  return out;
}

void ScanMetricGroups(const IndexReader& index, const std::vector<FileRow>& files,
                      const std::function<void(const MetricGroup&)>& cb) {
  const FileIndex fi(files);
  MetricGroup group;
  std::tuple<int64_t, Value, Value, std::string> key;
  bool open = false;
  // Step times (dist's series, a point per rank per step like the loss)
  // are no curve the analyzer reads: they are not decoded here.
  index.Query(
      std::string("SELECT file_id, host, rank, form, name, first_line, casefile_points(points) "
                  "FROM metric_chunks WHERE name <> '") +
          dist::kStepTime + "' ORDER BY file_id, host, rank, form, name, first_line",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        const int64_t file_id = IntOf(v[0]).value_or(0);
        auto row_key = std::make_tuple(file_id, v[1], v[2], TextOf(v[3]));
        if (!open || row_key != key) {
          if (open) cb(group);
          group = MetricGroup{};
          group.file_id = file_id;
          group.form = TextOf(v[3]);
          group.who = fi.Attribute(file_id, v[1], v[2]);
          key = std::move(row_key);
          open = true;
        }
        const std::string name = TextOf(v[4]);
        if (group.series.empty() || group.series.back().first != name) {
          group.series.emplace_back(name, std::vector<SeriesPoint>{});
        }
        auto& points = group.series.back().second;
        const bool ok =
            DecodeMetricPoints(TextOf(v[6]), IntOf(v[5]).value_or(0), [&](const MetricPoint& p) {
              points.push_back({p.line_no, p.step, p.value.value, p.value.kind});
            });
        if (!ok) {
          throw Error(ErrorCode::kCorrupt, "metric_chunks: malformed points for file " +
                                               std::to_string(file_id) + " at line " +
                                               TextOf(v[5]));
        }
        return true;
      });
  if (open) cb(group);
}

std::vector<MetricGroup> LoadTrainerStates(const IndexReader& index,
                                           const std::vector<FileRow>& files) {
  const FileIndex fi(files);
  struct Entry {
    std::optional<int64_t> step;
    std::map<std::string, std::pair<int64_t, MetricValue>> values;  // name -> (line, value)
  };
  // file -> entry index -> entry; value texts are kept alive in `texts`.
  std::map<int64_t, std::map<int64_t, Entry>> by_file;
  std::vector<std::unique_ptr<std::string>> texts;
  index.Query("SELECT file_id, key, value, line_no FROM configs WHERE key LIKE 'log_history[%'",
              [&](const QueryRow& r) {
                const auto& v = r.values;
                const std::string key = TextOf(v[1]);
                const size_t close = key.find("].");
                if (close == std::string::npos) return true;
                const std::optional<int64_t> i = IntOf(key.substr(12, close - 12));
                if (!i) return true;
                const std::string field = key.substr(close + 2);
                static const std::map<std::string, std::string> kFields = {
                    {"loss", "loss"}, {"grad_norm", "grad_norm"}, {"eval_loss", "eval_loss"}};
                Entry& e = by_file[IntOf(v[0]).value_or(0)][*i];
                if (field == "step") {
                  e.step = IntOf(v[2]);
                  return true;
                }
                auto it = kFields.find(field);
                if (it == kFields.end()) return true;
                texts.push_back(std::make_unique<std::string>(TextOf(v[2])));
                MetricValue mv;
                if (ParseMetricValue(*texts.back(), &mv)) {
                  e.values[it->second] = {IntOf(v[3]).value_or(0), mv};
                }
                return true;
              });
  std::vector<MetricGroup> out;
  for (const auto& [file_id, entries] : by_file) {
    MetricGroup g;
    g.file_id = file_id;
    g.form = "trainer_state";
    g.who = fi.Attribute(file_id, std::nullopt, std::nullopt);
    std::map<std::string, std::vector<SeriesPoint>> series;
    for (const auto& [i, e] : entries) {
      for (const auto& [name, lv] : e.values) {
        series[name].push_back({lv.first, e.step, lv.second.value, lv.second.kind});
      }
    }
    for (auto& [name, points] : series) g.series.emplace_back(name, std::move(points));
    if (!g.series.empty()) out.push_back(std::move(g));
  }
  return out;
}

PrecisionInputs LoadPrecision(const IndexReader& index) {
  PrecisionInputs out;
  bool auto_fp16 = false;
  index.Query(
      "SELECT file_id, key, value, line_no FROM configs WHERE key IN ('torch_dtype', 'dtype', "
      "'fp16.enabled', 'fp16', 'mixed_precision', 'fp16.min_loss_scale') OR key LIKE "
      "'%.torch_dtype' ORDER BY file_id, line_no",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        ConfigValue c{
            {IntOf(v[0]).value_or(0), IntOf(v[3]).value_or(0)}, TextOf(v[1]), TextOf(v[2])};
        const std::string value = Lower(c.value);
        if (c.key == "fp16.min_loss_scale") {
          MetricValue mv;
          if (!out.min_loss_scale && ParseMetricValue(c.value, &mv) && mv.finite()) {
            out.min_loss_scale = mv.value;
          }
        } else if (c.key == "fp16.enabled") {
          if (value == "true" || value == "auto") out.fp16_settings.push_back(c);
          auto_fp16 = auto_fp16 || value == "auto";
        } else if (c.key == "fp16") {
          if (value == "true") out.fp16_settings.push_back(c);
        } else if (c.key == "mixed_precision") {
          if (value == "fp16") out.fp16_settings.push_back(c);
        } else if (value == "bfloat16" || value == "torch.bfloat16") {
          out.bf16_dtypes.push_back(c);
        }
        return true;
      });
  if (out.bf16_dtypes.empty() || !auto_fp16) return out;
  index.Query(
      "SELECT l.file_id, l.line_no, l.text FROM files AS f JOIN lines AS l ON l.file_id = f.id "
      "WHERE f.kind IN ('log', 'other', 'version') AND l.line_no <= " +
          std::to_string(kCommandLineScan) +
          " AND instr(l.text, '--fp16') > 0 ORDER BY l.file_id, l.line_no",
      [&](const QueryRow& r) {
        if (EnablesFp16(TextOf(r.values[2]))) {
          out.fp16_flags.push_back(
              {IntOf(r.values[0]).value_or(0), IntOf(r.values[1]).value_or(0)});
        }
        return true;
      });
  return out;
}

void LoadNanChecks(const IndexReader& index, const std::vector<FileRow>& files,
                   const std::function<void(LineRef, Who, std::string)>& add) {
  std::unordered_map<int64_t, const FileRow*> by_id;
  for (const FileRow& f : files) by_id[f.id] = &f;
  constexpr size_t kMaxChecks = 10'000;
  size_t n = 0;
  index.Query(
      "SELECT file_id, line_no, host, rank, detail FROM dist_events WHERE kind = 'crash' AND ("
      "detail LIKE '%invalid value (nan) encountered%' OR "
      "detail LIKE '%invalid value (inf) encountered%' OR "
      "detail LIKE '%divide by zero encountered in jit%' OR "
      "detail LIKE '%returned nan values in its%' OR detail LIKE '%returned inf values in its%' "
      "OR detail LIKE '%nan generated by primitive%' OR "
      "detail LIKE '%inf generated by primitive%') ORDER BY file_id, line_no",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        LineRef line{IntOf(v[0]).value_or(0), IntOf(v[1]).value_or(0)};
        const auto it = by_id.find(line.file_id);
        const FileRow* f = it == by_id.end() ? nullptr : it->second;
        Who who;
        who.host = v[2] ? *v[2] : (f && f->host ? *f->host : "");
        who.rank = IntOf(v[3]);
        if (!who.rank && f) who.rank = f->rank;
        add(line, std::move(who), v[4].value_or(""));
        return ++n < kMaxChecks;
      });
}

}  // namespace casefile::numeric
