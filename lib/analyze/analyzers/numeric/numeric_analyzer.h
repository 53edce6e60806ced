// The `numeric` analyzer: numeric failures of mixed-precision training. It
// reads DebugUnderflowOverflow tables and training metrics (extracted from
// log lines at ingest: numeric_frames, metric_chunks), trainer_state.json
// histories and precision settings (configs), and names the first module
// that overflowed, the first NaN step, loss spikes, a collapsed fp16 loss
// scale, and bf16 models trained in fp16 (docs/FINDINGS.md, section
// "numeric").
#pragma once

#include <memory>

#include "analyze/analyzer.h"

namespace casefile {

std::unique_ptr<Analyzer> MakeNumericAnalyzer();

}  // namespace casefile
