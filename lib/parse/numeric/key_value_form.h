// The generic key/value form of metric lines: "step 12 loss=2.345
// grad_norm=0.87", "[rank 1] step 1/1200 loss 2.8879", Lightning's
// "..., loss=2.34, v_num=0]". Internal to lib/parse/numeric (the form table
// in metric_forms.cc refers to it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/numeric/metric_forms.h"

namespace casefile::numeric {

// A FormParser: reads each key word (docs/FINDINGS.md, "numeric", form
// key_value) and the value after it. True when a loss, eval loss or grad
// norm was read.
bool ParseKeyValue(std::string_view msg, size_t anchor_pos, uint32_t hits, LineMetrics* out);

}  // namespace casefile::numeric
