// The `lines` virtual table (module casefile_lines): every stored line as one
// row, decoded from line_blocks on demand. See docs/SCHEMA.md for columns and
// the constraints that narrow a scan to the blocks it needs.
#pragma once

struct sqlite3;

namespace casefile {

// Registers the module on `db`. Throws Error on failure. Must happen before
// the connection first touches `lines` (and before CREATE VIRTUAL TABLE).
void RegisterLinesModule(sqlite3* db);

}  // namespace casefile
