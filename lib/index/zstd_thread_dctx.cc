#include "index/zstd_thread_dctx.h"

#include <zstd.h>

#include <new>

namespace casefile {

ZSTD_DCtx* ThreadDecompressor() {
  struct Holder {
    ZSTD_DCtx* ctx = ZSTD_createDCtx();
    ~Holder() { ZSTD_freeDCtx(ctx); }
  };
  thread_local Holder holder;
  if (holder.ctx == nullptr) throw std::bad_alloc();
  return holder.ctx;
}

}  // namespace casefile
