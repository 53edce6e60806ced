// The kinds of dist_events rows (docs/SCHEMA.md) and what each one sets.
// Stored as text, so a kind is never renamed; the analyzers compare against
// these constants.
#pragma once

namespace casefile::dist {

// "[Rank N] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=S,
// OpType=OP, NumelIn=I, NumelOut=O, Timeout(ms)=T) ran for D milliseconds
// before timing out." (also inside "watchdog thread terminated with
// exception: ..."). Sets pg/pg_rank when a [PG ...] prefix names them, seq,
// op, numel_in, numel_out, timeout_ms, elapsed_ms.
inline constexpr const char* kWatchdogTimeout = "watchdog_timeout";
// A group's progress: "... detected by watchdog at work: W, last enqueued NCCL
// work: E, last completed NCCL work: C.", "Timeout at NCCL work: W, ...",
// "failure detected by watchdog at work sequence id: W PG status: last
// enqueued work: E, last completed work: C", dump-signal lines. seq = W (when
// named), last_enqueued, last_completed.
inline constexpr const char* kWorkProgress = "work_progress";
// "Some NCCL operations have failed or timed out."
inline constexpr const char* kNcclFailed = "nccl_failed";
// "ProcessGroupNCCL's watchdog got stuck for N seconds" / heartbeat monitor.
inline constexpr const char* kWatchdogStuck = "watchdog_stuck";
// c10d store / rendezvous waits that timed out ("Timed out waiting ... for the
// store", "wait timeout after Nms, keys: ...", DistStoreError). timeout_ms
// when printed; detail = the keys or the message.
inline constexpr const char* kStoreTimeout = "store_timeout";
// A collective that raised an NCCL error (not a timeout): "NCCL error in:
// ...", "raised the following async exception: NCCL error: ...". detail = the
// error class ("unhandled system error").
inline constexpr const char* kCollectiveError = "collective_error";
// A CUDA error reported by the watchdog or a rank ("CUDA error: an illegal
// memory access was encountered"): not a hang. detail = the CUDA error text.
inline constexpr const char* kCudaError = "cuda_error";
// A launcher's report of a failed worker: torchrun's root-cause block and
// "failed (exitcode: N) local_rank: L", DeepSpeed's "exits with return code =
// N", srun's "task N: Exited with exit code C", MPI aborts. op = launcher
// (torchrun, deepspeed, srun, mpi); value = exit code (negative = signal);
// detail starts with "root cause" for torchrun's first observed failure
// ("root cause: exitcode -9 (SIGKILL), local_rank 3, pid 1322"), "failure"
// for its other entries; the signal name, when known, is inside it.
inline constexpr const char* kLauncherFailure = "launcher_failure";
// A rank's crash: one event per Python traceback, on its exception line
// (detail = the exception, "Last (after: First)" for a chain; on the
// Traceback line with no detail when the traceback never ends), fatal
// signals, "terminate called after throwing" (on its what() line).
inline constexpr const char* kCrash = "crash";
// JAX distributed / coordination-service errors: missed heartbeats, a task
// disconnected, barrier timeouts, "Terminating process because the JAX
// distributed service detected fatal errors". detail = what happened
// (heartbeat, unhealthy, barrier, terminating, ...); seq = the task the
// message names as failed, when it names one.
inline constexpr const char* kJaxCoordination = "jax_coordination";
// MXLA program state (--vmodule=real_program_continuator=1): seq = launch id.
inline constexpr const char* kProgramProgress = "program_progress";
// One training step's time: seq = step, value = seconds; detail names the
// form it was read from (the key such as "step_time", "rate", "took",
// "elapsed time per iteration", or "tqdm total=M": an
// evaluation bar can be told apart from the training bar by its total).
inline constexpr const char* kStepTime = "step_time";
// A (host, rank) pair a line reveals (a rank prefix on a host-prefixed line,
// NCCL "comm ... rank R nranks N" on a host:pid:tid line). value = nranks of
// the communicator when NCCL names it; detail = kSplitDetail when the
// communicator was split from another ("ncclCommSplit comm ... parent 0x...
// color C key K", "comm ... parent 0x..."): its rank is the rank inside the
// sub-group, never the global rank.
// A failed or refused build of a CUDA/C++ extension, or a set-up error that
// names the toolchain (build_lines.cc). op says which:
//  - kBuildExtensionFailed: "Error building extension 'NAME'" (detail NAME),
//    "Error compiling objects for extension", "Ninja is required to load C++
//    extensions" (detail "ninja"), "CUDA_HOME environment variable is not
//    set" / "CUDA_HOME does not exist, unable to compile", "ninja: build
//    stopped" and ninja's CalledProcessError (detail "ninja"), setuptools'
//    "error: command 'X' failed ..." (detail "command: X"), pip's "Failed
//    building wheel for NAME" and uv's "Failed to build `NAME`" (detail NAME);
//  - kBuildCudaMismatch: DeepSpeed's "Installed CUDA version X does not match
//    the version torch was compiled with Y", torch's "The detected CUDA
//    version (X) mismatches the version that was used to compile PyTorch
//    (Y)" (wrapped before "PyTorch"; also its minor-mismatch warning), apex's
//    "... does not match the version used to compile Pytorch binaries"
//    (detail "installed=X torch=Y", a side empty when the text names none);
//  - kBuildGccUnsupported: host_config.h's "unsupported GNU version! gcc
//    versions later than N" (value N, detail "gcc"), "unsupported clang
//    version! clang version must be less than N" (value N-1, detail "clang");
//  - kBuildArchUnsupported: torch's "<GPU> with CUDA capability sm_XY is not
//    compatible with the current PyTorch installation" (detail "sm_XY (GPU)
//    supported: sm_50 ..."), its older "Found GPU0 <GPU> which is of cuda
//    capability X.Y" (detail "sm_XY (GPU) too old"), nvcc's "Unsupported gpu
//    architecture 'compute_XY'" (detail "compute_XY").
inline constexpr const char* kBuildError = "build_error";
inline constexpr const char* kBuildExtensionFailed = "extension_failed";
inline constexpr const char* kBuildCudaMismatch = "cuda_mismatch";
inline constexpr const char* kBuildGccUnsupported = "gcc_unsupported";
inline constexpr const char* kBuildArchUnsupported = "arch_unsupported";
inline constexpr const char* kRankHost = "rank_host";
inline constexpr const char* kSplitDetail = "split";

}  // namespace casefile::dist
