#include "bundle/entry.h"

namespace casefile {

const char* EntryTypeName(EntryType type) {
  switch (type) {
    case EntryType::kFile:
      return "file";
    case EntryType::kDirectory:
      return "directory";
    case EntryType::kSymlink:
      return "symlink";
    case EntryType::kHardlink:
      return "hardlink";
    case EntryType::kDevice:
      return "device";
    case EntryType::kOther:
      break;
  }
  return "other";
}

}  // namespace casefile
