// FUZZ_ABORT(): what a fuzz target calls when an invariant breaks. It names
// the check (file and line) on stderr before std::abort(), so a crash report
// or a failing replay says which promise broke without a debugger.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_ABORT()                                                              \
  do {                                                                            \
    std::fprintf(stderr, "fuzz invariant broken at %s:%d\n", __FILE__, __LINE__); \
    std::abort();                                                                 \
  } while (0)
