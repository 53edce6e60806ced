#include "common/line_fields.h"

namespace casefile {

const char* LevelName(Level level) {
  switch (level) {
    case Level::kTrace:
      return "trace";
    case Level::kDebug:
      return "debug";
    case Level::kInfo:
      return "info";
    case Level::kWarning:
      return "warning";
    case Level::kError:
      return "error";
    case Level::kFatal:
      return "fatal";
    case Level::kUnknown:
      break;
  }
  return "";
}

}  // namespace casefile
