// One training step's time (kind step_time): seq = step, value = seconds,
// detail = the form it was read from (step_forms.h lists them). Reads only
// lines that hold a time-word and a step-word anchor (dist_prefilter.h);
// MayHoldStep() then checks the words themselves before any parsing.
#include <string>
#include <string_view>
#include <utility>

#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/dist/step_forms.h"

namespace casefile::dist {
namespace {

class StepTimeFamily : public DistFamily {
 public:
  // A line must hold both a time word and a step word (dist_prefilter.h).
  StepTimeFamily()
      : DistFamily(kAnchorTimeWord | kAnchorStepWord, kAnchorTimeWord | kAnchorStepWord) {}

  bool ReadLine(const LineRecord& line, uint32_t /*anchors*/, const DistEmitter& out) override {
    const std::string_view msg = line.message();
    if (!step::MayHoldStep(msg)) return false;
    step::StepTime st;
    if (!step::ReadStepTime(msg, &st)) return false;
    // One row reused: every rank logs a step line per step, and a fresh
    // row's strings were a tenth of the family's time.
    out.Restart(row_, line, kStepTime);
    row_.seq = st.step;
    row_.value = st.seconds;
    std::string& detail = row_.detail.emplace(std::move(detail_));
    detail.assign(st.form);
    if (st.total >= 0) detail.append(" total=").append(std::to_string(st.total));
    out.Emit(row_);
    detail_ = std::move(*row_.detail);  // keeps the buffer for the next line
    return false;
  }

 private:
  DistEventRow row_;
  std::string detail_;
};

}  // namespace

std::unique_ptr<DistFamily> MakeStepTimeFamily() { return std::make_unique<StepTimeFamily>(); }

}  // namespace casefile::dist
