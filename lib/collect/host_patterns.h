// Host identities for --redact-hosts: IPv4 and IPv6 addresses and the host
// names the caller gives. Best effort by design: an address is told from a
// version number or a clock time by its shape and surroundings only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "collect/secret_patterns.h"

namespace casefile::collect {

// Four dotted decimal octets (0-255, 1-3 digits each) that are a whole
// token: not preceded by a letter, digit, '_' or '.', not followed by a
// letter, digit, '_', or '.' plus a digit (so 1.2.3.4.5, v1.2.3.4 and
// lib.so.8.9.2.26 are not addresses; "at 10.0.0.1." is). Four-part version
// numbers are common (cuDNN 8.9.2.26, cuBLAS 12.1.3.1) and are left alone
// when they read as versions: after a pip comparison (==, >=, <=, ~=, !=),
// within 24 bytes after the word "version" (or a pseudonym, which may have
// replaced it), or followed by a '+' or '-' build suffix
// (8.9.2.26-1+cuda12.1). A version in a bare two-column list
// (`conda list`) cannot be told apart and is replaced. Addresses that
// identify no host are kept: 0.0.0.0, 127.x.x.x and 255.x.x.x (masks).
void FindIpv4Addresses(std::string_view text, SecretMatches& out);

// IPv6 in the RFC 4291 text forms: eight groups of 1-4 hex digits, or fewer
// with one "::", optionally ending in dotted IPv4; a whole token (no
// letter, digit or '_' on either side, and a ':' after only when a blank
// follows it: "fe80::1:29500" is ambiguous without brackets). Eight groups are required without
// "::" so that clock times (12:34:56) and MAC addresses (six groups) are
// not taken; "::" needs at least one group, and C++ scopes (c10::Error,
// std::vector) fail the hex or boundary test. "::1" and "::" are kept.
void FindIpv6Addresses(std::string_view text, SecretMatches& out);

// Each of `lower_names` (lower case, 3+ characters) as a whole word in any
// of the cases FindCaseless sees: not preceded or followed by a letter,
// digit, '_' or '-', so "node-1" does not hit "node-12" or "node-1-ib", but
// does hit the "node-1" of "node-1.cluster.local".
void FindHostNames(std::string_view text, const std::vector<std::string>& lower_names,
                   SecretMatches& out);

}  // namespace casefile::collect
