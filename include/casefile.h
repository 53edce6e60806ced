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
 * Stability (docs/API.md, "Stability"): everything outside the section
 * marked Experimental is stable within an ABI major (CASEFILE_VERSION_MAJOR,
 * the SONAME libcasefile.so.MAJOR, the symbol version node CASEFILE_MAJOR):
 * no function is removed or changes its signature (a changed call is added
 * as NAME_v2), struct fields are only appended (with their *_VERSION raised),
 * enum values are never renumbered. The Experimental section is compiled
 * only with CASEFILE_EXPERIMENTAL defined and may change in any release.
 * capi/abi/casefile.abi is the committed ABI baseline a ctest checks.
 *
 * Thread safety, per handle (docs/API.md, "Thread safety"):
 *  - Functions that take no handle (version, status strings, *_init, the
 *    analyzer list, casefile_collect, casefile_verify_bundle, registration,
 *    plugin and rule-pack loading) are safe from any thread (casefile_collect
 *    must not race with setenv or fork: see its section).
 *  - casefile_session: any thread, one at a time; calls on one session must
 *    be serialised by the caller. Different sessions run in parallel, even
 *    on the same inputs (each with its own index path).
 *  - casefile_report, casefile_finding, casefile_diff_report,
 *    casefile_collect_result, casefile_verify_result: immutable once
 *    returned; their accessors and renderers may be called from several
 *    threads at once. Free one only when no thread uses it.
 *  - casefile_error: owned by the caller, read from one thread at a time.
 *  - casefile_analysis, casefile_finding_builder: valid only inside the one
 *    run-callback call they belong to, on its thread.
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

/* Marks a function that will go at the next major version (docs/API.md,
 * "Deprecation"). Define CASEFILE_NO_DEPRECATED_WARNINGS to silence it. */
#if defined(__GNUC__) && !defined(CASEFILE_NO_DEPRECATED_WARNINGS)
#define CASEFILE_DEPRECATED(message) __attribute__((deprecated(message)))
#else
#define CASEFILE_DEPRECATED(message)
#endif

/* ===================================================================== */
/* Version                                                               */
/* ===================================================================== */

#define CASEFILE_VERSION_MAJOR 0
#define CASEFILE_VERSION_MINOR 4
#define CASEFILE_VERSION_PATCH 9
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
  CASEFILE_E_RULES = 303,         /* a rule pack that does not validate (docs/RULES.md) */

  /* Limits: 400-499 */
  CASEFILE_E_LIMIT = 400,   /* a configured limit made the operation impossible */
  CASEFILE_E_TIMEOUT = 401, /* a query ran past its timeout (casefile_query_options) */

  /* Query: 500-599 */
  CASEFILE_E_QUERY = 500,     /* SQL that SQLite rejected */
  CASEFILE_E_READ_ONLY = 501, /* a write, ATTACH or state-changing pragma */

  /* Extensions: 600-699 */
  CASEFILE_E_PLUGIN = 600, /* a plugin refused: not loadable, no entry point,
                              another ABI major, or its init failed */

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

#define CASEFILE_OPEN_OPTIONS_VERSION 2

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
  /* Version 2. Where the index lives when index_path is NULL: this folder,
   * under the same hash-of-the-inputs name as in the cache folder (the diff
   * keeps the two sides' indexes side by side this way). NULL: the cache
   * folder. */
  const char* index_dir;
} casefile_open_options;

#define CASEFILE_OPEN_OPTIONS_INIT \
  { CASEFILE_OPEN_OPTIONS_VERSION, NULL, 0, 0, 0, 0, 0, NULL }

/* Fills `opts` with defaults for `version`. Returns CASEFILE_E_VERSION for a
 * version this library does not know, CASEFILE_E_ARGUMENT for NULL. */
CASEFILE_API casefile_status casefile_open_options_init(casefile_open_options* opts,
                                                        unsigned int version);

#define CASEFILE_ANALYZE_OPTIONS_VERSION 2

typedef struct casefile_analyze_options {
  unsigned int version; /* CASEFILE_ANALYZE_OPTIONS_VERSION */
  /* Analyzer names to run; NULL or count 0 = all. */
  const char* const* analyzers;
  size_t analyzer_count;
  /* Non-zero: do not store the findings in the index. */
  int no_store;
  /* Version 2 (since 0.4.6). Parts of the report to leave out: 0 or
   * CASEFILE_OMIT_CONTEXT; another bit is CASEFILE_E_ARGUMENT. */
  uint64_t omit;
} casefile_analyze_options;

/* casefile_analyze_options.omit: leave out what only the HTML and markdown
 * renderings draw (the loss and step-time curves, the per-host timelines,
 * the lines around each evidence line), which spares reading every metric
 * series again: about 0.3 s on a 1 GiB bundle. Such a report renders as
 * JSON and text as a whole one does, but for the warnings about that context
 * (a part that could not be loaded), which it never loads; rendering it as
 * HTML or markdown fails with CASEFILE_E_ARGUMENT. Since 0.4.6. */
#define CASEFILE_OMIT_CONTEXT 1u

#define CASEFILE_ANALYZE_OPTIONS_INIT \
  { CASEFILE_ANALYZE_OPTIONS_VERSION, NULL, 0, 0, 0 }

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
 * Writes, ATTACH, state-changing pragmas and load_extension() are refused
 * with CASEFILE_E_READ_ONLY; SQL errors give CASEFILE_E_QUERY with SQLite's
 * message. `callback` may be NULL. Runs with the default bounds of
 * casefile_query_options (since 0.4: a 5-minute timeout, CASEFILE_E_TIMEOUT;
 * values up to 64 MiB, CASEFILE_E_LIMIT). */
CASEFILE_API casefile_status casefile_session_query(casefile_session* session, const char* sql,
                                                    casefile_row_fn callback, void* payload,
                                                    casefile_error** err);

/* The bounds of one query (docs/API.md, "Query limits"). Since 0.4. A field
 * left 0 takes the default given; casefile_session_query and
 * casefile_analysis_query run with every default. */
#define CASEFILE_QUERY_OPTIONS_VERSION 1

typedef struct casefile_query_options {
  unsigned int version; /* CASEFILE_QUERY_OPTIONS_VERSION */
  /* Rows handed to the callback. A result with more rows fails with
   * CASEFILE_E_LIMIT after the first max_rows were delivered. Default: no
   * bound (rows are streamed, so their number costs no memory). */
  uint64_t max_rows;
  /* Bytes of the values handed to the callback, summed over the result (a
   * value counts the length of its text, NULL counts 0). The row that would
   * pass it is not delivered: the query fails with CASEFILE_E_LIMIT.
   * Default: no bound. */
  uint64_t max_result_bytes;
  /* Milliseconds the library may spend computing the result; the time the
   * callback keeps each row is not counted. Past it the query stops with
   * CASEFILE_E_TIMEOUT (a recursive CTE that never ends, say). Default
   * 300000 (5 minutes); UINT32_MAX (about 49 days) for no practical bound. */
  uint32_t timeout_ms;
} casefile_query_options;

#define CASEFILE_QUERY_OPTIONS_INIT \
  { CASEFILE_QUERY_OPTIONS_VERSION, 0, 0, 0 }

/* Fills `opts` with defaults for `version` (every field 0: the defaults
 * above). The caller owns `opts`; nothing is allocated. Returns
 * CASEFILE_E_VERSION for a version this library does not know,
 * CASEFILE_E_ARGUMENT for NULL. Thread-safe. */
CASEFILE_API casefile_status casefile_query_options_init(casefile_query_options* opts,
                                                         unsigned int version);

/* casefile_session_query within the bounds of `opts` (NULL: the defaults).
 * Besides the errors of casefile_session_query: CASEFILE_E_LIMIT (more rows
 * or bytes than allowed, or a value longer than 64 MiB made or read by the
 * query, e.g. zeroblob(2e9): the message names the limit), CASEFILE_E_TIMEOUT,
 * CASEFILE_E_VERSION. Rows delivered before a limit was reached stay
 * delivered. Same thread-safety as casefile_session_query: one call at a
 * time per session. Since 0.4. */
CASEFILE_API casefile_status casefile_session_query_ex(casefile_session* session, const char* sql,
                                                       const casefile_query_options* opts,
                                                       casefile_row_fn callback, void* payload,
                                                       casefile_error** err);

/* ===================================================================== */
/* Analyzers                                                             */
/* ===================================================================== */

/* The number of analyzers an analysis runs: the built-in ones first (in
 * name order), then "rules" (the rule packs, docs/RULES.md), then the
 * external ones in the order they were registered. */
CASEFILE_API size_t casefile_analyzer_count(void);
/* Name and one-line description of analyzer `index`, or NULL when
 * index >= casefile_analyzer_count(). The strings stay valid for the
 * process, even after the analyzer is unregistered (the library keeps one
 * copy of each distinct string). */
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
  CASEFILE_FORMAT_JSON = 0,       /* the documented JSON shape (docs/CLI.md) */
  CASEFILE_FORMAT_TEXT = 1,       /* human-readable, no colour */
  CASEFILE_FORMAT_TEXT_COLOR = 2, /* human-readable with ANSI colour */
  /* One self-contained HTML page: inline CSS and SVG, no network access
   * (docs/REPORTS.md). Since 0.3. */
  CASEFILE_FORMAT_HTML = 3,
  /* A compact markdown summary for an issue tracker. Since 0.3. */
  CASEFILE_FORMAT_MARKDOWN = 4
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

/* ===================================================================== */
/* Collect: pack a host's evidence into a redacted, verifiable bundle    */
/* ===================================================================== */

/* casefile_collect runs on a training host (often on every host at once,
 * from the job's launcher) and writes one .tar.zst bundle: the files named
 * by the options, what the environment points at (XLA dumps, flight-recorder
 * dumps), the outputs of version and system commands, and the environment
 * variables the analyzers read, under hosts/<host>/, with the manifest
 * casefile.json first. Secrets are replaced by keyed pseudonyms unless
 * no_redact is set; a redaction never changes the number of lines.
 * docs/BUNDLE_FORMAT.md describes the bundle, the redaction rules and the
 * discovery rules.
 *
 * Thread safety: casefile_collect and casefile_verify_bundle take no handle
 * and may run on several threads at once (each on its own output). They read
 * the process environment (unless `environment` is given) and spawn
 * processes, so they must not race with setenv or fork in the same process.
 * Result handles are immutable: their accessors may be called from several
 * threads at once. */

#define CASEFILE_COLLECT_OPTIONS_VERSION 1

typedef struct casefile_collect_options {
  unsigned int version; /* CASEFILE_COLLECT_OPTIONS_VERSION */
  /* The bundle to write (tar + zstd, whatever its name); "-" writes it to
   * standard output (fd 1). Required unless dry_run. It is written under a
   * temporary name beside it and renamed when complete. */
  const char* output;
  /* Inputs per category: files, directories (walked recursively, symbolic
   * links inside not followed) or glob(3) patterns. NULL with count 0 for
   * none. */
  const char* const* logs;
  size_t log_count;
  const char* const* hlo_dumps;
  size_t hlo_dump_count;
  const char* const* traces;
  size_t trace_count;
  const char* const* configs;
  size_t config_count;
  /* A TensorBoard log directory whose plugins/profile/ is packed as traces;
   * NULL for none. */
  const char* tensorboard_dir;
  /* A file holding the failed job's command line (text, or a copy of
   * /proc/PID/cmdline, or that path itself): the DeepSpeed/HF configs it
   * names are packed. NULL for none. */
  const char* job_cmdline_file;
  /* "KEY=VALUE" labels written to the manifest (values redacted). */
  const char* const* labels;
  size_t label_count;
  /* The host name for the bundle; NULL: gethostname(). */
  const char* host;
  /* Files found in directories, by globs or by discovery that were last
   * modified more than this many seconds ago are left out (listed as
   * skipped); 0 keeps all. Files named directly are always kept. */
  uint64_t since_seconds;
  /* Cap on the bytes packed (uncompressed, the manifest excepted); 0: none.
   * Over it, the largest logs keep their last part, cut at a line start, and
   * then whole files are left out, largest first; the manifest says what. */
  uint64_t max_bytes;
  /* Timeout of each version/system command in milliseconds; 0: 20000. */
  uint32_t command_timeout_ms;
  int no_versions;   /* non-zero: run no version/system command */
  int no_redact;     /* non-zero: pack everything as it is */
  int redact_hosts;  /* non-zero: also replace host names and IP addresses */
  int deterministic; /* non-zero: fixed mtimes, ownership, modes and created_at */
  int dry_run;       /* non-zero: list what would be packed; write nothing, run nothing */
  int no_discover;   /* non-zero: do not look at XLA_FLAGS and the flight-recorder prefix */
  /* A key shared by the hosts of one collection (at least 16 bytes), so that
   * equal secrets get equal pseudonyms across their bundles; NULL: a random
   * key per bundle. Never written anywhere. */
  const unsigned char* redact_key;
  size_t redact_key_size;
  /* The caller's command line, recorded (redacted) in the manifest. */
  const char* const* command_line;
  size_t command_line_count;
  /* "KEY=VALUE" entries read instead of the process environment; NULL with
   * count 0: the process environment. */
  const char* const* environment;
  size_t environment_count;
  /* zstd level 1..22; 0: 3. */
  int zstd_level;
  /* Threads that read (pass 1) and compress; 0: the number of CPUs, at most
   * 4. The bundle's bytes do not depend on it. */
  unsigned int threads;
} casefile_collect_options;

#define CASEFILE_COLLECT_OPTIONS_INIT                                                             \
  {                                                                                               \
    CASEFILE_COLLECT_OPTIONS_VERSION, NULL, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL, NULL, \
        0, NULL,                   /* output .. host */                                           \
        0, 0, 0, 0, 0, 0, 0, 0, 0, /* since_seconds .. no_discover */                             \
        NULL, 0, NULL, 0, NULL, 0, 0, 0                                                           \
  } /* redact_key .. threads */

/* Fills `opts` with defaults for `version`. Returns CASEFILE_E_VERSION for a
 * version this library does not know, CASEFILE_E_ARGUMENT for NULL.
 * Thread-safe. */
CASEFILE_API casefile_status casefile_collect_options_init(casefile_collect_options* opts,
                                                           unsigned int version);

typedef enum casefile_collect_phase {
  CASEFILE_COLLECT_PHASE_COMMANDS =
      0, /* running version/system commands: done and total count commands */
  CASEFILE_COLLECT_PHASE_SCAN = 1, /* reading and redacting every file: bytes */
  CASEFILE_COLLECT_PHASE_WRITE = 2 /* writing the bundle: bytes */
} casefile_collect_phase;

/* Progress of a collection, called on the calling thread. `total` is an
 * estimate in the scan phase (sizes before redaction). `current` (borrowed,
 * valid during the call) is the file or "command:NAME" at hand. Return
 * non-zero to abort: casefile_collect then returns CASEFILE_E_ABORTED and
 * leaves no output file. */
typedef int (*casefile_collect_progress_fn)(casefile_collect_phase phase, uint64_t done,
                                            uint64_t total, const char* current, void* payload);

typedef struct casefile_collect_result casefile_collect_result;

/* Collects into opts->output. Returns CASEFILE_OK; CASEFILE_PARTIAL when the
 * bundle was written but something could not be collected whole (an
 * unreadable or missing input, a command timeout, a file left out or changed
 * while collected; each is a casefile_collect_result_error, and all but a
 * change are in the manifest's "errors"); or an error:
 * CASEFILE_E_ARGUMENT (NULL out or opts, no output without dry_run, NULL
 * array items, a label without '=', a bad zstd level or key size),
 * CASEFILE_E_VERSION, CASEFILE_E_IO (the output cannot be written),
 * CASEFILE_E_LIMIT (the manifest would exceed what casefile reads),
 * CASEFILE_E_ABORTED, CASEFILE_E_NOMEM. *out (with OK and PARTIAL) is freed
 * with casefile_collect_result_free. `progress` may be NULL. */
CASEFILE_API casefile_status casefile_collect(casefile_collect_result** out,
                                              const casefile_collect_options* opts,
                                              casefile_collect_progress_fn progress, void* payload,
                                              casefile_error** err);

CASEFILE_API void casefile_collect_result_free(casefile_collect_result* result);

/* Files packed (the manifest not counted), their bytes (uncompressed), and
 * the bytes written to the output (0 for a dry run). 0 for NULL. */
CASEFILE_API uint64_t casefile_collect_result_file_count(const casefile_collect_result* result);
CASEFILE_API uint64_t casefile_collect_result_bytes(const casefile_collect_result* result);
CASEFILE_API uint64_t casefile_collect_result_archive_bytes(const casefile_collect_result* result);

/* Redactions made, in all and per kind ("hf_token", "url_password", ...;
 * kinds in name order). Borrowed strings valid until
 * casefile_collect_result_free. Returns CASEFILE_E_ARGUMENT out of range. */
CASEFILE_API uint64_t
casefile_collect_result_redaction_count(const casefile_collect_result* result);
CASEFILE_API size_t
casefile_collect_result_redaction_kind_count(const casefile_collect_result* result);
CASEFILE_API casefile_status
casefile_collect_result_redaction_kind(const casefile_collect_result* result, size_t index,
                                       const char** kind_out, uint64_t* count_out);

/* Collection errors: the source (a path, "command:NAME") and what happened.
 * Borrowed strings valid until casefile_collect_result_free; any output
 * pointer may be NULL. Returns CASEFILE_E_ARGUMENT out of range. */
CASEFILE_API size_t casefile_collect_result_error_count(const casefile_collect_result* result);
CASEFILE_API casefile_status casefile_collect_result_error(const casefile_collect_result* result,
                                                           size_t index, const char** source_out,
                                                           const char** message_out);

/* The listing, one entry per file or command considered, sorted by bundle
 * path: action "pack", "tail" (packed, its front cut for max_bytes), "skip"
 * (left out: note says why) or "run" (dry run: a command that would run);
 * the bundle path ("" when none), the source, the kind (a `casefile files`
 * kind, "" when not read), the bytes packed, the redactions made in it, and
 * a note. This is what a dry run is for. Borrowed strings valid until
 * casefile_collect_result_free; any output pointer may be NULL. Returns
 * CASEFILE_E_ARGUMENT out of range. */
CASEFILE_API size_t casefile_collect_result_entry_count(const casefile_collect_result* result);
CASEFILE_API casefile_status casefile_collect_result_entry(
    const casefile_collect_result* result, size_t index, const char** action_out,
    const char** path_out, const char** source_out, const char** kind_out, uint64_t* size_out,
    uint64_t* redactions_out, const char** note_out);

typedef struct casefile_verify_result casefile_verify_result;

/* Checks a bundle written by casefile_collect against its manifest: the
 * manifest first and valid, every file it lists present once with its size
 * and SHA-256, nothing else present. Returns CASEFILE_OK whenever the bundle
 * could be opened, good or not: casefile_verify_result_ok says which, and
 * each problem is listed. Errors: CASEFILE_E_ARGUMENT, CASEFILE_E_NOT_FOUND,
 * CASEFILE_E_IO, CASEFILE_E_UNSUPPORTED (a directory), CASEFILE_E_ABORTED,
 * CASEFILE_E_NOMEM. `progress` (bytes of content read, the entry at hand)
 * may be NULL. Free *out with casefile_verify_result_free. Thread-safe. */
CASEFILE_API casefile_status casefile_verify_bundle(casefile_verify_result** out, const char* path,
                                                    casefile_progress_fn progress, void* payload,
                                                    casefile_error** err);

CASEFILE_API void casefile_verify_result_free(casefile_verify_result* result);

/* 1 when the bundle matches its manifest, 0 otherwise (and for NULL). */
CASEFILE_API int casefile_verify_result_ok(const casefile_verify_result* result);
/* Files found whole (listed, present, size and SHA-256 equal). */
CASEFILE_API uint64_t casefile_verify_result_file_count(const casefile_verify_result* result);

/* Problems: the bundle path concerned ("" for the archive as a whole), the
 * kind ("archive", "manifest", "missing", "extra", "size", "sha256",
 * "duplicate", "entry_type") and a message. Borrowed strings valid until
 * casefile_verify_result_free; any output pointer may be NULL. Returns
 * CASEFILE_E_ARGUMENT out of range. */
CASEFILE_API size_t casefile_verify_result_problem_count(const casefile_verify_result* result);
CASEFILE_API casefile_status casefile_verify_result_problem(const casefile_verify_result* result,
                                                            size_t index, const char** path_out,
                                                            const char** kind_out,
                                                            const char** message_out);

/* ===================================================================== */
/* Diff: a good run against a bad run                                    */
/* ===================================================================== */

#define CASEFILE_DIFF_OPTIONS_VERSION 1

typedef struct casefile_diff_options {
  unsigned int version; /* CASEFILE_DIFF_OPTIONS_VERSION */
  /* Non-zero: do not store each side's findings in its index (by default
   * they are stored, as casefile_session_analyze stores them, so the next
   * diff or analysis of the same index reads them instead of re-running
   * the analyzers). */
  int no_store;
} casefile_diff_options;

#define CASEFILE_DIFF_OPTIONS_INIT \
  { CASEFILE_DIFF_OPTIONS_VERSION, 0 }

/* Fills `opts` with defaults for `version`. Returns CASEFILE_E_VERSION for a
 * version this library does not know, CASEFILE_E_ARGUMENT for NULL.
 * Thread-safe. */
CASEFILE_API casefile_status casefile_diff_options_init(casefile_diff_options* opts,
                                                        unsigned int version);

typedef struct casefile_diff_report casefile_diff_report;

/* Compares two sessions: `good` (a run that worked) and `bad` (the run that
 * failed), each one or several bundles. Each session is indexed first when it
 * is not yet (`progress` may be NULL), its findings come from the analyzers,
 * then every section of docs/DIFF.md is compared (findings, versions,
 * configs, log templates, metrics, HLO, traces) and ranked most suspicious
 * first, with a headline of at most three items. The two sessions must be
 * different handles; each is used by this call alone while it runs (see the
 * thread-safety rules above). A side read only in part still diffs: the
 * report's warnings say so and the call returns CASEFILE_PARTIAL with the
 * report set. Errors: CASEFILE_E_ARGUMENT, CASEFILE_E_MISUSE, the errors of
 * casefile_session_index, CASEFILE_E_NOMEM. Free *out with
 * casefile_diff_report_free; it stays valid after the sessions are freed and
 * is immutable (its accessors may be called from several threads). */
CASEFILE_API casefile_status casefile_diff(casefile_diff_report** out, casefile_session* good,
                                           casefile_session* bad, const casefile_diff_options* opts,
                                           casefile_progress_fn progress, void* payload,
                                           casefile_error** err);

CASEFILE_API void casefile_diff_report_free(casefile_diff_report* report);

/* Renders the diff: CASEFILE_FORMAT_JSON (the shape of docs/DIFF.md), text,
 * HTML or markdown (docs/REPORTS.md).
 * *out is owned by the caller (casefile_string_free). The same two indexes
 * give byte-identical output. */
CASEFILE_API casefile_status casefile_diff_report_render(char** out,
                                                         const casefile_diff_report* report,
                                                         casefile_format format,
                                                         casefile_error** err);

/* The headline: at most three sentences, most suspicious first. Borrowed,
 * valid until casefile_diff_report_free; NULL when out of range. */
CASEFILE_API size_t casefile_diff_report_headline_count(const casefile_diff_report* report);
CASEFILE_API const char* casefile_diff_report_headline(const casefile_diff_report* report,
                                                       size_t index);

/* ===================================================================== */
/* Extensions: external analyzers, plugins and rule packs                */
/* ===================================================================== */

/* An external analyzer is a callback that reads the index through read-only
 * SQL and emits findings through a builder. Registered analyzers are
 * process-wide: every later analysis (casefile_session_analyze,
 * casefile_diff) runs them after the built-in ones, and their findings
 * appear in every report format exactly like built-in findings. Their names
 * and versions are part of the provenance of stored findings, so
 * registering or unregistering one makes the next analysis run again.
 *
 * Thread safety: registration, unregistration, plugin loading and rule
 * loading may be called from any thread; each analysis works on a snapshot
 * of the registry taken when it starts, so a change affects only the
 * analyses that start after it. A run callback may be called from several
 * threads at once (one call per analysis running), so its payload must
 * tolerate that. The casefile_analysis and casefile_finding_builder handles
 * belong to the one callback call they were given to or created in and must
 * not be used after it returns. */

typedef struct casefile_analysis casefile_analysis;
typedef struct casefile_finding_builder casefile_finding_builder;

/* The run callback. Return 0 when done; any other value aborts this
 * analyzer only: its findings are discarded and the report lists it as
 * "failed", with the reason set by casefile_analysis_set_error (else "the
 * run callback returned N"). The other analyzers still run. */
typedef int (*casefile_analyzer_fn)(casefile_analysis* analysis, void* payload);

#define CASEFILE_ANALYZER_DEF_VERSION 1

typedef struct casefile_analyzer_def {
  unsigned int version; /* CASEFILE_ANALYZER_DEF_VERSION */
  /* Unique among analyzers: [a-z0-9][a-z0-9_-]*, at most 64 bytes. */
  const char* name;
  /* Bump it when the findings change (stored findings are reused only while
   * every analyzer's version is the same). NULL means "1". */
  const char* analyzer_version;
  /* One line for `casefile analyzers`, without control characters (no
   * line break, tab or escape sequence); may be NULL. */
  const char* description;
  /* The file kinds it reads ("log", "trace", "hlo", "config", "version",
   * "sysinfo", "other"; docs/SCHEMA.md). The analyzer is "not_applicable"
   * when the index holds none of them; count 0 means it always runs. */
  const char* const* needed_kinds;
  size_t needed_kind_count;
  /* The codes it may emit ("team.check", dotted, lower case, docs/
   * FINDINGS.md rules); emitting another fails the analyzer. Count 0 allows
   * any valid code that is not a built-in analyzer's. */
  const char* const* codes;
  size_t code_count;
  casefile_analyzer_fn run;
  /* Called once with `payload` when the analyzer is unregistered (or never,
   * if it stays registered until the process exits), on the thread that
   * lets go of it last (docs/EXTENDING.md); may be NULL. */
  void (*free_payload)(void* payload);
  void* payload;
} casefile_analyzer_def;

#define CASEFILE_ANALYZER_DEF_INIT \
  { CASEFILE_ANALYZER_DEF_VERSION, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, NULL }

/* Registers an analyzer; every string and array of `def` is copied.
 * Returns CASEFILE_E_ARGUMENT for a missing run callback, an invalid or
 * already registered name (built-in names and "rules" included), an
 * invalid code or a description with a control character,
 * CASEFILE_E_VERSION for an unknown def->version. On failure free_payload
 * is not called. */
CASEFILE_API casefile_status casefile_analyzer_register(const casefile_analyzer_def* def,
                                                        casefile_error** err);

/* Unregisters an external analyzer and calls its free_payload (after any
 * analysis still running it has finished with it). Returns
 * CASEFILE_E_UNKNOWN_ANALYZER for a name not registered, CASEFILE_E_ARGUMENT
 * for a built-in one. */
CASEFILE_API casefile_status casefile_analyzer_unregister(const char* name, casefile_error** err);

/* Runs one read-only SQL statement on the index being analysed, like
 * casefile_session_query (same authorizer, same errors). */
CASEFILE_API casefile_status casefile_analysis_query(casefile_analysis* analysis, const char* sql,
                                                     casefile_row_fn callback, void* payload,
                                                     casefile_error** err);

/* casefile_analysis_query within the bounds of `opts` (NULL: the defaults),
 * as casefile_session_query_ex. Only inside the run callback the analysis
 * belongs to, on its thread. Since 0.4. */
CASEFILE_API casefile_status casefile_analysis_query_ex(casefile_analysis* analysis,
                                                        const char* sql,
                                                        const casefile_query_options* opts,
                                                        casefile_row_fn callback, void* payload,
                                                        casefile_error** err);

/* The reason the report gives when the run callback returns non-zero
 * (copied; the last call wins). */
CASEFILE_API void casefile_analysis_set_error(casefile_analysis* analysis, const char* message);

/* Starts a finding. `code` must be valid for the analyzer (see
 * casefile_analyzer_def.codes); `title` is required. Nothing is emitted until
 * casefile_finding_builder_emit. */
CASEFILE_API casefile_status casefile_finding_builder_new(casefile_finding_builder** out,
                                                          casefile_analysis* analysis,
                                                          const char* code,
                                                          casefile_severity severity,
                                                          const char* title, casefile_error** err);
CASEFILE_API casefile_status casefile_finding_builder_set_summary(casefile_finding_builder* builder,
                                                                  const char* summary,
                                                                  casefile_error** err);
CASEFILE_API casefile_status casefile_finding_builder_set_recommendation(
    casefile_finding_builder* builder, const char* recommendation, casefile_error** err);
/* A culprit: host and task may be NULL (unknown), rank -1 when unknown; at
 * least one of the three must be known. */
CASEFILE_API casefile_status casefile_finding_builder_add_culprit(casefile_finding_builder* builder,
                                                                  const char* host,
                                                                  const char* task, int64_t rank,
                                                                  casefile_error** err);
/* Evidence: line `line` (1-based) of the indexed file `file_id` (files.id
 * in the index). The text and the path come from the index, so evidence is
 * always a real line; CASEFILE_E_ARGUMENT when there is no such line. */
CASEFILE_API casefile_status casefile_finding_builder_add_evidence(
    casefile_finding_builder* builder, int64_t file_id, int64_t line, casefile_error** err);
/* The same by path inside a bundle; `bundle` (the bundle's display name)
 * may be NULL when only one bundle of the index holds `path`. */
CASEFILE_API casefile_status
casefile_finding_builder_add_evidence_path(casefile_finding_builder* builder, const char* bundle,
                                           const char* path, int64_t line, casefile_error** err);
/* Hands the finding to the analysis and frees the builder, whatever the
 * result. Returns CASEFILE_E_ARGUMENT when it has no evidence, which also
 * fails the analyzer (a finding without evidence is a bug). */
CASEFILE_API casefile_status casefile_finding_builder_emit(casefile_finding_builder* builder,
                                                           casefile_error** err);
/* Discards a finding not emitted. */
CASEFILE_API void casefile_finding_builder_free(casefile_finding_builder* builder);

/* Plugins: shared objects that register analyzers. A plugin exports one
 * function named by CASEFILE_PLUGIN_ENTRY_SYMBOL, of type
 * casefile_plugin_entry_fn, returning a static casefile_plugin_info; its
 * init registers the analyzers with casefile_analyzer_register. A plugin
 * links against libcasefile.so (the same library the host process uses).
 * See docs/EXTENDING.md and tests/plugins/ for an example. */

#define CASEFILE_PLUGIN_INFO_VERSION 1
#define CASEFILE_PLUGIN_ENTRY_SYMBOL "casefile_plugin_entry"

typedef struct casefile_plugin_info {
  unsigned int version;   /* CASEFILE_PLUGIN_INFO_VERSION */
  unsigned int abi_major; /* CASEFILE_VERSION_MAJOR of the header it was built with */
  const char* name;       /* for messages and `casefile analyzers` */
  const char* description;
  /* Registers the plugin's analyzers. Non-zero: loading fails and whatever
   * it registered is unregistered. */
  int (*init)(void* payload);
  void* payload;
} casefile_plugin_info;

#define CASEFILE_PLUGIN_INFO_INIT \
  { CASEFILE_PLUGIN_INFO_VERSION, CASEFILE_VERSION_MAJOR, NULL, NULL, NULL, NULL }

typedef const casefile_plugin_info* (*casefile_plugin_entry_fn)(void);

/* Loads a plugin and runs its init. Loading the same file again does
 * nothing. Plugins are never unloaded (their analyzers may be unregistered).
 * Returns CASEFILE_E_NOT_FOUND, or CASEFILE_E_PLUGIN with the reason: not a
 * shared object, no entry point, an info version or ABI major this library
 * does not have ("built against casefile ABI 1; this library is 0"), or init
 * failed. */
CASEFILE_API casefile_status casefile_plugin_load(const char* path, casefile_error** err);

/* Loads every plugin named by `path_list`: entries separated by ':', each a
 * plugin file or a directory whose *.so files are loaded in name order;
 * empty entries are skipped. NULL reads the CASEFILE_PLUGIN_PATH
 * environment variable (the library never reads it on its own). Stops at
 * the first failure. `*loaded_out` (may be NULL) receives the number of
 * plugins loaded by this call. */
CASEFILE_API casefile_status casefile_plugin_load_path(size_t* loaded_out, const char* path_list,
                                                       casefile_error** err);

/* Rule packs (docs/RULES.md): JSON files of signature rules. The built-in
 * packs are compiled into the library; packs added here join them. All
 * packs run in the one "rules" analyzer, in one pass over the lines. */

/* Validates and adds a pack from a file, or from `text` of `length` bytes
 * (`source_name` names it in messages; may be NULL). A pack with the name of
 * one already added replaces it. Returns CASEFILE_E_RULES with every error
 * as "SOURCE:LINE:COLUMN: message", one per line, CASEFILE_E_NOT_FOUND,
 * CASEFILE_E_IO. */
CASEFILE_API casefile_status casefile_rules_add_file(const char* path, casefile_error** err);
CASEFILE_API casefile_status casefile_rules_add_string(const char* text, size_t length,
                                                       const char* source_name,
                                                       casefile_error** err);
/* Removes an added pack by name; CASEFILE_E_ARGUMENT for a built-in or
 * unknown one. */
CASEFILE_API casefile_status casefile_rules_remove(const char* pack_name, casefile_error** err);

/* Checks a pack file without adding it: CASEFILE_OK, or CASEFILE_E_RULES
 * with every error as above. */
CASEFILE_API casefile_status casefile_rules_check_file(const char* path, casefile_error** err);

/* ===================================================================== */
/* Experimental: may change in any release. Defined only when the includer
 * defines CASEFILE_EXPERIMENTAL before including this header.            */
/* ===================================================================== */

#ifdef CASEFILE_EXPERIMENTAL
/* Every pack in use (built-in first, then added ones) and its rules, as JSON
 * (docs/RULES.md, "Listing"). *out is owned by the caller
 * (casefile_string_free). */
CASEFILE_API casefile_status casefile_rules_describe(char** out, casefile_error** err);
#endif

#ifdef __cplusplus
}
#endif

#endif /* CASEFILE_H */
