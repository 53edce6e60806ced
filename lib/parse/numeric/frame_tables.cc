#include "parse/numeric/frame_tables.h"

#include <algorithm>

#include "parse/line/scan.h"
#include "parse/numeric/metric_value.h"
#include "parse/numeric/numeric_prefilter.h"

namespace casefile::numeric {
namespace {

constexpr std::string_view kDetected = "Detected inf/nan during batch_number=";
constexpr std::string_view kStarting = "Starting batch number=";
constexpr std::string_view kFinished = "Finished batch number=";
// Module headers without a path (the model itself) are indented by the
// tracer's 17-space prefix; a lone word with less indentation is not taken
// for one.
constexpr size_t kMinModuleIndent = 8;

enum class Kind {
  kOther,
  kBlank,
  kElision,
  kDetected,
  kLastFrames,
  kHeader,
  kStarting,
  kFinished,
  kModule,
  kValue,
  kNone,
  kNotTensor,
  kDetect,
};

struct Classified {
  Kind kind = Kind::kOther;
  std::optional<int64_t> batch;
  std::string_view a, b, role;  // module: path, class; value: min, max; detect: label, what
};

Classified Of(Kind k) {
  Classified c;
  c.kind = k;
  return c;
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (scan::IsBlank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

size_t Indent(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && scan::IsBlank(s[i])) ++i;
  return i;
}

std::optional<int64_t> IntAt(std::string_view s, size_t i) {
  uint64_t v = 0;
  const size_t n = scan::ReadUint(s, i, 18, &v);
  if (n == 0) return std::nullopt;
  return static_cast<int64_t>(v);
}

bool IsRoleText(std::string_view s) {
  if (s.empty() || s.size() > kMaxModuleText) return false;
  for (char c : s) {
    if (scan::IsBlank(c)) return false;
  }
  return true;
}

bool IsIdentifier(std::string_view s) {
  if (s.empty() || !(scan::IsAlpha(s[0]) || s[0] == '_')) return false;
  for (char c : s) {
    if (!scan::IsAlnum(c) && c != '_') return false;
  }
  return true;
}

// Module names are attribute paths ("encoder.block.2.layer.1"); ModuleDict
// keys may add '-' or ':'.
bool IsModulePath(std::string_view s) {
  if (s.empty() || s.size() > kMaxModuleText) return false;
  for (char c : s) {
    if (!scan::IsAlnum(c) && c != '_' && c != '.' && c != '-' && c != ':') return false;
  }
  return true;
}

// " has infs" / " has nans" at the end: detect_overflow's message.
bool DetectSuffix(std::string_view t, std::string_view* label, std::string_view* what) {
  for (std::string_view suffix : {std::string_view(" has infs"), std::string_view(" has nans")}) {
    if (t.size() > suffix.size() && t.ends_with(suffix)) {
      std::string_view l = t.substr(0, t.size() - suffix.size());
      l.remove_prefix(Indent(l));
      if (l.empty() || l.size() > kMaxModuleText) return false;
      *label = l;
      *what = suffix[5] == 'i' ? "inf" : "nan";
      return true;
    }
  }
  return false;
}

Classified Classify(std::string_view message) {
  Classified c;
  const std::string_view t = TrimRight(message);
  const size_t indent = Indent(t);
  const std::string_view body = t.substr(indent);
  if (body.empty()) return Of(Kind::kBlank);
  if (body.starts_with("[...]")) return Of(Kind::kElision);
  if (const size_t at = body.find(kDetected); at != std::string_view::npos) {
    c.kind = Kind::kDetected;
    c.batch = IntAt(body, at + kDetected.size());
    return c;
  }
  if (body.starts_with("Last ") && body.ends_with("forward frames:")) return Of(Kind::kLastFrames);
  if (body.starts_with("abs min")) return Of(Kind::kHeader);
  if (body.starts_with("***")) {
    if (const size_t at = body.find(kStarting); at != std::string_view::npos) {
      c.kind = Kind::kStarting;
      c.batch = IntAt(body, at + kStarting.size());
      return c;
    }
    if (body.find(kFinished) != std::string_view::npos) return Of(Kind::kFinished);
    return c;
  }
  if (DetectSuffix(body, &c.a, &c.b)) {
    c.kind = Kind::kDetect;
    return c;
  }
  // "1.01e-06 6.44e+00 weight", "0.00e+00      inf output".
  MetricValue lo, hi;
  if (const size_t n1 = ReadMetricValue(body, 0, &lo); n1 > 0) {
    size_t i = n1;
    const size_t gap1 = Indent(body.substr(i));
    i += gap1;
    const size_t n2 = gap1 ? ReadMetricValue(body, i, &hi) : 0;
    if (n2 == 0) return c;
    const std::string_view max_text = body.substr(i, n2);
    i += n2;
    const size_t gap2 = Indent(body.substr(i));
    const std::string_view role = body.substr(i + gap2);
    if (!gap2 || !IsRoleText(role)) return c;
    c.kind = Kind::kValue;
    c.a = body.substr(0, n1);
    c.b = max_text;
    c.role = role;
    return c;
  }
  if (body.starts_with("None ") && IsRoleText(body.substr(5))) {
    c.kind = Kind::kNone;
    c.role = body.substr(5);
    return c;
  }
  if (body.starts_with("not a tensor ") && IsRoleText(body.substr(13))) {
    c.kind = Kind::kNotTensor;
    c.role = body.substr(13);
    return c;
  }
  // "encoder.block.2.layer.1.layer_norm T5LayerNorm", or "T5ForConditionalGeneration" alone.
  const size_t space = body.find(' ');
  if (space == std::string_view::npos) {
    if (indent >= kMinModuleIndent && scan::IsUpper(body[0]) && IsIdentifier(body)) {
      c.kind = Kind::kModule;
      c.b = body;
    }
    return c;
  }
  const std::string_view path = body.substr(0, space);
  const std::string_view cls = body.substr(space + 1);
  if (IsModulePath(path) && IsIdentifier(cls) && cls.size() <= kMaxModuleText) {
    c.kind = Kind::kModule;
    c.a = path;
    c.b = cls;
  }
  return c;
}

// True when a line with no open table of its rank may still start one or is
// a detect_overflow line; everything else is rejected with a few compares.
bool MayOpen(std::string_view m, uint32_t hits) {
  const size_t indent = Indent(m);
  if (indent < m.size()) {
    const char first = m[indent];
    if (first == '*' || (first == 'a' && scan::LiteralAt(m, indent, "abs min"))) return true;
  }
  if ((hits & kHitNan) && m.find(kDetected) != std::string_view::npos) return true;
  const std::string_view t = TrimRight(m);
  return t.ends_with(" has infs") || ((hits & kHitNan) && t.ends_with(" has nans"));
}

std::optional<double> AbsValue(std::string_view text) {
  MetricValue v;
  if (!ParseMetricValue(text, &v) || v.kind == ValueKind::kNan) return std::nullopt;
  return v.value;
}

std::string Capped(std::string_view s) { return std::string(s.substr(0, kMaxModuleText)); }

}  // namespace

FrameTableParser::FrameTableParser(int64_t file_id, RowFn emit)
    : file_id_(file_id), emit_(std::move(emit)) {}

FrameTableParser::Table* FrameTableParser::Find(int32_t rank) {
  for (Table& t : tables_) {
    if (t.rank == rank) return &t;
  }
  return nullptr;
}

void FrameTableParser::Open(const FrameLine& line, const char* kind, std::optional<int64_t> batch) {
  Close(line.rank);
  if (tables_.size() >= kMaxOpenTables) tables_.erase(tables_.begin());
  Table t;
  t.rank = line.rank;
  t.kind = kind;
  t.report_line = line.line_no;
  t.batch = batch;
  tables_.push_back(std::move(t));
}

void FrameTableParser::Close(int32_t rank) {
  tables_.erase(std::remove_if(tables_.begin(), tables_.end(),
                               [rank](const Table& t) { return t.rank == rank; }),
                tables_.end());
}

void FrameTableParser::Emit(const Table& t, const FrameLine& line, std::string_view role,
                            std::string_view min_text, std::string_view max_text) {
  if (rows_ >= kMaxFrameRowsPerFile) {
    ++dropped_;
    return;
  }
  ++rows_;
  NumericFrameRow r;
  r.file_id = file_id_;
  r.line_no = line.line_no;
  r.report_line_no = t.report_line;
  r.report_kind = t.kind;
  r.batch = t.batch;
  if (t.frame_index >= 0) {
    r.frame_index = t.frame_index;
    r.module_line_no = t.module_line;
  }
  r.module_path = t.module_path;
  r.module_class = t.module_class;
  r.role = Capped(role);
  r.min_text = std::string(min_text);
  r.max_text = std::string(max_text);
  r.abs_min = AbsValue(min_text);
  r.abs_max = AbsValue(max_text);
  if (!line.host.empty()) r.host = std::string(line.host);
  if (line.rank >= 0) r.rank = line.rank;
  emit_(r);
}

void FrameTableParser::EmitDetect(const FrameLine& line, std::string_view label,
                                  std::string_view what) {
  Table t;
  t.kind = "detect";
  t.report_line = line.line_no;
  Emit(t, line, label, what, what);
}

bool FrameTableParser::Feed(const FrameLine& line, uint32_t hits) {
  if (tables_.empty() && !MayOpen(line.message, hits)) return false;
  const Classified c = Classify(line.message);
  if (c.kind == Kind::kDetect) {
    EmitDetect(line, c.a, c.b);
    return true;
  }
  Table* t = Find(line.rank);
  if (!t) {
    switch (c.kind) {
      case Kind::kDetected:
        Open(line, "overflow", c.batch);
        return true;
      case Kind::kStarting:
      case Kind::kHeader:
        // A header without its opening line (cut off, or printed by an
        // older tracer) still opens a table, with no batch.
        Open(line, "trace", c.batch);
        return true;
      default:
        return false;
    }
  }
  if (c.kind != Kind::kBlank) t->blank_run = 0;
  switch (c.kind) {
    case Kind::kDetected:
      Open(line, "overflow", c.batch);
      return true;
    case Kind::kStarting:
      // Inside a report the dump can cross a batch boundary; the frames
      // after it belong to the new batch. In trace mode it opens the next
      // traced batch.
      if (t->kind == "overflow") {
        t->batch = c.batch;
      } else {
        Open(line, "trace", c.batch);
      }
      return true;
    case Kind::kFinished:
      Close(line.rank);
      return true;
    case Kind::kLastFrames:
    case Kind::kHeader:
    case Kind::kElision:
      return true;
    case Kind::kBlank:
      if (++t->blank_run > kMaxBlankRun) Close(line.rank);
      return true;
    case Kind::kModule:
      ++t->frame_index;
      t->module_line = line.line_no;
      t->module_path = Capped(c.a);
      t->module_class = Capped(c.b);
      return true;
    case Kind::kValue:
      Emit(*t, line, c.role, c.a, c.b);
      return true;
    case Kind::kNone:
      Emit(*t, line, c.role, "", "None");
      return true;
    case Kind::kNotTensor:
      Emit(*t, line, c.role, "", "not a tensor");
      return true;
    case Kind::kDetect:
    case Kind::kOther:
      break;
  }
  Close(line.rank);
  return false;
}

void FrameTableParser::Finish() { tables_.clear(); }

}  // namespace casefile::numeric
