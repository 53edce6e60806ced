// Secret redaction for the collector: what `casefile collect` runs over every
// file, command output, environment value and the recorded command line
// before a byte reaches the bundle (docs/BUNDLE_FORMAT.md, "Redaction").
//
// Invariants the rest of casefile relies on:
//  - A redaction never adds or removes a line: replacements hold no line
//    terminator, and a multi-line secret (a private key block) is replaced
//    line by line. Evidence line numbers in a redacted bundle are the
//    source's.
//  - A replacement is a stable pseudonym, "<redacted:KIND:HEX8>", where HEX8
//    is the first 4 bytes of HMAC-SHA256(key, secret): equal secrets stay
//    equal within one key, so analysis that correlates them still works, and
//    the key (random per bundle unless the caller shares one across hosts)
//    is never written to the bundle. A pseudonym matches no secret pattern,
//    so redacting twice changes nothing more.
//  - Memory is bounded: StreamRedactor keeps at most one line (cut at
//    kMaxRedactLineBytes, with an overlap so a secret across the cut is still
//    found) whatever the input.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/sha256.h"

namespace casefile::collect {

// Kinds, as counted in the manifest ("redactions": {"hf_token": 2}).
inline constexpr const char* kRedactHfToken = "hf_token";  // hf_...
inline constexpr const char* kRedactGithubToken =
    "github_token";  // ghp_, gho_, ghu_, ghs_, ghr_, github_pat_
inline constexpr const char* kRedactAwsKeyId = "aws_access_key_id";  // AKIA/ASIA + 16
inline constexpr const char* kRedactAwsSecret = "aws_secret_access_key";
inline constexpr const char* kRedactGoogleApiKey = "google_api_key";  // AIza + 35
// OpenAI / Anthropic (sk-...), Slack (xoxb-...), GitLab (glpat-...), NGC
// (nvapi-...) and PyPI (pypi-AgE...) tokens, JWTs (eyJ...eyJ...), Slack and
// Discord webhook URLs' secret paths.
inline constexpr const char* kRedactVendorToken = "vendor_token";
inline constexpr const char* kRedactBearer = "bearer_token";       // Authorization: Bearer ...
inline constexpr const char* kRedactUrlPassword = "url_password";  // scheme://user:PASS@host
inline constexpr const char* kRedactPrivateKey = "private_key";  // -----BEGIN ... PRIVATE KEY-----
// The value of a variable or key named like *TOKEN*, *SECRET*, *PASSWORD*,
// *PASSWD*, *API_KEY*, *APIKEY*, *ACCESS_KEY*, *CREDENTIAL* (case-insensitive),
// in KEY=VALUE, KEY: VALUE, "key": "value" and --key=value / --key value forms.
inline constexpr const char* kRedactNamedSecret = "named_secret";
// Only with RedactorOptions::hosts: the given host names and IPv4/IPv6
// addresses.
inline constexpr const char* kRedactHostname = "hostname";
inline constexpr const char* kRedactIp = "ip_address";

inline constexpr size_t kMaxRedactLineBytes = 1u << 20;
// Lines a private key block may span: a BEGIN line whose END never comes
// (a truncated file, a marker quoted in an error message) stops replacing
// after this many lines, so one stray marker cannot blank a whole log.
inline constexpr uint32_t kMaxPrivateKeyLines = 200;

using RedactionKey = std::array<uint8_t, 32>;

struct RedactorOptions {
  bool hosts = false;  // --redact-hosts
  // With `hosts`: host names to replace wherever they occur as a whole word,
  // in any letter case (the collecting host's name, names the caller knows),
  // besides every IPv4/IPv6 address. Ignored without `hosts`; names shorter
  // than 3 characters are ignored (they would hit ordinary words).
  std::vector<std::string> host_names;
};

// What RedactLine carries from one line to the next: whether a private key
// block is open, and how many lines it has spanned (kMaxPrivateKeyLines).
struct RedactLineState {
  bool in_private_key = false;
  uint32_t private_key_lines = 0;
};

// Counts per kind; the manifest writes them per file.
using RedactionCounts = std::map<std::string, uint64_t>;

// A fresh random key (getrandom); throws Error(kIo) when the OS gives none.
RedactionKey RandomRedactionKey();

// The const members are thread-safe: one Redactor may serve every file of a
// collection at once, each through its own StreamRedactor.
class Redactor {
 public:
  Redactor(const RedactionKey& key, RedactorOptions options = {});

  // Redacts one line (no terminator) into `out` (replaced, not appended).
  // `state` carries a private key block across lines; a caller redacting
  // unrelated single lines (a command line) passes a fresh one each time.
  // Returns the number of replacements made and adds them to `counts`
  // (a private key block counts one per replaced line).
  size_t RedactLine(std::string_view line, std::string& out, RedactLineState& state,
                    RedactionCounts& counts) const;

  // An environment variable's value: the whole value when the name is
  // secret-like (and the value is not an obvious non-secret: empty, a
  // boolean, a count, a placeholder), else the value's content, redacted
  // line by line as a file would be.
  std::string RedactEnvValue(std::string_view name, std::string_view value,
                             RedactionCounts& counts) const;

  // "<redacted:KIND:HEX8>" for `secret`.
  std::string Pseudonym(std::string_view kind, std::string_view secret) const;

  const RedactorOptions& options() const { return options_; }

 private:
  RedactorOptions options_;  // host_names lower-cased, short ones dropped
  HmacSha256 mac_;           // keyed once (the only copy of the key); copied per pseudonym
};

// A byte stream redacted line by line; line terminators (LF, CRLF, lone CR)
// are written back as they were.
class StreamRedactor {
 public:
  StreamRedactor(const Redactor& redactor, RedactionCounts& counts);
  // Appends the redacted bytes of every line `chunk` completes to `out`.
  void Feed(std::string_view chunk, std::string& out);
  // Appends the last, unterminated line. The object may then take a new
  // stream.
  void Finish(std::string& out);

 private:
  // Redacts pending_ as the rest of a line and appends it.
  void FinishLine(std::string& out);
  // A stream cut inside a token (a log read while written, a capped
  // output): the last word of the unterminated last line, written to
  // out[from:], is replaced when it starts like a token, although it is too
  // short for the token's full pattern.
  void RedactCutToken(std::string& out, size_t from);
  // Emits the front of pending_ when a line outgrows kMaxRedactLineBytes.
  void FlushWindow(std::string& out);

  const Redactor& redactor_;
  RedactionCounts& counts_;
  std::string pending_;  // the current line's bytes not yet written
  RedactLineState state_;
  bool pending_starts_line_ = true;  // false once a long line was cut
  // The kind of a secret that ran to a cut, whose rest opens pending_.
  const char* continuation_kind_ = nullptr;
  bool after_cr_ = false;  // the last byte fed was a CR; an LF next is its pair
};

}  // namespace casefile::collect
