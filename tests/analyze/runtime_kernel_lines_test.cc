// The kernel messages the runtime analyzer reads (OOM killer, slurmstepd's
// cgroup OOM report, NVIDIA Xid), one case per wording of formats.md
// section 8 and per look-alike. Expected fields written by hand from the
// kernel's and the driver's format strings.
#include <gtest/gtest.h>

#include "analyze/analyzers/runtime/kernel_lines.h"

namespace casefile::runtime {
namespace {

KernelLine MustParse(std::string_view msg) {
  EXPECT_TRUE(MayBeKernelEvent(msg)) << msg;
  const std::optional<KernelLine> k = ParseKernelLine(msg);
  EXPECT_TRUE(k.has_value()) << msg;
  return k.value_or(KernelLine{});
}

TEST(RuntimeKernelLines, VictimLineOfCurrentKernels) {
  const KernelLine k = MustParse(
      "Out of memory: Killed process 1440763 (python3) total-vm:87033376kB, "
      "anon-rss:60356340kB, file-rss:0kB, shmem-rss:0kB, UID:21417 pgtables:169956kB "
      "oom_score_adj:0");
  EXPECT_EQ(k.kind, KernelLineKind::kOomVictim);
  EXPECT_EQ(k.pid, 1440763);
  EXPECT_EQ(k.comm, "python3");
  EXPECT_EQ(k.anon_rss_kb, 60356340);
  EXPECT_FALSE(k.memcg);
}

TEST(RuntimeKernelLines, VictimOfAMemoryCgroup) {
  const KernelLine k = MustParse(
      "Memory cgroup out of memory: Killed process 7899 (pt_main_thread) total-vm:31457280kB, "
      "anon-rss:20971520kB, file-rss:65536kB, shmem-rss:0kB, UID:0 pgtables:41200kB "
      "oom_score_adj:0");
  EXPECT_EQ(k.pid, 7899);
  EXPECT_EQ(k.comm, "pt_main_thread");
  EXPECT_TRUE(k.memcg);
}

TEST(RuntimeKernelLines, OlderVictimWordings) {
  // No message prefix (old kernels), thousands separators in a pasted copy.
  KernelLine k = MustParse(
      "Killed process 2592 (python) total-vm:26,184,840kB, anon-rss:25,412,004kB, "
      "file-rss:0kB");
  EXPECT_EQ(k.pid, 2592);
  EXPECT_EQ(k.comm, "python");
  EXPECT_EQ(k.anon_rss_kb, 25412004);
  // The kernel's words without counters.
  k = MustParse("Out of memory: Killed process 31337 (python)");
  EXPECT_EQ(k.pid, 31337);
  EXPECT_EQ(k.comm, "python");
  EXPECT_EQ(k.anon_rss_kb, -1);
}

TEST(RuntimeKernelLines, CommWithSpacesAndParentheses) {
  const KernelLine k = MustParse(
      "Out of memory: Killed process 812 ((sd-pam) x) total-vm:1024kB, anon-rss:512kB, "
      "file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:40kB oom_score_adj:0");
  EXPECT_EQ(k.pid, 812);
  EXPECT_EQ(k.comm, "(sd-pam) x");
}

TEST(RuntimeKernelLines, SummaryLine) {
  KernelLine k = MustParse(
      "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,"
      "task_memcg=/init.scope,task=python,pid=7899,uid=0");
  EXPECT_EQ(k.kind, KernelLineKind::kOomSummary);
  EXPECT_EQ(k.pid, 7899);
  EXPECT_EQ(k.comm, "python");
  EXPECT_FALSE(k.memcg);
  k = MustParse(
      "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=job_4411,mems_allowed=0-1,"
      "oom_memcg=/slurm/uid_0/job_4411,task_memcg=/slurm/uid_0/job_4411/step_0,task=python3.10,"
      "pid=221,uid=1000");
  EXPECT_TRUE(k.memcg);
  EXPECT_EQ(k.comm, "python3.10");
  EXPECT_EQ(k.pid, 221);
}

TEST(RuntimeKernelLines, TriggerLine) {
  const KernelLine k = MustParse(
      "python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, "
      "oom_score_adj=0");
  EXPECT_EQ(k.kind, KernelLineKind::kOomTrigger);
  EXPECT_EQ(k.comm, "python");
  EXPECT_EQ(k.pid, -1);
}

TEST(RuntimeKernelLines, SlurmCgroupReports) {
  for (std::string_view msg :
       {"slurmstepd: error: Detected 1 oom-kill event(s) in StepId=88121.0 cgroup. Some of your "
        "processes may have been killed by the cgroup out-of-memory handler.",
        "slurmstepd: error: Detected 3 oom_kill events in StepId=88121.batch. Some of the step "
        "tasks have been OOM Killed."}) {
    const KernelLine k = MustParse(msg);
    EXPECT_EQ(k.kind, KernelLineKind::kSlurmOom) << msg;
    EXPECT_TRUE(k.memcg);
  }
}

TEST(RuntimeKernelLines, XidLines) {
  KernelLine k = MustParse(
      "NVRM: Xid (PCI:0000:3b:00): 79, pid=2630, name=python, GPU has fallen off the bus.");
  EXPECT_EQ(k.kind, KernelLineKind::kXid);
  EXPECT_EQ(k.xid, 79);
  EXPECT_EQ(k.pci, "0000:3b:00");
  EXPECT_EQ(k.pid, 2630);
  EXPECT_EQ(k.comm, "python");
  EXPECT_EQ(k.text, "GPU has fallen off the bus.");
  // An older driver: no "PCI:", no name, the pid unknown.
  k = MustParse("NVRM: Xid (0000:07:00): 31, pid='<unknown>', Ch 00000010, intr 10000000.");
  EXPECT_EQ(k.xid, 31);
  EXPECT_EQ(k.pci, "0000:07:00");
  EXPECT_EQ(k.pid, -1);
  EXPECT_EQ(k.text, "Ch 00000010, intr 10000000.");
  // No pid field at all.
  k = MustParse(
      "NVRM: Xid (PCI:0000:b7:00): 48, An uncorrectable double bit error (DBE) has "
      "been detected on GPU in the framebuffer at partition 2, subpartition 0.");
  EXPECT_EQ(k.xid, 48);
  EXPECT_EQ(k.pid, -1);
  EXPECT_EQ(k.text.substr(0, 19), "An uncorrectable do");
}

TEST(RuntimeKernelLines, XidTable) {
  ASSERT_NE(FindXid(79), nullptr);
  EXPECT_TRUE(FindXid(79)->hardware);
  EXPECT_TRUE(FindXid(79)->counts);
  ASSERT_NE(FindXid(31), nullptr);
  EXPECT_FALSE(FindXid(31)->hardware);
  ASSERT_NE(FindXid(45), nullptr);
  EXPECT_FALSE(FindXid(45)->counts);  // clean-up after another error
  ASSERT_NE(FindXid(63), nullptr);
  EXPECT_FALSE(FindXid(63)->counts);  // a retirement recorded, not a failure
  EXPECT_EQ(FindXid(12345), nullptr);
}

TEST(RuntimeKernelLines, LookAlikesAreRejected) {
  for (std::string_view msg : {
           "oom_reaper: reaped process 7899 (python), now anon-rss:0kB, file-rss:0kB",
           "[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name",
           "memory.oom_kill_disable = 0",
           "config: {'oom_kill_after_retries': 3, 'oom_retry': True}",
           "Killed process group of the data loader after 5 retries",
           "worker: Killed process 1234 gracefully",
           "Detected 0 oom-kill event(s) in StepId=1.0 cgroup.",
           "NVRM: Xid handling enabled for all GPUs",
           "NVRM: Xid (PCI:zzzz): 79, GPU lost",
           "NVRM: Xid (PCI:0000:3b:00): seventy-nine",
       }) {
    EXPECT_FALSE(ParseKernelLine(msg).has_value()) << msg;
  }
}

TEST(RuntimeKernelLines, PrefilterSkipsOrdinaryLines) {
  for (std::string_view msg : {
           "[rank3]: step 1200 loss=2.13 grad_norm=0.88",
           "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
           "Killing subprocess 748089",
           "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
       }) {
    EXPECT_FALSE(MayBeKernelEvent(msg)) << msg;
  }
}

// The prefilter looks for 'K', 'X' and 'k' and checks around each: every
// anchor is found wherever it sits in the line (first byte, last bytes,
// after many look-alike bytes), and only there.
TEST(RuntimeKernelLines, PrefilterFindsEachAnchorAnywhereInTheLine) {
  const std::string pad(40, 'k');  // 'k's that are not "oom-kill"
  for (std::string_view anchor :
       {"Killed process", "oom-kill", "oom_kill", "Xid (", "OOM Killed"}) {
    for (const std::string& msg :
         {std::string(anchor), pad + std::string(anchor), std::string(anchor) + pad,
          "KXk " + pad + " x" + std::string(anchor) + "."}) {
      EXPECT_TRUE(MayBeKernelEvent(msg)) << msg;
    }
  }
  for (std::string_view msg : {"Killed proces", "oom-kil", "om-kill", "Xid(", "OOM Kill", "kill -9",
                               "KKKK XXXX kkkk", "oomkill", "OOM killed"}) {
    EXPECT_FALSE(MayBeKernelEvent(msg)) << msg;
  }
}

}  // namespace
}  // namespace casefile::runtime
