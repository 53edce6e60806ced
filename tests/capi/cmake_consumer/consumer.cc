// A C++ user of the installed casefile, built with find_package(casefile)
// (tests/capi/cmake_consumer/CMakeLists.txt). Same output as
// tests/capi/install_consumer.c without the line count:
// "casefile VERSION", one "finding CODE" per finding, "report ok".
#include <casefile.h>

#include <cstdio>
#include <memory>
#include <string_view>

namespace {

// Handles owned the C++ way; the deleters are the API's *_free functions.
struct SessionFree {
  void operator()(casefile_session* s) const { casefile_session_free(s); }
};
struct ReportFree {
  void operator()(casefile_report* r) const { casefile_report_free(r); }
};
struct StringFree {
  void operator()(char* s) const { casefile_string_free(s); }
};

int Fail(const char* what, casefile_error* err) {
  std::fprintf(stderr, "%s: %s\n", what, casefile_error_message(err));
  casefile_error_free(err);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s BUNDLE INDEX_PATH\n", argv[0]);
    return 2;
  }
  std::printf("casefile %s\n", casefile_version_string());
  if (casefile_version_number() != CASEFILE_VERSION_NUMBER) return 1;

  casefile_open_options opts = CASEFILE_OPEN_OPTIONS_INIT;
  opts.index_path = argv[2];
  const char* inputs[] = {argv[1]};
  casefile_error* err = nullptr;
  casefile_session* raw_session = nullptr;
  if (casefile_session_open(&raw_session, inputs, 1, &opts, &err) != CASEFILE_OK) {
    return Fail("casefile_session_open", err);
  }
  std::unique_ptr<casefile_session, SessionFree> session(raw_session);

  casefile_report* raw_report = nullptr;
  if (casefile_session_analyze(&raw_report, session.get(), nullptr, &err) != CASEFILE_OK) {
    return Fail("casefile_session_analyze", err);
  }
  std::unique_ptr<casefile_report, ReportFree> report(raw_report);
  for (size_t i = 0; i < casefile_report_finding_count(report.get()); ++i) {
    std::printf("finding %s\n", casefile_finding_code(casefile_report_finding(report.get(), i)));
  }

  char* raw_json = nullptr;
  if (casefile_report_render(&raw_json, report.get(), CASEFILE_FORMAT_JSON, &err) != CASEFILE_OK) {
    return Fail("casefile_report_render", err);
  }
  std::unique_ptr<char, StringFree> json(raw_json);
  if (std::string_view(json.get()).find("\"casefile_version\"") == std::string_view::npos) {
    return 1;
  }
  std::printf("report ok\n");
  return 0;
}
