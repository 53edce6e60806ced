// Helpers of the collector tests: reading a bundle back with libarchive (its
// entries in order, the decompressed tar stream as raw bytes), and options
// that make a collection independent of the machine running the test (no
// commands, no discovery, a fixed environment and host name).
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "collect/collect.h"
#include "collect/json_tree.h"

namespace casefile::collect::test {

struct BundleEntry {
  std::string path;
  std::string content;
  int64_t mtime = 0;
  uint32_t mode = 0;
  int64_t uid = 0;
  int64_t gid = 0;
};

inline std::vector<BundleEntry> ReadBundle(const std::string& path) {
  archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_all(a);
  if (archive_read_open_filename(a, path.c_str(), 65536) != ARCHIVE_OK) {
    std::string why = archive_error_string(a) ? archive_error_string(a) : "?";
    archive_read_free(a);
    throw std::runtime_error("cannot open " + path + ": " + why);
  }
  std::vector<BundleEntry> entries;
  archive_entry* e = nullptr;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    BundleEntry b;
    b.path = archive_entry_pathname(e);
    b.mtime = archive_entry_mtime(e);
    b.mode = archive_entry_perm(e);
    b.uid = archive_entry_uid(e);
    b.gid = archive_entry_gid(e);
    char buf[65536];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0)
      b.content.append(buf, static_cast<size_t>(n));
    entries.push_back(std::move(b));
  }
  archive_read_free(a);
  return entries;
}

inline const BundleEntry* Find(const std::vector<BundleEntry>& entries, const std::string& path) {
  for (const auto& e : entries) {
    if (e.path == path) return &e;
  }
  return nullptr;
}

// The tar stream inside the .tar.zst: every header and content byte.
inline std::string DecompressedBytes(const std::string& path) {
  archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_raw(a);
  std::string out;
  archive_entry* e = nullptr;
  if (archive_read_open_filename(a, path.c_str(), 65536) == ARCHIVE_OK &&
      archive_read_next_header(a, &e) == ARCHIVE_OK) {
    char buf[65536];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  }
  archive_read_free(a);
  return out;
}

// Compresses raw bytes with zstd (a tar stream back into a .tar.zst).
inline void WriteZstd(const std::string& path, const std::string& bytes) {
  archive* a = archive_write_new();
  archive_write_set_format_raw(a);
  archive_write_add_filter_zstd(a);
  archive_write_open_filename(a, path.c_str());
  archive_entry* e = archive_entry_new();
  archive_entry_set_filetype(e, AE_IFREG);
  archive_entry_set_pathname(e, "data");
  archive_write_header(a, e);
  archive_write_data(a, bytes.data(), bytes.size());
  archive_entry_free(e);
  archive_write_close(a);
  archive_write_free(a);
}

inline JsonValue Manifest(const std::vector<BundleEntry>& entries) {
  const BundleEntry* m = Find(entries, "casefile.json");
  if (m == nullptr) throw std::runtime_error("no casefile.json");
  return ParseJson(m->content);
}

// The manifest's files[] entry for `path`, or nullptr.
inline const JsonValue* ManifestFile(const JsonValue& manifest, const std::string& path) {
  const JsonValue* files = manifest.Find("files");
  if (files == nullptr) return nullptr;
  for (const auto& f : files->items) {
    const JsonValue* p = f.Find("path");
    if (p != nullptr && p->text == path) return &f;
  }
  return nullptr;
}

inline size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// A collection that depends only on what the test writes.
inline CollectOptions IsolatedOptions(const std::string& output) {
  CollectOptions o;
  o.output = output;
  o.host = "testhost";
  o.versions = false;
  o.discover = false;
  o.environment = std::vector<std::string>{"PATH=/usr/bin:/bin", "HOME=/home/someone"};
  return o;
}

}  // namespace casefile::collect::test
