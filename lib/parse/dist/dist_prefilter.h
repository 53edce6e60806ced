// The anchor prefilter of the distributed-run families (dist_family.h). It
// runs once per log line in DistExtractor: one vectorised pass over the
// message sets a bit for each anchor it holds, and a family is called only
// on lines that hold one of its anchors (or while it has a multi-line
// message open). An anchor is a set of short n-grams (kAnchorGrams), one of
// which every message that a family's readers accept contains; they are
// chosen rare in the frequent lines of real logs (NCCL INFO lines, step/loss
// lines, glog messages). A false positive only costs the family's own exact
// checks, which still run behind the anchor; a false negative would lose an
// event, so each reader's literals are covered:
//  torch_watchdog*.cc:
//   kAnchorWatchdog  "dog": "Watchdog caught ...", "watchdog got stuck for",
//                    "detected no heartbeat of its watchdog".
//   kAnchorEnqueued  "nqu": every progress form ("last enqueued ...").
//   kAnchorFail      "fai": "Some NCCL operations have failed".
//   kAnchorTimeout   "meo", "med": the store timeouts ("Timeout", "timed
//                    out", "RendezvousTimeoutError"), "Heartbeat monitor
//                    timed out".
//   kAnchorNcclError "cl e": "NCCL error"; "lsy", "clin", "cclr": NCCL's
//                    result names ncclSystemError, ncclIn*, ncclRemoteError
//                    (ncclUnhandledCudaError has kAnchorCuda).
//   kAnchorCuda      "cud": "CUDA error:", "cuda runtime error (", "Cuda
//                    failure", "cudaErrorX", "CUDA kernel errors ...".
//   kAnchorWorkNccl  "kncc": "WorkNCCL(", so that a WorkNCCL message cut at
//                    the end of a line (a hard-wrapped paste) is read with
//                    the line that continues it.
//   kLineOpenHead    not read by a gram: a warning/error line whose message
//                    ends in the head of a watchdog message, cut before any
//                    anchor ("[Rank 0] Watch", "[PG ID 0 PG GU";
//                    EndsInGroupHead).
//  crash_lines.cc (and its open tracebacks / terminates):
//   kAnchorCrash     "ceb" (Traceback), "fat" (Fatal Python error), "gme"
//                    (Segmentation fault), "* s" (*** SIGSEGV), "gna" (Caught
//                    signal), "rmi" (terminate called), "():" (what():),
//                    "bor" (Aborted), "exc" (Python's "Exception ignored
//                    in:" and "Exception in thread X:", which make the
//                    traceback after them one the process survived).
//  launcher_summary.cc (and its open torchrun blocks / MPI reports):
//   kAnchorExit      "ucc": torchrun's "worker group successfully finished",
//                    "(WorkerState.SUCCEEDED)".
//                    "xit": exitcode, exits with return code, Exited with
//                    exit code, exited on signal / with non-zero status /
//                    due to.
//   kAnchorTask      "tas": srun's "task N" / "tasks 0-3".
//   kAnchorRank      "ss r", "ob r", "vok": mpirun's "process rank", "job
//                    rank", "invoked on rank".
//   kAnchorFail      "fai": torchrun's "Failures:" and "Root Cause (first
//                    observed failure)".
//  jax_coordination.cc (and its open task lists):
//   kAnchorJax       "jax" (JAX ...), "rri" (barrier), "bea" (heartbeat),
//                    "oor" (coordination service, CoordinationService).
//  program_progress.cc:
//   kAnchorLaunch    "aun": the launch id ("launch_id", "Launch ID").
//  step_time.cc (needs both bits; step_forms.h lists the forms):
//   kAnchorTimeWord  "ime" (time keys and phrases), "imin" (timing), "sec"
//                    (sec/secs/seconds keys), "ms_" (ms_per_step), "ook"
//                    (took), "/st" and "/it" (rates: s/step, s/it), "t/s"
//                    (tqdm's it/s).
//   kAnchorStepWord  "tep" (step, global_step), "iter" (iter, iteration),
//                    "t/s" and "/it" (tqdm bars, which name no step word).
//  build_lines.cc:
//   kAnchorBuild     "xte" (Error building extension), "nsu" (unsupported
//                    GNU / clang version, Unsupported gpu architecture); the
//                    family also reads kAnchorCuda ("CUDA version",
//                    "CUDA capability"), kAnchorFail (ninja's "build stopped:
//                    subcommand failed", setuptools' "failed with exit",
//                    pip's "Failed building wheel") and kAnchorExit
//                    (CalledProcessError's "non-zero exit status").
//  comm_lines.cc (NCCL output, process-group set-up, the GPU test):
//   kLineNccl        not read by a gram: the message starts with "NCCL "
//                    (every NCCL INFO/WARN/TRACE line once its host:pid:tid
//                    prefix is stripped, and the "NCCL version" banner).
//   kAnchorRendezvous "efu" (Connection refused), "dez" (rendezvous,
//                    RendezvousTimeoutError...), "eer" (gloo's and c10d's
//                    "Connection closed by peer", "Connection reset by
//                    peer"), "(ga" (c10d's "(gai error: -2 - Name or
//                    service not known)" while it retries a master name
//                    that does not resolve; not "gai": "again"); the family
//                    also reads kAnchorTimeout ("The
//                    client socket has timed out"), kAnchorFail ("failed to
//                    connect", c10d's "failed to connect to any network
//                    address ... (gai error: ...)",
//                    "server socket has failed to listen"; "Address
//                    already in use" comes with "failed to bind") and
//                    kAnchorNcclError (torch's "NCCL error in: ..." and its
//                    "NCCL version X" suffix). Not "fus" (XLA's "fusion")
//                    nor "cke" ("bucket", "docker"): frequent. Torch's old
//                    bare "RuntimeError: Address already in use" holds no
//                    anchor and is not read.
//   kAnchorGpuTest   " ok" ("[host-0] is OK (global rank: 3/8)"), "rok" (is
//                    broken), "pt=" (the test's "pt=2.3.1, cuda=12.1,
//                    nccl=(2, 20, 5)" line).
//  rank_host.cc:
//   kAnchorNranks    "nra": NCCL's "comm ... rank R nranks N".
//   kLineHostRank    not read from the text: the line's wrappers named both
//                    a host and a rank (LineAnchors).
// kLineHostRank, kLineOpenHead and kLineNccl are line facts that LineAnchors adds.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "index/index_types.h"

namespace casefile::dist {

enum Anchor : uint32_t {
  kAnchorWatchdog = 1u << 0,
  kAnchorEnqueued = 1u << 1,
  kAnchorFail = 1u << 2,
  kAnchorTimeout = 1u << 3,
  kAnchorNcclError = 1u << 4,
  kAnchorCuda = 1u << 5,
  kAnchorCrash = 1u << 6,
  kAnchorExit = 1u << 7,
  kAnchorTask = 1u << 8,
  kAnchorRank = 1u << 9,
  kAnchorJax = 1u << 10,
  kAnchorLaunch = 1u << 11,
  kAnchorTimeWord = 1u << 12,
  kAnchorStepWord = 1u << 13,
  kAnchorNranks = 1u << 14,
  kAnchorWorkNccl = 1u << 15,
  kAnchorBuild = 1u << 16,
  kAnchorRendezvous = 1u << 17,
  kAnchorGpuTest = 1u << 18,
  // Line facts (not grams) take the bits above the text anchors.
  kLineHostRank = 1u << 19,
  kLineOpenHead = 1u << 20,
  kLineNccl = 1u << 21,
};

// An n-gram: an ASCII letter matches either case, any other byte only
// itself. At most kMaxGramBytes bytes, all below 0x80. The scans match the
// grams eight at a time, grams of one length together (51 grams: 7 sets, one
// of four-byte grams; the six sets of three-byte grams have room for 5 more); each further set
// costs about a tenth more scan time (the seventh: 69 -> 75 ns/line on one host's log of the
// benchmark bundle, dist_bench), so grams are few and three bytes long where that is rare enough.
inline constexpr size_t kMaxGramBytes = 4;

struct AnchorGram {
  uint32_t bits;  // Anchor bits it sets (several when it serves several)
  std::string_view pattern;
};

// The n-grams (see the table at the top).
inline constexpr AnchorGram kAnchorGrams[] = {
    {kAnchorWatchdog, "dog"},
    {kAnchorEnqueued, "nqu"},
    {kAnchorFail, "fai"},
    {kAnchorTimeout, "meo"},
    {kAnchorTimeout, "med"},
    {kAnchorNcclError, "cl e"},
    {kAnchorNcclError, "lsy"},
    {kAnchorNcclError, "clin"},
    {kAnchorNcclError, "cclr"},
    {kAnchorCuda, "cud"},
    {kAnchorCrash, "ceb"},
    {kAnchorCrash, "fat"},
    {kAnchorCrash, "gme"},
    {kAnchorCrash, "* s"},
    {kAnchorCrash, "gna"},
    {kAnchorCrash, "rmi"},
    {kAnchorCrash, "():"},
    {kAnchorCrash, "bor"},
    {kAnchorCrash, "exc"},
    {kAnchorExit, "xit"},
    {kAnchorExit, "ucc"},
    {kAnchorTask, "tas"},
    {kAnchorRank, "ss r"},
    {kAnchorRank, "ob r"},
    {kAnchorRank, "vok"},
    {kAnchorJax, "jax"},
    {kAnchorJax, "rri"},
    {kAnchorJax, "bea"},
    {kAnchorJax, "oor"},
    {kAnchorLaunch, "aun"},
    {kAnchorTimeWord, "ime"},
    {kAnchorTimeWord, "imin"},
    {kAnchorTimeWord, "sec"},
    {kAnchorTimeWord, "ms_"},
    {kAnchorTimeWord, "ook"},
    {kAnchorTimeWord, "/st"},
    {kAnchorTimeWord | kAnchorStepWord, "/it"},
    {kAnchorTimeWord | kAnchorStepWord, "t/s"},
    {kAnchorStepWord, "tep"},
    {kAnchorStepWord, "iter"},
    {kAnchorNranks, "nra"},
    {kAnchorWorkNccl, "kncc"},
    {kAnchorBuild, "xte"},
    {kAnchorBuild, "nsu"},
    {kAnchorRendezvous, "efu"},
    {kAnchorRendezvous, "dez"},
    {kAnchorRendezvous, "eer"},
    {kAnchorRendezvous, "(ga"},
    {kAnchorGpuTest, " ok"},
    {kAnchorGpuTest, "rok"},
    {kAnchorGpuTest, "pt="},
};

// The Anchor bits of the n-grams found in `text`. One pass with SSSE3, AVX2
// or AVX-512 VBMI (picked at run time); thread-safe; never reads outside
// `text`.
uint32_t ScanAnchors(std::string_view text);

// The same with a plain byte loop over kAnchorGrams, for platforms without
// SSSE3 and for tests (both must agree on every input).
uint32_t ScanAnchorsScalar(std::string_view text);

// The scans this machine can run, the byte loop last, by name ("vbmi",
// "avx2", "ssse3", "scalar"): tests check that they all agree.
struct AnchorScan {
  const char* name;
  uint32_t (*scan)(std::string_view text);
};
std::vector<AnchorScan> AnchorScans();

// Whether `msg` ends in the head of a torch group message that a hard wrap
// cut before any of its anchors: a "[Rank N]" / "[PG ... Rank N]" bracket
// cut inside ("[Ra", "[PG ID 0 PG GU"), or whole and followed by nothing or
// by the start of "Watchdog caught" / "Collective WorkNCCL(" ("[Rank 0]
// Watch"). Trailing blanks are ignored. Looks at the last kHeadWindow bytes
// only (a bracket and the start of a phrase: "[PG ID 0 PG GUID
// 0(default_pg) Rank 12] Collective WorkNC" is 57).
inline constexpr size_t kHeadWindow = 64;
bool EndsInGroupHead(std::string_view msg);

// What the families are given for a line: ScanAnchors(line.message()) plus
// the line facts kLineHostRank and kLineOpenHead. The head test runs only on
// lines whose header gave a warning level or worse: the watchdog logs its
// messages with LOG(ERROR), and a hard wrap leaves the header on the first
// line; so the frequent INFO and level-less lines skip it.
inline uint32_t LineAnchors(const LineRecord& line) {
  const std::string_view msg = line.message();
  uint32_t bits = ScanAnchors(msg);
  if (!line.host.empty() && line.rank >= 0) bits |= kLineHostRank;
  if (msg.starts_with("NCCL ")) bits |= kLineNccl;
  if (line.level >= Level::kWarning && EndsInGroupHead(msg)) bits |= kLineOpenHead;
  return bits;
}

}  // namespace casefile::dist
