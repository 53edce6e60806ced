#include "collect/bundle_plan.h"

#include <sys/stat.h>

#include "collect/content_stream.h"
#include "common/json_writer.h"

namespace casefile::collect {
namespace {

std::string SanitizeRelative(std::string_view relative) {
  std::string out;
  size_t start = 0;
  while (start <= relative.size()) {
    size_t slash = relative.find('/', start);
    if (slash == std::string_view::npos) slash = relative.size();
    std::string_view part = relative.substr(start, slash - start);
    if (!part.empty()) {
      if (!out.empty()) out += '/';
      out += SanitizeComponent(part);
    }
    start = slash + 1;
  }
  return out.empty() ? "_" : out;
}

std::string Describe(int64_t cutoff) {
  return "modified before the --since cutoff (" + std::to_string(cutoff) + " s since the epoch)";
}

}  // namespace

std::string SanitizeComponent(std::string_view component) {
  if (component.empty() || component == "." || component == "..") return "_";
  std::string out = SanitizeUtf8(component);
  for (char& c : out) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == '/') c = '_';
  }
  return out;
}

std::string PathAllocator::Unique(const std::string& path) {
  if (used_.insert(path).second) return path;
  size_t slash = path.rfind('/');
  size_t base = slash == std::string::npos ? 0 : slash + 1;
  size_t dot = path.find('.', base + 1);  // "a.tar.gz" -> "a~2.tar.gz"; ".env" keeps its dot
  if (dot == std::string::npos) dot = path.size();
  for (int n = 2;; ++n) {
    std::string candidate = path.substr(0, dot) + "~" + std::to_string(n) + path.substr(dot);
    if (used_.insert(candidate).second) return candidate;
  }
}

std::string BundlePlanner::BundlePath(const std::string& folder, const std::string& relative,
                                      RedactionCounts& counts) {
  std::string raw = relative;
  if (settings_.redactor != nullptr) {
    // Before sanitizing too: a control character turned into '_' would
    // join a token to the word before it ("b\rghp_..." -> "b_ghp_..."),
    // which no token pattern matches.
    RedactLineState state;
    settings_.redactor->RedactLine(relative, raw, state, counts);
  }
  std::string path = "hosts/" + settings_.host_dir + "/" + folder + "/" + SanitizeRelative(raw);
  if (settings_.redactor != nullptr) {
    std::string redacted;
    RedactLineState state;
    settings_.redactor->RedactLine(path, redacted, state, counts);
    // A pseudonym holds no '/', so the layout above the file stays intact.
    path = std::move(redacted);
  }
  return paths_.Unique(path);
}

bool BundlePlanner::Excluded(const std::string& path, const struct stat* st) const {
  for (const auto& e : settings_.excluded) {
    if (e.empty()) continue;
    if (path == e || path.compare(0, e.size() + 5, e + ".tmp-") == 0) return true;
  }
  if (st == nullptr) return false;
  for (const auto& [dev, ino] : settings_.excluded_ids) {
    if (static_cast<uint64_t>(st->st_dev) == dev && static_cast<uint64_t>(st->st_ino) == ino) {
      return true;
    }
  }
  return false;
}

void BundlePlanner::AddPathInput(const std::string& folder, const std::string& arg, bool discovered,
                                 bool named, const std::string& root_name) {
  ExpandResult found;
  ExpandPathArgument(arg, found);
  if (discovered) {
    // What discovery pointed at and is not there is a note, not an error:
    // nobody asked for it.
    for (auto& e : found.errors) found.skipped.push_back({e.source, e.message});
    found.errors.clear();
  }
  errors_.insert(errors_.end(), found.errors.begin(), found.errors.end());
  skipped_.insert(skipped_.end(), found.skipped.begin(), found.skipped.end());
  for (FoundFile& f : found.files) {
    struct stat st;
    const bool have_stat = ::stat(f.path.c_str(), &st) == 0;
    if (Excluded(f.path, have_stat ? &st : nullptr)) continue;
    if (!seen_sources_.insert(f.path).second) continue;
    bool exempt = f.named || named;
    if (settings_.since_cutoff > 0 && !exempt && f.mtime < settings_.since_cutoff) {
      skipped_.push_back({f.path, Describe(settings_.since_cutoff)});
      continue;
    }
    std::string relative = f.relative;
    if (!root_name.empty()) {
      size_t slash = relative.find('/');
      relative = root_name + (slash == std::string::npos ? "" : relative.substr(slash));
    }
    PlannedFile p;
    p.source = f.path;
    p.content.file_path = f.path;
    p.named = exempt;
    if (settings_.redactor != nullptr) {
      // Compressed bytes hide their text from the redactor: such a file is
      // packed decompressed. An archive of several members cannot be
      // checked at all and is left out.
      std::string head = ReadHead(f.path, 8);
      if (IsMultiMemberArchive(head)) {
        errors_.push_back({f.path,
                           "a zip or 7z archive cannot be checked for secrets; not packed "
                           "(--no-redact packs it as it is)"});
        continue;
      }
      Compression c = SniffCompression(head);
      if (c != Compression::kNone) {
        p.content.decompress = true;
        relative = StripCompressionSuffix(relative, c);
      }
    }
    if (have_stat) p.planned_bytes = static_cast<uint64_t>(st.st_size);
    p.path = BundlePath(folder, relative, p.extra_redactions);
    files_.push_back(std::move(p));
  }
}

void BundlePlanner::AddMemoryFile(const std::string& folder, const std::string& name,
                                  const std::string& source,
                                  std::shared_ptr<const std::string> bytes, const std::string& kind,
                                  bool redacted_already) {
  PlannedFile p;
  p.source = source;
  p.planned_bytes = bytes->size();
  p.content.memory = std::move(bytes);
  p.content.redacted_already = redacted_already;
  p.fixed_kind = kind;
  p.named = true;
  p.path = BundlePath(folder, name, p.extra_redactions);
  files_.push_back(std::move(p));
}

}  // namespace casefile::collect
