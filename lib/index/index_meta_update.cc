#include "index/index_meta_update.h"

#include "index/index_open.h"
#include "index/sqlite_util.h"

namespace casefile {

void UpdateIndexMeta(const std::string& path, const std::string& key,
                     const std::optional<std::string>& value) {
  sqlite3* db = OpenIndexConnection(path, true);
  struct Closer {
    sqlite3* db;
    ~Closer() { sqlite3_close_v2(db); }
  } closer{db};
  if (value) {
    Statement st(db, "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)");
    st.Bind(1, key);
    st.Bind(2, *value);
    st.Run();
    st.Finalize();
  } else {
    Statement st(db, "DELETE FROM meta WHERE key = ?1");
    st.Bind(1, key);
    st.Run();
    st.Finalize();
  }
}

}  // namespace casefile
