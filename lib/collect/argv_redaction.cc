#include "collect/argv_redaction.h"

#include <string_view>

#include "collect/named_secrets.h"

namespace casefile::collect {
namespace {

std::string_view StripDashes(std::string_view word) {
  size_t dashes = 0;
  while (dashes < word.size() && dashes < 2 && word[dashes] == '-') ++dashes;
  return word.substr(dashes);
}

}  // namespace

std::vector<std::string> RedactArgv(const std::vector<std::string>& argv, const Redactor& redactor,
                                    RedactionCounts& counts) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  SecretKeyClass pending = SecretKeyClass::kNone;  // the previous word was a secret flag
  std::string pending_key;
  for (const std::string& word : argv) {
    std::string whole = word;
    const SecretKeyClass flag_value_of = pending;
    pending = SecretKeyClass::kNone;
    if (flag_value_of != SecretKeyClass::kNone && word.compare(0, 2, "--") != 0) {
      if (!IsNonSecretValue(word, flag_value_of)) {
        const char* kind = NamedSecretKind(pending_key, word);
        whole = redactor.Pseudonym(kind, word);
        ++counts[kind];
      }
    } else if (size_t eq = word.find('='); eq != std::string::npos && eq > 0) {
      std::string_view key = StripDashes(std::string_view(word).substr(0, eq));
      std::string_view value = std::string_view(word).substr(eq + 1);
      SecretKeyClass c = key.empty() ? SecretKeyClass::kNone : ClassifySecretKey(key);
      if (c != SecretKeyClass::kNone && !IsNonSecretValue(value, c)) {
        const char* kind = NamedSecretKind(key, value);
        whole = word.substr(0, eq + 1) + redactor.Pseudonym(kind, value);
        ++counts[kind];
      }
    } else if (word.size() > 1 && word[0] == '-') {
      std::string_view key = StripDashes(word);
      pending = key.empty() ? SecretKeyClass::kNone : ClassifySecretKey(key);
      pending_key = std::string(key);
    }
    std::string redacted;
    RedactLineState state;
    redactor.RedactLine(whole, redacted, state, counts);
    out.push_back(std::move(redacted));
  }
  return out;
}

}  // namespace casefile::collect
