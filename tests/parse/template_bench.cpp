// Cost per line of template mining (parse/template/) on one core: the masked
// hash alone, the signature lookup as ingest runs it, and the merge into
// templates at the end. Not a test: it prints ns/line.
//   template_bench <log file> [repetitions]
// The lines go through the line layer first (outside the timing), so the
// masker sees the messages ingest gives it. Times are thread CPU time.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "parse/line/line_prefix.h"
#include "parse/template/signature_table.h"
#include "parse/template/template_mask.h"
#include "parse/template/template_miner.h"

namespace {

using namespace casefile;
// Thread CPU time, not wall time: the development machine is shared, and
// time spent preempted is not the masker's.
struct Clock {
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<Clock, duration>;
  static time_point now() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return time_point(duration(int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec));
  }
};

double NsPerLine(Clock::time_point a, Clock::time_point b, size_t lines) {
  return std::chrono::duration<double, std::nano>(b - a).count() / static_cast<double>(lines);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: template_bench <log file> [repetitions]\n");
    return 2;
  }
  const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string log = ss.str();
  struct Msg {
    std::string_view text;
    Level level;
  };
  std::vector<Msg> msgs;
  TimeContext tc;
  tc.default_year = 2026;
  size_t msg_bytes = 0;
  for (size_t start = 0, end; (end = log.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string_view text = std::string_view(log).substr(start, end - start);
    const LinePrefix p = ParseLinePrefix(text, tc);
    msgs.push_back({text.substr(std::min<size_t>(p.msg_start, text.size())), p.level});
    msg_bytes += msgs.back().text.size();
  }
  if (msgs.empty()) return 1;
  std::printf("%zu lines, %.1f message bytes/line on average\n", msgs.size(),
              static_cast<double>(msg_bytes) / static_cast<double>(msgs.size()));

  for (int r = 0; r < reps; ++r) {
    uint64_t sink = 0;
    auto a = Clock::now();
    for (const Msg& m : msgs) sink ^= templates::MaskedHash(m.text, 1);
    auto b = Clock::now();
    templates::SignatureTable table;
    bool first_overflow = false;
    auto c = Clock::now();
    for (size_t i = 0; i < msgs.size(); ++i) {
      sink += table.Observe(msgs[i].level, msgs[i].text, 1, static_cast<int64_t>(i + 1),
                            first_overflow);
    }
    auto d = Clock::now();
    templates::MinedTemplates mined = templates::MineTemplates(table.signatures());
    auto e = Clock::now();
    std::printf(
        "hash %5.1f ns/line   lookup %5.1f ns/line   %zu signatures -> %zu templates in %.2f ms"
        "   (%llx)\n",
        NsPerLine(a, b, msgs.size()), NsPerLine(c, d, msgs.size()), table.signatures().size(),
        mined.templates.size(), std::chrono::duration<double, std::milli>(e - d).count(),
        static_cast<unsigned long long>(sink & 0xff));
  }
  return 0;
}
