#include "parse/hlo/hlo_scanner.h"

#include "parse/hlo/hlo_header.h"

namespace casefile {
namespace {

// A header longer than this is cut (it is only parsed for the name and the
// fingerprint, which come early); the module is still counted and hashed.
constexpr size_t kMaxHeaderBytes = 1 << 20;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

// "[ROOT ][%]name = …": the defining form of an instruction in both the
// full ("%add.3 = f32[] add(…)") and the short ("add.3 = f32[] add(…)")
// printing styles.
bool IsInstruction(std::string_view s) {
  if (s.substr(0, 5) == "ROOT ") s.remove_prefix(5);
  if (!s.empty() && s[0] == '%') s.remove_prefix(1);
  size_t i = 0;
  while (i < s.size() && IsNameChar(s[i])) ++i;
  return i > 0 && s.substr(i, 3) == " = ";
}

}  // namespace

HloScanner::HloScanner(std::string_view path) : dump_name_(ParseHloDumpName(path)) {}

void HloScanner::HashLine(std::string_view line) {
  if (line.empty()) {
    ++blank_lines_pending_;
    return;
  }
  // Blank lines count only once something follows them, so a dump with or
  // without trailing newlines hashes the same.
  for (; blank_lines_pending_ > 0; --blank_lines_pending_) hash_.Update("\n");
  if (hashed_any_) hash_.Update("\n");
  hash_.Update(line);
  hashed_any_ = true;
}

void HloScanner::AddLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (!started_) {
    if (line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    if (Trim(line).empty()) return;
    started_ = true;
    is_module_ = line.substr(0, 10) == "HloModule ";
    if (!is_module_) return;
    HashLine(line);
    header_.assign(line.substr(0, kMaxHeaderBytes));
    header_depth_ = HloBracketDepth(line);
    in_header_ = header_depth_ > 0;
    return;
  }
  if (!is_module_) return;
  HashLine(line);
  if (in_header_) {
    if (header_.size() + line.size() + 1 <= kMaxHeaderBytes) {
      header_.push_back(' ');
      header_.append(Trim(line));
    }
    header_depth_ += HloBracketDepth(line);
    in_header_ = header_depth_ > 0;
    return;
  }
  ScanBodyLine(Trim(line));
}

void HloScanner::ScanBodyLine(std::string_view s) {
  if (s.empty()) return;
  if (in_computation_) {
    if (s[0] == '}') {
      in_computation_ = false;  // "}" or "} // name"
      return;
    }
    if (IsInstruction(s)) {
      ++instructions_;
      if (!root_fingerprint_ && s.substr(0, 5) == "ROOT ") {
        root_fingerprint_ = FindFingerprintBeforeLhs(s);
      }
    }
    return;
  }
  if (s.back() == '{') {
    in_computation_ = true;
    ++computations_;
  }
}

HloModuleRow HloScanner::Finish() {
  HloModuleRow row;
  HloModuleHeader header = ParseHloModuleHeader(header_);
  row.module_name = !header.name.empty() ? header.name : dump_name_.module_name;
  row.stage = dump_name_.stage;
  row.fingerprint = hash_.HexDigest();
  row.xla_fingerprint =
      header.fingerprint_before_lhs ? header.fingerprint_before_lhs : root_fingerprint_;
  row.instruction_count = instructions_;
  row.computation_count = computations_;
  return row;
}

}  // namespace casefile
