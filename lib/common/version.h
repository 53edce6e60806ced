#pragma once

namespace casefile {

// The library version, "MAJOR.MINOR.PATCH", from CMakeLists.txt. Defined in
// version.cc, the one file compiled with the version: a release bump then
// rebuilds one object instead of the whole tree.
extern const char* const kVersionString;

}  // namespace casefile
