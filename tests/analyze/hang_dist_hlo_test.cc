// HLO dumps compared across hosts without a digest (docs/FINDINGS.md,
// section hang, rule R4), and how the result joins a digest finding.
#include <gtest/gtest.h>

#include "analyze/analyzers/hang/hlo_rules.h"
#include "analyze/hang_dist_fixture.h"

namespace casefile::hang {
namespace {

using test::Cites;
using test::Codes;
using test::DistBundle;
using test::HostOnly;

std::string Dump(int host, const std::string& module) {
  return "xla_dump/host-" + std::to_string(host) + "/module_0001." + module +
         ".before_optimizations.txt";
}

// Four hosts dump jit_train_step; `odd` hosts get another fingerprint.
DistBundle FourHosts(std::vector<int> odd) {
  DistBundle b;
  for (int h = 0; h < 4; ++h) {
    const std::string host = "host-" + std::to_string(h);
    const int64_t f =
        b.File(Dump(h, "jit_train_step"), host, std::nullopt, "", 900, kNoTimestamp, "hlo");
    const bool is_odd = std::find(odd.begin(), odd.end(), h) != odd.end();
    b.Hlo(f, "jit_train_step", host, is_odd ? "9bd04e11aa70c2f3" : "3f2a81c0d4e5f607");
  }
  return b;
}

TEST(HloAcrossHosts, MinorityFingerprintNamesItsHost) {
  DistBundle b = FourHosts({3});
  const auto fs = b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.fingerprint_mismatch"});
  const Finding& f = fs[0];
  EXPECT_EQ(f.culprits, (std::vector<Culprit>{HostOnly("host-3")}));
  // Line 1 (the HloModule header) of one dump per side.
  EXPECT_TRUE(Cites(f, Dump(3, "jit_train_step"), 1));
  EXPECT_TRUE(Cites(f, Dump(0, "jit_train_step"), 1));
  EXPECT_EQ(f.evidence.size(), 2u);
  EXPECT_NE(f.summary.find("jit_train_step (before_optimizations): fingerprint 3f2a81c0d4e5... on "
                           "host-0, host-1, host-2, fingerprint 9bd04e11aa70... on host-3"),
            std::string::npos)
      << f.summary;
}

TEST(HloAcrossHosts, XlaFingerprintDecidesWhenEveryDumpHasOne) {
  DistBundle b;
  for (int h = 0; h < 3; ++h) {
    const std::string host = "host-" + std::to_string(h);
    const int64_t f = b.File(Dump(h, "jit_step"), host, std::nullopt, "", 10, kNoTimestamp, "hlo");
    // The text hashes differ (say, in metadata), XLA's fingerprint does not.
    b.Hlo(f, "jit_step", host, "text" + std::to_string(h), "4f0b158bd9d6b8288169c67c4314b51b",
          "sm_9.0_gpu_after_optimizations");
  }
  EXPECT_TRUE(b.Run().empty());
}

TEST(HloAcrossHosts, TwoHostsThatDisagreeAreBothNamed) {
  DistBundle b;
  for (int h = 0; h < 2; ++h) {
    const std::string host = "host-" + std::to_string(h);
    const int64_t f = b.File(Dump(h, "jit_step"), host, std::nullopt, "", 10, kNoTimestamp, "hlo");
    b.Hlo(f, "jit_step", host, "fp" + std::to_string(h));
  }
  const auto fs = b.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{HostOnly("host-0"), HostOnly("host-1")}));
  EXPECT_NE(fs[0].summary.find("cannot tell which is odd"), std::string::npos);
}

TEST(HloAcrossHosts, DigestFindingTakesTheDumpsAndKeepsItsCulpritsOnATie) {
  DistBundle b;
  for (int h = 0; h < 2; ++h) {
    const std::string host = "host-" + std::to_string(h);
    const int64_t f = b.File(Dump(h, "jit_step"), host, std::nullopt, "", 10, kNoTimestamp, "hlo");
    b.Hlo(f, "jit_step", host, "fp" + std::to_string(h));
  }
  MxlaOutcome mxla;
  mxla.any_digest = true;
  Finding digest;
  digest.code = "hang.fingerprint_mismatch";
  digest.culprits = {HostOnly("host-1")};
  digest.evidence = {Evidence{"bundle", "logs/host-0/worker.log", 1650, "Megascale detects ..."}};
  digest.summary = "The Megascale coordinator digest attributes the hang to inconsistent HLO.";
  mxla.findings.push_back(digest);
  const auto fs = b.Run(mxla);
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.fingerprint_mismatch"});
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{HostOnly("host-1")}));
  EXPECT_TRUE(Cites(fs[0], "logs/host-0/worker.log", 1650));
  EXPECT_TRUE(Cites(fs[0], Dump(0, "jit_step"), 1));
  EXPECT_TRUE(Cites(fs[0], Dump(1, "jit_step"), 1));
  EXPECT_NE(fs[0].summary.find("The HLO dumps show 1 module compiled to different fingerprints"),
            std::string::npos)
      << fs[0].summary;
}

TEST(HloAcrossHosts, DigestFindingTakesTheMinorityHostToo) {
  DistBundle b = FourHosts({2});
  MxlaOutcome mxla;
  mxla.any_digest = true;
  Finding digest;
  digest.code = "hang.fingerprint_mismatch";
  digest.evidence = {Evidence{"bundle", "coord.log", 5, "digest"}};
  mxla.findings.push_back(digest);
  const auto fs = b.Run(mxla);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{HostOnly("host-2")}));
}

TEST(HloAcrossHosts, HostWithAnotherSetOfModules) {
  DistBundle b;
  for (int h = 0; h < 4; ++h) {
    const std::string host = "host-" + std::to_string(h);
    for (const std::string m : {"jit_train_step", h == 1 ? "jit_eval_step" : "jit_update"}) {
      const int64_t f = b.File(Dump(h, m), host, std::nullopt, "", 10, kNoTimestamp, "hlo");
      b.Hlo(f, m, host, m + "-fp");
    }
  }
  const auto fs = b.Run();
  ASSERT_EQ(Codes(fs), std::vector<std::string>{"hang.different_module"});
  EXPECT_EQ(fs[0].culprits, (std::vector<Culprit>{HostOnly("host-1")}));
  EXPECT_NE(fs[0].summary.find("host host-1 (before_optimizations) compiled jit_eval_step and "
                               "lacks jit_update compared with host host-0"),
            std::string::npos)
      << fs[0].summary;
  EXPECT_TRUE(Cites(fs[0], Dump(1, "jit_eval_step"), 1));
  EXPECT_TRUE(Cites(fs[0], Dump(0, "jit_update"), 1));
}

TEST(HloAcrossHosts, ReportOnlyUnknownGivesWayToTheDumps) {
  DistBundle b = FourHosts({1});
  MxlaOutcome mxla;
  Finding unknown;
  unknown.code = "hang.unknown";
  unknown.evidence = {Evidence{"bundle", "w.log", 3, "Megascale hang detected"}};
  mxla.findings.push_back(unknown);
  const auto fs = b.Run(mxla);
  EXPECT_EQ(Codes(fs), std::vector<std::string>{"hang.fingerprint_mismatch"});
}

TEST(HloAcrossHosts, DumpsWithoutHostOrFromOneHostCompareNothing) {
  DistBundle b;
  const int64_t f1 = b.File("a.txt", "", std::nullopt, "", 10, kNoTimestamp, "hlo");
  const int64_t f2 = b.File("b.txt", "", std::nullopt, "", 10, kNoTimestamp, "hlo");
  b.Hlo(f1, "jit_x", "", "fp1");
  b.Hlo(f2, "jit_x", "", "fp2");
  const int64_t f3 = b.File("h/c.txt", "h", std::nullopt, "", 10, kNoTimestamp, "hlo");
  const int64_t f4 = b.File("h/d.txt", "h", std::nullopt, "", 10, kNoTimestamp, "hlo");
  b.Hlo(f3, "jit_y", "h", "fp3");
  b.Hlo(f4, "jit_y", "h", "fp4");
  EXPECT_TRUE(b.Run().empty());
}

}  // namespace
}  // namespace casefile::hang
