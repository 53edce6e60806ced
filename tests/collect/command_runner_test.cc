// collect/command_runner.h: commands run with a deadline in their own
// process group; every way a command can fail is recorded, none throws.
#include "collect/command_runner.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

namespace casefile::collect {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

TEST(CommandRunner, CapturesStdoutStderrAndTheExitStatus) {
  CommandOutcome o = RunCommand({"sh", "-c", "echo out; echo err >&2; exit 7"}, RunOptions{});
  EXPECT_TRUE(o.started);
  EXPECT_EQ(o.out, "out\n");
  EXPECT_EQ(o.err, "err\n");
  ASSERT_TRUE(o.exit_status.has_value());
  EXPECT_EQ(*o.exit_status, 7);
  EXPECT_FALSE(o.signal.has_value());
  EXPECT_FALSE(o.timed_out);
  EXPECT_FALSE(o.succeeded());
  EXPECT_TRUE(RunCommand({"true"}, RunOptions{}).succeeded());
}

TEST(CommandRunner, AMissingBinaryIsRecordedAsNotFound) {
  CommandOutcome o = RunCommand({"casefile-no-such-command-xyz", "--version"}, RunOptions{});
  EXPECT_FALSE(o.started);
  EXPECT_EQ(o.start_error, "command not found");
  EXPECT_FALSE(o.exit_status.has_value());
  EXPECT_EQ(RunCommand({}, RunOptions{}).start_error, "empty command");
}

TEST(CommandRunner, AHangingCommandIsKilledAtItsTimeout) {
  RunOptions options;
  options.timeout_ms = 300;
  auto start = Clock::now();
  CommandOutcome o = RunCommand({"sleep", "100"}, options);
  EXPECT_LT(Seconds(start), 5.0);
  EXPECT_TRUE(o.timed_out);
  ASSERT_TRUE(o.signal.has_value());
  EXPECT_EQ(*o.signal, SIGTERM);
  EXPECT_GE(o.duration_ms, 300u);
}

TEST(CommandRunner, ACommandIgnoringSigtermGetsSigkill) {
  RunOptions options;
  options.timeout_ms = 300;
  options.kill_grace_ms = 200;
  auto start = Clock::now();
  // The shell ignores TERM and waits on a child that ignores it too.
  CommandOutcome o = RunCommand({"sh", "-c", "trap '' TERM; sleep 100; echo never"}, options);
  EXPECT_LT(Seconds(start), 5.0);
  EXPECT_TRUE(o.timed_out);
  ASSERT_TRUE(o.signal.has_value());
  EXPECT_EQ(*o.signal, SIGKILL);
  EXPECT_EQ(o.out, "");
}

TEST(CommandRunner, ABackgroundChildHoldingThePipeIsKilledWithTheGroup) {
  RunOptions options;
  options.timeout_ms = 400;
  auto start = Clock::now();
  // The shell exits at once; the sleep it left keeps stdout open.
  CommandOutcome o = RunCommand({"sh", "-c", "sleep 100 & echo started"}, options);
  EXPECT_LT(Seconds(start), 5.0);
  EXPECT_TRUE(o.timed_out);
  EXPECT_EQ(o.out, "started\n");
  ASSERT_TRUE(o.exit_status.has_value());
  EXPECT_EQ(*o.exit_status, 0);
}

TEST(CommandRunner, OutputBeyondTheCapIsDroppedAndMarked) {
  RunOptions options;
  options.max_output_bytes = 1000;
  CommandOutcome o = RunCommand({"sh", "-c", "head -c 300000 /dev/zero | tr '\\0' x"}, options);
  EXPECT_EQ(o.out, std::string(1000, 'x'));
  EXPECT_TRUE(o.out_truncated);
  EXPECT_FALSE(o.err_truncated);
  EXPECT_TRUE(o.succeeded()) << "the command ran to its end: its output was drained";
}

TEST(CommandRunner, StdinIsEmptyAndTheDirectoryIsRoot) {
  CommandOutcome o = RunCommand({"sh", "-c", "cat; pwd"}, RunOptions{});
  EXPECT_EQ(o.out, "/\n");
}

TEST(CommandRunner, LocaleIsFixedForStableOutput) {
  CommandOutcome o = RunCommand({"sh", "-c", "echo $LC_ALL"}, RunOptions{});
  EXPECT_EQ(o.out, "C\n");
}

TEST(CommandRunner, CancelStopsARunningCommand) {
  std::atomic<bool> cancel{false};
  RunOptions options;
  options.timeout_ms = 60000;
  options.cancel = &cancel;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  auto start = Clock::now();
  CommandOutcome o = RunCommand({"sleep", "100"}, options);
  stopper.join();
  EXPECT_LT(Seconds(start), 5.0);
  EXPECT_TRUE(o.cancelled);
  EXPECT_FALSE(o.timed_out);
}

TEST(CommandRunner, SeveralThreadsRunCommandsAtOnce) {
  std::vector<std::thread> threads;
  std::vector<std::string> outs(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([i, &outs] {
      outs[static_cast<size_t>(i)] =
          RunCommand({"sh", "-c", "sleep 0.2; echo " + std::to_string(i)}, RunOptions{}).out;
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(outs[static_cast<size_t>(i)], std::to_string(i) + "\n");
}

}  // namespace
}  // namespace casefile::collect
