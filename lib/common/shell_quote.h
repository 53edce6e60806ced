// Words for command lines that casefile prints for people to paste: the
// "N more: casefile query ..." lines of the reports, the collector's record
// of the commands it ran. One rule, so every printed command reads back the
// same in a POSIX shell.
#pragma once

#include <string>
#include <string_view>

namespace casefile {

// True when `word` is non-empty and holds only characters no POSIX shell
// treats specially (letters, digits and - _ . / = : , + @ %): it can be
// printed bare.
bool IsShellSafeWord(std::string_view word);

// `word` as a POSIX shell reads it back: bare when IsShellSafeWord, else in
// single quotes with each ' written '\'' ("it's" -> 'it'\''s', "" -> '').
std::string ShellQuote(std::string_view word);

}  // namespace casefile
