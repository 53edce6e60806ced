#include "test_util.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace casefile::test {

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "casefile-test-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void WriteFile(const std::string& path, const std::string& content) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

void Check(archive* a, int rc, const char* what) {
  if (rc < ARCHIVE_WARN) {
    throw std::runtime_error(std::string(what) + ": " +
                             (archive_error_string(a) ? archive_error_string(a) : "?"));
  }
}

archive* OpenWriter(const std::string& format) {
  archive* a = archive_write_new();
  if (format == "zip") {
    archive_write_set_format_zip(a);
  } else {
    archive_write_set_format_pax_restricted(a);
    if (format == "tar.zst")
      archive_write_add_filter_zstd(a);
    else if (format == "tar.gz")
      archive_write_add_filter_gzip(a);
    else if (format != "tar")
      throw std::runtime_error("unknown format " + format);
  }
  return a;
}

}  // namespace

void WriteArchive(const std::string& archive_path, const std::string& format,
                  const std::vector<ArchiveMember>& members) {
  archive* a = OpenWriter(format);
  Check(a, archive_write_open_filename(a, archive_path.c_str()), "open");
  for (const auto& m : members) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, m.path.c_str());
    archive_entry_set_mtime(e, 1764408000, 0);
    switch (m.type) {
      case ArchiveMember::Type::kFile:
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_size(e, static_cast<la_int64_t>(m.content.size()));
        break;
      case ArchiveMember::Type::kDir:
        archive_entry_set_filetype(e, AE_IFDIR);
        archive_entry_set_perm(e, 0755);
        break;
      case ArchiveMember::Type::kSymlink:
        archive_entry_set_filetype(e, AE_IFLNK);
        archive_entry_set_perm(e, 0777);
        archive_entry_set_symlink(e, m.link_target.c_str());
        break;
      case ArchiveMember::Type::kHardlink:
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_hardlink(e, m.link_target.c_str());
        break;
    }
    Check(a, archive_write_header(a, e), "header");
    if (m.type == ArchiveMember::Type::kFile && !m.content.empty()) {
      if (archive_write_data(a, m.content.data(), m.content.size()) < 0)
        Check(a, ARCHIVE_FATAL, "data");
    }
    archive_entry_free(e);
  }
  Check(a, archive_write_close(a), "close");
  archive_write_free(a);
}

void ArchiveDirectory(const std::string& dir, const std::string& archive_path,
                      const std::string& format) {
  std::vector<ArchiveMember> members;
  std::vector<fs::path> paths;
  for (const auto& e : fs::recursive_directory_iterator(dir)) paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    ArchiveMember m;
    m.path = fs::relative(p, dir).generic_string();
    if (fs::is_directory(p)) {
      m.type = ArchiveMember::Type::kDir;
    } else if (fs::is_regular_file(p)) {
      m.content = ReadFile(p.string());
    } else {
      continue;
    }
    members.push_back(std::move(m));
  }
  WriteArchive(archive_path, format, members);
}

std::string Gzip(const std::string& content) {
  archive* a = archive_write_new();
  archive_write_set_format_raw(a);
  archive_write_add_filter_gzip(a);
  std::string out(content.size() + 4096, '\0');
  size_t used = 0;
  // Raw output into a memory buffer large enough for incompressible data.
  out.resize(content.size() * 2 + 4096);
  Check(a, archive_write_open_memory(a, out.data(), out.size(), &used), "open memory");
  archive_entry* e = archive_entry_new();
  archive_entry_set_filetype(e, AE_IFREG);
  archive_entry_set_pathname(e, "data");
  Check(a, archive_write_header(a, e), "header");
  if (!content.empty()) archive_write_data(a, content.data(), content.size());
  archive_entry_free(e);
  Check(a, archive_write_close(a), "close");
  archive_write_free(a);
  out.resize(used);
  return out;
}

}  // namespace casefile::test
