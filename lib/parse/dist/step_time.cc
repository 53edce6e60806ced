// One training step's time (kind step_time): seq = step, value = seconds,
// detail = the form it was read from (step_forms.h lists them). Runs on
// every line: MayHoldStep() rejects a line with one memchr pass over its
// 't' bytes before any parsing.
#include <string>
#include <string_view>

#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/dist/step_forms.h"

namespace casefile::dist {
namespace {

class StepTimeFamily : public DistFamily {
 public:
  void AddLine(const LineRecord& line, const DistEmitter& out) override {
    const std::string_view msg = line.message();
    if (!step::MayHoldStep(msg)) return;
    step::StepTime st;
    if (!step::ReadStepTime(msg, &st)) return;
    DistEventRow row = out.Start(line, kStepTime);
    row.seq = st.step;
    row.value = st.seconds;
    row.detail = st.total >= 0 ? std::string(st.form) + " total=" + std::to_string(st.total)
                               : std::string(st.form);
    out.Emit(row);
  }
};

}  // namespace

std::unique_ptr<DistFamily> MakeStepTimeFamily() { return std::make_unique<StepTimeFamily>(); }

}  // namespace casefile::dist
