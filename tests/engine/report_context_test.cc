// The report context (lib/report/report_context.h) loaded from a real index:
// a three-host Megatron run written here, where one host stops logging
// early after a disk-full error, one host is slower, one host's loss turns
// NaN after its loss scale collapsed, and one host runs another torch.
// Every expectation below follows from the lines this file writes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "engine/session.h"
#include "test_util.h"

namespace casefile {
namespace {

// One Megatron iteration line (lm loss, loss scale, elapsed time per
// iteration) with a logging-module timestamp 20 s after the previous one.
std::string Iteration(int i, double step_ms, const std::string& loss, double scale) {
  const int sec = i * 20;
  char ts[64];
  std::snprintf(ts, sizeof ts, "2026-03-01 10:%02d:%02d,000", sec / 60, sec % 60);
  char line[512];
  std::snprintf(line, sizeof line,
                "%s INFO  iteration %8d/    1000 | consumed samples: %12d | elapsed time per "
                "iteration (ms): %.1f | learning rate: 1.500E-05 | global batch size:    64 | lm "
                "loss: %s | loss scale: %.1f |\n",
                ts, i, i * 64, step_ms, loss.c_str(), scale);
  return line;
}

std::string LossText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3E", v);
  return buf;
}

std::string MakeRun(const test::TempDir& tmp) {
  const std::string root = tmp.Join("run");
  struct Host {
    const char* name;
    double step_ms;
    int last;
    const char* torch;
  };
  for (const Host& h : {Host{"node-a", 1000, 60, "2.3.0"}, Host{"node-b", 1000, 20, "2.3.0"},
                        Host{"node-c", 1500, 60, "2.1.0"}}) {
    std::string log;
    for (int i = 1; i <= h.last; ++i) {
      const bool a = std::string(h.name) == "node-a";
      const std::string loss = a && i >= 40 ? "nan" : LossText(7.0 - i * 0.01);
      const double scale = a && i >= 30 ? 1.0 : 65536.0;
      log += Iteration(i, h.step_ms + i % 3, loss, scale);
      if (std::string(h.name) == "node-b" && i == 15) {
        log +=
            "2026-03-01 10:05:00,000 ERROR OSError: [Errno 28] No space left on device: "
            "'/ckpt/step15'\n";
      }
    }
    test::WriteFile(root + "/hosts/" + h.name + "/train.log", log);
    test::WriteFile(root + "/hosts/" + h.name + "/pip_freeze.txt",
                    std::string("numpy==1.26.4\ntorch==") + h.torch + "\n");
  }
  test::WriteFile(root + "/config/ds_config.json",
                  "{\"train_batch_size\": 64, \"fp16\": {\"enabled\": true, \"loss_scale\": 0}, "
                  "\"zero_optimization\": {\"stage\": 2}}\n");
  test::WriteFile(root + "/job/job_cmdline.txt",
                  "torchrun --nnodes 3 train.py --deepspeed ds_config.json\n");
  return root;
}

Report Analyze(const test::TempDir& tmp, const std::string& root) {
  SessionOptions opts;
  opts.index_path = tmp.Join("i.db");
  Session s({root}, opts);
  return s.Analyze({}, false);
}

size_t FindingIndex(const Report& r, const std::string& code) {
  for (size_t i = 0; i < r.findings.size(); ++i) {
    if (r.findings[i].code == code) return i;
  }
  ADD_FAILURE() << "no finding " << code;
  return 0;
}

TEST(ReportContext, InventoryVersionsAndEnvironment) {
  test::TempDir tmp;
  const Report r = Analyze(tmp, MakeRun(tmp));
  const ReportContext& c = r.context;
  EXPECT_TRUE(c.warnings.empty());

  ASSERT_EQ(c.inventory.bundles.size(), 1u);
  std::map<std::string, InventoryKind> kinds;
  for (const auto& k : c.inventory.bundles[0].kinds) kinds[k.kind] = k;
  EXPECT_EQ(kinds["log"].files, 4);  // three train.log and the command line
  EXPECT_EQ(kinds["version"].files, 3);
  EXPECT_EQ(kinds["version"].lines, 6);
  EXPECT_EQ(kinds["config"].files, 1);
  EXPECT_EQ(c.inventory.host_count, 3);
  EXPECT_EQ(c.inventory.hosts, (std::vector<std::string>{"node-a", "node-b", "node-c"}));

  ASSERT_EQ(c.versions.size(), 2u);
  EXPECT_EQ(c.version_component_count, 2);
  const VersionSpread& torch = c.versions[0];  // a key component comes first
  EXPECT_EQ(torch.component, "torch");
  EXPECT_TRUE(torch.key);
  EXPECT_TRUE(torch.differs());
  ASSERT_EQ(torch.values.size(), 2u);
  EXPECT_EQ(torch.values[0].value, "2.3.0");  // the majority first
  EXPECT_EQ(torch.values[0].hosts, (std::vector<std::string>{"node-a", "node-b"}));
  EXPECT_EQ(torch.values[1].value, "2.1.0");
  EXPECT_EQ(torch.values[1].hosts, (std::vector<std::string>{"node-c"}));
  EXPECT_EQ(torch.values[1].path, "hosts/node-c/pip_freeze.txt");
  EXPECT_EQ(torch.values[1].line, 2);
  EXPECT_EQ(c.versions[1].component, "numpy");
  EXPECT_FALSE(c.versions[1].differs());

  ASSERT_TRUE(c.environment.command_line.has_value());
  EXPECT_EQ(*c.environment.command_line, "torchrun --nnodes 3 train.py --deepspeed ds_config.json");
  EXPECT_EQ(c.environment.command_line_path, "job/job_cmdline.txt");
  EXPECT_EQ(c.environment.deepspeed_config_path, "config/ds_config.json");
  EXPECT_EQ(c.environment.deepspeed_config_keys, 4);
  std::map<std::string, std::string> ds;
  for (const auto& e : c.environment.deepspeed_config) ds[e.key] = e.value;
  EXPECT_EQ(ds["fp16.enabled"], "true");
  EXPECT_EQ(ds["zero_optimization.stage"], "2");
  EXPECT_TRUE(c.latency.endpoints.empty());
}

TEST(ReportContext, HostsAreComparedOnTheReportKindTheyShare) {
  // node-a's collect_env says torch 2.3.0+cu121, its pip list 2.3.0; node-b
  // has only a pip list saying 2.3.0. Comparing node-a's collect_env with
  // node-b's pip would call a healthy run inconsistent: hosts are compared
  // on the kind most of them have (pip), and agree. node-b's list also
  // names torch at two precisions (2.3 and 2.3.0): one release, the more
  // precise kept.
  test::TempDir tmp;
  const std::string root = tmp.Join("two");
  test::WriteFile(root + "/hosts/node-a/collect_env.txt",
                  "Collecting environment information...\nPyTorch version: 2.3.0+cu121\n"
                  "Is debug build: False\nCUDA used to build PyTorch: 12.1\n");
  test::WriteFile(root + "/hosts/node-a/pip_freeze.txt", "torch==2.3.0\n");
  test::WriteFile(root + "/hosts/node-b/pip_freeze.txt", "torch==2.3\ntorch==2.3.0\n");
  const Report r = Analyze(tmp, root);
  const VersionSpread* torch = nullptr;
  for (const auto& v : r.context.versions) {
    if (v.component == "torch") torch = &v;
  }
  ASSERT_NE(torch, nullptr);
  EXPECT_FALSE(torch->differs());
  ASSERT_EQ(torch->values.size(), 1u);
  EXPECT_EQ(torch->values[0].value, "2.3.0");
  EXPECT_EQ(torch->values[0].hosts, (std::vector<std::string>{"node-a", "node-b"}));
  EXPECT_EQ(torch->values[0].path, "hosts/node-a/pip_freeze.txt");
  EXPECT_EQ(torch->values[0].line, 1);
}

TEST(ReportContext, TimelineNamesTheHostThatFellSilentFirst) {
  test::TempDir tmp;
  const Report r = Analyze(tmp, MakeRun(tmp));
  const ReportTimeline& t = r.context.timeline;
  ASSERT_EQ(t.hosts.size(), 3u);
  EXPECT_EQ(t.host_count, 3);
  // node-b's last line is iteration 20 (10:06:40); the others log on until
  // iteration 60 (10:20:00): 800 s later, far over 30 s and 2% of the run.
  ASSERT_TRUE(t.first_silent.has_value());
  EXPECT_EQ(*t.first_silent, "node-b");
  EXPECT_EQ(t.hosts[0].host, "node-b");
  const int64_t t0 = 1772359200LL * 1000000;  // 2026-03-01 10:00:00 UTC
  EXPECT_EQ(t.hosts[0].first_us, t0 + 20'000'000);
  EXPECT_EQ(t.hosts[0].last_us, t0 + 400'000'000);
  EXPECT_EQ(t.hosts[0].lines, 21);
  EXPECT_EQ(t.start_us, t0 + 20'000'000);
  EXPECT_EQ(t.end_us, t0 + 1200'000'000);
  // The disk-full line is drawn on node-b at its own time.
  ASSERT_EQ(t.hosts[0].marks.size(), 1u);
  EXPECT_EQ(t.hosts[0].marks[0].kind, "finding");
  EXPECT_EQ(t.hosts[0].marks[0].label, "runtime.disk_full");
  EXPECT_EQ(t.hosts[0].marks[0].ts_us, t0 + 300'000'000);
  EXPECT_EQ(t.hosts[0].marks[0].path, "hosts/node-b/train.log");
  EXPECT_EQ(t.hosts[0].marks[0].line, 16);
  // node-a carries the NaN loss at iteration 40 (10:13:20).
  const HostTimeline& a = t.hosts[1].host == "node-a" ? t.hosts[1] : t.hosts[2];
  ASSERT_EQ(a.host, "node-a");
  ASSERT_EQ(a.marks.size(), 1u);
  EXPECT_EQ(a.marks[0].label, "numeric.nan_loss");
  EXPECT_EQ(a.marks[0].ts_us, t0 + 800'000'000);
}

TEST(ReportContext, CurvesMarkTheNanAndTheLossScaleCollapse) {
  test::TempDir tmp;
  const Report r = Analyze(tmp, MakeRun(tmp));
  const ReportContext& c = r.context;
  EXPECT_EQ(c.loss_series_count, 3);
  EXPECT_EQ(c.loss_scale_series_count, 3);
  ASSERT_EQ(c.loss.size(), 3u);
  // The series with non-finite values comes first.
  EXPECT_EQ(c.loss[0].host.value_or(""), "node-a");
  EXPECT_TRUE(c.loss[0].by_step);
  EXPECT_EQ(c.loss[0].points.size(), 60u);  // a short series keeps every point
  ASSERT_TRUE(c.loss[0].mark_step.has_value());
  EXPECT_EQ(*c.loss[0].mark_step, 40);
  EXPECT_EQ(c.loss[0].mark_label, "nan");
  EXPECT_TRUE(std::isnan(c.loss[0].points[45].value));
  EXPECT_TRUE(c.loss[0].points[45].nonfinite);
  EXPECT_DOUBLE_EQ(c.loss[0].points[0].value, 6.99);
  for (size_t i = 1; i < 3; ++i) EXPECT_FALSE(c.loss[i].mark_step.has_value());

  ASSERT_EQ(c.loss_scale.size(), 3u);
  const MetricSeries* a = nullptr;
  for (const auto& s : c.loss_scale) {
    if (s.host.value_or("") == "node-a") a = &s;
    if (s.host.value_or("") != "node-a") {
      EXPECT_FALSE(s.mark_step.has_value());
    }
  }
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->mark_step.has_value());
  EXPECT_EQ(*a->mark_step, 30);  // 65536 -> 1 at iteration 30
  EXPECT_EQ(a->mark_label, "collapse");
}

TEST(ReportContext, StepTimesMarkTheSlowHost) {
  test::TempDir tmp;
  const Report r = Analyze(tmp, MakeRun(tmp));
  const auto& st = r.context.step_times;
  ASSERT_EQ(st.size(), 3u);
  EXPECT_EQ(r.context.step_time_host_count, 3);
  EXPECT_EQ(st[0].host, "node-c");  // the straggler first
  EXPECT_TRUE(st[0].straggler);
  EXPECT_EQ(st[0].count, 60);
  EXPECT_DOUBLE_EQ(st[0].min_s, 1.5);
  EXPECT_DOUBLE_EQ(st[0].max_s, 1.502);
  EXPECT_DOUBLE_EQ(st[0].p50_s, 1.501);
  EXPECT_EQ(st[1].host, "node-a");
  EXPECT_FALSE(st[1].straggler);
  EXPECT_EQ(st[2].host, "node-b");
  EXPECT_EQ(st[2].count, 20);
  EXPECT_FALSE(st[2].straggler);
}

TEST(ReportContext, AReportWithoutContextHasTheSameFindingsAndNoContext) {
  // The diff keeps only the findings and asks for no context: nothing of it
  // is read, and the findings are the full report's.
  test::TempDir tmp;
  const std::string root = MakeRun(tmp);
  SessionOptions opts;
  opts.index_path = tmp.Join("i.db");
  Session s({root}, opts);
  const Report full = s.Analyze({}, false);
  const Report bare = s.Analyze({}, false, ReportParts::kNoContext);
  ASSERT_FALSE(full.context.step_times.empty());
  ASSERT_FALSE(full.context.inventory.bundles.empty());
  ASSERT_FALSE(full.context.loss.empty());
  EXPECT_TRUE(bare.context.step_times.empty());
  EXPECT_TRUE(bare.context.inventory.bundles.empty());
  EXPECT_TRUE(bare.context.loss.empty());
  EXPECT_TRUE(bare.context.evidence.empty());
  ASSERT_EQ(bare.findings.size(), full.findings.size());
  for (size_t i = 0; i < full.findings.size(); ++i) {
    EXPECT_EQ(RenderFindingJson(bare.findings[i]), RenderFindingJson(full.findings[i]));
  }
  EXPECT_EQ(bare.analyzers.size(), full.analyzers.size());
}

TEST(ReportContext, EvidenceComesWithTheLinesAroundIt) {
  test::TempDir tmp;
  const Report r = Analyze(tmp, MakeRun(tmp));
  ASSERT_EQ(r.context.evidence.size(), r.findings.size());
  const size_t i = FindingIndex(r, "runtime.disk_full");
  ASSERT_EQ(r.context.evidence[i].size(), 1u);
  const EvidenceContext& c = r.context.evidence[i][0];
  ASSERT_EQ(c.before.size(), 2u);
  EXPECT_EQ(c.before[0].line, 14);
  EXPECT_EQ(c.before[1].line, 15);
  EXPECT_NE(c.before[1].text.find("iteration       15/"), std::string::npos) << c.before[1].text;
  ASSERT_EQ(c.after.size(), 2u);
  EXPECT_EQ(c.after[0].line, 17);
  EXPECT_NE(c.after[0].text.find("iteration       16/"), std::string::npos) << c.after[0].text;
  // The last line of a file has nothing after it.
  const size_t n = FindingIndex(r, "numeric.nan_loss");
  ASSERT_FALSE(r.context.evidence[n].empty());
  EXPECT_EQ(r.context.evidence[n][0].before.size(), 2u);
}

TEST(ReportContext, LongSeriesAreDownsampledKeepingExtremesAndTheFirstNan) {
  test::TempDir tmp;
  const std::string root = tmp.Join("long");
  std::string log;
  for (int i = 1; i <= 5000; ++i) {
    std::string loss = LossText(3.0 - i * 0.0001);
    if (i == 3333) loss = LossText(42.0);  // one spike
    if (i >= 4000) loss = "nan";
    char line[256];
    std::snprintf(line, sizeof line,
                  " iteration %8d/   10000 | lm loss: %s | loss scale: 1024.0 |\n", i,
                  loss.c_str());
    log += line;
  }
  test::WriteFile(root + "/hosts/node-a/train.log", log);
  const Report r = Analyze(tmp, root);
  ASSERT_EQ(r.context.loss.size(), 1u);
  const MetricSeries& s = r.context.loss[0];
  EXPECT_LE(s.points.size(), kContextPointsPerSeries);
  EXPECT_GE(s.points.size(), kContextPointsPerSeries / 2);
  EXPECT_EQ(s.points.front().step, 1);
  EXPECT_EQ(s.points.back().step, 5000);
  bool spike = false, first_nan = false;
  for (const CurvePoint& p : s.points) {
    if (p.step == 3333 && p.value == 42.0) spike = true;
    if (p.step == 4000 && p.nonfinite) first_nan = true;
  }
  EXPECT_TRUE(spike);
  EXPECT_TRUE(first_nan);
  ASSERT_TRUE(s.mark_step.has_value());
  EXPECT_EQ(*s.mark_step, 4000);
  // Steps stay in order.
  for (size_t i = 1; i < s.points.size(); ++i) EXPECT_LT(s.points[i - 1].step, s.points[i].step);
}

TEST(ReportContext, DeepSpeedOverflowLinesDrawTheLossScale) {
  // A DeepSpeed fp16 run logs its scale only in the overflow lines
  // ("reducing to N"): that series is the loss-scale curve, halving from
  // 32768 to 1 (a 32768-fold fall) and marked where it reaches 1.
  test::TempDir tmp;
  const std::string root = tmp.Join("ds");
  std::string log;
  int scale = 65536;
  for (int i = 0; i < 16; ++i) {
    char line[320];
    std::snprintf(line, sizeof line,
                  "[default0]:[2026-02-03 22:06:%02d,581] [INFO] [loss_scaler.py:183:update_scale] "
                  "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing "
                  "to %d\n",
                  i, scale, scale / 2);
    log += line;
    scale /= 2;
  }
  test::WriteFile(root + "/hosts/node-a/train.log", log);
  const Report r = Analyze(tmp, root);
  ASSERT_EQ(r.context.loss_scale.size(), 1u);
  const MetricSeries& s = r.context.loss_scale[0];
  EXPECT_EQ(s.name, "loss_scale");
  EXPECT_FALSE(s.by_step);  // the overflow lines name no step: drawn by position
  ASSERT_EQ(s.points.size(), 16u);
  EXPECT_EQ(s.points.front().value, 32768);
  EXPECT_EQ(s.points.back().value, 1);
  EXPECT_EQ(s.points.back().step, 15);
  ASSERT_TRUE(s.mark_step.has_value());
  EXPECT_EQ(*s.mark_step, 15);
  EXPECT_EQ(s.mark_label, "collapse");
}

TEST(ReportContext, ManyHostsAreCappedKeepingTheCulprit) {
  test::TempDir tmp;
  const std::string root = tmp.Join("wide");
  // 80 hosts log for 10 minutes; host-077 hits a disk-full error at the end
  // and sits in the middle of the list by the time it stopped.
  for (int h = 0; h < 80; ++h) {
    char name[16];
    std::snprintf(name, sizeof name, "host-%03d", h);
    std::string log;
    for (int i = 1; i <= 30; ++i) log += Iteration(i, 1000, LossText(5.0), 1024);
    if (h == 77) {
      log += "2026-03-01 10:10:00,000 ERROR OSError: [Errno 28] No space left on device\n";
    }
    test::WriteFile(root + "/" + name + "/train.log", log);
  }
  const Report r = Analyze(tmp, root);
  const ReportTimeline& t = r.context.timeline;
  EXPECT_EQ(t.host_count, 80);
  EXPECT_EQ(t.hosts.size(), kContextHosts);
  EXPECT_FALSE(t.first_silent.has_value());  // they all stop together
  bool culprit = false;
  for (const auto& h : t.hosts) culprit |= h.host == "host-077";
  EXPECT_TRUE(culprit);
  EXPECT_EQ(r.context.step_time_host_count, 80);
  EXPECT_EQ(r.context.step_times.size(), kContextHosts);
  bool named = false;  // host-077 sorts past the cap by name, but a finding names it
  for (const auto& h : r.context.step_times) named |= h.host == "host-077";
  EXPECT_TRUE(named);
  EXPECT_EQ(r.context.inventory.host_count, 80);
}

TEST(ReportContext, UnsetClocksStayOffTheTimelineAndNulsSeparateArguments) {
  test::TempDir tmp;
  const std::string root = tmp.Join("odd");
  std::string good, cold;
  for (int i = 1; i <= 30; ++i) good += Iteration(i, 1000, LossText(5.0), 1024);
  // A host whose clock was never set logs from 1970.
  for (int i = 1; i <= 30; ++i) {
    std::string line = Iteration(i, 1000, LossText(5.0), 1024);
    cold += "1970" + line.substr(4);
  }
  test::WriteFile(root + "/hosts/node-a/train.log", good);
  test::WriteFile(root + "/hosts/node-b/train.log", good);
  test::WriteFile(root + "/hosts/node-z/train.log", cold);
  const char kCmdline[] = "python\0-m\0torch.distributed.run\0train.py\0";
  test::WriteFile(root + "/job/proc_cmdline", std::string(kCmdline, sizeof kCmdline - 1));
  const Report r = Analyze(tmp, root);
  const ReportTimeline& t = r.context.timeline;
  ASSERT_EQ(t.hosts.size(), 2u);
  EXPECT_EQ(t.hosts[0].host, "node-a");
  EXPECT_EQ(t.hosts[1].host, "node-b");
  EXPECT_FALSE(t.first_silent.has_value());
  EXPECT_EQ(t.start_us, 1772359200LL * 1000000 + 20'000'000);
  ASSERT_TRUE(r.context.environment.command_line.has_value());
  EXPECT_EQ(*r.context.environment.command_line, "python -m torch.distributed.run train.py");
}

}  // namespace
}  // namespace casefile
