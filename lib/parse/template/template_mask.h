// Log-line signatures: a message with its variable parts masked, so that the
// lines one statement of a program prints share one signature. The rules
// (docs/SCHEMA.md, "Template masking") are a pure function of the text: the
// same line shape gives the same pattern in every bundle, which lets the diff
// join the template tables of two runs.
//
// In brief, on the message (wrappers, level and timestamp already stripped by
// parse/line), split on whitespace, runs of whitespace collapsed to one space,
// leading and trailing whitespace dropped:
//   <PATH>  a token (or the part after its first '='; quotes and brackets
//           around it and a trailing , ; : . ) ] kept outside) that is a file
//           path: starts with '/', './', '../' or '~/', or is a relative path
//           whose last component has an extension (a/b/c.py); a ':<digits>'
//           line suffix stays outside (<PATH>:<NUM>); URLs (://) are not paths
//   <IP>    IPv4 a.b.c.d with an optional :port; IPv6 with '::' or 8 groups
//   <HEX>   0x..., UUIDs, words of 8+ hex digits holding a digit and a
//           letter (hashes, commIds, pointers without 0x), and whole short
//           hex words from a digit holding a letter (NCCL's opCount 1a2f;
//           not exponents: 1e6, 3e-4)
//   <NUM>   a date or time as one mask (2024-05-01T12:00:00.123Z,
//           2024/05/01, 12:00:00,123, and C-library dates over several
//           words: "Wed Jul 15 01:55:44 2026", "May  5 23:09:30"), else a
//           digit run with its decimals,
//           dotted parts (2.19.3) and exponent, and a sign after a non-word
//           character (-1, lr=-3e-4); digits inside words too (rank3 ->
//           rank<NUM>, host-017 -> host-<NUM>, 12.5ms -> <NUM>ms)
// Everything else is kept byte for byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace casefile::templates {

// The mask texts as they appear in patterns.
inline constexpr std::string_view kMaskNum = "<NUM>";
inline constexpr std::string_view kMaskHex = "<HEX>";
inline constexpr std::string_view kMaskIp = "<IP>";
inline constexpr std::string_view kMaskPath = "<PATH>";

// The 64-bit hash of the masked message with `salt` mixed in, computed in
// one pass without building the pattern or allocating. Equal masked forms
// (and salts) give equal hashes.
uint64_t MaskedHash(std::string_view message, uint64_t salt);

// The masked message itself, cut to at most `max_bytes` (never in the middle
// of a mask).
std::string MaskedPattern(std::string_view message, size_t max_bytes);

}  // namespace casefile::templates
