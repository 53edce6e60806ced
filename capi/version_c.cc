// Library version. lib/common/version.cc checks at build time that the
// header's CASEFILE_VERSION_* macros agree with the project version.
#include "capi_internal.h"
#include "common/version.h"

extern "C" {

int casefile_version_number(void) { return CASEFILE_VERSION_NUMBER; }

const char* casefile_version_string(void) { return casefile::kVersionString; }

}  // extern "C"
