// Kernel messages of a host that tell why a process died, read from one
// line's message (after the dmesg / syslog / journal wrappers the line
// parser strips; any text left before the message is tolerated, since the
// signatures are searched, not anchored):
//
//   OOM killer (mm/oom_kill.c; the wording of each era):
//     "Out of memory: Killed process 1440763 (python) total-vm:87033376kB,
//      anon-rss:60356340kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:..."
//     "Memory cgroup out of memory: Killed process ..." (a cgroup's limit)
//     "Killed process 1234 (python) total-vm:...kB, anon-rss:...kB, ..." (old)
//     "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),...,task=python,
//      pid=7899,uid=0" (summary, >= 4.19)
//     "python invoked oom-killer: gfp_mask=0x...(GFP_...), order=0, ..."
//   slurmstepd: "Detected 1 oom-kill event(s) in StepId=1234.0 cgroup. ..."
//   NVIDIA driver: "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python,
//     GPU has fallen off the bus." (older drivers: no "PCI:", no name=, or
//     no pid at all).
//
// MayBeKernelEvent is the per-line prefilter: one vector pass for bytes that
// are rare in training logs ('K', 'X', 'k'), a compare at each, and no
// allocation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace casefile::runtime {

enum class KernelLineKind { kOomVictim, kOomSummary, kOomTrigger, kSlurmOom, kXid };

struct KernelLine {
  KernelLineKind kind = KernelLineKind::kOomVictim;
  int64_t pid = -1;
  std::string comm;  // victim (or, for a trigger, the allocating task)
  bool memcg = false;
  int64_t anon_rss_kb = -1;
  int xid = 0;
  std::string pci;
  std::string text;  // Xid: the driver's words after the code
};

bool MayBeKernelEvent(std::string_view msg);

// nullopt when the message is none of the forms above (look-alikes such as
// "oom_score_adj", a config key "oom_kill_disable", an Xid without its
// "(bus): code," shape). Ingest marks the blocks of the lines it accepts
// (analyze/line_marks.h): a change to which lines it accepts bumps
// kLineMarksVersion there.
std::optional<KernelLine> ParseKernelLine(std::string_view msg);

// What an Xid code means, in a few words, and whether it points at the
// GPU, its memory or its links rather than at the program; nullptr for a
// code this table does not know.
struct XidInfo {
  int code;
  const char* words;
  bool hardware;
  bool counts;  // false: informational, or a consequence of another Xid
};
const XidInfo* FindXid(int code);

}  // namespace casefile::runtime
