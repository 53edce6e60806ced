// Secrets known by the name they are given: the value of a key or variable
// named like a token, secret, password, API key, access key or credential,
// in the forms configs, logs and command lines use:
//   KEY=VALUE, export KEY=VALUE, key = value (INI, ~/.aws/credentials),
//   key: value (YAML, HTTP headers), "key": "value" (JSON, also escaped
//   inside a JSON string), 'key': 'value' (Python reprs), key='value'
//   (Python kwargs), --key=value, --key value, ?key=value&.
// AWS secret access keys are found here too: the value of a key named
// *secret_access_key* (any spelling) that is 40 base64 characters.
#pragma once

#include <string_view>

#include "collect/secret_patterns.h"

namespace casefile::collect {

enum class SecretKeyClass {
  kNone,
  kToken,        // named like a token: a number there is a count or an id
  kCredentials,  // named like CREDENTIAL(S) only: a file path says where they are
  kSecret,       // password, secret, API key, access key, private key
};

// Which secret a key names, if any.
//
// The key is split into lower-case words at '_', '-', '.', and camelCase
// humps ("hubToken" -> hub, token; "APIKey" -> api, key), and joined again
// ("apikey") for the compound names.
//  - A key whose last word names where or what a secret is, not the secret
//    (file, path, dir, url, uri, name, type, length, count, expiry, ttl ...:
//    HF_TOKEN_PATH, GOOGLE_APPLICATION_CREDENTIALS_FILE, token_type), names
//    none.
//  - kSecret: the joined words hold password, passwd, secret, apikey,
//    accesskey or privatekey (PGPASSWORD, client_secret, x-api-key,
//    AWS_SECRET_ACCESS_KEY).
//  - kToken: a word is "token" or ends in it (HF_TOKEN, accessToken,
//    authtoken), unless that word sits in a name of a tokenizer quantity:
//    followed by id, ids, type, index, count, len, limit, size, ... (pad_token_id,
//    token_type_ids), or preceded by a special-token or count word (pad, bos,
//    eos, unk, sep, cls, mask, special, max, num, next, ... as in pad_token,
//    max_token). Words that merely start with "token" are not tokens:
//    tokens, tokenizer(s), tokenization (TOKENIZERS_PARALLELISM, max_tokens,
//    num_tokens).
//  - kCredentials: the joined words hold "credential".
SecretKeyClass ClassifySecretKey(std::string_view key);

// Values that are surely no secret whatever their key: empty; true, false,
// yes, no, on, off, none, null, nil, undefined; a placeholder (<...>, a
// shell reference $X / ${X}, a template {{...}}, a mask of '*'); a
// structure ('{' or '[' opens it: its own keys are looked at one by one);
// code (an attribute naming a secret, like args.hub_token, or a
// call/subscript like os.environ[ or getpass(); a bare name like hf_token
// is redacted, since a weak password looks the same). For kToken keys also a
// number (max_token=4096, HF_HUB_DISABLE_IMPLICIT_TOKEN=1); for
// kCredentials a file path. A number under a password or secret key is
// redacted: a numeric PIN is still a secret.
bool IsNonSecretValue(std::string_view value, SecretKeyClass key_class);

// The kind a secret value under `key` is counted as: kRedactAwsSecret for a
// 40-character base64 value under a *secret_access_key* name, else
// kRedactNamedSecret.
const char* NamedSecretKind(std::string_view key, std::string_view value);

// Finds the values above in `text`. `text_starts_line` says text[0] begins
// a line (false for the later windows of a cut line): a key at the start of
// a line (after blanks, "export ", "declare -x ", "- " or "+ ") or after a
// NUL is an environment dump or YAML line, whose unquoted value runs to a
// blank for KEY=VALUE and to the end of the line (less a " #" comment) for
// key: value, and after the NUL of a NUL-separated dump
// (/proc/<pid>/environ) to the next NUL (the dump's first variable, with
// no NUL before it, ends at a blank). Elsewhere an unquoted value also ends at , ; & ) ] } " '
// \ and NUL.
void FindNamedSecrets(std::string_view text, bool text_starts_line, SecretMatches& out);

// The checkers FindNamedSecrets and FindSecrets run: a key before the
// separator at `sep` ('=' or ':') and its value after; a "--key value"
// flag at the "--" at `dashes`.
void MatchAssignmentAt(std::string_view text, size_t sep, bool text_starts_line,
                       SecretMatches& out);
void MatchFlagValueAt(std::string_view text, size_t dashes, SecretMatches& out);

}  // namespace casefile::collect
