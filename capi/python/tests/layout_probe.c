/* Prints the C compiler's layout of the structs the Python binding mirrors
 * with ctypes: "STRUCT size N" and "STRUCT.FIELD offset N" lines. The
 * binding's test compares its own ctypes.sizeof / offsets with these. */
#include <stddef.h>
#include <stdio.h>

#include "casefile.h"

#define SIZE(type) printf("%s size %zu\n", #type, sizeof(type))
#define FIELD(type, field) printf("%s.%s offset %zu\n", #type, #field, offsetof(type, field))

int main(void) {
  SIZE(casefile_open_options);
  FIELD(casefile_open_options, version);
  FIELD(casefile_open_options, index_path);
  FIELD(casefile_open_options, reindex);
  FIELD(casefile_open_options, max_entry_bytes);
  FIELD(casefile_open_options, max_total_bytes);
  FIELD(casefile_open_options, max_entries);
  FIELD(casefile_open_options, max_line_bytes);
  FIELD(casefile_open_options, index_dir);

  SIZE(casefile_analyze_options);
  FIELD(casefile_analyze_options, version);
  FIELD(casefile_analyze_options, analyzers);
  FIELD(casefile_analyze_options, analyzer_count);
  FIELD(casefile_analyze_options, no_store);

  SIZE(casefile_diff_options);
  FIELD(casefile_diff_options, version);
  FIELD(casefile_diff_options, no_store);

  SIZE(casefile_collect_options);
  FIELD(casefile_collect_options, version);
  FIELD(casefile_collect_options, output);
  FIELD(casefile_collect_options, logs);
  FIELD(casefile_collect_options, log_count);
  FIELD(casefile_collect_options, hlo_dumps);
  FIELD(casefile_collect_options, hlo_dump_count);
  FIELD(casefile_collect_options, traces);
  FIELD(casefile_collect_options, trace_count);
  FIELD(casefile_collect_options, configs);
  FIELD(casefile_collect_options, config_count);
  FIELD(casefile_collect_options, tensorboard_dir);
  FIELD(casefile_collect_options, job_cmdline_file);
  FIELD(casefile_collect_options, labels);
  FIELD(casefile_collect_options, label_count);
  FIELD(casefile_collect_options, host);
  FIELD(casefile_collect_options, since_seconds);
  FIELD(casefile_collect_options, max_bytes);
  FIELD(casefile_collect_options, command_timeout_ms);
  FIELD(casefile_collect_options, no_versions);
  FIELD(casefile_collect_options, no_redact);
  FIELD(casefile_collect_options, redact_hosts);
  FIELD(casefile_collect_options, deterministic);
  FIELD(casefile_collect_options, dry_run);
  FIELD(casefile_collect_options, no_discover);
  FIELD(casefile_collect_options, redact_key);
  FIELD(casefile_collect_options, redact_key_size);
  FIELD(casefile_collect_options, command_line);
  FIELD(casefile_collect_options, command_line_count);
  FIELD(casefile_collect_options, environment);
  FIELD(casefile_collect_options, environment_count);
  FIELD(casefile_collect_options, zstd_level);
  FIELD(casefile_collect_options, threads);

  SIZE(casefile_analyzer_def);
  FIELD(casefile_analyzer_def, version);
  FIELD(casefile_analyzer_def, name);
  FIELD(casefile_analyzer_def, analyzer_version);
  FIELD(casefile_analyzer_def, description);
  FIELD(casefile_analyzer_def, needed_kinds);
  FIELD(casefile_analyzer_def, needed_kind_count);
  FIELD(casefile_analyzer_def, codes);
  FIELD(casefile_analyzer_def, code_count);
  FIELD(casefile_analyzer_def, run);
  FIELD(casefile_analyzer_def, free_payload);
  FIELD(casefile_analyzer_def, payload);
  return 0;
}
