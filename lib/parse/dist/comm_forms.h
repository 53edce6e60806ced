// The one-line readers of the comm family that are not NCCL output
// (comm_lines.cc calls them behind their anchors): c10d / elastic
// rendezvous failures and the distributed GPU test. Each fills `row` (taken
// with DistEmitter::Start, so host/rank/local rank of the line's wrappers
// are set) and returns whether `msg` was one of its messages.
#pragma once

#include <string_view>

#include "index/index_types.h"

namespace casefile::dist {

// A cheap test that `msg` may be one of ReadRendezvous's messages: it holds
// "socket"/"Socket", "Network" (DistNetworkError), "Rendezvous", "failed",
// "refused", "by peer" or "already" (one pass over four rare bytes). Every
// form ReadRendezvous accepts holds one of them; a form added there needs
// its word here. The family's anchors also let through the "bucket",
// "checked", "docker" lines ("cke"), which this rejects before a row is
// taken.
bool MayBeRendezvous(std::string_view msg);

// kRendezvousError (comm_rendezvous.cc): op = the form, detail = endpoint,
// value = errno, timeout_ms.
bool ReadRendezvous(std::string_view msg, DistEventRow& row);

// A cheap test that `msg` may be one of ReadGpuTest's: "] is " or "pt=".
bool MayBeGpuTest(std::string_view msg);

// kGpuTest (comm_gpu_test.cc): op ok / broken / versions.
bool ReadGpuTest(std::string_view msg, DistEventRow& row);

}  // namespace casefile::dist
