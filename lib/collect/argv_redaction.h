// Redaction of a command line given as its words (casefile's own, the
// job's), before the words are shell-quoted into one line. Quoting hides a
// value's extent from a line redactor: 'db_password=two words' opens its
// quote before the key, and it'\''s splits a value at its apostrophe, so
// the part after the blank or the quote would be left in the clear. A word
// is one argument, so here a secret value is replaced whole.
#pragma once

#include <string>
#include <vector>

#include "collect/redactor.h"

namespace casefile::collect {

// Each word redacted: the value of [-[-]]KEY=VALUE, and the word after a
// -[-]KEY flag (unless it starts with "--"), replaced whole when KEY names a
// secret (ClassifySecretKey) and the value is not surely harmless
// (IsNonSecretValue); then every secret pattern, as in a line. Counts
// replacements per kind into `counts`.
std::vector<std::string> RedactArgv(const std::vector<std::string>& argv, const Redactor& redactor,
                                    RedactionCounts& counts);

}  // namespace casefile::collect
