// Which lines of a build log are a compiler's or linker's own error, so that
// build.extension_failed can cite the first real error of a failed build
// instead of the last line of the traceback that reported it.
#pragma once

#include <string_view>

namespace casefile::build {

// True for, in the line's message:
//  - gcc / clang: "file.cpp:12:5: error: ...", "file.h:3:10: fatal error:
//    x.h: No such file or directory", "file.h:132:2: error: #error -- ...";
//  - a compiler driver, pass or linker naming itself: "cc1plus: fatal
//    error: ...", "g++: fatal error: Killed signal terminated program
//    cc1plus", "x86_64-linux-gnu-gcc: error: unrecognized command-line
//    option", "gcc: error trying to exec 'cc1plus'", "clang++: error: ...",
//    "ld.lld: error: undefined symbol: x", "mold: error: ...";
//  - nvcc: "file.cu(45): error: identifier ... is undefined", "file.cu(45):
//    error #20014-D: ...", "file.cu(3): catastrophic error: cannot open
//    source file", "nvcc fatal   : ...", "nvcc error   : 'cicc' died due to
//    signal 9 (Kill signal)";
//  - ptxas: "ptxas fatal   : ...", "ptxas error   : ...";
//  - the linker: "/usr/bin/ld: cannot find -lcudart", "... undefined
//    reference to `x'".
// Not: warnings, "N errors detected in the compilation of", ninja's
// "FAILED:" lines, setuptools' "error: command 'x' failed", Python
// exceptions, collect2's "ld returned 1 exit status" and clang's "linker
// command failed" (consequences), gcc's source echo ("  132 | #error ...").
bool IsCompilerErrorLine(std::string_view message);

}  // namespace casefile::build
