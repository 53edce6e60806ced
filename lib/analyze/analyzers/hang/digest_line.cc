#include "analyze/analyzers/hang/digest_line.h"

#include <array>
#include <string>

#include "analyze/analyzers/hang/megascale_text.h"

namespace casefile::hang {
namespace {

bool HasBlank(std::string_view s) {
  for (char c : s) {
    if (c == ' ' || c == '\t') return true;
  }
  return false;
}

// The text after `key` and an optional ':' (blanks skipped), when `s` starts
// with `key` (ASCII case ignored).
std::optional<std::string_view> AfterPrefixKey(std::string_view s, std::string_view key) {
  if (!StartsWithNoCase(s, key)) return std::nullopt;
  std::string_view rest = s.substr(key.size());
  rest = Trim(rest);
  if (rest.empty() || rest.front() != ':') return std::nullopt;
  return Trim(rest.substr(1));
}

// The text after `key` found anywhere in `s`, when a ':' follows it.
std::optional<std::string_view> AfterKeyAnywhere(std::string_view s, std::string_view key) {
  size_t p = FindNoCase(s, key);
  if (p == std::string_view::npos) return std::nullopt;
  std::string_view rest = Trim(s.substr(p + key.size()));
  if (rest.empty() || rest.front() != ':') return std::nullopt;
  return Trim(rest.substr(1));
}

struct HostListMarker {
  std::string_view marker;  // lower case, ends with ':'
  std::optional<DigestCause> hint;
};

// The host-list lines of the digests, in the wordings seen ("The host that
// have bad TPUs are:") and their grammatical variants.
constexpr std::array<HostListMarker, 9> kHostListMarkers = {{
    {"bad tpus are:", DigestCause::kBadChip},
    {"bad tpu chips are:", DigestCause::kBadChip},
    {"different hlo modules:", DigestCause::kDifferentModule},
    {"different hlo fingerprints:", DigestCause::kFingerprintMismatch},
    {"input stalls are:", DigestCause::kInputStall},
    {"input stall are:", DigestCause::kInputStall},
    {"the hosts are:", std::nullopt},
    {"the host is:", std::nullopt},
    {"the host are:", std::nullopt},
}};

DigestLine ClassifyUnrecoverableLine(std::string_view s, DigestSection section) {
  DigestLine out;
  if (FindNoCase(s, "please inspect the error log of") != std::string_view::npos) {
    out.kind = DigestLineKind::kInspectHeader;
    return out;
  }
  if (section == DigestSection::kHalted) {
    // "<worker> : {error}", or "<worker>: {error}".
    size_t sep = s.find(" : ");
    size_t skip = 3;
    if (sep == std::string_view::npos) {
      sep = s.find(": {");
      skip = 2;
    }
    if (sep != std::string_view::npos) {
      std::string_view worker = Trim(s.substr(0, sep));
      if (!worker.empty() && !HasBlank(worker) && ParseWorkerRef(worker)) {
        out.kind = DigestLineKind::kHaltedRow;
        out.key = worker;
        out.value = Trim(s.substr(sep + skip));
      }
    }
    return out;
  }
  // Host names in a job carry an index; a stray word ("Done") does not.
  if (section == DigestSection::kInspect && IsWorkerList(s) &&
      s.find_first_of("0123456789") != std::string_view::npos) {
    out.kind = DigestLineKind::kWorkerRow;
    out.value = s;
  }
  return out;
}

// "<tag>:<pc>(<hlo>): <hosts>".
bool ParseStateRow(std::string_view s, DigestLine* out) {
  size_t open = s.find('(');
  if (open == 0 || open == std::string_view::npos) return false;
  size_t close = s.find("): ", open);
  if (close == std::string_view::npos) return false;
  std::string_view tag_pc = s.substr(0, open);
  std::string_view hosts = Trim(s.substr(close + 3));
  if (HasBlank(tag_pc) || !IsWorkerList(hosts)) return false;
  out->kind = DigestLineKind::kStateRow;
  out->key = tag_pc;
  out->hlo = s.substr(open + 1, close - open - 1);
  out->value = hosts;
  return true;
}

// "<host>: <value>", both single tokens.
bool ParseHostValue(std::string_view s, DigestLine* out) {
  size_t sep = s.rfind(": ");
  if (sep == std::string_view::npos || sep == 0) return false;
  std::string_view host = s.substr(0, sep);
  std::string_view value = Trim(s.substr(sep + 2));
  if (value.empty() || HasBlank(host) || HasBlank(value) || !ParseWorkerRef(host)) return false;
  out->kind = DigestLineKind::kHostValue;
  out->key = host;
  out->value = value;
  return true;
}

}  // namespace

const char* DigestCauseName(DigestCause c) {
  switch (c) {
    case DigestCause::kBadChip:
      return "bad_chip";
    case DigestCause::kNetwork:
      return "network";
    case DigestCause::kDifferentModule:
      return "different_module";
    case DigestCause::kFingerprintMismatch:
      return "fingerprint_mismatch";
    case DigestCause::kInputStall:
      return "input_stall";
    case DigestCause::kUnrecoverable:
      return "unrecoverable";
    case DigestCause::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::optional<DigestCause> ClassifyCauseText(std::string_view text) {
  // Causes are printed both as prose and as enum names (BAD_TPU_CHIPS).
  std::string t = ToLower(text.substr(0, 1024));
  for (char& c : t) {
    if (c == '_') c = ' ';
  }
  auto has = [&t](std::string_view k) { return t.find(k) != std::string::npos; };
  if (has("cannot determine")) return DigestCause::kUnknown;
  if (has("unrecoverable")) return DigestCause::kUnrecoverable;
  if (has("bad tpu")) return DigestCause::kBadChip;
  // Checked before "module": the fingerprint wording speaks of "HLO module
  // compilation" but never of "different module(s)".
  if (has("fingerprint") || has("inconsistent hlo") || has("inconsistent tpu program") ||
      has("module compilation")) {
    return DigestCause::kFingerprintMismatch;
  }
  if (has("different module")) return DigestCause::kDifferentModule;
  if (has("input stall") || has("data input")) return DigestCause::kInputStall;
  if (has("network")) return DigestCause::kNetwork;
  return std::nullopt;
}

DigestHeader DetectDigestHeader(std::string_view message, size_t* at) {
  constexpr std::string_view kHang = "megascale detects a hang";
  size_t p = FindNoCase(message, kHang);
  while (p != std::string_view::npos) {
    // The header goes on with its verdict; a quotation of the phrase
    // ("look for `Megascale detects a hang` in ...") does not.
    std::string_view rest = Trim(message.substr(p + kHang.size()));
    if (rest.empty() || StartsWithNoCase(rest, "that") || StartsWithNoCase(rest, "but") ||
        rest.front() == '.' || rest.front() == ':' || rest.front() == ',' ||
        rest.starts_with("\\n")) {
      if (at) *at = p;
      return DigestHeader::kHang;
    }
    p = FindNoCase(message, kHang, p + 1);
  }
  constexpr std::string_view kHalted = "halted with an unrecoverable error";
  p = FindNoCase(message, kHalted);
  if (p != std::string_view::npos) {
    std::string_view rest = Trim(message.substr(p + kHalted.size()));
    if (rest.empty() || rest.front() == ':' || rest.front() == '.') {
      if (at) *at = p;
      return DigestHeader::kUnrecoverable;
    }
  }
  return DigestHeader::kNone;
}

DigestLine ClassifyDigestLine(std::string_view message, DigestSection section) {
  const std::string_view s = Trim(message);
  DigestLine out;
  if (s.empty()) return out;
  if (section == DigestSection::kHalted || section == DigestSection::kInspect) {
    return ClassifyUnrecoverableLine(s, section);
  }
  if (auto v = AfterKeyAnywhere(s, "potential culprit workers")) {
    out.kind = DigestLineKind::kCulprits;
    out.value = *v;
    return out;
  }
  if (auto v = AfterKeyAnywhere(s, "potential cause")) {
    out.kind = DigestLineKind::kPotentialCause;
    out.value = *v;
    return out;
  }
  if (FindNoCase(s, "full error digest") != std::string_view::npos) {
    out.kind = DigestLineKind::kFullDigest;
    return out;
  }
  for (const auto& m : kHostListMarkers) {
    size_t p = FindNoCase(s, m.marker);
    if (p == std::string_view::npos) continue;
    out.kind = DigestLineKind::kNamedHosts;
    out.value = Trim(s.substr(p + m.marker.size()));
    out.hint = m.hint;
    return out;
  }
  if (AfterPrefixKey(s, "tpu stats")) {
    out.kind = DigestLineKind::kStatsSection;
    return out;
  }
  if (AfterPrefixKey(s, "tpu states")) {
    out.kind = DigestLineKind::kStatesSection;
    return out;
  }
  if (AfterPrefixKey(s, "tpu program fingerprints")) {
    out.kind = DigestLineKind::kFingerprintsSection;
    return out;
  }
  if (auto v = AfterPrefixKey(s, "module")) {
    out.kind = DigestLineKind::kModule;
    out.value = *v;
    return out;
  }
  if (auto v = AfterPrefixKey(s, "fingerprint")) {
    out.kind = DigestLineKind::kFingerprint;
    out.value = *v;
    return out;
  }
  for (std::string_view key : {"launch id", "launch_id"}) {
    if (auto v = AfterPrefixKey(s, key)) {
      out.kind = DigestLineKind::kLaunchId;
      out.value = *v;
      return out;
    }
  }
  if ((section == DigestSection::kStats || section == DigestSection::kStates) &&
      ParseStateRow(s, &out)) {
    return out;
  }
  if ((section == DigestSection::kStats || section == DigestSection::kFingerprints) &&
      ParseHostValue(s, &out)) {
    return out;
  }
  return out;
}

}  // namespace casefile::hang
