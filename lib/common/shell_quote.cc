#include "common/shell_quote.h"

namespace casefile {

bool IsShellSafeWord(std::string_view word) {
  return !word.empty() && word.find_first_not_of(
                              "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                              "0123456789-_./=:,+@%") == std::string_view::npos;
}

std::string ShellQuote(std::string_view word) {
  if (IsShellSafeWord(word)) return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace casefile
