// Which report a line opens. A version file may hold several reports one
// after another; each one's banner, found on any line, switches the reader.
// A "$ <command>" line (jax's "$ nvidia-smi", a collector's concatenation)
// selects the reader of the command's output.
#pragma once

#include <string_view>

#include "parse/version/version_reader.h"

namespace casefile::version {

struct Banner {
  bool found = false;
  Report report = Report::kNone;
  bool is_command = false;   // a "$ ..." line: not itself a line of the report
  std::string_view command;  // the text after "$ " when is_command
};

// `current`: the report being read. A freeze line opens pip only when pip is
// not already being read; a lone-word CSV header only outside other reports.
Banner DetectBanner(std::string_view line, Report current);

// The report a shell command prints ("nvidia-smi --query-gpu=name
// --format=csv" -> kNvidiaSmiCsv, "python -m torch.utils.collect_env" ->
// kCollectEnv); kNone for commands we do not read.
Report ReportOfCommand(std::string_view command);

// The banner-less reports a file's base name selects: which_nvcc* ->
// kWhichNvcc; cuda_dirs*, cuda_toolkits*, ls_cuda* -> kCudaDirs; else kNone.
Report ReportOfFileName(std::string_view path);

}  // namespace casefile::version
