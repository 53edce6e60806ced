// comm.tcp_config: the reading of sysctl lines in every form the collector
// (sysctl, or its /proc/sys fallback) and people (sysctl -a, grep -r
// /proc/sys) write, the judgement of each setting, and the rule end to end
// through ingest (hosts/<host>/sysinfo/sysctl_net.txt, as casefile collect
// lays a bundle out). Expected values come from docs/FINDINGS.md ("comm").
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "analyze/analyzer_test_util.h"
#include "analyze/analyzers/comm/comm_tcp_sysctl.h"
#include "analyze/analyzers/comm/comm_trace_rules.h"

namespace casefile {
namespace {

using comm::JudgeTcpSetting;
using comm::ParseSysctlLine;
using comm::SysctlValue;

TEST(CommSysctlLine, ReadsEveryForm) {
  struct Case {
    const char* line;
    const char* key;
    const char* value;
  };
  const Case cases[] = {
      {"net.ipv4.tcp_rmem = 4096\t131072\t6291456", "net.ipv4.tcp_rmem", "4096 131072 6291456"},
      {"net.ipv4.tcp_rmem=4096 87380 16777216", "net.ipv4.tcp_rmem", "4096 87380 16777216"},
      {"net.core.rmem_max = 212992", "net.core.rmem_max", "212992"},
      {"  net.core.wmem_max   =   268435456  ", "net.core.wmem_max", "268435456"},
      {"/proc/sys/net/ipv4/tcp_wmem:4096\t16384\t4194304", "net.ipv4.tcp_wmem",
       "4096 16384 4194304"},
      {"net/ipv4/tcp_slow_start_after_idle = 1", "net.ipv4.tcp_slow_start_after_idle", "1"},
      {"net.ipv4.tcp_congestion_control\tcubic", "net.ipv4.tcp_congestion_control", "cubic"},
      {"net.ipv4.ip_local_port_range = 32768\t60999", "net.ipv4.ip_local_port_range",
       "32768 60999"},
      {"net.ipv4.tcp_mtu_probing: 0", "net.ipv4.tcp_mtu_probing", "0"},
      {"net.core.netdev_max_backlog = 1000\r", "net.core.netdev_max_backlog", "1000"},
  };
  for (const Case& c : cases) {
    const std::optional<SysctlValue> v = ParseSysctlLine(c.line);
    ASSERT_TRUE(v.has_value()) << c.line;
    EXPECT_EQ(v->key, c.key) << c.line;
    EXPECT_EQ(v->value, c.value) << c.line;
  }
}

TEST(CommSysctlLine, IgnoresWhatIsNoNetSetting) {
  for (const char* line : {
           "", "# sysctl settings for the training image",
           "sysctl: cannot stat /proc/sys/net/ipv4/tcp_foo: No such file or directory",
           "kernel.pid_max = 4194304", "vm.swappiness = 10",
           "net.ipv4.tcp_rmem",                        // no value
           "net.ipv4.tcp_rmem = ",                     // empty value
           "net. = 3",                                 // no key after the prefix
           "network.tcp_rmem = 1",                     // not under net.
           "+ sysctl -w net.core.rmem_max=268435456",  // a shell trace, not an output line
       }) {
    EXPECT_FALSE(ParseSysctlLine(line).has_value()) << line;
  }
}

std::optional<comm::TcpIssue> Judge(const std::string& line) {
  const std::optional<SysctlValue> v = ParseSysctlLine(line);
  EXPECT_TRUE(v.has_value()) << line;
  return v ? JudgeTcpSetting(*v) : std::nullopt;
}

TEST(CommTcpSetting, BufferMaximaUnder16MiBAreFlagged) {
  // Kernel defaults: 6 MiB / 4 MiB for TCP autotuning, 208 KiB for the caps.
  auto rmem = Judge("net.ipv4.tcp_rmem = 4096\t131072\t6291456");
  ASSERT_TRUE(rmem);
  EXPECT_EQ(rmem->found, "max 6291456 (6 MiB)");
  EXPECT_EQ(rmem->expected, "max >= 16777216 (16 MiB)");
  EXPECT_FALSE(rmem->why.empty());
  auto core = Judge("net.core.rmem_max = 212992");
  ASSERT_TRUE(core);
  EXPECT_EQ(core->found, "212992 (208 KiB)");
  EXPECT_TRUE(Judge("net.ipv4.tcp_wmem = 4096 16384 4194304"));
  EXPECT_TRUE(Judge("net.core.wmem_max = 16777215"));  // one byte short
  // Exactly 16 MiB and more pass.
  EXPECT_FALSE(Judge("net.ipv4.tcp_rmem = 4096 87380 16777216"));
  EXPECT_FALSE(Judge("net.ipv4.tcp_wmem = 4096 65536 67108864"));
  EXPECT_FALSE(Judge("net.core.rmem_max = 268435456"));
  // Unreadable values are not judged.
  EXPECT_FALSE(Judge("net.ipv4.tcp_rmem = 4096 6291456"));
  EXPECT_FALSE(Judge("net.core.rmem_max = lots"));
}

TEST(CommTcpSetting, OtherSettings) {
  EXPECT_TRUE(Judge("net.ipv4.tcp_slow_start_after_idle = 1"));
  EXPECT_FALSE(Judge("net.ipv4.tcp_slow_start_after_idle = 0"));
  EXPECT_TRUE(Judge("net.ipv4.tcp_mtu_probing = 0"));
  EXPECT_FALSE(Judge("net.ipv4.tcp_mtu_probing = 1"));
  EXPECT_FALSE(Judge("net.ipv4.tcp_mtu_probing = 2"));
  EXPECT_TRUE(Judge("net.core.netdev_max_backlog = 1000"));
  EXPECT_FALSE(Judge("net.core.netdev_max_backlog = 30000"));
  auto reno = Judge("net.ipv4.tcp_congestion_control = reno");
  ASSERT_TRUE(reno);
  EXPECT_EQ(reno->expected, "cubic or bbr");
  EXPECT_TRUE(Judge("net.ipv4.tcp_congestion_control = lp"));
  EXPECT_FALSE(Judge("net.ipv4.tcp_congestion_control = cubic"));
  EXPECT_FALSE(Judge("net.ipv4.tcp_congestion_control = bbr"));
  EXPECT_FALSE(Judge("net.ipv4.tcp_congestion_control = dctcp"));
  auto ports = Judge("net.ipv4.ip_local_port_range = 50000\t60000");
  ASSERT_TRUE(ports);
  EXPECT_EQ(ports->found, "50000 60000 (10001 ports)");
  EXPECT_FALSE(Judge("net.ipv4.ip_local_port_range = 32768\t60999"));  // the default
  EXPECT_FALSE(Judge("net.ipv4.ip_local_port_range = 1024 65535"));
  // Not judged: the keepalive (not clearly harmful either way), the defaults.
  EXPECT_FALSE(Judge("net.ipv4.tcp_keepalive_time = 7200"));
  EXPECT_FALSE(Judge("net.core.rmem_default = 212992"));
}

std::string Healthy() {
  return "net.ipv4.tcp_rmem = 4096\t131072\t67108864\n"
         "net.ipv4.tcp_wmem = 4096\t65536\t67108864\n"
         "net.core.rmem_max = 268435456\n"
         "net.core.wmem_max = 268435456\n"
         "net.core.rmem_default = 212992\n"
         "net.core.wmem_default = 212992\n"
         "net.ipv4.tcp_congestion_control = cubic\n"
         "net.core.netdev_max_backlog = 30000\n"
         "net.ipv4.tcp_mtu_probing = 1\n"
         "net.ipv4.tcp_slow_start_after_idle = 0\n"
         "net.ipv4.ip_local_port_range = 32768\t60999\n"
         "net.ipv4.tcp_keepalive_time = 7200\n";
}

std::vector<Finding> RunTrace(const IndexReader& index) {
  AnalysisContext ctx(index);
  return comm::RunTraceRules(ctx);
}

const Finding* Code(const std::vector<Finding>& fs, const std::string& code) {
  for (const Finding& f : fs) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

TEST(CommTcpConfig, NamesHostsSettingsAndCitesTheLines) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  const std::string w0 = "t1v-n-5c2e90a1-w-0", w1 = "t1v-n-5c2e90a1-w-1";
  const std::string w2 = "t1v-n-5c2e90a1-w-2";
  test::WriteFile(root + "/hosts/" + w0 + "/sysinfo/sysctl_net.txt", Healthy());
  // w-1: the container's defaults (lines 1, 2, 7, 10 bad; 3 and 4 bad too).
  test::WriteFile(root + "/hosts/" + w1 + "/sysinfo/sysctl_net.txt",
                  "net.ipv4.tcp_rmem = 4096\t131072\t6291456\n"    // 1
                  "net.ipv4.tcp_wmem = 4096\t16384\t4194304\n"     // 2
                  "net.core.rmem_max = 212992\n"                   // 3
                  "net.core.wmem_max = 212992\n"                   // 4
                  "net.core.rmem_default = 212992\n"               // 5
                  "net.core.wmem_default = 212992\n"               // 6
                  "net.ipv4.tcp_congestion_control = cubic\n"      // 7
                  "net.core.netdev_max_backlog = 30000\n"          // 8
                  "net.ipv4.tcp_mtu_probing = 1\n"                 // 9
                  "net.ipv4.tcp_slow_start_after_idle = 1\n"       // 10
                  "net.ipv4.ip_local_port_range = 32768\t60999\n"  // 11
                  "net.ipv4.tcp_keepalive_time = 7200\n");         // 12
  // w-2: the /proc/sys fallback form, only slow start wrong.
  std::string proc = Healthy();
  proc.replace(proc.find("net.ipv4.tcp_slow_start_after_idle = 0"),
               std::string("net.ipv4.tcp_slow_start_after_idle = 0").size(),
               "/proc/sys/net/ipv4/tcp_slow_start_after_idle:1");
  test::WriteFile(root + "/hosts/" + w2 + "/sysinfo/sysctl_net.txt", proc);
  const auto index = test::IndexOf(tmp, root);
  const std::vector<Finding> fs = RunTrace(*index);
  const Finding* f = Code(fs, "comm.tcp_config");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  std::set<std::string> culprits;
  for (const Culprit& c : f->culprits) culprits.insert(c.host.value_or(""));
  EXPECT_EQ(culprits, (std::set<std::string>{w1, w2}));
  std::set<std::pair<std::string, int64_t>> cited;
  for (const Evidence& e : f->evidence) cited.insert({e.path, e.line});
  const std::string p1 = "hosts/" + w1 + "/sysinfo/sysctl_net.txt";
  const std::string p2 = "hosts/" + w2 + "/sysinfo/sysctl_net.txt";
  EXPECT_EQ(cited, (std::set<std::pair<std::string, int64_t>>{
                       {p1, 1}, {p1, 2}, {p1, 3}, {p1, 4}, {p1, 10}, {p2, 10}}));
  for (const Evidence& e : f->evidence) {
    if (e.path == p2) {
      EXPECT_EQ(e.text, "/proc/sys/net/ipv4/tcp_slow_start_after_idle:1");
    }
  }
  // Each setting with the value found and the range expected.
  EXPECT_NE(f->summary.find("net.ipv4.tcp_rmem is max 6291456 (6 MiB), expected max >= "
                            "16777216 (16 MiB)"),
            std::string::npos)
      << f->summary;
  EXPECT_NE(f->summary.find("net.ipv4.tcp_slow_start_after_idle is 1, expected 0"),
            std::string::npos);
  EXPECT_NE(f->summary.find("2 of 3 host(s)"), std::string::npos) << f->summary;
  EXPECT_EQ(f->summary.find("tcp_keepalive"), std::string::npos);
  EXPECT_NE(f->recommendation.find("container"), std::string::npos);
}

TEST(CommTcpConfig, HealthyOrAbsentSysctlsDoNotFire) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  test::WriteFile(root + "/hosts/node-1/sysinfo/sysctl_net.txt", Healthy());
  test::WriteFile(root + "/hosts/node-2/sysinfo/sysctl_net.txt", Healthy());
  // A log that mentions bad values is no sysctl output.
  test::WriteFile(root + "/hosts/node-2/train.log",
                  "net.ipv4.tcp_slow_start_after_idle = 1\nnet.core.rmem_max = 212992\n");
  // Other sysinfo files are not read for it.
  test::WriteFile(root + "/hosts/node-2/sysinfo/ulimit.txt", "net.core.rmem_max = 212992\n");
  const auto index = test::IndexOf(tmp, root);
  EXPECT_EQ(Code(RunTrace(*index), "comm.tcp_config"), nullptr);
}

TEST(CommTcpConfig, TheLastValueOfAKeyCounts) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  // sysctl -a output followed by the value set later: the later one is in effect.
  test::WriteFile(root + "/hosts/node-1/sysinfo/sysctl_net.txt",
                  "net.ipv4.tcp_slow_start_after_idle = 1\n" + Healthy());
  const auto index = test::IndexOf(tmp, root);
  EXPECT_EQ(Code(RunTrace(*index), "comm.tcp_config"), nullptr);
}

}  // namespace
}  // namespace casefile
