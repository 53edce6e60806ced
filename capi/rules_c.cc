// Placeholder until the rule engine lands: every call reports "not implemented".
#include "capi_internal.h"

using casefile::capi::Fail;

extern "C" {

casefile_status casefile_rules_add_file(const char*, casefile_error** err) {
  return Fail("casefile_rules_add_file", nullptr, err, CASEFILE_E_INTERNAL, "not implemented");
}
casefile_status casefile_rules_add_string(const char*, size_t, const char*, casefile_error** err) {
  return Fail("casefile_rules_add_string", nullptr, err, CASEFILE_E_INTERNAL, "not implemented");
}
casefile_status casefile_rules_remove(const char*, casefile_error** err) {
  return Fail("casefile_rules_remove", nullptr, err, CASEFILE_E_INTERNAL, "not implemented");
}
casefile_status casefile_rules_check_file(const char*, casefile_error** err) {
  return Fail("casefile_rules_check_file", nullptr, err, CASEFILE_E_INTERNAL, "not implemented");
}

}  // extern "C"
