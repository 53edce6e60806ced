// Opening an existing index file: the checks shared by IndexReader (read-only
// connections) and StoreFindings (the one writable connection after a build).
#pragma once

#include <sqlite3.h>

#include <string>

namespace casefile {

// Opens `path` and checks that it is a casefile index of this schema version.
// Throws Error(kNotFound) when the file does not exist, Error(kCorrupt) when
// it is not an SQLite database or has no meta table, Error(kIndexVersion)
// when its user_version is not kIndexSchemaVersion. The `lines` module is
// registered on the returned connection; close it with sqlite3_close_v2.
sqlite3* OpenIndexConnection(const std::string& path, bool writable);

}  // namespace casefile
