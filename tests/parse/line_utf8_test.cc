#include <gtest/gtest.h>

#include <string>

#include "parse/line/utf8.h"

namespace casefile {
namespace {

TEST(IsValidUtf8, EmptyAndAscii) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("a"));
  EXPECT_TRUE(IsValidUtf8("[rank0]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] x"));
  EXPECT_TRUE(IsValidUtf8(std::string("nul\0inside", 10)));
}

TEST(IsValidUtf8, WellFormedMultiByte) {
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9"));                    // U+00E9
  EXPECT_TRUE(IsValidUtf8("\xE2\x82\xAC 5"));                 // U+20AC
  EXPECT_TRUE(IsValidUtf8("\xF0\x9D\x84\x9E"));               // U+1D11E
  EXPECT_TRUE(IsValidUtf8("\xEF\xBF\xBF"));                   // U+FFFF
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));               // U+10FFFF, the last
  EXPECT_TRUE(IsValidUtf8("\xED\x9F\xBF"));                   // U+D7FF, before the surrogates
  EXPECT_TRUE(IsValidUtf8("50%|\xE2\x96\x88\xE2\x96\x88|"));  // tqdm blocks
}

TEST(IsValidUtf8, RejectsLoneAndMisplacedBytes) {
  EXPECT_FALSE(IsValidUtf8("\x80"));
  EXPECT_FALSE(IsValidUtf8("a\xBF"));
  EXPECT_FALSE(IsValidUtf8("\xFF"));
  EXPECT_FALSE(IsValidUtf8("\xF5\x80\x80\x80"));
  EXPECT_FALSE(IsValidUtf8("latin1 caf\xE9 here"));
}

TEST(IsValidUtf8, RejectsOverlongForms) {
  EXPECT_FALSE(IsValidUtf8("\xC0\x80"));
  EXPECT_FALSE(IsValidUtf8("\xC1\xBF"));
  EXPECT_FALSE(IsValidUtf8("\xE0\x80\x80"));
  EXPECT_FALSE(IsValidUtf8("\xE0\x9F\xBF"));
  EXPECT_FALSE(IsValidUtf8("\xF0\x80\x80\x80"));
  EXPECT_FALSE(IsValidUtf8("\xF0\x8F\xBF\xBF"));
}

TEST(IsValidUtf8, RejectsSurrogatesAndBeyondMax) {
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // U+D800
  EXPECT_FALSE(IsValidUtf8("\xED\xBF\xBF"));      // U+DFFF
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // U+110000
}

TEST(IsValidUtf8, RejectsTruncatedSequences) {
  EXPECT_FALSE(IsValidUtf8("\xC3"));
  EXPECT_FALSE(IsValidUtf8("end \xE2\x82"));
  EXPECT_FALSE(IsValidUtf8("\xF0\x9D\x84"));
  EXPECT_FALSE(IsValidUtf8("\xE2\x82 x"));
  EXPECT_FALSE(IsValidUtf8("\xF0\x9D\x84x"));
}

TEST(IsValidUtf8, BadByteAtEveryPositionOfLongAsciiText) {
  // Exercises the eight-byte fast path and the byte loop around it.
  for (size_t len = 1; len <= 40; ++len) {
    for (size_t at = 0; at < len; ++at) {
      std::string s(len, 'x');
      EXPECT_TRUE(IsValidUtf8(s));
      s[at] = '\x80';
      EXPECT_FALSE(IsValidUtf8(s)) << "len " << len << " at " << at;
      s[at] = '\xC3';
      if (at + 1 < len) {
        s[at + 1] = '\xA9';
        EXPECT_TRUE(IsValidUtf8(s)) << "len " << len << " at " << at;
      } else {
        EXPECT_FALSE(IsValidUtf8(s)) << "len " << len << " at " << at;
      }
    }
  }
}

}  // namespace
}  // namespace casefile
