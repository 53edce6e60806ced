// Test helpers: a self-deleting temporary directory, file writing, and
// archive creation with libarchive (so fixtures are made at test time, not
// committed as opaque blobs).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace casefile::test {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Join(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

// Writes `content` to `path`, creating parent directories.
void WriteFile(const std::string& path, const std::string& content);
std::string ReadFile(const std::string& path);

// One member of an archive written by WriteArchive.
struct ArchiveMember {
  std::string path;
  std::string content;
  enum class Type { kFile, kDir, kSymlink, kHardlink } type = Type::kFile;
  std::string link_target{};
};

// format: "tar", "tar.zst", "tar.gz", "zip". Members are written in order.
void WriteArchive(const std::string& archive_path, const std::string& format,
                  const std::vector<ArchiveMember>& members);

// Packs a directory tree (sorted, regular files and dirs) into an archive.
void ArchiveDirectory(const std::string& dir, const std::string& archive_path,
                      const std::string& format);

// gzip-compresses `content` (via libarchive's raw writer).
std::string Gzip(const std::string& content);

}  // namespace casefile::test
