// The block subset of YAML that training configs use (HF/accelerate, Hydra,
// Megatron, JAX/T5X-style YAML). Not a YAML parser: one pass over lines with
// a stack of open maps and lists keyed by indentation. Whatever it does not
// understand is skipped rather than guessed at, so a wrong row never appears.
#include <optional>
#include <string>

#include "parse/config/config_text.h"

namespace casefile::config_internal {
namespace {

// Open containers deeper than this are ignored ("- - - - …" on one line
// would otherwise recurse once per dash).
constexpr size_t kMaxFrames = 256;

bool IsSeqItem(std::string_view body) {
  return !body.empty() && body[0] == '-' && (body.size() == 1 || IsBlank(body[1]));
}

int LeadingSpaces(std::string_view s) {
  int n = 0;
  while (static_cast<size_t>(n) < s.size() && IsBlank(s[n])) ++n;
  return n;
}

// True when a quote at s[i] opens a scalar (quotes inside a plain scalar,
// as in "it's", are just characters).
bool QuoteOpensScalar(std::string_view s, size_t i) {
  size_t j = i;
  while (j > 0 && IsBlank(s[j - 1])) --j;
  if (j == 0) return true;
  char p = s[j - 1];
  return p == ':' || p == '-' || p == '[' || p == '{' || p == ',' || p == '?';
}

std::string_view StripComment(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '#' && (i == 0 || IsBlank(s[i - 1]))) return TrimRight(s.substr(0, i));
    if ((c == '"' || c == '\'') && QuoteOpensScalar(s, i)) {
      size_t close = FindClosingQuote(s, i, c == '\'');
      if (close == std::string_view::npos) return TrimRight(s);
      i = close;
    }
  }
  return TrimRight(s);
}

std::string DecodeSingleQuoted(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    out.push_back(body[i]);
    if (body[i] == '\'' && i + 1 < body.size() && body[i + 1] == '\'') ++i;
  }
  return out;
}

struct KeyValue {
  std::string key;
  std::string_view value;  // trimmed, comment already removed
};

std::optional<KeyValue> SplitKey(std::string_view body) {
  if (body.empty() || body[0] == '[' || body[0] == '{' || body[0] == '?' || IsSeqItem(body)) {
    return std::nullopt;
  }
  KeyValue kv;
  size_t colon;
  if (body[0] == '"' || body[0] == '\'') {
    size_t close = FindClosingQuote(body, 0, body[0] == '\'');
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view inner = body.substr(1, close - 1);
    kv.key = body[0] == '"' ? UnescapeDoubleQuoted(inner) : DecodeSingleQuoted(inner);
    colon = close + 1;
    while (colon < body.size() && IsBlank(body[colon])) ++colon;
    if (colon >= body.size() || body[colon] != ':') return std::nullopt;
    if (colon + 1 < body.size() && !IsBlank(body[colon + 1])) return std::nullopt;
  } else {
    colon = std::string_view::npos;
    for (size_t i = 0; i < body.size(); ++i) {
      if (body[i] == ':' && (i + 1 == body.size() || IsBlank(body[i + 1]))) {
        colon = i;
        break;
      }
    }
    if (colon == std::string_view::npos) return std::nullopt;
    kv.key = std::string(TrimRight(body.substr(0, colon)));
    if (kv.key.empty()) return std::nullopt;
  }
  kv.value = Trim(body.substr(colon + 1));
  return kv;
}

// Drops leading "&anchor" and "!tag" tokens; what is left is the value.
std::string_view StripAnchorAndTag(std::string_view v) {
  while (!v.empty() && (v[0] == '&' || v[0] == '!')) {
    size_t end = 0;
    while (end < v.size() && !IsBlank(v[end])) ++end;
    v = TrimLeft(v.substr(end));
  }
  return v;
}

class YamlFlattener {
 public:
  YamlFlattener(std::string_view text, const ConfigEmit& emit)
      : lines_(SplitLines(text)), emit_(emit) {}

  void Run() {
    while (cursor_ < lines_.size()) {
      const TextLine& line = lines_[cursor_++];
      std::string_view raw = line.text;
      if ((raw.substr(0, 3) == "---" || raw.substr(0, 3) == "...") &&
          (raw.size() == 3 || IsBlank(raw[3]))) {
        EndDocument();
        continue;
      }
      if (!raw.empty() && raw[0] == '%') continue;  // a %YAML / %TAG directive
      int indent = LeadingSpaces(raw);
      std::string_view body = StripComment(raw.substr(indent));
      if (body.empty()) continue;
      Line(indent, body, line.line_no);
    }
    EndDocument();
  }

 private:
  struct Frame {
    int indent;
    bool seq;
    std::string path;
    int64_t next_index = 0;
  };

  void EndDocument() {
    FlushPending();
    stack_.clear();
  }

  void FlushPending() {
    if (pending_) emit_(pending_path_, "", pending_line_);
    pending_ = false;
  }

  void SetPending(std::string path, int indent, bool from_map, int64_t line_no) {
    pending_ = true;
    pending_path_ = std::move(path);
    pending_indent_ = indent;
    pending_from_map_ = from_map;
    pending_line_ = line_no;
  }

  void Line(int indent, std::string_view body, int64_t line_no) {
    bool item = IsSeqItem(body);
    if (pending_) {
      // "key:" followed by a deeper block, or by a list at the key's own
      // indentation (a common YAML style).
      if (indent > pending_indent_ || (indent == pending_indent_ && item && pending_from_map_)) {
        stack_.push_back({indent, item, std::move(pending_path_)});
        pending_ = false;
      } else {
        FlushPending();
      }
    }
    while (!stack_.empty()) {
      const Frame& top = stack_.back();
      if (top.indent > indent || (top.indent == indent && top.seq && !item)) {
        stack_.pop_back();
      } else {
        break;
      }
    }
    if (stack_.empty()) stack_.push_back({indent, item, std::string()});
    if (stack_.back().indent != indent) return;  // continuation we do not read
    Node(indent, body, line_no);
  }

  // `body` sits at column `indent`, which is the top frame's indentation.
  void Node(int indent, std::string_view body, int64_t line_no) {
    if (stack_.size() > kMaxFrames) return;
    Frame& top = stack_.back();
    if (top.seq) {
      if (!IsSeqItem(body)) return;
      std::string path = top.path + "[" + std::to_string(top.next_index++) + "]";
      size_t off = 1;
      while (off < body.size() && IsBlank(body[off])) ++off;
      std::string_view rest = body.substr(off);
      if (rest.empty()) {
        SetPending(std::move(path), indent, false, line_no);
        return;
      }
      int column = indent + static_cast<int>(off);
      if (IsSeqItem(rest) || SplitKey(rest)) {
        stack_.push_back({column, IsSeqItem(rest), std::move(path)});
        Node(column, rest, line_no);
        return;
      }
      Value(path, rest, indent, false, line_no);
      return;
    }
    std::optional<KeyValue> kv = SplitKey(body);
    if (!kv) return;
    Value(JoinKey(top.path, kv->key), kv->value, indent, true, line_no);
  }

  void Value(std::string path, std::string_view value, int indent, bool from_map, int64_t line_no) {
    value = StripAnchorAndTag(value);
    if (value.empty()) {
      SetPending(std::move(path), indent, from_map, line_no);
      return;
    }
    char c = value[0];
    if (c == '|' || c == '>') {
      emit_(path, BlockScalar(indent), line_no);
    } else if (c == '[' || c == '{') {
      emit_(path, FlowCollection(value), line_no);
    } else if (c == '"' || c == '\'') {
      emit_(path, Quoted(value), line_no);
    } else {
      emit_(path, value, line_no);
    }
  }

  // The lines after a "|" or ">" header that are indented deeper than the
  // key, joined with '\n' and de-indented (kept raw: folding is not applied).
  std::string BlockScalar(int indent) {
    std::string text;
    int content_indent = -1;
    size_t kept = 0, blank_run = 0;
    while (cursor_ < lines_.size()) {
      std::string_view raw = lines_[cursor_].text;
      if (Trim(raw).empty()) {
        ++blank_run;
        ++cursor_;
        continue;
      }
      int ind = LeadingSpaces(raw);
      if (ind <= indent) break;
      if (content_indent < 0) content_indent = ind;
      if (kept < kMaxValueLines) {
        if (kept > 0) text.append(blank_run + 1, '\n');
        text.append(raw.substr(std::min(ind, content_indent)));
        ++kept;
      }
      blank_run = 0;
      ++cursor_;
    }
    return text;
  }

  // A "[…]" or "{…}" value, joined over the lines it spans, kept raw.
  std::string FlowCollection(std::string_view first) {
    std::string text(first);
    int balance = BracketBalance(first);
    size_t taken = 0;
    while (balance > 0 && cursor_ < lines_.size() && taken++ < kMaxValueLines) {
      std::string_view next = Trim(StripComment(lines_[cursor_++].text));
      text.push_back(' ');
      text.append(next);
      balance += BracketBalance(next);
    }
    return text;
  }

  // A quoted scalar, possibly continued on following lines (folded with a
  // space, as YAML does).
  std::string Quoted(std::string_view first) {
    const char q = first[0];
    std::string text(first);
    size_t close = FindClosingQuote(text, 0, q == '\'');
    size_t taken = 0;
    while (close == std::string::npos && cursor_ < lines_.size() && taken++ < kMaxValueLines) {
      text.push_back(' ');
      text.append(Trim(lines_[cursor_++].text));
      close = FindClosingQuote(text, 0, q == '\'');
    }
    std::string_view inner = std::string_view(text).substr(1);
    if (close != std::string::npos) inner = inner.substr(0, close - 1);
    return q == '"' ? UnescapeDoubleQuoted(inner) : DecodeSingleQuoted(inner);
  }

  std::vector<TextLine> lines_;
  const ConfigEmit& emit_;
  size_t cursor_ = 0;
  std::vector<Frame> stack_;
  bool pending_ = false;
  std::string pending_path_;
  int pending_indent_ = 0;
  bool pending_from_map_ = false;
  int64_t pending_line_ = 0;
};

}  // namespace

void ParseYamlConfig(std::string_view text, const ConfigEmit& emit) {
  YamlFlattener(text, emit).Run();
}

}  // namespace casefile::config_internal
