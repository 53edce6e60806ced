// Prints docs/SCHEMA.md as generated from lib/index/schema.cc:
//   schema_doc > docs/SCHEMA.md
// Build: link with cf_index (the lead wires it into CMake).
#include <cstdio>
#include <string>

#include "index/schema.h"

int main() {
  std::string md = casefile::RenderSchemaMarkdown();
  return std::fwrite(md.data(), 1, md.size(), stdout) == md.size() ? 0 : 1;
}
