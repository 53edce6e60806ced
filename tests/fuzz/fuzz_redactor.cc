// Fuzz target: the collector's redactor (lib/collect/redactor.h), which runs
// on training hosts over arbitrary files, as the collector runs it: a
// StreamRedactor fed the file in chunks (two, cut where the first byte
// says), then Finish(). The second bit of the first byte turns on
// --redact-hosts with a host name. Checked, each a guarantee of
// docs/BUNDLE_FORMAT.md "Redaction" / redactor.h:
//  - the output does not depend on where the chunks were cut;
//  - line numbers are kept: the same LF and CR bytes, so the same lines with
//    the same terminators;
//  - idempotent: redacting the output again changes nothing;
//  - a secret of a documented form, planted on a line of its own between
//    two halves of the input (a private key as a whole block), is never in
//    that line of the output, whatever the text around it;
//  - one input in sixteen is instead planted inside a line longer than the
//    1 MiB window (kMaxRedactLineBytes), at a place near the cut the input
//    picks, and must not survive the cut either;
//  - RedactEnvValue keeps the lines of a value under a non-secret name.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "collect/redactor.h"
#include "fuzz_abort.h"
#include "ingest_lines.h"

namespace {

namespace c = casefile::collect;

const c::Redactor& RedactorFor(bool hosts) {
  static const c::RedactionKey key = [] {
    c::RedactionKey k;
    for (size_t i = 0; i < k.size(); ++i) k[i] = static_cast<uint8_t>(0x42 + i);
    return k;
  }();
  static const c::Redactor plain(key);
  static const c::Redactor with_hosts(key, c::RedactorOptions{true, {"node-17.example"}});
  return hosts ? with_hosts : plain;
}

std::string Redact(const c::Redactor& r, std::string_view in, size_t cut) {
  c::RedactionCounts counts;
  std::string out;
  c::StreamRedactor stream(r, counts);
  stream.Feed(in.substr(0, cut), out);
  stream.Feed(in.substr(cut), out);
  stream.Finish(out);
  return out;
}

size_t Count(std::string_view s, char ch) {
  size_t n = 0;
  for (char x : s) n += x == ch;
  return n;
}

// Lines as the redactor sees them: LF, CRLF and a lone CR end one.
std::vector<std::string_view> SplitLines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n' || s[i] == '\r') {
      out.push_back(s.substr(start, i - start));
      if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

// A secret body of `n` characters from `alphabet`, drawn from the input so
// that it varies with it.
std::string Body(std::string_view input, size_t n, std::string_view alphabet, size_t salt) {
  std::string s;
  uint32_t h = 2166136261u + static_cast<uint32_t>(salt);
  for (unsigned char ch : input.substr(0, 64)) h = (h ^ ch) * 16777619u;
  for (size_t i = 0; i < n; ++i) {
    h = h * 1103515245u + 12345u;
    s.push_back(alphabet[(h >> 16) % alphabet.size()]);
  }
  return s;
}

struct Planted {
  std::vector<std::string> lines;  // the lines planted
  std::string secret;              // must be in none of them once redacted
};

constexpr std::string_view kAlnum =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
constexpr std::string_view kUpperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

Planted Plant(std::string_view input, unsigned which) {
  Planted p;
  switch (which % 8) {
    case 0:
      p.secret = "hf_" + Body(input, 34, kAlnum, 0);
      p.lines = {p.secret};
      break;
    case 1:
      p.secret = "ghp_" + Body(input, 36, kAlnum, 1);
      p.lines = {p.secret};
      break;
    case 2:
      p.secret = "AKIA" + Body(input, 16, kUpperDigits, 2);
      p.lines = {p.secret};
      break;
    case 3:
      p.secret = "AIza" + Body(input, 35, kAlnum, 3);
      p.lines = {p.secret};
      break;
    case 4:
      p.secret = "t0k" + Body(input, 24, kAlnum, 4);
      p.lines = {"Authorization: Bearer " + p.secret};
      break;
    case 5:
      p.secret = "pw" + Body(input, 14, kAlnum, 5);
      p.lines = {"https://user:" + p.secret + "@host.example/path"};
      break;
    case 6:
      p.secret = "s" + Body(input, 20, kAlnum, 6);
      p.lines = {"HF_TOKEN=" + p.secret};
      break;
    default:
      p.secret = "MII" + Body(input, 40, kAlnum, 7);
      p.lines = {"-----BEGIN PRIVATE KEY-----", p.secret, "-----END PRIVATE KEY-----"};
      break;
  }
  return p;
}

void CheckPlanted(const c::Redactor& r, std::string_view input) {
  const unsigned char b0 = input.empty() ? 0 : static_cast<unsigned char>(input[0]);
  const Planted p = Plant(input, b0 >> 2);
  const size_t half = input.size() / 2;
  std::string text(input.substr(0, half));
  text += '\n';
  const size_t first = SplitLines(text).size() - 1;  // the planted line's index
  for (const std::string& l : p.lines) text += l + "\n";
  text += input.substr(half);
  const std::string out = Redact(r, text, casefile::fuzz::ChunkCut(input));
  const std::vector<std::string_view> lines = SplitLines(out);
  if (lines.size() != SplitLines(text).size()) FUZZ_ABORT();
  for (size_t k = 0; k < p.lines.size(); ++k) {
    if (lines[first + k].find(p.secret) != std::string_view::npos) FUZZ_ABORT();
  }
}

// A secret inside one line longer than the redactor's window, near the
// window's end: the cut must not split it out of sight.
void CheckLongLine(const c::Redactor& r, std::string_view input) {
  const Planted p = Plant(input, input.size() > 1 ? static_cast<unsigned char>(input[1]) : 0);
  if (p.lines.size() != 1) return;  // a key block is several lines
  const size_t back = input.size() > 2 ? static_cast<unsigned char>(input[2]) : 0;
  std::string text(c::kMaxRedactLineBytes - back, 'a');
  const size_t from = text.size();
  text += ' ';
  text += p.lines[0];
  text += ' ';
  const size_t planted_end = text.size();
  text += input;
  const std::string out = Redact(r, text, text.size() / 2);
  // Only the front: the input behind may hold the secret's bytes itself.
  std::string_view front(out);
  front = front.substr(0, std::min(front.size(), planted_end));
  if (front.find(p.secret, from > 64 ? from - 64 : 0) != std::string_view::npos) FUZZ_ABORT();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const unsigned char b0 = size > 0 ? data[0] : 0;
  const c::Redactor& r = RedactorFor((b0 & 2) != 0);

  if ((b0 & 0x0F) == 0x0F) {
    CheckLongLine(r, input);
    return 0;
  }

  const std::string chunked = Redact(r, input, casefile::fuzz::ChunkCut(input));
  const std::string whole = Redact(r, input, input.size());
  if (chunked != whole) FUZZ_ABORT();
  if (Count(whole, '\n') != Count(input, '\n') || Count(whole, '\r') != Count(input, '\r'))
    FUZZ_ABORT();
  if (Redact(r, whole, whole.size()) != whole) FUZZ_ABORT();

  CheckPlanted(r, input);

  c::RedactionCounts counts;
  const std::string env = r.RedactEnvValue("PATH", input, counts);
  if (Count(env, '\n') != Count(input, '\n')) FUZZ_ABORT();
  r.RedactEnvValue("HF_TOKEN", input, counts);
  return 0;
}
