// Where SQLite puts the temporary files of an index connection (the spill
// files of big sorts and CREATE INDEX, temp tables, statement journals).
// Left alone, SQLite's "unix" VFS makes them in $TMPDIR (or /var/tmp, /tmp),
// outside the index: a hostile or just large bundle then writes gigabytes
// where casefile promised to write nothing (docs/SECURITY.md). The usual
// knobs (sqlite3_temp_directory, SQLITE_TMPDIR, PRAGMA temp_store_directory)
// are process-global, and this library lives inside other programs.
//
// So each connection gets its own small VFS that wraps "unix": a file SQLite
// opens by name goes to "unix" unchanged; a temporary file (SQLite passes no
// name) is created as "<prefix><n>-<random>" with O_EXCL, mode 0600, and
// unlinked at once (SQLITE_OPEN_DELETEONCLOSE), so it is never seen in a
// listing and a killed process leaves nothing behind. The VFS is registered
// under a unique name when the connection is opened and unregistered when
// SQLite frees the connection (after its last file is closed, even when
// sqlite3_close_v2 leaves a zombie behind unfinalized statements).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace casefile {

// Opens `path` as sqlite3_open_v2(path, db, flags) would, with every
// temporary file of the connection created under `temp_prefix` (a path
// prefix: its folder must exist and be writable when SQLite needs a temp
// file; a temp file that cannot be made fails the statement that needs it,
// it never falls back to $TMPDIR). Returns SQLITE_OK with *db set, or the
// error code with *db null and `*error` holding SQLite's message; close the
// connection with sqlite3_close or sqlite3_close_v2 as usual.
int OpenWithTempPrefix(const std::string& path, int flags, const std::string& temp_prefix,
                       sqlite3** db, std::string* error);

// The prefix for temporary files of a connection to `db_path`: beside it,
// "<db_path>.tmp-<pid>-sqlite-", a name of the family index_temp_files.h
// cleans up (a file survives only if the process dies between SQLite's
// open and its unlink).
std::string SqliteTempPrefixFor(const std::string& db_path);

// True when temporary files can be made in the folder of `db_path` (it
// exists and this process may create files in it).
bool CanMakeTempFilesBeside(const std::string& db_path);

// Temporary files the shim has opened in this process so far (all
// connections): tests use it to check that a workload really spilled.
uint64_t SqliteTempFilesOpened();

}  // namespace casefile
