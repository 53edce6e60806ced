// The parts of an XLA dump file name (xla/service/dump.cc FilenameFor):
//   [<µs timestamp>.]module_<NNNN>[.<module name>].<stage>.txt
// e.g. "1624325116260738.module_0065.pmap_fn.186875.before_optimizations.txt",
// "module_0007.jit_contract_2.gfx908_gpu_after_optimizations.txt".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace casefile {

struct HloDumpName {
  std::optional<int64_t> timestamp_us;  // --xla_dump_include_timestamp prefix
  std::optional<int64_t> module_id;     // per-process counter, not stable across ranks
  std::string module_name;              // "" when the dump dropped it or the name is not a dump's
  // One of before_optimizations, after_optimizations (TPU, old GPU),
  // cpu_after_optimizations, sm_<cc>_gpu_after_optimizations (CUDA, e.g.
  // sm_9.0_…, sm_100a_…), gfx<arch>_gpu_after_optimizations (ROCm); "" for
  // anything else (pass dumps, buffer assignments, unknown names).
  std::string stage;
};

// `name` is a file name or a path (cut at the last '/'); a ".gz" suffix is
// ignored. Never throws.
HloDumpName ParseHloDumpName(std::string_view name);

}  // namespace casefile
