#include <iterator>
#include <string_view>

#include "parse/version/version_facts.h"

namespace casefile::version {

int SourcePreference(std::string_view source) {
  static constexpr std::string_view kOrder[] = {
      kSourceNcclLog,      kSourceCollectEnv, kSourceNvcc,   kSourceNvidiaSmi,
      kSourceNvidiaSmiCsv, kSourceDsReport,   kSourceJaxEnv, kSourceTransformersEnv,
      kSourceGcc,          kSourcePip,        kSourceConda,  kSourceWhichNvcc,
      kSourceCudaDirs,     kSourceEnv};
  for (size_t i = 0; i < std::size(kOrder); ++i) {
    if (source == kOrder[i]) return static_cast<int>(i);
  }
  return static_cast<int>(std::size(kOrder));
}

}  // namespace casefile::version
