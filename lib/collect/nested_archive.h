// Compressed bytes inside an uncompressed tar: a member's data is packed
// as it is (the tar is not rewritten), so a gzip or zstd member would hide
// its text from the redactor exactly as a compressed input file would.
// The sniffer follows the tar's headers over the streamed content, in
// bounded memory, and says when a member cannot be checked.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace casefile::collect {

class NestedArchiveSniffer {
 public:
  // The next bytes of the content, in order.
  void Feed(std::string_view chunk);

  // True when the content itself starts like a zip or 7z archive or
  // compressed bytes (a decompressed "x.zip.gz"), or is a tar (ustar magic)
  // holding a member whose data starts like those or like another tar, or
  // whose headers cannot be followed (a base-256 size, a bad digit).
  bool found() const;

 private:
  // Called when header_ holds 512 bytes.
  void OnHeader();

  static constexpr size_t kHeaderBytes = 512;
  static constexpr size_t kDataHeadBytes = 263;  // through an inner tar's "ustar" magic
  static constexpr size_t kStartBytes = 8;

  uint64_t offset_ = 0;       // content bytes fed so far
  uint64_t next_header_ = 0;  // where the next header starts
  uint64_t data_start_ = 0;   // the current member's data
  uint64_t data_size_ = 0;
  std::string start_;  // the content's first kStartBytes
  std::string header_;
  std::string data_head_;
  bool in_data_ = false;
  bool done_ = false;
  bool found_ = false;
};

}  // namespace casefile::collect
