#include "parse/dist/torch_watchdog_wrap.h"

#include "parse/dist/torch_watchdog_fields.h"

namespace casefile::dist::torch {
namespace {

constexpr size_t npos = std::string_view::npos;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Whether a non-blank byte follows s[from].
bool TextAfter(std::string_view s, size_t from) {
  for (size_t i = from; i < s.size(); ++i) {
    if (!IsBlank(s[i])) return true;
  }
  return false;
}

}  // namespace

bool MessageCut(std::string_view msg) {
  const size_t work = msg.find("WorkNCCL(");
  if (work == npos) {
    // Every watchdog timeout prints its WorkNCCL: the line stops before it.
    return msg.find("Watchdog caught") != npos;
  }
  const std::string_view rest = msg.substr(work);
  if (const size_t ran = rest.find(" ran for "); ran != npos) {
    size_t i = ran + 9;
    // The same test as the reader's: a number that reaches the end may be cut.
    const auto v = IntAt(rest, i);
    return !v || i >= rest.size();
  }
  if (const size_t raised = rest.find(" raised "); raised != npos) {
    // "... raised the following async exception: NCCL error: <class>"
    const size_t exc = rest.find("exception: ", raised);
    if (exc == npos) return true;
    const size_t colon = rest.find(": ", exc + 11);
    return colon == npos || !TextAfter(rest, colon + 2);
  }
  // Other messages that quote a WorkNCCL ("Work WorkNCCL(...) timed out in
  // blocking wait"): whole once the field list is closed and text follows.
  const size_t t = rest.find("Timeout(ms)=");
  if (t == npos) return true;
  size_t i = t + 12;
  const auto v = IntAt(rest, i);
  if (!v || i >= rest.size() || rest[i] != ')') return true;
  return !TextAfter(rest, i + 1);
}

bool StartsOwnMessage(std::string_view msg, bool after_phrase) {
  if (msg.find("[Rank ") != npos || msg.find("[PG ") != npos) return true;
  return after_phrase && msg.find("Watchdog caught") != npos;
}

}  // namespace casefile::dist::torch
