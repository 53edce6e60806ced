/*
 * casefile.h — the public C API of casefile.
 *
 * casefile indexes bundles from failed distributed ML training runs (logs, HLO
 * dumps, profiler traces, configs, version outputs) into SQLite and runs
 * analyzers that name the cause, the culprit hosts and ranks, and the exact
 * evidence lines.
 *
 * This file is the whole API. Anything not declared here — the C++ headers
 * under lib/, symbols of the shared library not named casefile_* — is not API
 * and may change at any time.
 *
 * Conventions, true of every function below:
 *  - Every call that can fail returns a casefile_status; CASEFILE_OK is 0.
 *    Values are never renumbered once released.
 *  - Output parameters come first (`out`), then the handle, then inputs, then
 *    `callback, payload`, then `err` last.
 *  - `err` may be NULL. When it is not NULL and the call fails, *err receives a
 *    new casefile_error (free it with casefile_error_free); on success *err is
 *    set to NULL. Errors are never thread-local: a binding may move calls
 *    between OS threads.
 *  - On failure, `*out` is set to NULL before anything else happens.
 *  - Every *_free function accepts NULL and returns nothing.
 *  - Strings passed in are copied; the caller keeps ownership. Strings
 *    returned as `const char *` are borrowed: their lifetime is stated on each
 *    function. Strings returned as `char *` are owned by the caller and freed
 *    with casefile_string_free.
 *  - No C++ exception ever crosses this boundary.
 *  - Options structs start with `unsigned int version`; fields are only ever
 *    appended. Initialise with the *_INIT macro or the *_init function; NULL
 *    options mean defaults.
 *
 * Thread safety: functions that take no handle are safe from any thread.
 * A casefile_session may be used from any thread but by one thread at a time
 * (calls on the same session must be serialised by the caller). A
 * casefile_report is immutable once returned: its accessors may be called from
 * several threads at once. Different handles are independent.
 */
#ifndef CASEFILE_H
#define CASEFILE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define CASEFILE_API __declspec(dllexport)
#elif defined(__GNUC__)
#define CASEFILE_API __attribute__((visibility("default")))
#else
#define CASEFILE_API
#endif

/* ===================================================================== */
/* Version                                                               */
/* ===================================================================== */

#define CASEFILE_VERSION_MAJOR 0
#define CASEFILE_VERSION_MINOR 1
#define CASEFILE_VERSION_PATCH 0
/* MAJOR*1000000 + MINOR*1000 + PATCH */
#define CASEFILE_VERSION_NUMBER \
  (CASEFILE_VERSION_MAJOR * 1000000 + CASEFILE_VERSION_MINOR * 1000 + CASEFILE_VERSION_PATCH)

/* The version of the library actually linked, as CASEFILE_VERSION_NUMBER. */
CASEFILE_API int casefile_version_number(void);
/* "MAJOR.MINOR.PATCH"; a static string, never freed. */
CASEFILE_API const char* casefile_version_string(void);

/* ===================================================================== */
/* Status codes and errors                                               */
/* ===================================================================== */

typedef enum casefile_status {
  CASEFILE_OK = 0,
  /* Success, but part of the input was skipped, truncated or unreadable;
   * the index holds what could be read and its ingest_issues say what not. */
  CASEFILE_PARTIAL = 1,

  /* Misuse: 100-199 */
  CASEFILE_E_ARGUMENT = 100,         /* a required argument is NULL or invalid */
  CASEFILE_E_MISUSE = 101,           /* wrong call order, e.g. analyze before index */
  CASEFILE_E_UNKNOWN_ANALYZER = 102, /* a name not in casefile_analyzer_name() */
  CASEFILE_E_VERSION = 103,          /* an options struct of an unknown version */

  /* Input and output: 200-299 */
  CASEFILE_E_IO = 200,        /* the operating system refused a read or write */
  CASEFILE_E_NOT_FOUND = 201, /* an input path does not exist */

  /* Format: 300-399 */
  CASEFILE_E_CORRUPT = 300,       /* input that cannot be decoded; nothing indexed */
  CASEFILE_E_UNSUPPORTED = 301,   /* neither a directory nor an archive we read */
  CASEFILE_E_INDEX_VERSION = 302, /* an index from an incompatible casefile */

  /* Limits: 400-499 */
  CASEFILE_E_LIMIT = 400, /* a configured limit made the operation impossible */

  /* Query: 500-599 */
  CASEFILE_E_QUERY = 500,     /* SQL that SQLite rejected */
  CASEFILE_E_READ_ONLY = 501, /* a write, ATTACH or state-changing pragma */

  /* Internal: 900-999 */
  CASEFILE_E_NOMEM = 900,
  CASEFILE_E_ABORTED = 901, /* a callback returned non-zero */
  CASEFILE_E_INTERNAL = 999
} casefile_status;

/* A short static description of a status ("corrupt input"); never NULL. */
CASEFILE_API const char* casefile_status_string(casefile_status status);

typedef struct casefile_error casefile_error;

/* The status this error was returned with. `err` must not be NULL. */
CASEFILE_API casefile_status casefile_error_status(const casefile_error* err);
/* The message, naming the function and the file or offset involved. Valid
 * until casefile_error_free(err). Returns "" for a NULL err. */
CASEFILE_API const char* casefile_error_message(const casefile_error* err);
CASEFILE_API void casefile_error_free(casefile_error* err);

/* Frees a string returned as `char *` by this library. */
CASEFILE_API void casefile_string_free(char* str);

/* ===================================================================== */
/* Options                                                               */
/* ===================================================================== */

#define CASEFILE_OPEN_OPTIONS_VERSION 1

typedef struct casefile_open_options {
  unsigned int version; /* CASEFILE_OPEN_OPTIONS_VERSION */
  /* Where the index lives. NULL: $CASEFILE_CACHE_DIR, else
   * $XDG_CACHE_HOME/casefile, else $HOME/.cache/casefile, named after a hash
   * of the inputs' absolute paths. */
  const char* index_path;
  /* Non-zero: rebuild even when an index of the same inputs exists. */
  int reindex;
  /* Limits; 0 means the default given. */
  uint64_t max_entry_bytes; /* per entry, decompressed; default 8 GiB */
  uint64_t max_total_bytes; /* all inputs, decompressed; default 256 GiB */
  uint64_t max_entries;     /* entries per input; default 1000000 */
  uint32_t max_line_bytes;  /* longer lines are truncated; default 65536 */
} casefile_open_options;

#define CASEFILE_OPEN_OPTIONS_INIT \
  { CASEFILE_OPEN_OPTIONS_VERSION, NULL, 0, 0, 0, 0, 0 }

/* Fills `opts` with defaults for `version`. Returns CASEFILE_E_VERSION for a
 * version this library does not know, CASEFILE_E_ARGUMENT for NULL. */
CASEFILE_API casefile_status casefile_open_options_init(casefile_open_options* opts,
                                                        unsigned int version);

#define CASEFILE_ANALYZE_OPTIONS_VERSION 1

typedef struct casefile_analyze_options {
  unsigned int version; /* CASEFILE_ANALYZE_OPTIONS_VERSION */
  /* Analyzer names to run; NULL or count 0 = all. */
  const char* const* analyzers;
  size_t analyzer_count;
  /* Non-zero: do not store the findings in the index. */
  int no_store;
} casefile_analyze_options;

#define CASEFILE_ANALYZE_OPTIONS_INIT \
  { CASEFILE_ANALYZE_OPTIONS_VERSION, NULL, 0, 0 }

/* Fills `opts` with defaults for `version` (all analyzers, findings stored).
 * The caller owns `opts`; nothing is allocated. Returns CASEFILE_E_VERSION for
 * a version this library does not know, CASEFILE_E_ARGUMENT for NULL.
 * Thread-safe. */
CASEFILE_API casefile_status casefile_analyze_options_init(casefile_analyze_options* opts,
                                                           unsigned int version);

/* ===================================================================== */
/* Session: a set of inputs and their index                              */
/* ===================================================================== */

typedef struct casefile_session casefile_session;

/* Opens `input_count` inputs (directories or archives: tar, .tar.zst,
 * .tar.gz/.tgz, .zip) as one session. Nothing is read yet beyond checking that
 * each input exists. Free with casefile_session_free.
 * Returns CASEFILE_E_ARGUMENT (NULL out, inputs or count 0),
 * CASEFILE_E_NOT_FOUND, CASEFILE_E_VERSION, CASEFILE_E_NOMEM. */
CASEFILE_API casefile_status casefile_session_open(casefile_session** out,
                                                   const char* const* inputs, size_t input_count,
                                                   const casefile_open_options* opts,
                                                   casefile_error** err);

CASEFILE_API void casefile_session_free(casefile_session* session);

/* Progress of indexing: bytes read so far and the entry being read (borrowed,
 * valid during the call). Return non-zero to abort: the index is not written
 * and casefile_session_index returns CASEFILE_E_ABORTED. */
typedef int (*casefile_progress_fn)(uint64_t bytes_done, const char* current_path, void* payload);

/* Builds the index, or reuses an existing one whose inputs have not changed
 * (see casefile_session_index_reused). The index is written to a temporary
 * file and renamed when complete. Returns CASEFILE_OK, CASEFILE_PARTIAL (a
 * corrupt or truncated input: what was read is indexed and recorded), or an
 * error: CASEFILE_E_CORRUPT / CASEFILE_E_UNSUPPORTED (an input unreadable
 * from its first byte), CASEFILE_E_IO, CASEFILE_E_ABORTED.
 * `progress` may be NULL. */
CASEFILE_API casefile_status casefile_session_index(casefile_session* session,
                                                    casefile_progress_fn progress, void* payload,
                                                    casefile_error** err);

/* 1 when the last casefile_session_index reused an existing index, else 0. */
CASEFILE_API int casefile_session_index_reused(const casefile_session* session);

/* The index path; valid until casefile_session_free. Never NULL. */
CASEFILE_API const char* casefile_session_index_path(const casefile_session* session);

/* The message of the last failed call on this session ("" if none); valid
 * until the next call on the session. For bindings that prefer it to `err`. */
CASEFILE_API const char* casefile_session_last_error(const casefile_session* session);

/* ===================================================================== */
/* Query                                                                 */
/* ===================================================================== */

/* Called once per result row. `values[i]` is the column's text or NULL for
 * SQL NULL; `names` are the column names. All pointers are valid during the
 * call only. Return non-zero to stop (the query then returns
 * CASEFILE_E_ABORTED). */
typedef int (*casefile_row_fn)(size_t column_count, const char* const* names,
                               const char* const* values, void* payload);

/* Runs one read-only SQL statement on the index (after casefile_session_index).
 * Writes, ATTACH and state-changing pragmas are refused with
 * CASEFILE_E_READ_ONLY; SQL errors give CASEFILE_E_QUERY with SQLite's
 * message. `callback` may be NULL. */
CASEFILE_API casefile_status casefile_session_query(casefile_session* session, const char* sql,
                                                    casefile_row_fn callback, void* payload,
                                                    casefile_error** err);

/* ===================================================================== */
/* Analyzers                                                             */
/* ===================================================================== */

/* The number of built-in analyzers. */
CASEFILE_API size_t casefile_analyzer_count(void);
/* Name and one-line description of analyzer `index` (static strings), or
 * NULL when index >= casefile_analyzer_count(). */
CASEFILE_API const char* casefile_analyzer_name(size_t index);
CASEFILE_API const char* casefile_analyzer_description(size_t index);

/* ===================================================================== */
/* Analysis and report                                                   */
/* ===================================================================== */

typedef struct casefile_report casefile_report;
typedef struct casefile_finding casefile_finding;

typedef enum casefile_severity {
  CASEFILE_SEVERITY_INFO = 0,
  CASEFILE_SEVERITY_WARNING = 1,
  CASEFILE_SEVERITY_ERROR = 2
} casefile_severity;

/* Runs analyzers over the session's index (indexing first if needed) and
 * returns the report. A failing analyzer does not fail the call: its status
 * says "failed". Returns CASEFILE_E_UNKNOWN_ANALYZER for an unknown name. Free
 * with casefile_report_free; the report stays valid after the session is
 * freed. */
CASEFILE_API casefile_status casefile_session_analyze(casefile_report** out,
                                                      casefile_session* session,
                                                      const casefile_analyze_options* opts,
                                                      casefile_error** err);

CASEFILE_API void casefile_report_free(casefile_report* report);

typedef enum casefile_format {
  CASEFILE_FORMAT_JSON = 0,      /* the documented JSON shape (docs/CLI.md) */
  CASEFILE_FORMAT_TEXT = 1,      /* human-readable, no colour */
  CASEFILE_FORMAT_TEXT_COLOR = 2 /* human-readable with ANSI colour */
} casefile_format;

/* Renders the report. *out is owned by the caller (casefile_string_free).
 * The same input gives byte-identical output. */
CASEFILE_API casefile_status casefile_report_render(char** out, const casefile_report* report,
                                                    casefile_format format, casefile_error** err);

/* Highest severity among the findings, or -1 when there are none. */
CASEFILE_API int casefile_report_max_severity(const casefile_report* report);
/* 1 when some input was read only in part or some entry was skipped. */
CASEFILE_API int casefile_report_has_ingest_issues(const casefile_report* report);
/* 1 when some input could not be read to its end (corrupt or truncated). */
CASEFILE_API int casefile_report_is_partial(const casefile_report* report);

CASEFILE_API size_t casefile_report_finding_count(const casefile_report* report);
/* Borrowed; valid until casefile_report_free. NULL when out of range. */
CASEFILE_API const casefile_finding* casefile_report_finding(const casefile_report* report,
                                                             size_t index);

/* Analyzer statuses in the report: name, "ran" | "not_applicable" | "failed",
 * and the reason. Borrowed strings valid until casefile_report_free; NULL when
 * out of range. */
CASEFILE_API size_t casefile_report_analyzer_count(const casefile_report* report);
CASEFILE_API const char* casefile_report_analyzer_name(const casefile_report* report, size_t index);
CASEFILE_API const char* casefile_report_analyzer_status(const casefile_report* report,
                                                         size_t index);
CASEFILE_API const char* casefile_report_analyzer_reason(const casefile_report* report,
                                                         size_t index);

/* Finding accessors. Strings are borrowed, valid until casefile_report_free,
 * and never NULL for a non-NULL finding ("" when empty). */
CASEFILE_API const char* casefile_finding_code(const casefile_finding* finding);
CASEFILE_API const char* casefile_finding_analyzer(const casefile_finding* finding);
CASEFILE_API casefile_severity casefile_finding_severity(const casefile_finding* finding);
CASEFILE_API const char* casefile_finding_title(const casefile_finding* finding);
CASEFILE_API const char* casefile_finding_summary(const casefile_finding* finding);
CASEFILE_API const char* casefile_finding_recommendation(const casefile_finding* finding);

CASEFILE_API size_t casefile_finding_culprit_count(const casefile_finding* finding);
/* Culprit `index`: host and task are NULL when unknown, *rank_out is -1 when
 * unknown. Any output pointer may be NULL. Returns CASEFILE_E_ARGUMENT when
 * out of range. */
CASEFILE_API casefile_status casefile_finding_culprit(const casefile_finding* finding, size_t index,
                                                      const char** host_out, const char** task_out,
                                                      int64_t* rank_out);

CASEFILE_API size_t casefile_finding_evidence_count(const casefile_finding* finding);
/* Evidence `index`: bundle name, path inside the bundle, 1-based line number
 * and the line's text. Any output pointer may be NULL. Returns
 * CASEFILE_E_ARGUMENT when out of range. */
CASEFILE_API casefile_status casefile_finding_evidence(const casefile_finding* finding,
                                                       size_t index, const char** bundle_out,
                                                       const char** path_out, int64_t* line_out,
                                                       const char** text_out);

#ifdef __cplusplus
}
#endif

#endif /* CASEFILE_H */
