// Reads one HLO text dump line by line into an hlo_modules row: the module
// name, the dump stage, a fingerprint of the text (to compare the modules
// hosts compiled), XLA's own fingerprint_before_lhs when present, and the
// number of computations and instructions. Memory stays bounded: only the
// header is kept, the rest is counted and hashed as it streams by.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/hash.h"
#include "index/index_types.h"
#include "parse/hlo/hlo_dump_name.h"

namespace casefile {

class HloScanner {
 public:
  // `path` is the bundle path of the file; its name gives the stage (and the
  // module name when the text has no header).
  explicit HloScanner(std::string_view path);

  // Feeds the next line, without its terminator (a trailing '\r' is
  // ignored). Lines before the first non-blank one are skipped.
  void AddLine(std::string_view line);

  // True once the first non-blank line started "HloModule ".
  bool is_module() const { return is_module_; }

  // The row for what was read. file_id and host are left for the caller
  // (host comes from AttributeFromPath or the manifest). module_name is the
  // header's, else the file name's. fingerprint is Fnv1a64 hex over the
  // module text: every line from the header on, trailing blank lines
  // excluded, joined with '\n'. Counts: computations are headers ending in
  // '{' outside any computation ("ENTRY" included); instructions are lines
  // inside a computation of the form "[ROOT ][%]name = …", with or without
  // the '%' sigil.
  HloModuleRow Finish();

 private:
  void HashLine(std::string_view line);
  void ScanBodyLine(std::string_view trimmed);

  HloDumpName dump_name_;
  bool started_ = false;
  bool is_module_ = false;
  // The header continues while its brackets are open (newer printers spread
  // attributes such as origin_recovery_table over lines).
  bool in_header_ = false;
  int header_depth_ = 0;
  std::string header_;
  bool in_computation_ = false;
  int64_t computations_ = 0;
  int64_t instructions_ = 0;
  std::optional<std::string> root_fingerprint_;
  Fnv1a64 hash_;
  bool hashed_any_ = false;
  uint64_t blank_lines_pending_ = 0;
};

}  // namespace casefile
