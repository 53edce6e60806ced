/*
 * The memory layout of every public type of casefile.h, as the compiler sees
 * it: size and alignment of each struct, offset and size of each field, size
 * of each enum and the value of each enumerator, the options-struct version
 * macros and the ABI major. scripts/abi/abi_dump.sh compiles this against the
 * header and adds its lines to the ABI dump that capi/abi/casefile.abi is the
 * committed baseline of (docs/API.md, "ABI check").
 *
 * Written by hand, one line per field: the ctest capi_abi_coverage fails when
 * the header declares a struct field, an enumerator or a *_VERSION macro that
 * is not listed here, so a new one cannot be forgotten. Experimental types
 * (under CASEFILE_EXPERIMENTAL) are not part of the checked ABI.
 */
#include <stddef.h>
#include <stdio.h>

#include "casefile.h"

#define STRUCT(T) \
  printf("struct %s size %u align %u\n", #T, (unsigned)sizeof(T), (unsigned)_Alignof(T))
#define FIELD(T, f)                                                           \
  printf("field %s %s offset %u size %u\n", #T, #f, (unsigned)offsetof(T, f), \
         (unsigned)sizeof(((T*)0)->f))
#define ENUM(T) printf("enumtype %s size %u\n", #T, (unsigned)sizeof(T))
#define VALUE(T, c) printf("enum %s %s %lld\n", #T, #c, (long long)(c))
#define MACRO(m) printf("macro %s %lld\n", #m, (long long)(m))

int main(void) {
  printf("abi_major %d\n", CASEFILE_VERSION_MAJOR);
  printf("string CASEFILE_PLUGIN_ENTRY_SYMBOL %s\n", CASEFILE_PLUGIN_ENTRY_SYMBOL);

  MACRO(CASEFILE_OPEN_OPTIONS_VERSION);
  MACRO(CASEFILE_ANALYZE_OPTIONS_VERSION);
  MACRO(CASEFILE_COLLECT_OPTIONS_VERSION);
  MACRO(CASEFILE_DIFF_OPTIONS_VERSION);
  MACRO(CASEFILE_QUERY_OPTIONS_VERSION);
  MACRO(CASEFILE_ANALYZER_DEF_VERSION);
  MACRO(CASEFILE_PLUGIN_INFO_VERSION);

  ENUM(casefile_status);
  VALUE(casefile_status, CASEFILE_OK);
  VALUE(casefile_status, CASEFILE_PARTIAL);
  VALUE(casefile_status, CASEFILE_E_ARGUMENT);
  VALUE(casefile_status, CASEFILE_E_MISUSE);
  VALUE(casefile_status, CASEFILE_E_UNKNOWN_ANALYZER);
  VALUE(casefile_status, CASEFILE_E_VERSION);
  VALUE(casefile_status, CASEFILE_E_IO);
  VALUE(casefile_status, CASEFILE_E_NOT_FOUND);
  VALUE(casefile_status, CASEFILE_E_CORRUPT);
  VALUE(casefile_status, CASEFILE_E_UNSUPPORTED);
  VALUE(casefile_status, CASEFILE_E_INDEX_VERSION);
  VALUE(casefile_status, CASEFILE_E_RULES);
  VALUE(casefile_status, CASEFILE_E_LIMIT);
  VALUE(casefile_status, CASEFILE_E_TIMEOUT);
  VALUE(casefile_status, CASEFILE_E_QUERY);
  VALUE(casefile_status, CASEFILE_E_READ_ONLY);
  VALUE(casefile_status, CASEFILE_E_PLUGIN);
  VALUE(casefile_status, CASEFILE_E_NOMEM);
  VALUE(casefile_status, CASEFILE_E_ABORTED);
  VALUE(casefile_status, CASEFILE_E_INTERNAL);

  ENUM(casefile_severity);
  VALUE(casefile_severity, CASEFILE_SEVERITY_INFO);
  VALUE(casefile_severity, CASEFILE_SEVERITY_WARNING);
  VALUE(casefile_severity, CASEFILE_SEVERITY_ERROR);

  ENUM(casefile_format);
  VALUE(casefile_format, CASEFILE_FORMAT_JSON);
  VALUE(casefile_format, CASEFILE_FORMAT_TEXT);
  VALUE(casefile_format, CASEFILE_FORMAT_TEXT_COLOR);
  VALUE(casefile_format, CASEFILE_FORMAT_HTML);
  VALUE(casefile_format, CASEFILE_FORMAT_MARKDOWN);

  ENUM(casefile_collect_phase);
  VALUE(casefile_collect_phase, CASEFILE_COLLECT_PHASE_COMMANDS);
  VALUE(casefile_collect_phase, CASEFILE_COLLECT_PHASE_SCAN);
  VALUE(casefile_collect_phase, CASEFILE_COLLECT_PHASE_WRITE);

  STRUCT(casefile_open_options);
  FIELD(casefile_open_options, version);
  FIELD(casefile_open_options, index_path);
  FIELD(casefile_open_options, reindex);
  FIELD(casefile_open_options, max_entry_bytes);
  FIELD(casefile_open_options, max_total_bytes);
  FIELD(casefile_open_options, max_entries);
  FIELD(casefile_open_options, max_line_bytes);
  FIELD(casefile_open_options, index_dir);

  STRUCT(casefile_analyze_options);
  FIELD(casefile_analyze_options, version);
  FIELD(casefile_analyze_options, analyzers);
  FIELD(casefile_analyze_options, analyzer_count);
  FIELD(casefile_analyze_options, no_store);
  FIELD(casefile_analyze_options, omit);

  STRUCT(casefile_collect_options);
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

  STRUCT(casefile_diff_options);
  FIELD(casefile_diff_options, version);
  FIELD(casefile_diff_options, no_store);

  STRUCT(casefile_query_options);
  FIELD(casefile_query_options, version);
  FIELD(casefile_query_options, max_rows);
  FIELD(casefile_query_options, max_result_bytes);
  FIELD(casefile_query_options, timeout_ms);

  STRUCT(casefile_analyzer_def);
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

  STRUCT(casefile_plugin_info);
  FIELD(casefile_plugin_info, version);
  FIELD(casefile_plugin_info, abi_major);
  FIELD(casefile_plugin_info, name);
  FIELD(casefile_plugin_info, description);
  FIELD(casefile_plugin_info, init);
  FIELD(casefile_plugin_info, payload);
  return 0;
}
