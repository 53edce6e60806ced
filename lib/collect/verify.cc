#include "collect/verify.h"

#include <archive.h>
#include <archive_entry.h>
#include <simdjson.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <string_view>

#include "collect/manifest_writer.h"
#include "common/error.h"
#include "common/sha256.h"
#include "parse/classify/manifest.h"

namespace casefile::collect {
namespace {

struct Seen {
  uint64_t size = 0;
  std::string sha256;
  bool duplicate = false;
};

std::string EntryPath(archive_entry* entry) {
  // The order ingest reads them in (bundle/archive_reader.cc), so both see
  // the same path.
  const char* p = archive_entry_pathname(entry);
  if (p == nullptr) p = archive_entry_pathname_utf8(entry);
  std::string path = p != nullptr ? p : "";
  while (path.compare(0, 2, "./") == 0) path.erase(0, 2);
  return path;
}

bool IsHex64(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

class Verifier {
 public:
  Verifier(VerifyResult& result, const VerifyProgressFn& progress)
      : result_(result), progress_(progress) {}

  void Read(const std::string& bundle) {
    archive* a = archive_read_new();
    if (a == nullptr) throw std::bad_alloc();
    struct Free {
      archive* a;
      ~Free() { archive_read_free(a); }
    } guard{a};
    // Only the compressions casefile writes or meets; no external programs.
    archive_read_support_filter_zstd(a);
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_xz(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_format_tar(a);
    if (archive_read_open_filename(a, bundle.c_str(), 1 << 20) != ARCHIVE_OK) {
      Problem("", "archive", std::string("not a tar bundle: ") + Why(a));
      return;
    }
    bool first = true;
    std::string buf(1 << 20, '\0');
    while (true) {
      archive_entry* entry = nullptr;
      int rc = archive_read_next_header(a, &entry);
      if (rc == ARCHIVE_EOF) break;
      if (rc < ARCHIVE_WARN) {
        Problem("", "archive",
                std::string("the archive is damaged or truncated after ") +
                    std::to_string(entries_) + " entries: " + Why(a));
        break;
      }
      ++entries_;
      std::string path = EntryPath(entry);
      auto type = archive_entry_filetype(entry);
      if (type == AE_IFDIR) continue;
      if (type != AE_IFREG || archive_entry_hardlink(entry) != nullptr) {
        Problem(path, "entry_type", "not a regular file (a collector writes only regular files)");
        first = false;
        continue;
      }
      const bool is_manifest = path == kManifestPath;
      if (is_manifest && !first) {
        Problem(path, "manifest",
                "casefile.json is not the first entry, so ingest cannot apply its kinds");
      }
      first = false;
      Sha256 sha;
      uint64_t size = 0;
      std::string manifest_text;
      bool damaged = false;
      while (true) {
        la_ssize_t n = archive_read_data(a, buf.data(), buf.size());
        if (n == 0) break;
        if (n < 0) {
          Problem(path, "archive", std::string("cannot read the entry: ") + Why(a));
          damaged = true;
          break;
        }
        std::string_view chunk(buf.data(), static_cast<size_t>(n));
        sha.Update(chunk);
        size += chunk.size();
        result_.bytes += chunk.size();
        if (is_manifest && manifest_text.size() <= kMaxManifestBytes) manifest_text.append(chunk);
        if (progress_ && !progress_(result_.bytes, path)) {
          throw Error(ErrorCode::kAborted, "the progress callback asked to stop");
        }
      }
      if (damaged) break;
      if (is_manifest) {
        if (manifest_) {
          Problem(path, "duplicate", "the archive holds casefile.json more than once");
        } else {
          manifest_ = std::move(manifest_text);
        }
        continue;
      }
      auto [it, inserted] = seen_.try_emplace(path);
      if (!inserted) {
        it->second.duplicate = true;
        continue;
      }
      it->second.size = size;
      it->second.sha256 = HexEncode(sha.Final());
    }
    Compare();
  }

 private:
  static std::string Why(archive* a) {
    const char* why = archive_error_string(a);
    return why != nullptr ? why : "unknown error";
  }

  void Problem(const std::string& path, const char* kind, const std::string& message) {
    result_.problems.push_back({path, kind, message});
  }

  void Compare() {
    if (!manifest_) {
      Problem(std::string(kManifestPath), "manifest", "the bundle has no casefile.json");
      return;
    }
    if (manifest_->size() > kMaxManifestBytes) {
      Problem(std::string(kManifestPath), "manifest",
              "larger than " + std::to_string(kMaxManifestBytes) + " bytes");
      return;
    }
    // simdjson (DOM): the manifest is small and read whole.
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (auto err = parser.parse(*manifest_).get(root)) {
      Problem(std::string(kManifestPath), "manifest",
              std::string("not JSON: ") + simdjson::error_message(err));
      return;
    }
    try {
      // What ingest will make of it: the same reader, so a bundle that
      // verifies is one casefile can index.
      ParseManifest(*manifest_);
    } catch (const Error& e) {
      Problem(std::string(kManifestPath), "manifest", e.what());
    }
    uint64_t v = 0;
    if (root["format_version"].get(v) != simdjson::SUCCESS) {
      Problem(std::string(kManifestPath), "manifest",
              "format_version is missing or not an integer");
      return;
    }
    if (v > static_cast<uint64_t>(kManifestFormatVersion)) {
      Problem(std::string(kManifestPath), "manifest",
              "format_version " + std::to_string(v) + " is newer than this casefile reads (" +
                  std::to_string(kManifestFormatVersion) + ")");
      return;
    }
    simdjson::dom::array files;
    if (root["files"].get(files) != simdjson::SUCCESS) {
      Problem(std::string(kManifestPath), "manifest", "files is missing or not an array");
      return;
    }
    std::map<std::string, bool> listed;
    size_t i = 0;
    for (simdjson::dom::element f : files) {
      const std::string where = "files[" + std::to_string(i++) + "]";
      std::string_view path_view, sha_view;
      uint64_t want_size = 0;
      if (f["path"].get(path_view) != simdjson::SUCCESS || path_view.empty()) {
        Problem(std::string(kManifestPath), "manifest", where + ".path is missing");
        continue;
      }
      const std::string path(path_view);
      if (f["size"].get(want_size) != simdjson::SUCCESS ||
          f["sha256"].get(sha_view) != simdjson::SUCCESS || !IsHex64(std::string(sha_view))) {
        Problem(path, "manifest",
                where + " needs an integer size and a sha256 of 64 lowercase hex digits");
        continue;
      }
      const std::string sha(sha_view);
      if (!listed.emplace(path, true).second) {
        Problem(path, "manifest", "listed more than once");
        continue;
      }
      auto it = seen_.find(path);
      if (it == seen_.end()) {
        Problem(path, "missing", "listed in the manifest but not in the archive");
        continue;
      }
      bool good = true;
      if (it->second.duplicate) {
        Problem(path, "duplicate", "the archive holds this path more than once");
        good = false;
      }
      if (it->second.size != want_size) {
        Problem(path, "size",
                "size " + std::to_string(it->second.size) + " bytes, the manifest says " +
                    std::to_string(want_size));
        good = false;
      } else if (it->second.sha256 != sha) {
        Problem(path, "sha256", "sha256 " + it->second.sha256 + ", the manifest says " + sha);
        good = false;
      }
      if (good) ++result_.files_checked;
    }
    for (const auto& [path, seen] : seen_) {
      if (listed.count(path) == 0) {
        Problem(path, "extra", "in the archive but not listed in the manifest");
      }
    }
  }

  VerifyResult& result_;
  const VerifyProgressFn& progress_;
  std::map<std::string, Seen> seen_;
  std::optional<std::string> manifest_;
  uint64_t entries_ = 0;
};

}  // namespace

VerifyResult VerifyBundle(const std::string& path, const VerifyProgressFn& progress) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    int e = errno;
    throw Error(e == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
                path + ": " + std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    throw Error(
        ErrorCode::kUnsupported,
        path + ": a directory; verify reads a bundle written by casefile collect (.tar.zst)");
  }
  VerifyResult result;
  Verifier(result, progress).Read(path);
  return result;
}

}  // namespace casefile::collect
