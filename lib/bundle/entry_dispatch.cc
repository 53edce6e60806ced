#include "bundle/entry_dispatch.h"

#include <optional>

#include "bundle/bomb_guard.h"
#include "bundle/entry_path.h"
#include "bundle/gzip_entry_data.h"
#include "bundle/limited_entry_data.h"
#include "bundle/peeked_entry_data.h"

namespace casefile::bundle {

namespace {

// Raw paths are untrusted and unbounded: quote at most this much of one.
std::string Quote(const std::string& raw) {
  constexpr size_t kMaxQuoted = 256;
  if (raw.size() <= kMaxQuoted) return "'" + raw + "'";
  return "'" + raw.substr(0, kMaxQuoted) + "...' (" + std::to_string(raw.size()) + " bytes)";
}

constexpr std::string_view kGzipMagic("\x1f\x8b", 2);

// Whether a *.gz member is to be gunzipped, from its first bytes. A member
// that starts with the magic, or with its first byte and then ends, is gzip
// (damage in it is gzip_corrupt); so is one whose very first read failed,
// which keeps that failure reported as before. Anything else, an empty
// member included, is delivered as stored.
bool StartsLikeGzip(const PeekedEntryData& peeked) {
  std::string_view head = peeked.head();
  if (head.empty()) return peeked.failed();
  return kGzipMagic.starts_with(head);
}

std::string HexBytes(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out += ' ';
    out += kDigits[c >> 4];
    out += kDigits[c & 0xf];
  }
  return out;
}

// Runs of damaged headers tolerated in one input before it is given up.
constexpr uint32_t kMaxDamagedRuns = 100;

std::string BombLimits(const Limits& limits) {
  return "more than bomb_ratio (" + std::to_string(limits.bomb_ratio) +
         ") times its input, past bomb_floor_bytes (" + std::to_string(limits.bomb_floor_bytes) +
         ")";
}

std::string Ordinal(uint32_t n) {
  const uint32_t last_two = n % 100;
  const char* suffix = "th";
  if (last_two < 11 || last_two > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return std::to_string(n) + suffix;
}

}  // namespace

EntryDispatcher::EntryDispatcher(const std::string& input, const Limits& limits, ReadBudget& budget,
                                 BundleVisitor& visitor, BundleReadResult& result)
    : input_(input),
      limits_(limits),
      budget_(budget),
      visitor_(visitor),
      result_(result),
      failure_(input) {}

void EntryDispatcher::Issue(const std::string& path, uint64_t offset, const char* kind,
                            const std::string& message) {
  IngestIssue issue;
  issue.path = path;
  issue.offset = offset;
  issue.kind = kind;
  issue.message = message;
  visitor_.OnIssue(issue);
}

void EntryDispatcher::EndPartial(const std::string& error) {
  result_.partial = true;
  if (result_.error.empty()) result_.error = error;
}

bool EntryDispatcher::Admit(const std::string& raw_path, int64_t archive_byte) {
  skipping_ = false;
  if (++headers_ <= limits_.max_entries) return true;
  std::string message = input_ + ": more than " + std::to_string(limits_.max_entries) +
                        " entries (max_entries); stopped before entry " + Quote(raw_path);
  if (archive_byte >= 0) message += " at archive byte " + std::to_string(archive_byte);
  Issue("", archive_byte >= 0 ? static_cast<uint64_t>(archive_byte) : 0, "entry_limit", message);
  EndPartial(message);
  return false;
}

bool EntryDispatcher::Deliver(EntryInfo& info, EntryData* source) {
  NormalizedPath normalized = NormalizeEntryPath(info.raw_path);
  if (normalized.path.empty()) {
    if (info.type == EntryType::kDirectory && IsRootPath(info.raw_path)) return true;
    Issue(info.raw_path.substr(0, kMaxEntryPathBytes), 0, "path_invalid",
          input_ + ": entry " + Quote(info.raw_path) +
              " has no usable path after normalisation; skipped");
    return true;
  }
  info.path = std::move(normalized.path);
  if (normalized.rewritten) {
    info.path_rewritten = true;
    Issue(info.path, 0, "path_rewritten",
          input_ + ": entry path " + Quote(info.raw_path) + " rewritten to " + Quote(info.path));
  }
  if (info.type == EntryType::kHardlink) {
    // A hardlink names another member: give it in the same normalised form.
    std::string target = NormalizeEntryPath(info.link_target).path;
    if (!target.empty()) info.link_target = std::move(target);
  }

  if (info.type != EntryType::kDirectory) {
    // Both copies are delivered: the visitor sees what the archive holds,
    // and the later one is what tar extraction would leave on disk.
    const uint32_t occurrence = seen_paths_.Add(info.path);
    if (occurrence > 1) {
      Issue(info.path, 0, "duplicate_entry",
            input_ + ": entry '" + info.path + "' (raw path " + Quote(info.raw_path) + ") is the " +
                Ordinal(occurrence) +
                " occurrence of this path in the input; every copy is delivered, and "
                "extracting the archive would keep only the last");
    }
  }

  failure_.Reset(info.path);
  std::optional<PeekedEntryData> peeked;
  std::optional<GzipEntryData> gzip;
  std::optional<LimitedEntryData> limited;
  bool not_gzip = false;
  if (source) {
    EntryData* top = source;
    if (info.type == EntryType::kFile && HasGzipSuffix(info.path)) {
      top = &peeked.emplace(*source, kGzipMagic.size());
      if (StartsLikeGzip(*peeked)) {
        top = &gzip.emplace(*peeked, failure_);
        info.gunzipped = true;
      } else {
        not_gzip = true;
      }
    }
    limited.emplace(*top, limits_, budget_);
    GzipEntryData* gunzip = gzip ? &*gzip : nullptr;
    PeekedEntryData* member = peeked ? &*peeked : nullptr;
    limited->SetBombCheck([this, source, gunzip, member]() {
      // The inner layer first: a gzip bomb stops its entry only, and its
      // stored bytes are few, so the outer layer is not blamed for it.
      if (gunzip && IsDecompressionBomb(gunzip->offset(), member->offset(), limits_)) {
        return Cut::kEntryBomb;
      }
      if (archive_bytes_ &&
          IsDecompressionBomb(stored_before_ + source->offset(), archive_bytes_(), limits_)) {
        return Cut::kInputBomb;
      }
      return Cut::kNone;
    });
  }
  ++result_.entries;
  try {
    visitor_.OnEntry(info, limited ? &*limited : nullptr);
  } catch (const Error& e) {
    // Our own stream failure is reported below; anything else is the
    // visitor's and goes to the caller.
    bool ours = failure_.failed() && e.code() == ErrorCode::kCorrupt;
    if (!ours) throw;
  }
  last_path_ = info.path;
  uint64_t delivered = limited ? limited->offset() : 0;
  result_.bytes += delivered;
  const uint64_t stored = source ? source->offset() : 0;
  stored_before_ += stored;

  if (not_gzip) {
    std::string what = peeked->head().empty() ? std::string("is empty")
                                              : "starts with " + HexBytes(peeked->head()) +
                                                    ", not the gzip magic 1f 8b";
    Issue(info.path, 0, "gzip_not_gzip",
          input_ + ": entry '" + info.path + "' is named *.gz but " + what +
              "; its bytes are delivered as stored, not gunzipped");
  }
  if (limited && limited->cut() == Cut::kEntryBomb) {
    std::string message = input_ + ": entry '" + info.path + "': decompression bomb: its gzip " +
                          "stream gave " + std::to_string(delivered) + " bytes from " +
                          std::to_string(peeked->offset()) + " stored bytes, " +
                          BombLimits(limits_) + "; the rest of the entry is skipped";
    Issue(info.path, delivered, "decompression_bomb", message);
    EndPartial(message);
  }
  if (archive_bytes_ && limited && limited->ended() && !info.gunzipped && info.size >= 0 &&
      !failure_.failed() && stored != static_cast<uint64_t>(info.size)) {
    // Zip headers can declare any size: nothing is sized from it, and the
    // bytes really stored are what was indexed.
    Issue(info.path, delivered, "entry_size_mismatch",
          input_ + ": entry '" + info.path + "' declares " + std::to_string(info.size) +
              " bytes but holds " + std::to_string(stored) + "; its " + std::to_string(stored) +
              " bytes are indexed");
  }
  if (limited && limited->cut() == Cut::kEntryCap) {
    Issue(info.path, delivered, "entry_truncated",
          input_ + ": entry '" + info.path + "' is longer than max_entry_bytes (" +
              std::to_string(limits_.max_entry_bytes) + "); the rest after byte " +
              std::to_string(delivered) + " is skipped");
  }
  switch (failure_.layer()) {
    // The issue offset is in the bytes the visitor saw (gunzipped for a .gz
    // member); the message also gives the offset in the stored member.
    case FailedLayer::kArchive: {
      std::string message = failure_.message();
      if (info.gunzipped) {
        message += "; " + std::to_string(delivered) + " gunzipped bytes delivered before it";
      }
      Issue(info.path, delivered, "archive_corrupt", message);
      EndPartial(message);
      return false;
    }
    case FailedLayer::kGzip:
      Issue(info.path, delivered, "gzip_corrupt", failure_.message());
      break;
    case FailedLayer::kEntry:
      Issue(info.path, delivered, "entry_unreadable", failure_.message());
      break;
    case FailedLayer::kNone:
      break;
  }
  if (limited && limited->cut() == Cut::kInputBomb) {
    const uint64_t read = archive_bytes_ ? archive_bytes_() : 0;
    std::string message = input_ + ": entry '" + info.path +
                          "': decompression bomb: the archive's compression gave " +
                          std::to_string(stored_before_) + " bytes from " + std::to_string(read) +
                          " bytes of the archive file, " + BombLimits(limits_) +
                          "; reading stops at entry data offset " + std::to_string(delivered);
    Issue(info.path, delivered, "decompression_bomb", message);
    EndPartial(message);
    return false;
  }
  if (limited && limited->cut() == Cut::kTotal) {
    std::string message = input_ + ": entry '" + info.path + "': max_total_bytes (" +
                          std::to_string(limits_.max_total_bytes) +
                          ") reached at entry data offset " + std::to_string(delivered) +
                          "; reading stops here";
    Issue(info.path, delivered, "total_limit", message);
    EndPartial(message);
    return false;
  }
  return true;
}

bool EntryDispatcher::HeaderSkipped(int64_t archive_byte, const std::string& detail) {
  if (skipping_) return true;  // the same run of damage: reported at its start
  skipping_ = true;
  if (++damaged_runs_ > kMaxDamagedRuns) {
    HeaderDamaged(archive_byte, "more than " + std::to_string(kMaxDamagedRuns) +
                                    " damaged headers; the input is given up (last: " + detail +
                                    ")");
    return false;
  }
  std::string where = last_path_.empty() ? std::string("before the first entry")
                                         : "after entry '" + last_path_ + "'";
  std::string message = input_ + ": damaged entry header " + where + ", at archive byte " +
                        std::to_string(archive_byte) +
                        " (archive file position) (libarchive: " + detail +
                        "); skipped to the next sound header: the entry it described is lost";
  Issue("", archive_byte >= 0 ? static_cast<uint64_t>(archive_byte) : 0, "archive_corrupt",
        message);
  EndPartial(message);
  return true;
}

void EntryDispatcher::HeaderDamaged(int64_t archive_byte, const std::string& detail) {
  // Skipping the unread rest of an entry happens while reading the next
  // header, so the damage lies in the last entry's data or just after it.
  std::string where = last_path_.empty() ? std::string("an entry header")
                                         : "entry '" + last_path_ + "' or the header after it";
  std::string message = input_ + ": " + where + ": corrupt or truncated archive at byte " +
                        std::to_string(archive_byte) +
                        " (archive file position) (libarchive: " + detail + ")";
  Issue("", archive_byte >= 0 ? static_cast<uint64_t>(archive_byte) : 0, "archive_corrupt",
        message);
  EndPartial(message);
}

}  // namespace casefile::bundle
