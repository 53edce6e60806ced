// The secret detectors the Redactor runs over each line. Each family is a
// hand-written checker that starts at one byte of its literal part (the '_'
// of "hf_", the ':' of "://", the 'B' of "-----BEGIN ") and checks the shape
// around it; the bytes are found by memchr or by FindSecrets' single pass.
// Nothing here uses regular expressions: the collector runs these over every
// byte it packs.
//
// A detector appends the byte ranges it wants replaced; it neither replaces
// nor resolves overlaps (the Redactor does, keeping the union). Every match
// also says where the evidence it needed begins (`context`), so that a long
// line cut into windows is never cut between a key name and its value.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace casefile::collect {

struct SecretMatch {
  size_t context = 0;  // first byte the detector looked at (<= begin)
  size_t begin = 0;    // [begin, end) is replaced
  size_t end = 0;
  // One of the kRedact* kinds; nullptr marks a range that is kept as it is
  // and must not be split by a window cut (a private key marker, a
  // pseudonym).
  const char* kind = nullptr;
};
using SecretMatches = std::vector<SecretMatch>;

inline bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool IsAsciiAlnum(char c) { return IsAsciiDigit(c) || IsAsciiAlpha(c); }
inline bool IsWordChar(char c) { return IsAsciiAlnum(c) || c == '_'; }
inline bool IsHexDigit(char c) {
  return IsAsciiDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
inline bool IsBlank(char c) { return c == ' ' || c == '\t'; }
inline char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

// The first `c` at or after `from`, or npos (memchr).
size_t FindByte(std::string_view hay, char c, size_t from);

// The first `needle` at or after `from`, or npos. The search runs memchr on
// needle[anchor], which the caller picks as the needle's rarest byte in
// logs ("-----BEGIN " on 'B'): most lines hold no candidate at all.
// (glibc's memmem sets up tables per call, which costs more than the search
// on the short lines logs are made of.)
size_t FindLiteral(std::string_view hay, std::string_view needle, size_t anchor, size_t from);

// Position of `lower_needle` (lower case ASCII, 1..256 bytes) in `hay` at
// or after `from`, in any letter case ("bearer", "Bearer", "BEARER"), or
// npos. Anchored on the needle's rarest letter in both cases.
size_t FindCaseless(std::string_view hay, std::string_view lower_needle, size_t from);

// HF user access tokens: "hf_" + 30..40 letters/digits; the older org
// tokens: "api_org_" + 30..40.
void FindHfTokens(std::string_view text, SecretMatches& out);
// GitHub: "ghp_", "gho_", "ghu_", "ghs_", "ghr_" + 36..251 letters/digits
// (GitHub reserves the right to lengthen them); fine-grained
// "github_pat_" + 22..255 of [A-Za-z0-9_].
void FindGithubTokens(std::string_view text, SecretMatches& out);
// AWS access key ids: "AKIA" (long-term) or "ASIA" (STS) + 16 of [A-Z0-9],
// as a whole word.
void FindAwsAccessKeyIds(std::string_view text, SecretMatches& out);
// Google API keys: "AIza" + 35 of [A-Za-z0-9_-], as a whole word.
void FindGoogleApiKeys(std::string_view text, SecretMatches& out);
// "Authorization: <scheme> <credential>" (Bearer, Basic, token schemes, or a
// bare credential) and a "Bearer <token>" anywhere (curl -H lines); the
// words case-insensitive. A bare "Bearer x" needs a token-like x (8+ chars
// with a digit or one of "._~+/=-", or 20+ letters) so prose ("Bearer
// tokens") stays. Shell references ("$TOKEN") are not secrets.
void FindBearerTokens(std::string_view text, SecretMatches& out);
// scheme://user:PASSWORD@host: only the password. No '@' in the authority
// (http://host:8080/), no ':' in the user part (ssh://git@host) or an empty
// password means nothing to replace; e-mail addresses have no "://".
void FindUrlPasswords(std::string_view text, SecretMatches& out);

// All of the above (and the named secrets of named_secrets.h) in one pass
// over `text`: the pass stops only at the anchor bytes of the families
// ('_' for hf_/api_org_/gh*_/github_pat_, 'K'/'S' for AKIA/ASIA, 'z' for
// AIza and authorization, 'b' for bearer, ':' for "://" and key: value, '='
// and "--" for key=value and flags) and runs the same checkers the Find*
// functions run, so its matches are the union of theirs. One pass instead
// of one memchr per family is what keeps redaction near memory speed on the
// short lines logs are made of. `text_starts_line` as for FindNamedSecrets.
void FindSecrets(std::string_view text, bool text_starts_line, SecretMatches& out);

// Private key blocks: "-----BEGIN <label>-----" where the label holds
// "PRIVATE KEY" (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP ... BLOCK, plain).
// The markers are kept; the content between them is replaced, per line:
// after a BEGIN marker up to an END marker on the same line (a key inside a
// JSON string) or the line's end, and inside a block the whole line (its
// leading and trailing blanks kept) up to an END marker. Each change of
// block state is reported with its position.
struct KeyBlockEvent {
  size_t pos = 0;
  bool in_block = false;  // the state from `pos` on
};
void FindPrivateKeys(std::string_view text, bool in_block, SecretMatches& out,
                     std::vector<KeyBlockEvent>& events);

// Pseudonyms already in the text ("<redacted:KIND:HEX8>"): the Redactor
// drops any match touching one, which makes redaction idempotent.
void FindPseudonyms(std::string_view text, SecretMatches& out);

}  // namespace casefile::collect
