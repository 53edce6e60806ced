#include "collect/nested_archive.h"

#include <algorithm>

#include "collect/content_stream.h"

namespace casefile::collect {
namespace {

bool HasTarMagic(std::string_view block) {
  return block.size() >= 262 && block.substr(257, 5) == "ustar";
}

bool HidesText(std::string_view head) {
  return SniffCompression(head) != Compression::kNone || IsMultiMemberArchive(head) ||
         HasTarMagic(head);
}

}  // namespace

bool NestedArchiveSniffer::found() const {
  return found_ || SniffCompression(start_) != Compression::kNone || IsMultiMemberArchive(start_);
}

void NestedArchiveSniffer::Feed(std::string_view chunk) {
  if (start_.size() < kStartBytes) {
    start_.append(chunk.substr(0, std::min(kStartBytes - start_.size(), chunk.size())));
  }
  while (!chunk.empty() && !done_) {
    if (in_data_) {
      const uint64_t head_end = data_start_ + std::min<uint64_t>(data_size_, kDataHeadBytes);
      if (offset_ < head_end) {
        size_t take = static_cast<size_t>(std::min<uint64_t>(head_end - offset_, chunk.size()));
        data_head_.append(chunk.substr(0, take));
        offset_ += take;
        chunk.remove_prefix(take);
      }
      if (offset_ >= head_end) {
        if (HidesText(data_head_)) {
          found_ = true;
          done_ = true;
          return;
        }
        in_data_ = false;
      }
      continue;
    }
    if (offset_ < next_header_) {  // the rest of a member's data and its padding
      size_t skip = static_cast<size_t>(std::min<uint64_t>(next_header_ - offset_, chunk.size()));
      offset_ += skip;
      chunk.remove_prefix(skip);
      continue;
    }
    size_t take = std::min(kHeaderBytes - header_.size(), chunk.size());
    header_.append(chunk.substr(0, take));
    offset_ += take;
    chunk.remove_prefix(take);
    if (header_.size() == kHeaderBytes) OnHeader();
  }
}

void NestedArchiveSniffer::OnHeader() {
  const std::string header = std::move(header_);
  header_.clear();
  if (next_header_ == 0 && !HasTarMagic(header)) {
    done_ = true;  // not a tar
    return;
  }
  if (header.find_first_not_of('\0') == std::string::npos) {
    done_ = true;  // the end-of-archive block
    return;
  }
  // The size: octal digits, blank- or NUL-padded. A base-256 size (high
  // bit set) or any other byte is not followed.
  uint64_t size = 0;
  bool digits = false;
  for (size_t i = 124; i < 136; ++i) {
    char c = header[i];
    if (c >= '0' && c <= '7') {
      if (size >> 60) {
        found_ = done_ = true;
        return;
      }
      size = size * 8 + static_cast<uint64_t>(c - '0');
      digits = true;
    } else if (c == ' ' || c == '\0') {
      if (digits) break;
    } else {
      found_ = done_ = true;
      return;
    }
  }
  data_start_ = offset_;
  data_size_ = size;
  next_header_ = offset_ + (size + kHeaderBytes - 1) / kHeaderBytes * kHeaderBytes;
  data_head_.clear();
  in_data_ = size > 0;
}

}  // namespace casefile::collect
