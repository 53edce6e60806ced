#include "index/sqlite_temp_vfs.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

namespace casefile {
namespace {

std::atomic<uint64_t> g_temp_files_opened{0};
std::atomic<uint64_t> g_vfs_serial{0};

// Room for "<n>-<random>" after the prefix, and the extra NULs SQLite wants
// after a file name it did not make (sqlite3_uri_parameter reads key/value
// pairs after the name up to an empty key).
constexpr size_t kSuffixBytes = 48;
constexpr int kOpenAttempts = 8;

// One connection's VFS. `vfs` is what SQLite sees; its pAppData points back
// here. Each temp file's name lives in the tail of the file object SQLite
// allocates (szOsFile is "unix"'s plus the name), because "unix" keeps the
// name pointer for the life of the file.
struct TempVfs {
  sqlite3_vfs vfs{};
  sqlite3_vfs* base = nullptr;
  std::string name;
  std::string prefix;
  std::atomic<uint64_t> next_file{0};
};

sqlite3_vfs* Base(sqlite3_vfs* v) { return static_cast<TempVfs*>(v->pAppData)->base; }

int TempOpen(sqlite3_vfs* v, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  auto* self = static_cast<TempVfs*>(v->pAppData);
  sqlite3_vfs* base = self->base;
  if (name != nullptr) return base->xOpen(base, name, file, flags, out_flags);
  // SQLite asks for a temporary file by passing no name. Make it here,
  // exclusively (a name left by someone else is never shared), and let
  // "unix" unlink it right after opening (DELETEONCLOSE).
  char* path = reinterpret_cast<char*>(file) + base->szOsFile;
  const size_t room = self->prefix.size() + kSuffixBytes;
  const int temp_flags = flags | SQLITE_OPEN_DELETEONCLOSE | SQLITE_OPEN_EXCLUSIVE |
                         SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE;
  int rc = SQLITE_CANTOPEN;
  for (int attempt = 0; attempt < kOpenAttempts; ++attempt) {
    uint32_t random = 0;
    sqlite3_randomness(sizeof random, &random);
    std::memset(path, 0, room);
    std::snprintf(path, room - 4, "%s%llu-%08x", self->prefix.c_str(),
                  static_cast<unsigned long long>(self->next_file.fetch_add(1)),
                  static_cast<unsigned>(random));
    rc = base->xOpen(base, path, file, temp_flags, out_flags);
    if (rc == SQLITE_OK) {
      g_temp_files_opened.fetch_add(1, std::memory_order_relaxed);
      return rc;
    }
    // Only a name taken by another file is worth another try; a folder that
    // is gone, read-only or full fails the same way every time.
    int taken = 0;
    if (base->xAccess(base, path, SQLITE_ACCESS_EXISTS, &taken) != SQLITE_OK || !taken) break;
  }
  return rc;
}

// Everything but xOpen goes to "unix" as it is, with "unix" as the VFS.
int TempDelete(sqlite3_vfs* v, const char* name, int sync_dir) {
  return Base(v)->xDelete(Base(v), name, sync_dir);
}
int TempAccess(sqlite3_vfs* v, const char* name, int flags, int* out) {
  return Base(v)->xAccess(Base(v), name, flags, out);
}
int TempFullPathname(sqlite3_vfs* v, const char* name, int n, char* out) {
  return Base(v)->xFullPathname(Base(v), name, n, out);
}
void* TempDlOpen(sqlite3_vfs* v, const char* name) { return Base(v)->xDlOpen(Base(v), name); }
void TempDlError(sqlite3_vfs* v, int n, char* out) { Base(v)->xDlError(Base(v), n, out); }
void (*TempDlSym(sqlite3_vfs* v, void* handle, const char* symbol))(void) {
  return Base(v)->xDlSym(Base(v), handle, symbol);
}
void TempDlClose(sqlite3_vfs* v, void* handle) { Base(v)->xDlClose(Base(v), handle); }
int TempRandomness(sqlite3_vfs* v, int n, char* out) {
  return Base(v)->xRandomness(Base(v), n, out);
}
int TempSleep(sqlite3_vfs* v, int us) { return Base(v)->xSleep(Base(v), us); }
int TempCurrentTime(sqlite3_vfs* v, double* out) { return Base(v)->xCurrentTime(Base(v), out); }
int TempGetLastError(sqlite3_vfs* v, int n, char* out) {
  return Base(v)->xGetLastError(Base(v), n, out);
}
int TempCurrentTimeInt64(sqlite3_vfs* v, sqlite3_int64* out) {
  return Base(v)->xCurrentTimeInt64(Base(v), out);
}
int TempSetSystemCall(sqlite3_vfs* v, const char* name, sqlite3_syscall_ptr call) {
  return Base(v)->xSetSystemCall(Base(v), name, call);
}
sqlite3_syscall_ptr TempGetSystemCall(sqlite3_vfs* v, const char* name) {
  return Base(v)->xGetSystemCall(Base(v), name);
}
const char* TempNextSystemCall(sqlite3_vfs* v, const char* name) {
  return Base(v)->xNextSystemCall(Base(v), name);
}

// Registers a new VFS for temp files under `prefix`; nullptr when "unix" is
// missing or registration fails.
TempVfs* MakeTempVfs(const std::string& prefix) {
  sqlite3_vfs* base = sqlite3_vfs_find("unix");
  if (base == nullptr || base->iVersion < 3) return nullptr;
  auto* self = new TempVfs;
  self->base = base;
  self->prefix = prefix;
  self->name = "casefile-temp-" + std::to_string(g_vfs_serial.fetch_add(1));
  sqlite3_vfs& v = self->vfs;
  v.iVersion = 3;
  v.szOsFile = base->szOsFile + static_cast<int>(prefix.size() + kSuffixBytes);
  v.mxPathname = base->mxPathname;
  v.zName = self->name.c_str();
  v.pAppData = self;
  v.xOpen = TempOpen;
  v.xDelete = TempDelete;
  v.xAccess = TempAccess;
  v.xFullPathname = TempFullPathname;
  v.xDlOpen = TempDlOpen;
  v.xDlError = TempDlError;
  v.xDlSym = TempDlSym;
  v.xDlClose = TempDlClose;
  v.xRandomness = TempRandomness;
  v.xSleep = TempSleep;
  v.xCurrentTime = TempCurrentTime;
  v.xGetLastError = TempGetLastError;
  v.xCurrentTimeInt64 = TempCurrentTimeInt64;
  v.xSetSystemCall = TempSetSystemCall;
  v.xGetSystemCall = TempGetSystemCall;
  v.xNextSystemCall = TempNextSystemCall;
  // Thread-safe: SQLite takes its global mutex.
  if (sqlite3_vfs_register(&v, 0) != SQLITE_OK) {
    delete self;
    return nullptr;
  }
  return self;
}

void FreeTempVfs(void* p) {
  auto* self = static_cast<TempVfs*>(p);
  sqlite3_vfs_unregister(&self->vfs);
  delete self;
}

// The connection owns its VFS through a collation nobody uses: SQLite calls
// a collation's destructor when it frees the connection, after it has
// closed the connection's files, which is exactly when the VFS may go.
constexpr const char* kOwnerCollation = "casefile_temp_vfs_owner";
int NeverCompare(void*, int, const void*, int, const void*) { return 0; }

}  // namespace

int OpenWithTempPrefix(const std::string& path, int flags, const std::string& temp_prefix,
                       sqlite3** db, std::string* error) {
  *db = nullptr;
  TempVfs* vfs = MakeTempVfs(temp_prefix);
  if (vfs == nullptr) {
    *error = "cannot register the temporary-file VFS";
    return SQLITE_ERROR;
  }
  sqlite3* conn = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &conn, flags, vfs->name.c_str());
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_collation_v2(conn, kOwnerCollation, SQLITE_UTF8, vfs, NeverCompare,
                                     FreeTempVfs);
    if (rc == SQLITE_OK) {
      *db = conn;
      return SQLITE_OK;
    }
  }
  *error = conn ? sqlite3_errmsg(conn) : sqlite3_errstr(rc);
  // No statement exists yet, so this close frees the connection now and the
  // VFS is unused afterwards.
  sqlite3_close(conn);
  FreeTempVfs(vfs);
  return rc;
}

std::string SqliteTempPrefixFor(const std::string& db_path) {
  return db_path + ".tmp-" + std::to_string(static_cast<long>(getpid())) + "-sqlite-";
}

bool CanMakeTempFilesBeside(const std::string& db_path) {
  const size_t slash = db_path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : db_path.substr(0, slash));
  // access() answers for this process's real ids and sees a read-only mount
  // (EROFS); creating needs write and search permission on the folder.
  return access(dir.c_str(), W_OK | X_OK) == 0;
}

uint64_t SqliteTempFilesOpened() { return g_temp_files_opened.load(std::memory_order_relaxed); }

}  // namespace casefile
