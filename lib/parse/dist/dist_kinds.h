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
// The launcher's report that its workers finished: torchrun's agent "[default]
// worker group successfully finished." (torch <= 2.1) and "Local worker group
// finished (WorkerState.SUCCEEDED)". One per agent, i.e. per host: what the
// host's processes printed before it, they survived.
inline constexpr const char* kLauncherSuccess = "launcher_success";
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
//    architecture 'compute_XY'" (detail "compute_XY");
//  - kBuildDriverTooOld: the GPU driver is older than the CUDA runtime
//    needs: torch's "The NVIDIA driver on your system is too old (found
//    version 11040)" (detail "found=11.4"), the runtime's "CUDA driver
//    version is insufficient for CUDA runtime version"
//    (cudaErrorInsufficientDriver), "system has unsupported display driver /
//    cuda driver combination" (cudaErrorSystemDriverMismatch: a container's
//    libcuda that is not the host's kernel module's), "forward compatibility
//    was attempted on non supported HW" (detail "" for these).
inline constexpr const char* kBuildError = "build_error";
inline constexpr const char* kBuildExtensionFailed = "extension_failed";
inline constexpr const char* kBuildCudaMismatch = "cuda_mismatch";
inline constexpr const char* kBuildGccUnsupported = "gcc_unsupported";
inline constexpr const char* kBuildArchUnsupported = "arch_unsupported";
inline constexpr const char* kBuildDriverTooOld = "driver_too_old";
inline constexpr const char* kRankHost = "rank_host";
// NCCL's own error reports (comm_lines.cc, comm_nccl.cc): an "NCCL WARN"
// line, an NCCL INFO line that reports a failure ("ncclCommInitRank ...
// failed", "[Service thread] Error encountered ... res=3", the first frame
// "init.cc:1234 -> 3" of an error unwind that no WARN of the process
// announced), NCCL's "Last error:" detail that torch prints on the line
// after its "NCCL error" / "ncclSystemError: ..." lines. op = the NCCL
// result class when the text gives or implies one (kNcclClass*; for a "Last
// error:" detail the class torch named, else the one its text implies; for
// a WARN whose text implies none, the class of the unwind frame "-> N" that
// is its process's next NCCL line, the row then being emitted at that line),
// kNcclBenign for WARNs known to be harmless (the net plugin that is not
// installed, topology paths NCCL could not resolve, NCCL_* values it
// ignores), else kNcclWarnOther; detail = the message after "NCCL WARN "
// (the INFO text, the "Last error:" text; at most 300 bytes; comm_text.h
// reads its peer and errno text). rank = the wrapper's rank, else the rank
// of the process (host:pid) in its largest non-split communicator seen so
// far. The row's line is the process's nccl_ranks.first_warn_line when it
// is its first non-benign one.
inline constexpr const char* kNcclWarn = "nccl_warn";
inline constexpr const char* kNcclClassSystem = "ncclSystemError";
inline constexpr const char* kNcclClassRemote = "ncclRemoteError";
inline constexpr const char* kNcclClassInternal = "ncclInternalError";
inline constexpr const char* kNcclClassInvalidUsage = "ncclInvalidUsage";
inline constexpr const char* kNcclClassInvalidArgument = "ncclInvalidArgument";
inline constexpr const char* kNcclClassCuda = "ncclUnhandledCudaError";
inline constexpr const char* kNcclBenign = "benign";
inline constexpr const char* kNcclWarnOther = "warn";
// c10d TCPStore / elastic rendezvous set-up failures (comm_lines.cc,
// comm_rendezvous.cc lists the forms). op = the form (kRdzv*); detail = the
// endpoint the message names ("node-0:29500", "[::]:29500"), empty when
// none; value = the errno when printed; timeout_ms = the timeout when
// printed. A client connect that failed for another reason than a refusal
// (errno 113 No route to host, a name that does not resolve) is
// kRdzvConnectFailed; a server that could not listen for another reason
// than a port in use, or says only that it failed to listen, is
// kRdzvListenFailed. The client's retry loop repeats its warning every few
// seconds: a file keeps the first kMaxRendezvousRepeats rows of one (op,
// endpoint) and the last one. RendezvousTimeoutError and the client socket
// timeout are also store_timeout rows of torch_watchdog_store.cc (same
// line): readers count one failure per line.
inline constexpr const char* kRendezvousError = "rendezvous_error";
inline constexpr int kMaxRendezvousRepeats = 8;
inline constexpr const char* kRdzvConnectFailed = "connect_failed";
inline constexpr const char* kRdzvListenFailed = "listen_failed";
inline constexpr const char* kRdzvRefused = "connection_refused";
inline constexpr const char* kRdzvSocketTimeout = "socket_timeout";
inline constexpr const char* kRdzvAddressInUse = "address_in_use";
inline constexpr const char* kRdzvTimeout = "rendezvous_timeout";
inline constexpr const char* kRdzvReset = "connection_reset";
inline constexpr const char* kRdzvStoreFailed = "store_failed";
inline constexpr const char* kRdzvClosed = "rendezvous_closed";
// The master's name did not resolve: c10d's "The IPv4 network addresses of
// (master, 29500) cannot be retrieved (gai error: -2 - Name or service not
// known)", a resolver error in a c10d or rendezvous message.
inline constexpr const char* kRdzvNameResolution = "name_resolution";
// The distributed GPU test (Transformers' torch-distributed-gpu-test.py):
// op = "ok" ("[host-3] is OK (global rank: 3/8)": rank 3, value 8), "broken"
// ("[host-3] is broken"), "versions" ("pt=2.3.1, cuda=12.1, nccl=(2, 20,
// 5)": detail the text). detail for ok/broken = the label's host part and
// local_rank its number ("host-3" -> "host", 3) when it has one.
inline constexpr const char* kGpuTest = "gpu_test";
inline constexpr const char* kSplitDetail = "split";

}  // namespace casefile::dist
