// Which lines of a build log are a compiler's or linker's own error, so that
// build.extension_failed can cite the first real error of a failed build
// instead of the last line of the traceback that reported it.
#pragma once

#include <string_view>

namespace casefile::build {

// True for, in the line's message:
//  - gcc / clang: "file.cpp:12:5: error: ...", "file.h:3:10: fatal error:
//    x.h: No such file or directory", "file.h:132:2: error: #error -- ...",
//    "cc1plus: fatal error: ...";
//  - nvcc: "file.cu(45): error: identifier ... is undefined", "file.cu(45):
//    error #20014-D: ...", "nvcc fatal   : ...";
//  - ptxas: "ptxas fatal   : ...", "ptxas error   : ...";
//  - the linker: "/usr/bin/ld: cannot find -lcudart", "... undefined
//    reference to `x'".
// Not: warnings, "N errors detected in the compilation of", ninja's
// "FAILED:" lines, setuptools' "error: command 'x' failed", Python
// exceptions, collect2's "ld returned 1 exit status" (a consequence).
bool IsCompilerErrorLine(std::string_view message);

}  // namespace casefile::build
