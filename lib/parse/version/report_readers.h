// The report readers (one .cc per format) and the line tests the banner
// detector borrows from them. Each Make*Reader returns a reader that emits
// through `out`, which must outlive it.
#pragma once

#include <memory>
#include <string_view>

#include "parse/version/version_reader.h"

namespace casefile::version {

std::unique_ptr<ReportReader> MakeCollectEnvReader(const FactOut* out);
std::unique_ptr<ReportReader> MakeNvccReader(const FactOut* out);
std::unique_ptr<ReportReader> MakeNvidiaSmiReader(const FactOut* out);
std::unique_ptr<ReportReader> MakeNvidiaSmiCsvReader(const FactOut* out);
std::unique_ptr<ReportReader> MakeGccReader(const FactOut* out);
std::unique_ptr<ReportReader> MakePipReader(const FactOut* out);
std::unique_ptr<ReportReader> MakeCondaListReader(const FactOut* out);
std::unique_ptr<ReportReader> MakeDsReportReader(const FactOut* out);
std::unique_ptr<ReportReader> MakeTransformersEnvReader(const FactOut* out);
std::unique_ptr<ReportReader> MakeJaxEnvReader(const FactOut* out);
std::unique_ptr<ReportReader> MakeWhichNvccReader(const FactOut* out);
std::unique_ptr<ReportReader> MakeCudaDirsReader(const FactOut* out);
std::unique_ptr<ReportReader> MakeEnvReader(const FactOut* out);

// gcc_report.cc. The compiler's version in the first line of
// `gcc --version` ("gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0", "cc (GCC)
// 14.2.1 20250207", "gcc-9 (...) 9.4.0", "x86_64-conda-linux-gnu-gcc (...)")
// or `gcc -v` ("gcc version 11.4.0 (...)"); "" for anything else, clang
// included.
std::string_view GccBannerVersion(std::string_view line);
// The version after a program name: the first "D.D[.D]" token after an
// optional leading "(...)" group or "version" word ("(Ubuntu 11.4.0-1) 11.4.0"
// -> "11.4.0"). collect_env's "GCC version:" value has this shape.
std::string_view GccVersionAfterProgram(std::string_view rest);

// pip_report.cc. A `pip freeze` requirement line ("name==1.0",
// "name===1.0", "name @ scheme://..."); the banner of a freeze.
bool IsPipFreezeLine(std::string_view line);
// `pip list`'s column header ("Package   Version ...") or its json array.
bool IsPipListBanner(std::string_view line);

// nvidia_smi_csv_report.cc. A `--query-gpu` CSV header: comma-separated
// field names (units in brackets allowed) naming name, index, compute_cap or
// driver_version. A single-field header ("name") is accepted only when
// `allow_single` (a lone word is too weak a banner inside other reports).
bool IsNvidiaSmiCsvHeader(std::string_view line, bool allow_single);

// jax_env_report.cc: "jax:    0.4.35".
bool IsJaxEnvBanner(std::string_view line);

}  // namespace casefile::version
