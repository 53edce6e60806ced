// Fuzz target: an HLO text dump through HloScanner as ingest's LineSink
// feeds it (LineSplitter with the production line limit, ANSI stripped,
// chunks sized by the last input byte), plus the header and dump-name
// parsers on their own. The first input line is the file's bundle path and
// the rest its content, except when the input starts "HloModule " (a dump
// file as it is): then all of it is content under a dump's usual name. The row must not depend on
// how the bytes were chunked, counts stay within the line count, and every piece the header
// splitter returns lies inside its input, trimmed.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/limits.h"
#include "parse/hlo/hlo_dump_name.h"
#include "parse/hlo/hlo_header.h"
#include "parse/hlo/hlo_scanner.h"
#include "parse/line/ansi.h"
#include "parse/line/line_splitter.h"

namespace {

struct Scan {
  bool is_module = false;
  uint64_t lines = 0;
  casefile::HloModuleRow row;
};

Scan ScanText(std::string_view path, std::string_view text, size_t chunk) {
  casefile::HloScanner scanner(path);
  std::string clean;
  Scan out;
  casefile::LineSplitter splitter(casefile::Limits{}.max_line_bytes,
                                  [&](const casefile::RawLine& l) {
                                    ++out.lines;
                                    std::string_view t = l.text;
                                    if (casefile::StripAnsi(t, clean)) t = clean;
                                    scanner.AddLine(t);
                                  });
  for (size_t at = 0; at < text.size(); at += chunk) splitter.Feed(text.substr(at, chunk));
  splitter.Finish();
  out.is_module = scanner.is_module();
  if (out.is_module) out.row = scanner.Finish();
  return out;
}

bool Same(const casefile::HloModuleRow& a, const casefile::HloModuleRow& b) {
  return a.module_name == b.module_name && a.stage == b.stage && a.fingerprint == b.fingerprint &&
         a.xla_fingerprint == b.xla_fingerprint && a.instruction_count == b.instruction_count &&
         a.computation_count == b.computation_count;
}

bool Inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

bool Trimmed(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  return s.empty() || (!space(s.front()) && !space(s.back()));
}

void CheckSplit(std::string_view text, char sep) {
  for (std::string_view part : casefile::SplitTopLevel(text, sep)) {
    if (!Inside(part, text) || !Trimmed(part)) std::abort();
  }
}

void CheckDumpName(std::string_view path) {
  const casefile::HloDumpName name = casefile::ParseHloDumpName(path);
  if (name.module_id && *name.module_id < 0) std::abort();
  if (name.timestamp_us && *name.timestamp_us < 0) std::abort();
  const std::string_view s = name.stage;
  constexpr std::string_view kGpu = "_gpu_after_optimizations";
  const bool gpu = s.size() > kGpu.size() && s.substr(s.size() - kGpu.size()) == kGpu &&
                   (s.substr(0, 3) == "sm_" || s.substr(0, 3) == "gfx");
  const bool known = s.empty() || s == "before_optimizations" || s == "after_optimizations" ||
                     s == "cpu_after_optimizations" || gpu;
  if (!known) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.rfind("HloModule ", 0) == 0 ? std::string_view::npos : input.find('\n');
  const std::string_view path =
      nl == std::string_view::npos ? "module_0042.jit_train_step.sm_9.0_gpu_after_optimizations.txt"
                                   : input.substr(0, nl);
  const std::string_view text = nl == std::string_view::npos ? input : input.substr(nl + 1);
  const size_t chunk = size == 0 ? 1 : 1 + static_cast<size_t>(data[size - 1]) * data[size - 1];

  CheckDumpName(path);
  const Scan chunked = ScanText(path, text, chunk);
  const Scan whole = ScanText(path, text, text.size() + 1);
  if (chunked.is_module != whole.is_module || chunked.lines != whole.lines) std::abort();
  if (chunked.is_module) {
    if (!Same(chunked.row, whole.row)) std::abort();
    const casefile::HloModuleRow& r = chunked.row;
    if (r.instruction_count < 0 || r.computation_count < 0) std::abort();
    if (static_cast<uint64_t>(r.instruction_count + r.computation_count) > chunked.lines) {
      std::abort();
    }
    if (r.fingerprint.size() != 16) std::abort();
  }

  // The header parser and its helpers over the first content line.
  const size_t end = text.find('\n');
  const std::string_view first = text.substr(0, end);
  CheckSplit(first, ',');
  CheckSplit(text.substr(0, 4096), '=');
  (void)casefile::HloBracketDepth(first);
  const casefile::HloModuleHeader header = casefile::ParseHloModuleHeader(first);
  if (header.name.size() > first.size()) std::abort();
  if (!header.name.empty() && first.find(header.name) == std::string_view::npos) std::abort();
  if (auto fp = casefile::FindFingerprintBeforeLhs(text)) {
    if (fp->size() > text.size() || fp->find('"') != std::string::npos) std::abort();
  }
  return 0;
}
