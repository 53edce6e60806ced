#include "parse/trace/comm_event_family.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace casefile::trace_comm {
namespace {

bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// The XLA communication opcodes whose async form pairs start -> done.
constexpr std::array<std::string_view, 10> kCommOps = {"all-reduce",
                                                       "all-gather",
                                                       "reduce-scatter",
                                                       "all-to-all",
                                                       "ragged-all-to-all",
                                                       "collective-permute",
                                                       "collective-broadcast",
                                                       "send",
                                                       "recv",
                                                       "async"};

bool IsCommOp(std::string_view op) {
  for (std::string_view c : kCommOps) {
    if (op == c) return true;
  }
  return false;
}

enum class ArgRole { kNone, kSrc, kDst, kBytes };

ArgRole RoleOf(std::string_view key) {
  if (key == "src" || key == "source" || key == "src_host" || key == "from") return ArgRole::kSrc;
  if (key == "dst" || key == "destination" || key == "dst_host" || key == "to" || key == "peer") {
    return ArgRole::kDst;
  }
  if (key == "bytes" || key == "size" || key == "size_bytes" || key == "num_bytes" ||
      key == "bytes_transferred") {
    return ArgRole::kBytes;
  }
  return ArgRole::kNone;
}

// From `i` at an opening quote: the index of the closing quote (npos when
// the string does not end).
size_t StringEnd(std::string_view s, size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i;
    }
  }
  return std::string_view::npos;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::optional<double> ParseNumber(std::string_view v) {
  while (!v.empty() && IsSpace(v.back())) v.remove_suffix(1);
  if (v.empty()) return std::nullopt;
  double out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || ptr != v.data() + v.size()) return std::nullopt;
  if (!std::isfinite(out)) return std::nullopt;  // from_chars reads "inf" and "nan"
  return out;
}

}  // namespace

std::optional<AsyncOpName> ParseAsyncOp(std::string_view name) {
  // Names are short and ASCII: "<base>[.N[.M]]". Cheap rejections first.
  if (name.size() < 4 || name.size() > 96) return std::nullopt;
  const char c = name[0];
  if (c != 'a' && c != 'r' && c != 's' && c != 'c') return std::nullopt;
  const size_t dot = name.find('.');
  std::string_view base = name.substr(0, dot);
  std::string_view suffix = dot == std::string_view::npos ? std::string_view() : name.substr(dot);
  for (size_t i = 1; i < suffix.size(); ++i) {
    if ((suffix[i] < '0' || suffix[i] > '9') && suffix[i] != '.') return std::nullopt;
  }
  AsyncOpName out;
  out.suffix = suffix;
  constexpr std::string_view kStart = "-start";
  constexpr std::string_view kDone = "-done";
  if (base.size() > kStart.size() && base.substr(base.size() - kStart.size()) == kStart) {
    out.op = base.substr(0, base.size() - kStart.size());
    out.start = true;
  } else if (base.size() > kDone.size() && base.substr(base.size() - kDone.size()) == kDone) {
    out.op = base.substr(0, base.size() - kDone.size());
    out.start = false;
  } else if (base == "send" || base == "recv") {
    // send/recv are their own start ops (their done is send-done/recv-done).
    out.op = base;
    out.start = true;
  } else {
    return std::nullopt;
  }
  if (!IsCommOp(out.op)) return std::nullopt;
  // "send-start"/"recv-start" do not exist in XLA; keep only the documented forms.
  if (out.start && (out.op == "send" || out.op == "recv") && base != out.op) return std::nullopt;
  return out;
}

EventFamilies ClassifyEvent(std::string_view name, std::string_view thread_name) {
  EventFamilies f;
  f.async = ParseAsyncOp(name);
  if (f.async && (f.async->op == "recv")) {
    f.receive = true;
    f.recv_done = !f.async->start;
  }
  f.map_dma = Contains(name, "MapDmaBuffer");
  f.memory_copy = Contains(name, "Memory Copy");
  if (!f.receive) {
    f.receive =
        name.substr(0, 12) == "HostToDevice" || Contains(name, "Recv") || Contains(name, "Receive");
  }
  f.rpc = Contains(name, "Rpc") || Contains(name, "RPC") || Contains(name, "grpc");
  f.nccl_kernel = name.substr(0, 14) == "ncclDevKernel_" || name.substr(0, 11) == "ncclKernel_";
  f.step = thread_name == "Steps" || name.substr(0, 13) == "ProfilerStep#";
  return f;
}

TransferArgs ScanTransferArgs(std::string_view a) {
  TransferArgs out;
  size_t i = a.find('{');
  if (i == std::string_view::npos) return out;
  ++i;
  int depth = 1;
  bool expect_key = true;
  ArgRole pending = ArgRole::kNone;
  size_t value_start = std::string_view::npos;
  auto finish_scalar = [&](size_t end) {
    if (pending != ArgRole::kNone && value_start != std::string_view::npos && end > value_start) {
      std::string_view v = a.substr(value_start, end - value_start);
      while (!v.empty() && IsSpace(v.back())) v.remove_suffix(1);
      // Numeric endpoints (ranks) are names too; null/true/false are not.
      const bool word = v == "null" || v == "true" || v == "false";
      if (pending == ArgRole::kBytes) out.bytes = ParseNumber(v);
      if (pending == ArgRole::kSrc && !word) out.src = v;
      if (pending == ArgRole::kDst && !word) out.dst = v;
    }
    pending = ArgRole::kNone;
    value_start = std::string_view::npos;
  };
  while (i < a.size() && depth > 0) {
    const char ch = a[i];
    if (ch == '"') {
      const size_t end = StringEnd(a, i);
      if (end == std::string_view::npos) return out;
      std::string_view text = a.substr(i + 1, end - i - 1);
      if (depth == 1 && expect_key) {
        pending = RoleOf(text);
        expect_key = false;
      } else if (depth == 1 && pending != ArgRole::kNone) {
        if (pending == ArgRole::kSrc) out.src = text;
        if (pending == ArgRole::kDst) out.dst = text;
        if (pending == ArgRole::kBytes) out.bytes = ParseNumber(text);
        pending = ArgRole::kNone;
      }
      i = end + 1;
      continue;
    }
    if (ch == '{' || ch == '[') {
      ++depth;
      pending = ArgRole::kNone;
    } else if (ch == '}' || ch == ']') {
      if (depth == 1) finish_scalar(i);
      --depth;
    } else if (ch == ':' && depth == 1) {
      value_start = i + 1;
      while (value_start < a.size() && IsSpace(a[value_start])) ++value_start;
    } else if (ch == ',' && depth == 1) {
      finish_scalar(i);
      expect_key = true;
    }
    ++i;
  }
  return out;
}

}  // namespace casefile::trace_comm
