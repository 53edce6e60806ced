#include "collect/manifest_writer.h"

#include <ctime>

#include "common/json_writer.h"
#include "common/version.h"

namespace casefile::collect {
namespace {

void Counts(JsonWriter& w, const std::map<std::string, uint64_t>& counts) {
  w.BeginObject();
  for (const auto& [kind, n] : counts) w.Key(kind).Int(static_cast<int64_t>(n));
  w.EndObject();
}

// One file per line: a manifest of 100,000 HLO files stays readable and
// its size stays linear.
std::string FileJson(const PlannedFile& f, const ManifestData& data) {
  JsonWriter w(0);
  w.BeginObject();
  w.Key("path").String(f.path);
  w.Key("source").String(data.redact_text ? data.redact_text(f.source) : f.source);
  w.Key("kind").String(f.kind);
  w.Key("size").Int(static_cast<int64_t>(f.packed_size()));
  w.Key("sha256").String(f.sha256);
  w.Key("redactions");
  Counts(w, f.redactions);
  w.Key("truncated");
  if (f.tail) {
    w.BeginObject();
    w.Key("original_size").Int(static_cast<int64_t>(f.tail->original_size));
    w.Key("kept_from").Int(static_cast<int64_t>(f.tail->kept_from));
    w.Key("first_line").Int(static_cast<int64_t>(f.tail->first_line));
    w.EndObject();
  } else {
    w.Null();
  }
  w.EndObject();
  return w.Take();
}

std::string CommandJson(const CommandRecord& c, const ManifestData& data) {
  JsonWriter w(0);
  w.BeginObject();
  w.Key("name").String(c.name);
  w.Key("argv").BeginArray();
  for (const auto& a : c.argv) w.String(data.redact_text ? data.redact_text(a) : a);
  w.EndArray();
  w.Key("exit_status");
  if (c.exit_status) {
    w.Int(*c.exit_status);
  } else {
    w.Null();
  }
  w.Key("signal");
  if (c.signal) {
    w.Int(*c.signal);
  } else {
    w.Null();
  }
  w.Key("duration_ms").Int(static_cast<int64_t>(c.duration_ms));
  w.Key("timed_out").Bool(c.timed_out);
  w.Key("error");
  if (c.error.empty()) {
    w.Null();
  } else {
    w.String(c.error);
  }
  w.Key("output_truncated").Bool(c.output_truncated);
  w.Key("stdout_path");
  if (c.stdout_path.empty()) {
    w.Null();
  } else {
    w.String(c.stdout_path);
  }
  w.Key("stderr_path");
  if (c.stderr_path.empty()) {
    w.Null();
  } else {
    w.String(c.stderr_path);
  }
  w.EndObject();
  return w.Take();
}

std::string PairJson(const char* first_key, const std::string& first, const char* second_key,
                     const std::string& second) {
  JsonWriter w(0);
  w.BeginObject();
  w.Key(first_key).String(first);
  w.Key(second_key).String(second);
  w.EndObject();
  return w.Take();
}

}  // namespace

std::string UtcTimestamp(int64_t seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string ManifestJson(const ManifestData& data) {
  auto redact = [&](const std::string& s) { return data.redact_text ? data.redact_text(s) : s; };
  JsonWriter w(2);
  w.BeginObject();
  w.Key("format_version").Int(kManifestFormatVersion);
  w.Key("casefile_version").String(kVersionString);
  w.Key("created_at").String(data.created_at);
  w.Key("host").String(data.host);
  w.Key("labels").BeginObject();
  for (const auto& [k, v] : data.labels) w.Key(k).String(v);
  w.EndObject();
  w.Key("command_line").String(data.command_line);
  w.Key("redaction").BeginObject();
  w.Key("enabled").Bool(data.redaction_enabled);
  w.Key("hosts").Bool(data.redact_hosts);
  w.Key("key").String(!data.redaction_enabled ? "none" : data.shared_key ? "shared" : "random");
  w.Key("counts");
  Counts(w, data.redactions);
  w.EndObject();

  uint64_t files = 0;
  uint64_t bytes = 0;
  w.Key("files").BeginArray();
  if (data.files != nullptr) {
    for (const PlannedFile& f : *data.files) {
      if (!f.packed) continue;
      ++files;
      bytes += f.packed_size();
      w.Raw(FileJson(f, data));
    }
  }
  w.EndArray();
  w.Key("commands").BeginArray();
  if (data.commands != nullptr) {
    for (const CommandRecord& c : *data.commands) w.Raw(CommandJson(c, data));
  }
  w.EndArray();
  w.Key("errors").BeginArray();
  for (const auto& e : data.errors)
    w.Raw(PairJson("source", redact(e.source), "error", redact(e.message)));
  w.EndArray();
  w.Key("skipped").BeginArray();
  for (const auto& s : data.skipped)
    w.Raw(PairJson("source", redact(s.source), "reason", redact(s.reason)));
  w.EndArray();
  w.Key("totals").BeginObject();
  w.Key("files").Int(static_cast<int64_t>(files));
  w.Key("bytes").Int(static_cast<int64_t>(bytes));
  w.EndObject();
  w.EndObject();
  std::string out = w.Take();
  out += '\n';
  return out;
}

}  // namespace casefile::collect
