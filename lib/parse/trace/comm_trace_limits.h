// The thresholds and caps of the comm aggregator (comm_trace.h), each with
// why it has its value. The comm analyzer's own thresholds (what fires a
// finding) live with the analyzer; these decide what the ingest tables hold.
#pragma once

#include <cstddef>

namespace casefile::trace_comm {

// --- steady state ----------------------------------------------------------
// Steps 1-2 hold compilation, the first MapDmaBuffer registrations and
// warm-up (the seed: registration happens "shortly after the process
// starts"), so the steady state starts at the end of the second step; that
// needs a third step to exist.
inline constexpr int kWarmupSteps = 2;
inline constexpr int kMinStepsForStepRule = 3;
// Without steps: the first tenth of the span is treated as warm-up (a
// profile window usually opens after start-up, so this only trims the
// first moments).
inline constexpr double kSpanWarmupFraction = 0.1;

// --- collectives -----------------------------------------------------------
// A collective whose done begins within 10 µs of its start's end had no
// computation scheduled in between (an XLA op is rarely shorter than a few
// µs), so its communication cannot be hidden: "zero or near-zero slack".
inline constexpr double kLowSlackUs = 10.0;

// --- RPCs ------------------------------------------------------------------
// An RPC is a spike when it takes over 10x the median (an order of
// magnitude above the usual) and at least 50 ms (the seed's example is a
// 200 ms spike; below 50 ms a slow RPC hides inside a step of most models).
inline constexpr double kRpcSpikeMedianFactor = 10.0;
inline constexpr double kRpcSpikeFloorUs = 50'000.0;
// Spikes are periodic when the intervals between them vary little: a
// coefficient of variation under 0.25 (a timer or a periodic job, not
// chance); at least three spikes (two intervals) are needed to say so.
inline constexpr double kSpikePeriodMaxCv = 0.25;
inline constexpr size_t kMinSpikesForPeriod = 3;
// RPCs at or above the floor are kept exactly (ts, dur) up to this many so
// spike counts and periods are exact; past it counts come from the
// histogram (a trace with that many 50 ms RPCs has constant high latency,
// which the median shows).
inline constexpr size_t kMaxSlowRpcsKept = 1 << 14;

// --- bounded memory ----------------------------------------------------------
// Marks: a finding cites a few events; 16 per kind is enough evidence and
// keeps the table small. Candidates are chosen from a pool 4x larger so the
// filter at Finish still leaves 16. For the steady-state kinds scored by
// time (map_dma_steady, low_slack: latest first) the pool holds the latest
// events, which are the steady ones whenever any exist, so it cannot end up
// all warm-up.
inline constexpr size_t kMarksPerKind = 16;
inline constexpr size_t kMarkCandidates = 64;
// A kind whose best events may all fall before the steady state (the
// longest recv-done waits are in the first steps) keeps kMarksPerKind per
// time segment instead (SegmentedMarkPool), so the best inside the steady
// state survive: 64 segments, each under 1/32 of the span.
inline constexpr size_t kMarkSegments = 64;
// Timeline: at most 256 rows per trace (a readable chart), computed from
// 4096 cells so "collectives in flight" is resolved at 1/16 of a row.
inline constexpr size_t kTimelineRows = 256;
inline constexpr size_t kTimelineCells = 4096;
// Steady-state sums (recv-done, slack, NCCL kernels) are kept in 1024 time
// cells (two 4 KiB histograms each: 8 MiB): the cell holding the steady
// start counts when its middle is past it, so the error is at most half a
// cell, under 1/1024 of the span (the cells cover less than twice it).
inline constexpr size_t kSteadyCells = 1024;
// MapDmaBuffer calls are kept exactly (their time decides steady or not)
// up to this many; past it the steady cells count them.
inline constexpr size_t kMaxMapDmaKept = 1 << 16;
// Memory copies kept exactly for the overlap test against receives.
inline constexpr size_t kMaxCopiesKept = 1 << 14;
// Receive intervals per pid (for the memory-copy overlap), and how many pids.
inline constexpr size_t kReceiveUnionCap = 1 << 13;
inline constexpr size_t kMaxReceivePids = 64;
// Busy-time unions (comm, network, recv-done, NCCL): disjoint pieces kept
// before small gaps are closed (IntervalUnion).
inline constexpr size_t kBusyUnionCap = 1 << 16;
// Links (src, dst) and processes with steps tracked; more are counted as
// dropped (a trace with thousands of hosts is not one host's trace).
inline constexpr size_t kMaxLinks = 1024;
inline constexpr size_t kMaxStepPids = 1024;
inline constexpr size_t kMaxPids = 1 << 16;
// Async start/done pairing: distinct (pid, op name) keys, unmatched starts
// per key (FIFO), and done events that came before their start (kept with
// their text, so capped hard).
inline constexpr size_t kMaxPairKeys = 1 << 16;
inline constexpr size_t kMaxPendingPerKey = 64;
inline constexpr size_t kMaxPendingDones = 4096;

}  // namespace casefile::trace_comm
