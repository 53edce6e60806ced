// A safe reader of pickled plain data, for flight-recorder dumps (torch's
// pickler writes protocol 2; Python's pickle.dump 4 or 5). It is a stack
// machine over the opcodes that build data only: None, bools, ints (BININT*,
// LONG1/LONG4), floats (BINFLOAT), str and bytes (all binary forms), lists,
// tuples, dicts and sets (EMPTY_*, MARK, APPEND(S), SETITEM(S), ADDITEMS,
// LIST, TUPLE*, DICT, FROZENSET), the memo (BINPUT, LONG_BINPUT, MEMOIZE,
// BINGET, LONG_BINGET), POP, POP_MARK, DUP, PROTO, FRAME and STOP. Every
// opcode that names, calls or builds an object (GLOBAL, STACK_GLOBAL,
// REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, PERSID, BINPERSID, EXT*,
// buffers) and the text opcodes of protocols 0-1 stop the reader with an
// error: nothing is ever imported, called or executed.
//
// Values live in one arena and refer to each other by index, so memo
// references share (as in Python) and a list that holds itself is just an
// index loop; readers of the tree must bound their depth. When the stream
// breaks (truncation, a refused opcode), the reader keeps what was built:
// each container still under construction receives the items pushed for it
// so far and is flagged `partial`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace casefile::flight_internal {

enum class PyType : uint8_t {
  kNone,
  kBool,
  kInt,
  kBigInt,
  kFloat,
  kStr,
  kBytes,
  kList,
  kTuple,
  kDict
};

struct PyNode {
  PyType type = PyType::kNone;
  bool partial = false;  // a container the stream did not finish
  uint32_t offset = 0;   // byte offset of the opcode that made the value
  int64_t num = 0;       // kInt, kBool
  double real = 0;       // kFloat
  uint32_t a = 0;        // kStr/kBytes: text offset in the stream; containers: items index
  uint32_t b = 0;        // kStr/kBytes: text length
};

class PickleTree {
 public:
  const PyNode& node(uint32_t id) const { return nodes_[id]; }
  // Items of a list/tuple, or a dict's keys and values interleaved.
  const std::vector<uint32_t>& items(const PyNode& n) const { return items_[n.a]; }
  std::string_view text(const PyNode& n) const { return data_.substr(n.a, n.b); }
  std::optional<uint32_t> root() const { return root_; }

 private:
  friend class PickleMachine;
  std::string_view data_;
  std::vector<PyNode> nodes_;
  std::vector<std::vector<uint32_t>> items_;
  std::optional<uint32_t> root_;
};

struct PickleError {
  bool truncated = false;  // the stream ended before STOP (else: refused or malformed)
  uint64_t offset = 0;
  std::string message;
};

struct PickleResult {
  PickleTree tree;  // refers to the bytes passed to ReadPickle
  std::optional<PickleError> error;
};

// Most values one stream may create; beyond, the reader stops with an error.
inline constexpr uint32_t kMaxPickleNodes = 8u << 20;

// `data` must outlive the result (strings point into it) and be smaller
// than 4 GiB. Never throws for bad input.
PickleResult ReadPickle(std::string_view data);

}  // namespace casefile::flight_internal
