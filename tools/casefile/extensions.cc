// Placeholder: the extension flags are not read yet.
#include "extensions.h"

namespace casefile_cli {

void LoadExtensions(CommandArgs&) {}

}  // namespace casefile_cli
