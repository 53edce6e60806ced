// Content tests behind ClassifyFile (classify.h documents the rules). Each
// looks at a bounded prefix of the head only, so classification stays cheap
// however large the head is.
#pragma once

#include <string_view>

namespace casefile::classify_internal {

bool LooksBinary(std::string_view head);
bool LooksLikeHlo(std::string_view head);
bool LooksLikeTrace(std::string_view head);
bool LooksLikeJsonDocument(std::string_view head);
bool LooksLikeVersionReport(std::string_view head);
bool LooksLikeSysinfo(std::string_view head);

}  // namespace casefile::classify_internal
