#include "parse/flight/pickle_reader.h"

#include <cstdio>
#include <cstring>
#include <limits>

namespace casefile::flight_internal {
namespace {

constexpr uint32_t kUnset = std::numeric_limits<uint32_t>::max();
// Items held by all containers together, and the stack's depth: BINGET and
// DUP push without creating values, so they need their own bound.
constexpr size_t kMaxItems = 2 * static_cast<size_t>(kMaxPickleNodes);

// Names of the opcodes refused because they reach outside plain data, for
// the error message.
const char* RefusedName(unsigned char op) {
  switch (op) {
    case 'c':
      return "GLOBAL";
    case 0x93:
      return "STACK_GLOBAL";
    case 'R':
      return "REDUCE";
    case 'b':
      return "BUILD";
    case 'i':
      return "INST";
    case 'o':
      return "OBJ";
    case 0x81:
      return "NEWOBJ";
    case 0x92:
      return "NEWOBJ_EX";
    case 'P':
      return "PERSID";
    case 'Q':
      return "BINPERSID";
    case 0x82:
    case 0x83:
    case 0x84:
      return "EXT";
    case 0x97:
      return "NEXT_BUFFER";
    case 0x98:
      return "READONLY_BUFFER";
    case 'I':
    case 'L':
    case 'F':
    case 'S':
    case 'V':
    case 'g':
    case 'p':
      return "a protocol 0 text opcode";
    default:
      return nullptr;
  }
}

}  // namespace

class PickleMachine {
 public:
  explicit PickleMachine(std::string_view data) : s_(data) { tree_.data_ = data; }

  PickleResult Run() {
    if (s_.size() >= std::numeric_limits<uint32_t>::max()) {
      Fail(false, 0, "larger than 4 GiB");
    } else {
      while (!stopped_ && !error_) {
        if (pos_ >= s_.size()) {
          Fail(true, pos_, "the pickle ends before its STOP opcode");
          break;
        }
        Step();
      }
    }
    if (error_) Fold();
    return {std::move(tree_), std::move(error_)};
  }

 private:
  void Fail(bool truncated, uint64_t offset, std::string message) {
    if (!error_) error_ = PickleError{truncated, offset, std::move(message)};
  }

  bool Need(size_t n) {
    if (s_.size() - pos_ < n) {
      Fail(true, pos_, "the pickle ends inside an opcode's argument");
      return false;
    }
    return true;
  }

  uint64_t ReadLe(size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i)
      v |= static_cast<uint64_t>(static_cast<uint8_t>(s_[pos_ + i])) << (8 * i);
    pos_ += n;
    return v;
  }

  bool Room(size_t more_items) {
    if (tree_.nodes_.size() >= kMaxPickleNodes || stack_.size() >= kMaxPickleNodes ||
        total_items_ + more_items > kMaxItems) {
      Fail(false, op_offset_,
           "more values than the reader holds (" + std::to_string(kMaxPickleNodes) + ")");
      return false;
    }
    return true;
  }

  uint32_t New(PyType type) {
    PyNode n;
    n.type = type;
    n.offset = static_cast<uint32_t>(op_offset_);
    if (type == PyType::kList || type == PyType::kTuple || type == PyType::kDict) {
      n.a = static_cast<uint32_t>(tree_.items_.size());
      tree_.items_.emplace_back();
    }
    tree_.nodes_.push_back(n);
    return static_cast<uint32_t>(tree_.nodes_.size() - 1);
  }

  void Push(uint32_t id) { stack_.push_back(id); }

  void PushNew(PyType type, int64_t num = 0) {
    if (!Room(0)) return;
    uint32_t id = New(type);
    tree_.nodes_[id].num = num;
    Push(id);
  }

  void PushText(PyType type, size_t len_bytes) {
    if (!Need(len_bytes)) return;
    uint64_t len = ReadLe(len_bytes);
    if (len > s_.size() - pos_) {
      Fail(true, pos_, "the pickle ends inside a string of " + std::to_string(len) + " bytes");
      return;
    }
    if (!Room(0)) return;
    uint32_t id = New(type);
    tree_.nodes_[id].a = static_cast<uint32_t>(pos_);
    tree_.nodes_[id].b = static_cast<uint32_t>(len);
    pos_ += len;
    Push(id);
  }

  // Signed little-endian integer of `len` bytes (LONG1 / LONG4).
  void PushLong(size_t len) {
    if (!Need(len)) return;
    if (len > 8) {
      pos_ += len;
      PushNew(PyType::kBigInt);
      return;
    }
    uint64_t v = ReadLe(len);
    if (len > 0 && len < 8 && (v >> (8 * len - 1)) & 1) v |= ~0ull << (8 * len);
    PushNew(PyType::kInt, static_cast<int64_t>(v));
  }

  bool Pop(uint32_t& id) {
    if (stack_.empty() || (!marks_.empty() && marks_.back() == stack_.size())) {
      Fail(false, op_offset_, "stack underflow");
      return false;
    }
    id = stack_.back();
    stack_.pop_back();
    return true;
  }

  bool PopMark(std::vector<uint32_t>& items) {
    if (marks_.empty()) {
      Fail(false, op_offset_, "no MARK on the stack");
      return false;
    }
    size_t start = marks_.back();
    marks_.pop_back();
    items.assign(stack_.begin() + static_cast<long>(start), stack_.end());
    stack_.resize(start);
    return true;
  }

  PyNode* Top(std::initializer_list<PyType> types) {
    if (stack_.empty()) {
      Fail(false, op_offset_, "stack underflow");
      return nullptr;
    }
    PyNode& n = tree_.nodes_[stack_.back()];
    for (PyType t : types) {
      if (n.type == t) return &n;
    }
    Fail(false, op_offset_, "items added to a value that is not a container");
    return nullptr;
  }

  void AddItems(PyNode& owner, const std::vector<uint32_t>& items) {
    std::vector<uint32_t>& dst = tree_.items_[owner.a];
    dst.insert(dst.end(), items.begin(), items.end());
    total_items_ += items.size();
  }

  void Build(PyType type, const std::vector<uint32_t>& items) {
    if (type == PyType::kDict && items.size() % 2 != 0) {
      Fail(false, op_offset_, "a dict built from an odd number of items");
      return;
    }
    if (!Room(items.size())) return;
    uint32_t id = New(type);
    AddItems(tree_.nodes_[id], items);
    Push(id);
  }

  void Memo(uint64_t index) {
    if (stack_.empty()) return Fail(false, op_offset_, "stack underflow");
    if (index >= kMaxPickleNodes) return Fail(false, op_offset_, "memo index out of range");
    if (index >= memo_.size()) memo_.resize(index + 1, kUnset);
    if (memo_[index] == kUnset) ++memo_count_;
    memo_[index] = stack_.back();
  }

  void Recall(uint64_t index) {
    if (index >= memo_.size() || memo_[index] == kUnset) {
      return Fail(false, op_offset_, "memo index " + std::to_string(index) + " was never set");
    }
    if (!Room(0)) return;
    Push(memo_[index]);
  }

  void Step() {
    op_offset_ = pos_;
    const unsigned char op = static_cast<unsigned char>(s_[pos_++]);
    std::vector<uint32_t>& items = scratch_;
    uint32_t a = 0, b = 0, c = 0;
    switch (op) {
      case 0x80:  // PROTO
        if (!Need(1)) return;
        if (static_cast<uint8_t>(s_[pos_]) > 5) {
          return Fail(false, op_offset_,
                      "pickle protocol " + std::to_string(static_cast<uint8_t>(s_[pos_])) +
                          " is not known");
        }
        ++pos_;
        return;
      case 0x95:  // FRAME: a length prefix for buffering, nothing to build
        if (Need(8)) pos_ += 8;
        return;
      case '.':  // STOP
        if (stack_.empty()) return Fail(false, op_offset_, "STOP with an empty stack");
        tree_.root_ = stack_.back();
        stopped_ = true;
        return;
      case '(':  // MARK
        marks_.push_back(stack_.size());
        return;
      case '0':  // POP
        if (!marks_.empty() && marks_.back() == stack_.size()) {
          marks_.pop_back();
          return;
        }
        Pop(a);
        return;
      case '1':  // POP_MARK
        PopMark(items);
        return;
      case '2':  // DUP
        if (stack_.empty()) return Fail(false, op_offset_, "stack underflow");
        if (Room(0)) Push(stack_.back());
        return;
      case 'N':
        return PushNew(PyType::kNone);
      case 0x88:
        return PushNew(PyType::kBool, 1);
      case 0x89:
        return PushNew(PyType::kBool, 0);
      case 'J':  // BININT: signed 4 bytes
        if (!Need(4)) return;
        return PushNew(PyType::kInt, static_cast<int32_t>(static_cast<uint32_t>(ReadLe(4))));
      case 'K':  // BININT1
        if (!Need(1)) return;
        return PushNew(PyType::kInt, static_cast<int64_t>(ReadLe(1)));
      case 'M':  // BININT2
        if (!Need(2)) return;
        return PushNew(PyType::kInt, static_cast<int64_t>(ReadLe(2)));
      case 0x8a:  // LONG1
        if (!Need(1)) return;
        return PushLong(ReadLe(1));
      case 0x8b: {  // LONG4
        if (!Need(4)) return;
        int32_t len = static_cast<int32_t>(static_cast<uint32_t>(ReadLe(4)));
        if (len < 0) return Fail(false, op_offset_, "negative LONG4 length");
        return PushLong(static_cast<size_t>(len));
      }
      case 'G': {  // BINFLOAT: big-endian IEEE 754 double
        if (!Need(8)) return;
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<uint8_t>(s_[pos_ + i]);
        pos_ += 8;
        double d = 0;
        std::memcpy(&d, &bits, sizeof d);
        if (!Room(0)) return;
        uint32_t id = New(PyType::kFloat);
        tree_.nodes_[id].real = d;
        return Push(id);
      }
      case 'X':
        return PushText(PyType::kStr, 4);
      case 0x8c:
        return PushText(PyType::kStr, 1);
      case 0x8d:
        return PushText(PyType::kStr, 8);
      case 'T':
        return PushText(PyType::kStr, 4);
      case 'U':
        return PushText(PyType::kStr, 1);
      case 'B':
        return PushText(PyType::kBytes, 4);
      case 'C':
        return PushText(PyType::kBytes, 1);
      case 0x8e:
      case 0x96:
        return PushText(PyType::kBytes, 8);
      case ']':
        return PushNew(PyType::kList);
      case ')':
        return PushNew(PyType::kTuple);
      case '}':
        return PushNew(PyType::kDict);
      case 0x8f:  // EMPTY_SET: a set is read as a list
        return PushNew(PyType::kList);
      case 'a': {  // APPEND
        if (!Pop(a)) return;
        PyNode* owner = Top({PyType::kList});
        if (!owner || !Room(1)) return;
        items.assign(1, a);
        return AddItems(*owner, items);
      }
      case 'e':     // APPENDS
      case 0x90: {  // ADDITEMS
        if (!PopMark(items)) return;
        PyNode* owner = Top({PyType::kList});
        if (!owner || !Room(items.size())) return;
        return AddItems(*owner, items);
      }
      case 's': {  // SETITEM
        if (!Pop(b) || !Pop(a)) return;
        PyNode* owner = Top({PyType::kDict});
        if (!owner || !Room(2)) return;
        items.assign({a, b});
        return AddItems(*owner, items);
      }
      case 'u': {  // SETITEMS
        if (!PopMark(items)) return;
        if (items.size() % 2 != 0) return Fail(false, op_offset_, "SETITEMS with an odd count");
        PyNode* owner = Top({PyType::kDict});
        if (!owner || !Room(items.size())) return;
        return AddItems(*owner, items);
      }
      case 'l':
        if (PopMark(items)) Build(PyType::kList, items);
        return;
      case 0x91:  // FROZENSET
        if (PopMark(items)) Build(PyType::kList, items);
        return;
      case 't':
        if (PopMark(items)) Build(PyType::kTuple, items);
        return;
      case 'd':
        if (PopMark(items)) Build(PyType::kDict, items);
        return;
      case 0x85:
        if (!Pop(a)) return;
        items.assign({a});
        return Build(PyType::kTuple, items);
      case 0x86:
        if (!Pop(b) || !Pop(a)) return;
        items.assign({a, b});
        return Build(PyType::kTuple, items);
      case 0x87:
        if (!Pop(c) || !Pop(b) || !Pop(a)) return;
        items.assign({a, b, c});
        return Build(PyType::kTuple, items);
      case 'q':
        if (Need(1)) Memo(ReadLe(1));
        return;
      case 'r':
        if (Need(4)) Memo(ReadLe(4));
        return;
      case 0x94:  // MEMOIZE: the next free index, as Python counts it
        return Memo(memo_count_);
      case 'h':
        if (Need(1)) Recall(ReadLe(1));
        return;
      case 'j':
        if (Need(4)) Recall(ReadLe(4));
        return;
      default:
        break;
    }
    if (const char* name = RefusedName(op)) {
      return Fail(false, op_offset_,
                  std::string("pickle opcode ") + name + " refused: only plain data is read");
    }
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", op);
    Fail(false, op_offset_, std::string("unknown pickle opcode ") + hex);
  }

  // After a break: every container with an open MARK gets what was pushed
  // for it and is flagged partial; the bottom of the stack is the root.
  void Fold() {
    std::vector<uint32_t> group;
    while (!marks_.empty()) {
      size_t start = marks_.back();
      marks_.pop_back();
      group.assign(stack_.begin() + static_cast<long>(start), stack_.end());
      stack_.resize(start);
      if (stack_.empty()) continue;
      PyNode& owner = tree_.nodes_[stack_.back()];
      if (owner.type == PyType::kDict) {
        if (group.size() % 2 != 0) group.pop_back();
      } else if (owner.type != PyType::kList) {
        continue;
      }
      owner.partial = true;
      AddItems(owner, group);
    }
    if (!tree_.root_ && !stack_.empty()) tree_.root_ = stack_.front();
  }

  std::string_view s_;
  size_t pos_ = 0;
  size_t op_offset_ = 0;
  PickleTree tree_;
  std::vector<uint32_t> stack_;
  std::vector<size_t> marks_;
  std::vector<uint32_t> memo_;
  uint32_t memo_count_ = 0;
  size_t total_items_ = 0;
  std::vector<uint32_t> scratch_;
  std::optional<PickleError> error_;
  bool stopped_ = false;
};

PickleResult ReadPickle(std::string_view data) { return PickleMachine(data).Run(); }

}  // namespace casefile::flight_internal
