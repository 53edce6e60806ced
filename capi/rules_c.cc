// Rule packs through the C API: the bridge reads files, converts arguments
// and maps errors; validation and the registry live in lib/analyze/rules/.
#define CASEFILE_EXPERIMENTAL 1
#include "analyze/rules/rules_registry.h"
#include "capi_internal.h"

using casefile::capi::Guard;

namespace {

[[noreturn]] void ThrowRuleErrors(const std::string& source,
                                  const std::vector<casefile::rules::RuleError>& errors) {
  throw casefile::Error(casefile::ErrorCode::kRules,
                        casefile::rules::RuleErrorMessage(source, errors));
}

}  // namespace

extern "C" {

casefile_status casefile_rules_add_file(const char* path, casefile_error** err) {
  static constexpr const char* kFn = "casefile_rules_add_file";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_ARG(kFn, nullptr, err, path);
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    const std::string text = casefile::rules::ReadRulePackFile(path);
    casefile::rules::AddRulePack(text, path);
    return CASEFILE_OK;
  });
}

casefile_status casefile_rules_add_string(const char* text, size_t length, const char* source_name,
                                          casefile_error** err) {
  static constexpr const char* kFn = "casefile_rules_add_string";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_ARG(kFn, nullptr, err, text);
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    casefile::rules::AddRulePack(std::string_view(text, length),
                                 source_name != nullptr ? source_name : "<string>");
    return CASEFILE_OK;
  });
}

casefile_status casefile_rules_remove(const char* pack_name, casefile_error** err) {
  static constexpr const char* kFn = "casefile_rules_remove";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_ARG(kFn, nullptr, err, pack_name);
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    casefile::rules::RemoveRulePack(pack_name);
    return CASEFILE_OK;
  });
}

casefile_status casefile_rules_check_file(const char* path, casefile_error** err) {
  static constexpr const char* kFn = "casefile_rules_check_file";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_ARG(kFn, nullptr, err, path);
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    const std::string text = casefile::rules::ReadRulePackFile(path);
    const auto errors = casefile::rules::CheckRulePack(text, path);
    if (!errors.empty()) ThrowRuleErrors(path, errors);
    return CASEFILE_OK;
  });
}

casefile_status casefile_rules_describe(char** out, casefile_error** err) {
  static constexpr const char* kFn = "casefile_rules_describe";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_OUT(kFn, err, out);
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    *out = casefile::capi::OwnedCopy(casefile::rules::DescribeRulePacks());
    return CASEFILE_OK;
  });
}

}  // extern "C"
