// The safe pickle reader (pickle_reader.h) and the pickle form of a dump:
// streams written opcode by opcode from the pickle protocol (the forms torch's
// pickler and Python's pickle.dump write), damaged and hostile ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "parse/flight/flight_dump.h"
#include "parse/flight/pickle_json.h"
#include "parse/flight/pickle_reader.h"

namespace casefile::flight_internal {
namespace {

// Writes pickle opcodes.
class Pickle {
 public:
  Pickle& Op(char c) {
    s_ += c;
    return *this;
  }
  Pickle& Bytes(const std::string& b) {
    s_ += b;
    return *this;
  }
  Pickle& Str(const std::string& v) {  // BINUNICODE, as torch writes
    s_ += 'X';
    Le(v.size(), 4);
    s_ += v;
    return *this;
  }
  Pickle& Short(const std::string& v) {  // SHORT_BINUNICODE, as Python 3.4+ writes
    s_ += '\x8c';
    Le(v.size(), 1);
    s_ += v;
    return *this;
  }
  Pickle& Int(int64_t v) {
    if (v >= 0 && v < 256) return Op('K').Le(v, 1);
    if (v >= 0 && v < 65536) return Op('M').Le(v, 2);
    if (v >= INT32_MIN && v <= INT32_MAX) return Op('J').Le(v, 4);
    return Op('\x8a').Op('\x08').Le(v, 8);
  }
  Pickle& Float(double d) {  // BINFLOAT: big-endian
    uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof d);
    s_ += 'G';
    for (int i = 7; i >= 0; --i) s_ += static_cast<char>((bits >> (8 * i)) & 0xff);
    return *this;
  }
  Pickle& Put(int n) { return Op('q').Le(n, 1); }
  Pickle& Get(int n) { return Op('h').Le(n, 1); }
  Pickle& Le(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) s_ += static_cast<char>((v >> (8 * i)) & 0xff);
    return *this;
  }
  size_t size() const { return s_.size(); }
  const std::string& str() const { return s_; }

 private:
  std::string s_;
};

std::string Json(const PickleResult& r) {
  std::string out;
  EXPECT_TRUE(r.tree.root().has_value());
  if (r.tree.root()) {
    EXPECT_TRUE(AppendPickleJson(r.tree, *r.tree.root(), 1 << 20, out));
  }
  return out;
}

TEST(FlightPickleTest, Protocol4PlainData) {
  // pickle.dump({"a": [None, True, False, -2, 70000, -(2**40), 1.5, b"\xff",
  //              ("x", "y", "z"), {1, 2}], "a2": <same list>}, protocol=4)
  Pickle p;
  p.Op('\x80').Op('\x04').Op('\x95').Le(0, 8);
  p.Op('}').Op('\x94').Op('(');
  p.Short("a").Op('\x94').Op(']').Op('\x94').Op('(');
  p.Op('N').Op('\x88').Op('\x89');
  p.Op('J').Le(static_cast<uint64_t>(-2), 4).Int(70000);
  p.Op('\x8a').Op('\x06').Le(static_cast<uint64_t>(-(int64_t{1} << 40)), 6);
  p.Float(1.5).Op('C').Le(1, 1).Bytes("\xff");
  p.Short("x").Op('\x94').Short("y").Op('\x94').Short("z").Op('\x94').Op('\x87').Op('\x94');
  p.Op('\x8f').Op('\x94').Op('(').Int(1).Int(2).Op('\x90');
  p.Op('e');
  // "a2" refers to the same list through the memo (MEMOIZE numbered it 2).
  p.Short("a2").Op('\x94').Op('h').Le(2, 1).Op('u').Op('.');
  PickleResult r = ReadPickle(p.str());
  EXPECT_FALSE(r.error.has_value());
  const std::string list =
      R"([null,true,false,-2,70000,-1099511627776,1.5,"?",["x","y","z"],[1,2]])";
  EXPECT_EQ(Json(r), "{\"a\":" + list + ",\"a2\":" + list + "}");
}

TEST(FlightPickleTest, BigIntsAndOddKeys) {
  // A LONG1 of 9 bytes does not fit int64: null. Int keys become strings; a
  // tuple key is dropped.
  Pickle p;
  p.Op('\x80').Op('\x02').Op('}').Op('(');
  p.Int(7).Op('\x8a').Op('\x09').Le(0, 8).Le(1, 1);
  p.Op(')').Int(1);
  p.Str("s\"\\\n").Op('\x88');
  p.Op('u').Op('.');
  PickleResult r = ReadPickle(p.str());
  EXPECT_FALSE(r.error.has_value());
  EXPECT_EQ(Json(r), R"({"7":null,"s\"\\\u000a":true})");
}

struct RefusedCase {
  std::string name;
  std::string ops;
};

TEST(FlightPickleTest, OpcodesThatReachOutsideDataAreRefused) {
  const std::vector<RefusedCase> cases = {
      {"GLOBAL", "cos\nsystem\n"},
      {"STACK_GLOBAL", std::string("\x8c\x02os\x8c\x06system\x93", 13)},
      {"REDUCE", "NNR"},
      {"BUILD", "}Nb"},
      {"INST", "(ios\nsystem\n"},
      {"OBJ", "(No"},
      {"NEWOBJ", std::string("N)\x81", 3)},
      {"NEWOBJ_EX", std::string("N)}\x92", 4)},
      {"PERSID", "P1\n"},
      {"BINPERSID", "NQ"},
      {"EXT", std::string("\x82\x01", 2)},
      {"a protocol 0 text opcode", "I1\n"},
  };
  for (const RefusedCase& c : cases) {
    SCOPED_TRACE(c.name);
    // A list of one int, then the refused opcode, then a STOP never reached.
    Pickle p;
    p.Op('\x80').Op('\x02').Op(']').Op('(').Int(5).Op('e');
    const size_t at = p.size() + c.ops.find_first_of(std::string("cR\x93"
                                                                 "bio\x81\x92PQ\x82I",
                                                                 12),
                                                     c.name == "STACK_GLOBAL" ? 10 : 0);
    p.Bytes(c.ops).Op('.');
    PickleResult r = ReadPickle(p.str());
    ASSERT_TRUE(r.error.has_value());
    EXPECT_FALSE(r.error->truncated);
    EXPECT_EQ(r.error->offset, at);
    EXPECT_NE(r.error->message.find(c.name), std::string::npos) << r.error->message;
    EXPECT_NE(r.error->message.find("refused"), std::string::npos);
    // What was built before stays.
    ASSERT_TRUE(r.tree.root().has_value());
    EXPECT_EQ(r.tree.node(*r.tree.root()).type, PyType::kList);
  }
}

TEST(FlightPickleTest, MalformedStreams) {
  auto error = [](const std::string& bytes) {
    PickleResult r = ReadPickle(bytes);
    return r.error ? std::make_tuple(r.error->truncated, r.error->offset)
                   : std::make_tuple(false, uint64_t{999});
  };
  using E = std::tuple<bool, uint64_t>;
  EXPECT_EQ(error(std::string("\x80\x02h\x05.", 5)), (E{false, 2}));  // memo never set
  EXPECT_EQ(error(std::string("\x80\x02\xff.", 4)), (E{false, 2}));   // unknown opcode
  EXPECT_EQ(error(std::string("\x80\x09N.", 4)), (E{false, 0}));      // protocol 9
  EXPECT_EQ(error(std::string("\x80\x02Na.", 5)), (E{false, 3}));     // APPEND underflow
  EXPECT_EQ(error(std::string("\x80\x02KNe.", 5)), (E{false, 4}));    // APPENDS with no MARK
  EXPECT_EQ(error(std::string("\x80\x02(NNNd.", 8)), (E{false, 6}));  // odd DICT
  EXPECT_EQ(error(std::string("\x80\x02N(Na.", 7)), (E{false, 5}));   // APPEND to a non-list
  EXPECT_EQ(error(std::string("\x80\x02](a.", 6)), (E{false, 4}));    // APPEND across a MARK
  EXPECT_EQ(error(std::string("\x80\x02X\xff\x00\x00\x00"
                              "ab",
                              9)),
            (E{true, 7}));                                          // cut string
  EXPECT_EQ(error(std::string("\x80\x02J\x01", 4)), (E{true, 3}));  // cut BININT
  EXPECT_EQ(error(std::string("\x80\x02N", 3)), (E{true, 3}));      // no STOP
  EXPECT_EQ(error(std::string("\x80\x02.", 3)), (E{false, 2}));     // STOP on empty stack
  EXPECT_EQ(error(std::string("\x80\x02Nr\x00\x00\x00\x10.", 9)), (E{false, 3}));  // memo index
}

TEST(FlightPickleTest, TruncationKeepsCompleteItemsAndFlagsTheOpenOnes) {
  // {"entries": [{"k": 1}, {"k": 2}, {"k": <cut>
  Pickle p;
  p.Op('\x80').Op('\x02').Op('}').Op('(').Str("entries").Op(']').Op('(');
  for (int i = 1; i <= 2; ++i) p.Op('}').Op('(').Str("k").Int(i).Op('u');
  p.Op('}').Op('(').Str("k");
  PickleResult r = ReadPickle(p.str());
  ASSERT_TRUE(r.error.has_value());
  EXPECT_TRUE(r.error->truncated);
  const PickleTree& t = r.tree;
  ASSERT_TRUE(t.root().has_value());
  const PyNode& root = t.node(*t.root());
  EXPECT_TRUE(root.partial);
  ASSERT_EQ(t.items(root).size(), 2u);
  const PyNode& list = t.node(t.items(root)[1]);
  EXPECT_TRUE(list.partial);
  ASSERT_EQ(t.items(list).size(), 3u);
  EXPECT_FALSE(t.node(t.items(list)[0]).partial);
  EXPECT_FALSE(t.node(t.items(list)[1]).partial);
  EXPECT_TRUE(t.node(t.items(list)[2]).partial);
}

TEST(FlightPickleTest, SelfReferenceAndBlowUpAreBounded) {
  // l = []; l.append(l)
  Pickle loop;
  loop.Op('\x80').Op('\x02').Op(']').Put(0).Get(0).Op('a').Op('.');
  PickleResult r = ReadPickle(loop.str());
  ASSERT_FALSE(r.error.has_value());
  std::string out;
  EXPECT_FALSE(AppendPickleJson(r.tree, *r.tree.root(), 1 << 20, out));
  // Three levels of 64 references to a 1000-byte string: 256 MB as JSON.
  Pickle wide;
  wide.Op('\x80').Op('\x02').Str(std::string(1000, 'a')).Put(0);
  for (int level = 1; level <= 3; ++level) {
    wide.Op(']').Op('(');
    for (int i = 0; i < 64; ++i) wide.Get(level - 1);
    wide.Op('e').Put(level);
  }
  wide.Op('.');
  r = ReadPickle(wide.str());
  ASSERT_FALSE(r.error.has_value());
  out.clear();
  EXPECT_FALSE(AppendPickleJson(r.tree, *r.tree.root(), 1 << 20, out));
  EXPECT_LE(out.size(), (1u << 20) + 2048);
}

// The dump level: the same rows as the JSON form, and damage reported.
using Issue = std::tuple<std::string, int64_t>;

struct Parsed {
  std::vector<FrEntryRow> entries;
  std::vector<FrGroupRow> groups;
  std::vector<Issue> issues;
  flight::FlightDumpSummary summary;
};

Parsed ParseDump(std::string dump) {
  Parsed p;
  flight::FlightSinks sinks{[&](const FrEntryRow& r) { p.entries.push_back(r); },
                            [&](const FrGroupRow& r) { p.groups.push_back(r); },
                            [&](const std::string& kind, int64_t offset, const std::string&) {
                              p.issues.emplace_back(kind, offset);
                            }};
  p.summary = flight::ParseFlightDump(dump, "x/nccl_trace_rank_2", 1, std::nullopt, sinks);
  return p;
}

// A Python protocol-4 dump: {"version": "2.5", "rank": 6, "pg_config": {...},
// "entries": [e0, e1, e2]} where each entry is given by `entry`.
template <typename EntryFn>
std::string PythonDump(EntryFn entry, std::vector<size_t>* offsets) {
  Pickle p;
  p.Op('\x80').Op('\x04').Op('\x95').Le(0, 8).Op('}').Op('\x94').Op('(');
  p.Short("version").Op('\x94').Short("2.5").Op('\x94');
  p.Short("rank").Op('\x94').Int(6);
  p.Short("pg_config").Op('\x94').Op('}').Op('\x94').Short("0").Op('\x94').Op('}').Op('\x94');
  p.Op('(').Short("name").Op('\x94').Short("0").Short("desc").Short("default_pg");
  p.Short("ranks").Short("[0, 6]").Op('u').Op('s');
  p.Short("entries").Op(']').Op('(');
  for (int i = 0; i < 3; ++i) {
    offsets->push_back(p.size());
    entry(p, i);
  }
  p.Op('e').Op('u').Op('.');
  return p.str();
}

void PlainEntry(Pickle& p, int i) {
  p.Op('}').Op('(').Short("record_id").Int(i).Short("collective_seq_id").Int(10 + i);
  p.Short("profiling_name").Short("nccl:all_reduce").Short("process_group");
  p.Short("0").Short("default_pg").Op('\x86').Short("input_sizes").Op(']').Op('(');
  p.Op(']').Op('(').Int(4).Op('e').Op('e').Short("retired").Op('\x88').Op('u');
}

TEST(FlightPickleTest, PythonProtocol4Dump) {
  std::vector<size_t> offsets;
  const std::string dump = PythonDump(PlainEntry, &offsets);
  Parsed p = ParseDump(dump);
  EXPECT_TRUE(p.issues.empty());
  EXPECT_EQ(p.summary.format, "pickle");
  EXPECT_EQ(p.summary.version, "2.5");
  ASSERT_EQ(p.entries.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const FrEntryRow& e = p.entries[static_cast<size_t>(i)];
    EXPECT_EQ(e.rank, 6);  // the "rank" key wins over the name's 2
    EXPECT_EQ(e.file_id, 1);
    EXPECT_EQ(e.record_id, i);
    EXPECT_EQ(e.collective_seq_id, 10 + i);
    EXPECT_EQ(e.pg_id, "0");
    EXPECT_EQ(e.pg_desc, "default_pg");
    EXPECT_EQ(e.input_sizes, "[[4]]");
    EXPECT_TRUE(e.retired);
    EXPECT_EQ(e.line_no, 1 + std::count(dump.begin(), dump.begin() + offsets[i], '\n'));
  }
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].ranks, "[0,6]");
  EXPECT_EQ(p.groups[0].rank, 6);
}

TEST(FlightPickleTest, NewlineBytesMoveTheEntryLine) {
  // A version string holding a newline before the entries: they are on line 2.
  Pickle p;
  p.Op('\x80').Op('\x02').Op('}').Op('(').Str("version").Str("2.5\n").Str("entries").Op(']');
  p.Op('(').Op('}').Op('(').Str("record_id").Int(3).Op('u').Op('e').Op('u').Op('.');
  Parsed parsed = ParseDump(p.str());
  ASSERT_EQ(parsed.entries.size(), 1u);
  EXPECT_EQ(parsed.entries[0].line_no, 2);
}

TEST(FlightPickleTest, TruncatedDumpKeepsCompleteEntries) {
  std::vector<size_t> offsets;
  const std::string dump = PythonDump(PlainEntry, &offsets);
  // Cut in the middle of the third entry.
  Parsed p = ParseDump(dump.substr(0, offsets[2] + 12));
  ASSERT_EQ(p.entries.size(), 2u);
  EXPECT_EQ(p.entries[1].record_id, 1);
  EXPECT_EQ(p.entries[0].rank, 6);
  EXPECT_EQ(p.groups.size(), 1u);
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(std::get<0>(p.issues[0]), "flight_recorder_truncated");
}

TEST(FlightPickleTest, RefusedOpcodeInsideAnEntry) {
  std::vector<size_t> offsets;
  size_t global_at = 0;
  const std::string dump = PythonDump(
      [&](Pickle& p, int i) {
        if (i < 2) return PlainEntry(p, i);
        p.Op('}').Op('(').Short("record_id");
        global_at = p.size();
        p.Bytes("cos\nsystem\n").Op('u');
      },
      &offsets);
  Parsed p = ParseDump(dump);
  ASSERT_EQ(p.entries.size(), 2u);
  EXPECT_EQ(p.issues,
            (std::vector<Issue>{{"flight_recorder_invalid", static_cast<int64_t>(global_at)}}));
}

TEST(FlightPickleTest, HostileEntriesAreSkipped) {
  std::vector<size_t> offsets;
  const std::string dump = PythonDump(
      [&](Pickle& p, int i) {
        if (i == 0) {  // an entry that holds itself (the 10th MEMOIZE: index 9)
          p.Op('}').Op('\x94').Op('(').Short("frames").Op('h').Le(9, 1).Op('u');
        } else if (i == 1) {
          p.Short("not a dict");
        } else {
          PlainEntry(p, i);
        }
      },
      &offsets);
  Parsed p = ParseDump(dump);
  ASSERT_EQ(p.entries.size(), 1u);
  EXPECT_EQ(p.entries[0].record_id, 2);
  EXPECT_EQ(
      p.issues,
      (std::vector<Issue>{{"flight_recorder_entry_invalid", static_cast<int64_t>(offsets[0])}}));
}

TEST(FlightPickleTest, NotADictAtTheTop) {
  Parsed p = ParseDump(std::string("\x80\x02]q\x00.", 6));
  EXPECT_TRUE(p.entries.empty());
  EXPECT_EQ(p.issues, (std::vector<Issue>{{"flight_recorder_invalid", 0}}));
}

}  // namespace
}  // namespace casefile::flight_internal
