// Classifies one line of a Megascale coordinator digest by its shape, without
// state: the caller says which section of the digest it is in (rows such as
// "<host>: <pc>" mean something only under "TPU stats:"). Every key is found
// by a literal search, never a regex, and never anchored at the raw line
// start: callers pass the message after its log wrappers, and the short keys
// ("Module:") are matched at the start of the trimmed message only.
#pragma once

#include <optional>
#include <string_view>

namespace casefile::hang {

enum class DigestCause {
  kBadChip,
  kNetwork,
  kDifferentModule,
  kFingerprintMismatch,
  kInputStall,
  kUnrecoverable,
  kUnknown,  // "cannot determine the root cause", or a cause we do not know
};
const char* DigestCauseName(DigestCause c);  // "bad_chip", "network", ...

// The cause a free text names: a digest header ("... likely caused by bad TPU
// chips on the following hosts"), a "Potential cause:" value ("Networking
// issue", "INCONSISTENT_TPU_PROGRAM"). nullopt when it names none we know.
std::optional<DigestCause> ClassifyCauseText(std::string_view text);

enum class DigestHeader {
  kNone,
  kHang,  // "Megascale detects a hang that is likely caused by ..." / "... but cannot determine
          // ..."
  kUnrecoverable,  // "Some workers have halted with an unrecoverable error:"
};
// Recognises a digest header anywhere in a message. `at`, when given, gets
// where the header phrase starts.
DigestHeader DetectDigestHeader(std::string_view message, size_t* at = nullptr);

enum class DigestSection { kNone, kStats, kStates, kFingerprints, kHalted, kInspect };

enum class DigestLineKind {
  kNone,
  kNamedHosts,           // "The host that have bad TPUs are: h" and kin; value = list
  kFullDigest,           // "Full error digest:"
  kPotentialCause,       // value = the cause
  kCulprits,             // "Potential culprit workers: ..."; value = list
  kStatsSection,         // "TPU stats:"
  kStatesSection,        // "TPU states:"
  kFingerprintsSection,  // "TPU program fingerprints:"
  kModule,               // value = module name
  kFingerprint,          // value = fingerprint
  kLaunchId,             // value = launch id text
  kStateRow,             // "<tag>:<pc>(<hlo>): <hosts>"; key = "<tag>:<pc>", hlo, value = hosts
  kHostValue,            // "<host>: <value>"; key = host, value
  kHaltedRow,            // "<worker> : {error}"; key = worker, value = error
  kInspectHeader,        // "Please inspect the error log of these workers:"
  kWorkerRow,            // "<worker>[, <worker>...]"; value = list
};

struct DigestLine {
  DigestLineKind kind = DigestLineKind::kNone;
  std::string_view key;
  std::string_view value;
  std::string_view hlo;
  // For kNamedHosts: the cause its wording implies ("bad TPUs are:"), if any.
  std::optional<DigestCause> hint;
};

// Views in the result point into `message`.
DigestLine ClassifyDigestLine(std::string_view message, DigestSection section);

}  // namespace casefile::hang
