#include "analyze/analyzers/build/version_text.h"

#include <cctype>

#include "analyze/summary_text.h"

namespace casefile::build {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads digits at s[i]; -1 when none (or too many).
int ReadInt(std::string_view s, size_t& i) {
  int v = 0;
  size_t n = 0;
  while (i < s.size() && IsDigit(s[i]) && n < 6) {
    v = v * 10 + (s[i] - '0');
    ++i;
    ++n;
  }
  return n == 0 ? -1 : v;
}

}  // namespace

Release ParseRelease(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  if (i < text.size() && (text[i] == 'V' || text[i] == 'v')) ++i;
  Release r;
  r.major = ReadInt(text, i);
  if (r.major < 0) return Release{};
  if (i + 1 < text.size() && text[i] == '.' && IsDigit(text[i + 1])) {
    ++i;
    r.minor = ReadInt(text, i);
  }
  return r;
}

std::string ReleaseText(const Release& r) {
  if (!r.ok()) return "?";
  std::string s = std::to_string(r.major);
  if (r.minor >= 0) s += "." + std::to_string(r.minor);
  return s;
}

std::optional<int> MaxGccMajorForNvcc(Release nvcc) {
  if (!nvcc.ok() || nvcc.minor < 0) return std::nullopt;
  struct Row {
    Release from;  // first release with this limit
    int gcc;
  };
  // NVIDIA's CUDA installation guide, "host compiler support policy", per
  // release (newest first). 11.4 is read as its Update 1, which raised the
  // limit to gcc 11: nvcc --version does not tell the update apart.
  static constexpr Row kTable[] = {
      {{12, 8}, 14}, {{12, 4}, 13}, {{12, 0}, 12}, {{11, 4}, 11},
      {{11, 1}, 10}, {{11, 0}, 9},  {{10, 1}, 8},  {{10, 0}, 7},
  };
  // Releases after the newest row the table knows are not judged.
  if (nvcc > Release{12, 9}) return std::nullopt;
  for (const Row& row : kTable) {
    if (nvcc >= row.from) return row.gcc;
  }
  return std::nullopt;
}

std::optional<Release> ComputeCapabilityOfGpu(std::string_view name) {
  // Longer model names first where one is a prefix of another ("L40S"
  // before "L40", "A10G" before "A10", "V100S" before "V100"). A row with
  // `digits` names a family whose members add digits ("RTX 40" of "GeForce
  // RTX 4090", "RTX A" of "RTX A5000"). Sources: NVIDIA's CUDA GPUs compute
  // capability table.
  struct Row {
    std::string_view model;
    Release cc;
    bool digits = false;
  };
  static constexpr Row kTable[] = {
      {"GB300", {10, 3}},
      {"B300", {10, 3}},
      {"GB200", {10, 0}},
      {"B200", {10, 0}},
      {"B100", {10, 0}},
      {"RTX PRO", {12, 0}},  // "RTX PRO 6000 Blackwell Server Edition"
      {"RTX 50", {12, 0}, true},
      {"GH200", {9, 0}},
      {"H200", {9, 0}},
      {"H100", {9, 0}},
      {"H800", {9, 0}},
      {"H20", {9, 0}},
      {"L40S", {8, 9}},
      {"L40", {8, 9}},
      {"L20", {8, 9}},
      {"L4", {8, 9}},
      {"RTX 6000 Ada", {8, 9}},
      {"Ada Generation", {8, 9}},  // "RTX 4000 Ada Generation"
      {"RTX 40", {8, 9}, true},
      {"A100", {8, 0}},
      {"A800", {8, 0}},
      {"A30", {8, 0}},
      {"A40", {8, 6}},
      {"A10G", {8, 6}},
      {"A10", {8, 6}},
      {"RTX A", {8, 6}, true},  // RTX A6000, A5000, A4000, A2000
      {"RTX 30", {8, 6}, true},
      {"A16", {8, 6}},
      {"A2", {8, 6}},
      {"T4", {7, 5}},
      {"Quadro RTX", {7, 5}},
      {"TITAN RTX", {7, 5}},
      {"RTX 20", {7, 5}, true},
      {"GTX 16", {7, 5}, true},
      {"V100S", {7, 0}},
      {"V100", {7, 0}},
      {"TITAN V", {7, 0}},
      {"P100", {6, 0}},
      {"P40", {6, 1}},
      {"P4", {6, 1}},
      {"GTX 10", {6, 1}, true},
      {"M60", {5, 2}},
      {"M40", {5, 2}},
      {"K80", {3, 7}},
  };
  for (const Row& row : kTable) {
    // The model as a word of the name: "NVIDIA A100-SXM4-80GB", "Tesla
    // V100-SXM2-32GB", "NVIDIA GeForce RTX 4090".
    for (size_t at = name.find(row.model); at != std::string_view::npos;
         at = name.find(row.model, at + 1)) {
      const bool start_ok = at == 0 || name[at - 1] == ' ' || name[at - 1] == '-';
      const size_t end = at + row.model.size();
      const bool end_ok =
          row.digits ? end < name.size() && IsDigit(name[end])
                     : end == name.size() || !std::isalnum(static_cast<unsigned char>(name[end]));
      if (start_ok && end_ok) return row.cc;
    }
  }
  return std::nullopt;
}

std::vector<ArchEntry> ParseArchList(std::string_view list) {
  // torch.utils.cpp_extension's named families.
  struct Named {
    std::string_view name;
    std::string_view expands;
  };
  static constexpr Named kNamed[] = {
      {"Kepler+Tesla", "3.7"},    {"Kepler", "3.5+PTX"},     {"Maxwell+Tegra", "5.3"},
      {"Maxwell", "5.0;5.2+PTX"}, {"Pascal", "6.0;6.1+PTX"}, {"Volta+Tegra", "7.2"},
      {"Volta", "7.0+PTX"},       {"Turing", "7.5+PTX"},     {"Ampere+Tegra", "8.7"},
      {"Ampere", "8.0;8.6+PTX"},  {"Ada", "8.9+PTX"},        {"Hopper", "9.0+PTX"},
  };
  std::vector<ArchEntry> out;
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && (list[i] == ';' || list[i] == ' ' || list[i] == ',' ||
                               list[i] == '"' || list[i] == '\'' || list[i] == '\t'))
      ++i;
    const size_t start = i;
    while (i < list.size() && list[i] != ';' && list[i] != ' ' && list[i] != ',' &&
           list[i] != '"' && list[i] != '\'' && list[i] != '\t')
      ++i;
    const std::string_view tok = list.substr(start, i - start);
    if (tok.empty()) continue;
    bool named = false;
    for (const Named& n : kNamed) {
      if (tok == n.name) {
        for (const ArchEntry& e : ParseArchList(n.expands)) out.push_back(e);
        named = true;
        break;
      }
    }
    if (named) continue;
    ArchEntry e;
    size_t j = 0;
    e.cc.major = ReadInt(tok, j);
    if (e.cc.major < 0 || j >= tok.size() || tok[j] != '.') continue;
    ++j;
    e.cc.minor = ReadInt(tok, j);
    if (e.cc.minor < 0) continue;
    // "9.0a": arch-specific, runs on 9.0 only. "10.0f" (CUDA 12.9+):
    // family-specific, runs on the family's later minors like a plain cubin.
    if (j < tok.size() && tok[j] == 'a') {
      e.arch_specific = true;
      ++j;
    } else if (j < tok.size() && tok[j] == 'f') {
      ++j;
    }
    const std::string_view rest = tok.substr(j);
    if (ContainsNoCase(rest, "+ptx")) e.ptx = true;
    out.push_back(e);
  }
  return out;
}

bool ArchListCovers(const std::vector<ArchEntry>& list, Release cc) {
  for (const ArchEntry& e : list) {
    if (e.arch_specific) {
      if (e.cc == cc) return true;
      continue;
    }
    if (e.cc.major == cc.major && e.cc.minor <= cc.minor) return true;
    if (e.ptx && e.cc <= cc) return true;
  }
  return false;
}

}  // namespace casefile::build
