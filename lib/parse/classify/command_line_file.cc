#include <string>

#include "parse/classify/classify.h"
#include "parse/classify/name_util.h"

namespace casefile {

bool IsCommandLineFile(std::string_view path) {
  const std::string base = classify_internal::AsciiLowerCopy(classify_internal::BaseName(path));
  return base.rfind("job_cmdline", 0) == 0 || base == "cmdline" || base == "cmdline.txt" ||
         base == "proc_cmdline" || base == "proc_cmdline.txt";
}

}  // namespace casefile
