#include "parse/flight/pickle_json.h"

#include <charconv>
#include <cmath>

#include "parse/line/utf8.h"

namespace casefile::flight_internal {
namespace {

void AppendString(std::string_view s, std::string& out) {
  const bool utf8 = IsValidUtf8(s);
  out += '"';
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else if (c >= 0x80 && !utf8) {
      out += '?';
    } else {
      out += ch;
    }
  }
  out += '"';
}

void AppendScalar(const PyNode& n, const PickleTree& tree, std::string& out) {
  switch (n.type) {
    case PyType::kNone:
    case PyType::kBigInt:
      out += "null";
      return;
    case PyType::kBool:
      out += n.num ? "true" : "false";
      return;
    case PyType::kInt:
      out += std::to_string(n.num);
      return;
    case PyType::kFloat: {
      if (!std::isfinite(n.real)) {
        out += "null";
        return;
      }
      char buf[32];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n.real);
      if (ec != std::errc()) {
        out += "null";
        return;
      }
      out.append(buf, end);
      return;
    }
    case PyType::kStr:
    case PyType::kBytes:
      AppendString(tree.text(n), out);
      return;
    default:
      return;
  }
}

bool Append(const PickleTree& tree, uint32_t id, int depth, size_t max_bytes, std::string& out) {
  if (depth > kMaxPickleJsonDepth || out.size() > max_bytes) return false;
  const PyNode& n = tree.node(id);
  switch (n.type) {
    case PyType::kList:
    case PyType::kTuple: {
      out += '[';
      bool first = true;
      for (uint32_t item : tree.items(n)) {
        if (!first) out += ',';
        first = false;
        if (!Append(tree, item, depth + 1, max_bytes, out)) return false;
      }
      out += ']';
      return true;
    }
    case PyType::kDict: {
      out += '{';
      bool first = true;
      const std::vector<uint32_t>& kv = tree.items(n);
      for (size_t i = 0; i + 1 < kv.size(); i += 2) {
        const PyNode& key = tree.node(kv[i]);
        if (key.type != PyType::kStr && key.type != PyType::kBytes && key.type != PyType::kInt &&
            key.type != PyType::kBool && key.type != PyType::kFloat) {
          continue;
        }
        if (!first) out += ',';
        first = false;
        if (key.type == PyType::kStr || key.type == PyType::kBytes) {
          AppendScalar(key, tree, out);
        } else {
          out += '"';
          AppendScalar(key, tree, out);
          out += '"';
        }
        out += ':';
        if (!Append(tree, kv[i + 1], depth + 1, max_bytes, out)) return false;
      }
      out += '}';
      return true;
    }
    default:
      AppendScalar(n, tree, out);
      return out.size() <= max_bytes;
  }
}

}  // namespace

bool AppendPickleJson(const PickleTree& tree, uint32_t id, size_t max_bytes, std::string& out) {
  return Append(tree, id, 0, max_bytes, out);
}

}  // namespace casefile::flight_internal
