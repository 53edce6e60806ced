// The JSON form: the top-level object is cut into members and the entries
// list into elements (json_spans.h), then each part is read by simdjson.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "parse/flight/dump_forms.h"
#include "parse/flight/json_spans.h"

namespace casefile::flight_internal {
namespace {

struct Span {
  size_t begin = 0;
  size_t end = 0;
};

struct Damage {
  SpanStatus status = SpanStatus::kOk;
  size_t pos = 0;
  std::string where;  // "the entries list", "the member \"pg_config\""
};

// The elements of the entries list; only the last kMaxEntries are kept.
class EntrySpans {
 public:
  void Add(Span span) {
    if (ring_.size() < flight::kMaxEntries) {
      ring_.push_back(span);
    } else {
      ring_[total_ % flight::kMaxEntries] = span;
    }
    ++total_;
  }
  size_t total() const { return total_; }
  // The kept spans in dump order.
  std::vector<Span> Kept() && {
    if (total_ > ring_.size()) {
      std::rotate(ring_.begin(), ring_.begin() + static_cast<long>(total_ % ring_.size()),
                  ring_.end());
    }
    return std::move(ring_);
  }

 private:
  std::vector<Span> ring_;
  size_t total_ = 0;
};

// Cuts the list whose '[' is at `pos` into elements.
SpanResult ScanEntries(std::string_view s, size_t pos, EntrySpans& spans) {
  pos = SkipBlanks(s, pos + 1);
  if (pos < s.size() && s[pos] == ']') return {SpanStatus::kOk, pos + 1};
  while (true) {
    pos = SkipBlanks(s, pos);
    if (pos >= s.size()) return {SpanStatus::kTruncated, pos};
    SpanResult element = SkipValue(s, pos);
    if (element.status != SpanStatus::kOk) return element;
    spans.Add({pos, element.pos});
    pos = SkipBlanks(s, element.pos);
    if (pos >= s.size()) return {SpanStatus::kTruncated, pos};
    if (s[pos] == ']') return {SpanStatus::kOk, pos + 1};
    if (s[pos] != ',') return {SpanStatus::kInvalid, pos};
    ++pos;
  }
}

class JsonDumpReader {
 public:
  JsonDumpReader(std::string& dump, DumpAssembler& out) : dump_(dump), out_(out) {
    dump_.reserve(dump_.size() + JsonPadding());
    s_ = dump_;
  }

  void Run() {
    size_t pos = 0;
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos = 3;
    pos = SkipBlanks(s_, pos);
    if (pos >= s_.size() || s_[pos] != '{') {
      out_.Issue("flight_recorder_invalid", pos, "not a JSON object");
      out_.Begin({});
      return;
    }
    WalkMembers(pos + 1);
    ReadHeader();
    ReadEntries();
    ReportDamage();
  }

 private:
  PaddedJson Json(Span span) const {
    return {dump_.data() + span.begin, span.end - span.begin, dump_.capacity() - span.begin};
  }

  void Fail(SpanStatus status, size_t pos, std::string where) {
    damage_ = {status, pos, std::move(where)};
  }

  void WalkMembers(size_t pos) {
    while (true) {
      pos = SkipBlanks(s_, pos);
      if (pos >= s_.size()) return Fail(SpanStatus::kTruncated, pos, "the top-level object");
      if (s_[pos] == '}') {
        pos = SkipBlanks(s_, pos + 1);
        if (pos < s_.size()) {
          out_.Issue("flight_recorder_invalid", pos,
                     "data after the end of the dump at byte " + std::to_string(pos) + " ignored");
        }
        return;
      }
      std::string_view key;
      SpanResult k =
          s_[pos] == '"' ? SkipString(s_, pos, &key) : SpanResult{SpanStatus::kInvalid, pos};
      if (k.status != SpanStatus::kOk) return Fail(k.status, k.pos, "the top-level object");
      pos = SkipBlanks(s_, k.pos);
      if (pos >= s_.size()) return Fail(SpanStatus::kTruncated, pos, "the top-level object");
      if (s_[pos] != ':') return Fail(SpanStatus::kInvalid, pos, "the top-level object");
      pos = SkipBlanks(s_, pos + 1);
      const std::string where = "the member \"" + std::string(key) + "\"";
      SpanResult v;
      if (key == "entries" && pos < s_.size() && s_[pos] == '[') {
        v = ScanEntries(s_, pos, entries_);
        if (v.status != SpanStatus::kOk) return Fail(v.status, v.pos, "the entries list");
      } else {
        v = SkipValue(s_, pos);
        if (v.status != SpanStatus::kOk) return Fail(v.status, v.pos, where);
        Span span{pos, v.pos};
        if (key == "entries") {
          out_.Issue("flight_recorder_invalid", pos, "\"entries\" is not a list");
        } else if (key == "rank") {
          rank_ = span;
        } else if (key == "version") {
          version_ = span;
        } else if (key == "pg_config") {
          pg_config_ = span;
        } else if (key == "pg_status") {
          pg_status_ = span;
        }
      }
      pos = SkipBlanks(s_, v.pos);
      if (pos >= s_.size()) return Fail(SpanStatus::kTruncated, pos, "the top-level object");
      if (s_[pos] == ',') {
        ++pos;
      } else if (s_[pos] != '}') {
        return Fail(SpanStatus::kInvalid, pos, "the top-level object");
      }
    }
  }

  void ReadHeader() {
    DumpHeader header;
    auto text = [&](Span span) { return s_.substr(span.begin, span.end - span.begin); };
    if (rank_) header.rank = ScalarInt(text(*rank_));
    if (version_) header.version = ScalarText(text(*version_));
    std::string why;
    if (pg_config_ && !out_.reader().ReadPgConfig(Json(*pg_config_), header.config, why)) {
      out_.Issue("flight_recorder_invalid", pg_config_->begin, "pg_config unreadable: " + why);
    }
    if (pg_status_ && !out_.reader().ReadPgStatus(Json(*pg_status_), header.status, why)) {
      out_.Issue("flight_recorder_invalid", pg_status_->begin, "pg_status unreadable: " + why);
    }
    out_.Begin(std::move(header));
  }

  void ReadEntries() {
    const size_t total = entries_.total();
    std::vector<Span> kept = std::move(entries_).Kept();
    if (total > kept.size()) {
      out_.Issue("flight_recorder_too_many_entries", kept.front().begin,
                 std::to_string(total) + " entries: the first " +
                     std::to_string(total - kept.size()) + " skipped, the last " +
                     std::to_string(kept.size()) + " kept");
    }
    // Lines are counted once, forwards: the spans are in dump order.
    int64_t line = 1;
    size_t counted = 0;
    for (size_t i = 0; i < kept.size(); ++i) {
      const Span& span = kept[i];
      line += std::count(s_.begin() + static_cast<long>(counted),
                         s_.begin() + static_cast<long>(span.begin), '\n');
      counted = span.begin;
      if (s_[span.begin] != '{') {
        out_.SkipEntry(span.begin, "not an object");
        continue;
      }
      out_.AddEntry(Json(span), span.begin, line, total - kept.size() + i);
    }
  }

  void ReportDamage() {
    if (damage_.status == SpanStatus::kOk) return;
    const std::string at = " at byte " + std::to_string(damage_.pos);
    if (damage_.status == SpanStatus::kTruncated) {
      out_.Issue("flight_recorder_truncated", damage_.pos,
                 "the dump ends inside " + damage_.where + at + "; the " +
                     std::to_string(entries_.total()) + " complete entries before it are kept");
    } else {
      out_.Issue("flight_recorder_invalid", damage_.pos,
                 "unexpected byte in " + damage_.where + at + "; the " +
                     std::to_string(entries_.total()) + " complete entries before it are kept");
    }
  }

  std::string& dump_;
  DumpAssembler& out_;
  std::string_view s_;
  std::optional<Span> rank_, version_, pg_config_, pg_status_;
  EntrySpans entries_;
  Damage damage_;
};

}  // namespace

void ReadJsonDump(std::string& dump, DumpAssembler& out) { JsonDumpReader(dump, out).Run(); }

}  // namespace casefile::flight_internal
