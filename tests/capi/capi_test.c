/*
 * The C API, exercised from C: every function of casefile.h, with its error
 * paths (NULL arguments, NULL err, unknown options versions, missing and
 * garbage inputs, out-of-range indices, foreign handles, refused and bad SQL,
 * aborting callbacks). The input bundle is written at test time into a fresh
 * temporary directory; expected values come from the lines written here.
 */
#define _XOPEN_SOURCE 700

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "c_check.h"
#include "casefile.h"

/* ---------------------------------------------------------------------- */
/* The bundle written at test time                                        */
/* ---------------------------------------------------------------------- */

static char g_root[256];    /* the temporary directory */
static char g_bundle[512];  /* a directory bundle with a hang digest */
static char g_big[512];     /* a directory bundle larger than 8 MiB */
static char g_garbage[512]; /* a file that is no archive at all */
static char g_missing[512]; /* a path that does not exist */

/* The coordinator's log: glog-prefixed first line of a multi-line message,
 * then the digest lines as the coordinator prints them. */
static const char* const kCoordinatorLines[] = {
    "I0105 10:00:00.000000    1234 coordinator.cc:41] Megascale coordinator started for 2 workers",
    "E0105 10:05:00.100000    1234 coordinator.cc:212] Megascale detects a hang that is likely "
    "caused by bad TPU chips on the following hosts. Please remove the hosts from the fleet and "
    "restart the workload. If problem persists please contact Megascale XLA team.",
    "  The host that have bad TPUs are: host-b",
    "  Full error digest:",
    "    Potential cause: Bad TPU chips",
    "    Potential culprit workers: jax_worker/1:host-b",
    "I0105 10:05:01.000000    1234 coordinator.cc:250] Shutting down",
};

static const char* const kWorkerLines[] = {
    "I0105 10:00:02.000000    5678 train.py:88] step 99 loss 2.31",
    "I0105 10:00:03.000000    5678 train.py:88] step 100 loss 2.30",
    "E0105 10:04:59.000000    5678 megascale.cc:77] Megascale hang detected: Timed out waiting for "
    "4 graphs to complete at launch_id 13650. Already completed: 100. StepGloballyInProgress: "
    "true. Timeout: 1m",
};

static void make_dir(const char* path) { CHECK(mkdir(path, 0700) == 0); }

static void make_inputs(void) {
  char path[512];
  FILE* f;
  int i;
  make_temp_dir(g_root, sizeof g_root, "casefile_capi");

  join(g_bundle, sizeof g_bundle, g_root, "run42");
  make_dir(g_bundle);
  join(path, sizeof path, g_bundle, "logs");
  make_dir(path);
  join(path, sizeof path, g_bundle, "logs/coordinator.log");
  write_lines(path, kCoordinatorLines, COUNT(kCoordinatorLines));
  join(path, sizeof path, g_bundle, "logs/worker-1.log");
  write_lines(path, kWorkerLines, COUNT(kWorkerLines));

  /* Progress is reported every few MiB, so the progress tests need a bundle
   * well above that: 9 MiB of ordinary log lines (64 bytes each). */
  join(g_big, sizeof g_big, g_root, "big");
  make_dir(g_big);
  join(path, sizeof path, g_big, "train.log");
  f = fopen(path, "w");
  CHECK(f != NULL);
  for (i = 0; i < 9 * 16384; ++i) {
    if (fprintf(f, "I0105 10:00:00.000000 1 train.py:1] step %08d loss 2.300 ok\n", i) != 64) break;
  }
  CHECK(i == 9 * 16384);
  CHECK(fclose(f) == 0);

  /* Bytes that are no archive format at all, under an archive's name. */
  join(g_garbage, sizeof g_garbage, g_root, "garbage.tar.zst");
  f = fopen(g_garbage, "wb");
  CHECK(f != NULL);
  for (i = 0; i < 4096; ++i) {
    if (fputc((i * 131 + 7) & 0xff, f) == EOF) break;
  }
  CHECK(i == 4096);
  CHECK(fclose(f) == 0);

  join(g_missing, sizeof g_missing, g_root, "no_such_bundle");
}

static void remove_inputs(void) { remove_tree(g_root); }

static int file_exists(const char* path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* Opens `input` with its index at <root>/<index_name>. */
static casefile_session* open_session(const char* input, const char* index_name, int reindex) {
  char index_path[512];
  casefile_open_options opts = CASEFILE_OPEN_OPTIONS_INIT;
  casefile_session* s = NULL;
  casefile_error* err = NULL;
  const char* inputs[1];
  inputs[0] = input;
  join(index_path, sizeof index_path, g_root, index_name);
  opts.index_path = index_path;
  opts.reindex = reindex;
  CHECK_STATUS(casefile_session_open(&s, inputs, 1, &opts, &err), CASEFILE_OK);
  CHECK(s != NULL);
  CHECK(err == NULL);
  return s;
}

/* ---------------------------------------------------------------------- */
/* Version, statuses, errors, options                                     */
/* ---------------------------------------------------------------------- */

static void test_version(void) {
  char expected[32];
  snprintf(expected, sizeof expected, "%d.%d.%d", CASEFILE_VERSION_MAJOR, CASEFILE_VERSION_MINOR,
           CASEFILE_VERSION_PATCH);
  CHECK(casefile_version_number() == CASEFILE_VERSION_NUMBER);
  CHECK(CASEFILE_VERSION_NUMBER ==
        CASEFILE_VERSION_MAJOR * 1000000 + CASEFILE_VERSION_MINOR * 1000 + CASEFILE_VERSION_PATCH);
  CHECK(strcmp(casefile_version_string(), expected) == 0);
}

static void test_status_strings(void) {
  static const casefile_status all[] = {CASEFILE_OK,
                                        CASEFILE_PARTIAL,
                                        CASEFILE_E_ARGUMENT,
                                        CASEFILE_E_MISUSE,
                                        CASEFILE_E_UNKNOWN_ANALYZER,
                                        CASEFILE_E_VERSION,
                                        CASEFILE_E_IO,
                                        CASEFILE_E_NOT_FOUND,
                                        CASEFILE_E_CORRUPT,
                                        CASEFILE_E_UNSUPPORTED,
                                        CASEFILE_E_INDEX_VERSION,
                                        CASEFILE_E_LIMIT,
                                        CASEFILE_E_TIMEOUT,
                                        CASEFILE_E_QUERY,
                                        CASEFILE_E_READ_ONLY,
                                        CASEFILE_E_NOMEM,
                                        CASEFILE_E_ABORTED,
                                        CASEFILE_E_INTERNAL};
  size_t i, j;
  for (i = 0; i < COUNT(all); ++i) {
    const char* s = casefile_status_string(all[i]);
    CHECK(s != NULL && s[0] != '\0');
    for (j = 0; j < i; ++j) CHECK(strcmp(s, casefile_status_string(all[j])) != 0);
  }
  CHECK(contains(casefile_status_string(CASEFILE_E_CORRUPT), "corrupt"));
  CHECK(casefile_status_string((casefile_status)12345) != NULL);
  /* Values are part of the ABI. */
  CHECK(CASEFILE_OK == 0 && CASEFILE_PARTIAL == 1 && CASEFILE_E_ARGUMENT == 100 &&
        CASEFILE_E_NOT_FOUND == 201 && CASEFILE_E_CORRUPT == 300 && CASEFILE_E_READ_ONLY == 501 &&
        CASEFILE_E_INTERNAL == 999 && CASEFILE_E_LIMIT == 400 && CASEFILE_E_TIMEOUT == 401);
  CHECK(contains(casefile_status_string(CASEFILE_E_TIMEOUT), "timed out"));
}

static void test_error_null(void) {
  CHECK(strcmp(casefile_error_message(NULL), "") == 0);
  CHECK(casefile_error_status(NULL) == CASEFILE_E_ARGUMENT);
  casefile_error_free(NULL);
  casefile_string_free(NULL);
}

static void test_options(void) {
  casefile_open_options open_opts;
  casefile_analyze_options analyze_opts;
  casefile_open_options open_init = CASEFILE_OPEN_OPTIONS_INIT;
  casefile_analyze_options analyze_init = CASEFILE_ANALYZE_OPTIONS_INIT;

  CHECK(open_init.version == CASEFILE_OPEN_OPTIONS_VERSION);
  CHECK(analyze_init.version == CASEFILE_ANALYZE_OPTIONS_VERSION);

  CHECK_STATUS(casefile_open_options_init(NULL, CASEFILE_OPEN_OPTIONS_VERSION),
               CASEFILE_E_ARGUMENT);
  CHECK_STATUS(casefile_open_options_init(&open_opts, 0), CASEFILE_E_VERSION);
  CHECK_STATUS(casefile_open_options_init(&open_opts, CASEFILE_OPEN_OPTIONS_VERSION + 1),
               CASEFILE_E_VERSION);
  memset(&open_opts, 0xab, sizeof open_opts);
  CHECK_STATUS(casefile_open_options_init(&open_opts, CASEFILE_OPEN_OPTIONS_VERSION), CASEFILE_OK);
  CHECK(open_opts.version == CASEFILE_OPEN_OPTIONS_VERSION);
  CHECK(open_opts.index_path == NULL);
  CHECK(open_opts.reindex == 0);
  CHECK(open_opts.max_entry_bytes == 0 && open_opts.max_total_bytes == 0);
  CHECK(open_opts.max_entries == 0 && open_opts.max_line_bytes == 0);

  CHECK_STATUS(casefile_analyze_options_init(NULL, CASEFILE_ANALYZE_OPTIONS_VERSION),
               CASEFILE_E_ARGUMENT);
  CHECK_STATUS(casefile_analyze_options_init(&analyze_opts, 0), CASEFILE_E_VERSION);
  CHECK_STATUS(casefile_analyze_options_init(&analyze_opts, 77), CASEFILE_E_VERSION);
  memset(&analyze_opts, 0xab, sizeof analyze_opts);
  CHECK_STATUS(casefile_analyze_options_init(&analyze_opts, CASEFILE_ANALYZE_OPTIONS_VERSION),
               CASEFILE_OK);
  CHECK(analyze_opts.version == CASEFILE_ANALYZE_OPTIONS_VERSION);
  CHECK(analyze_opts.analyzers == NULL && analyze_opts.analyzer_count == 0);
  CHECK(analyze_opts.no_store == 0);
}

/* ---------------------------------------------------------------------- */
/* Session open                                                           */
/* ---------------------------------------------------------------------- */

static void test_open_errors(void) {
  casefile_session* s = (casefile_session*)&g_passed; /* a non-NULL sentinel */
  casefile_error* err = NULL;
  const char* inputs[2];
  casefile_open_options opts = CASEFILE_OPEN_OPTIONS_INIT;

  inputs[0] = g_bundle;
  inputs[1] = NULL;

  /* NULL out: nothing to clear, the argument is named. */
  CHECK_STATUS(casefile_session_open(NULL, inputs, 1, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(err != NULL);
  CHECK(casefile_error_status(err) == CASEFILE_E_ARGUMENT);
  CHECK(contains(casefile_error_message(err), "casefile_session_open"));
  CHECK(contains(casefile_error_message(err), "'out'"));
  casefile_error_free(err);

  /* NULL inputs: *out is cleared first. */
  err = NULL;
  CHECK_STATUS(casefile_session_open(&s, NULL, 1, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(s == NULL);
  CHECK(contains(casefile_error_message(err), "inputs"));
  casefile_error_free(err);

  s = (casefile_session*)&g_passed;
  CHECK_STATUS(casefile_session_open(&s, inputs, 0, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(s == NULL);
  CHECK(contains(casefile_error_message(err), "input_count"));
  casefile_error_free(err);

  CHECK_STATUS(casefile_session_open(&s, inputs, 2, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(s == NULL);
  CHECK(contains(casefile_error_message(err), "inputs[1]"));
  casefile_error_free(err);

  /* NULL err is allowed on every failure. */
  CHECK_STATUS(casefile_session_open(&s, NULL, 0, NULL, NULL), CASEFILE_E_ARGUMENT);
  CHECK_STATUS(casefile_session_open(NULL, NULL, 0, NULL, NULL), CASEFILE_E_ARGUMENT);

  /* Options of version 0 (uninitialised) or from the future. */
  opts.version = 0;
  CHECK_STATUS(casefile_session_open(&s, inputs, 1, &opts, &err), CASEFILE_E_VERSION);
  CHECK(s == NULL);
  CHECK(contains(casefile_error_message(err), "version"));
  casefile_error_free(err);
  opts.version = CASEFILE_OPEN_OPTIONS_VERSION + 1;
  CHECK_STATUS(casefile_session_open(&s, inputs, 1, &opts, NULL), CASEFILE_E_VERSION);

  /* A missing input names its path. */
  inputs[0] = g_missing;
  CHECK_STATUS(casefile_session_open(&s, inputs, 1, NULL, &err), CASEFILE_E_NOT_FOUND);
  CHECK(s == NULL);
  CHECK(casefile_error_status(err) == CASEFILE_E_NOT_FOUND);
  CHECK(contains(casefile_error_message(err), "no_such_bundle"));
  casefile_error_free(err);
  CHECK_STATUS(casefile_session_open(&s, inputs, 1, NULL, NULL), CASEFILE_E_NOT_FOUND);

  /* A missing input among good ones still fails the open. */
  inputs[0] = g_bundle;
  inputs[1] = g_missing;
  CHECK_STATUS(casefile_session_open(&s, inputs, 2, NULL, NULL), CASEFILE_E_NOT_FOUND);
  CHECK(s == NULL);

  /* free(NULL) after a failed open. */
  casefile_session_free(s);
}

static void test_session_null_handles(void) {
  casefile_error* err = NULL;
  CHECK_STATUS(casefile_session_index(NULL, NULL, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(contains(casefile_error_message(err), "casefile_session_index"));
  CHECK(contains(casefile_error_message(err), "session"));
  casefile_error_free(err);
  CHECK_STATUS(casefile_session_index(NULL, NULL, NULL, NULL), CASEFILE_E_ARGUMENT);
  CHECK(casefile_session_index_reused(NULL) == 0);
  CHECK(casefile_session_index_path(NULL) != NULL);
  CHECK(strcmp(casefile_session_index_path(NULL), "") == 0);
  CHECK(strcmp(casefile_session_last_error(NULL), "") == 0);
  CHECK_STATUS(casefile_session_query(NULL, "SELECT 1", NULL, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(contains(casefile_error_message(err), "casefile_session_query"));
  casefile_error_free(err);
  casefile_session_free(NULL);
}

/* ---------------------------------------------------------------------- */
/* Indexing                                                               */
/* ---------------------------------------------------------------------- */

struct progress_log {
  int calls;
  int abort_after; /* abort on this call (1-based); 0 = never */
  uint64_t last_bytes;
  int bytes_monotonic;
  char last_path[256];
};

static int on_progress(uint64_t bytes_done, const char* current_path, void* payload) {
  struct progress_log* log = (struct progress_log*)payload;
  ++log->calls;
  if (bytes_done < log->last_bytes) log->bytes_monotonic = 0;
  log->last_bytes = bytes_done;
  snprintf(log->last_path, sizeof log->last_path, "%s", current_path ? current_path : "(null)");
  return log->abort_after != 0 && log->calls >= log->abort_after;
}

static void test_index_and_reuse(void) {
  char expected_path[512];
  casefile_error* err = (casefile_error*)&g_passed; /* cleared on success */
  casefile_session* s = open_session(g_bundle, "run42.db", 0);

  join(expected_path, sizeof expected_path, g_root, "run42.db");
  CHECK(strcmp(casefile_session_index_path(s), expected_path) == 0);
  CHECK(strcmp(casefile_session_last_error(s), "") == 0);
  CHECK(casefile_session_index_reused(s) == 0);

  /* Query before index is misuse, and becomes the session's last error. */
  CHECK_STATUS(casefile_session_query(s, "SELECT 1", NULL, NULL, NULL), CASEFILE_E_MISUSE);
  CHECK(contains(casefile_session_last_error(s), "casefile_session_query"));

  CHECK_STATUS(casefile_session_index(s, NULL, NULL, &err), CASEFILE_OK);
  CHECK(err == NULL);
  CHECK(casefile_session_index_reused(s) == 0);
  CHECK(file_exists(expected_path));
  casefile_session_free(s);

  /* The same inputs and index path again: the index is reused. */
  s = open_session(g_bundle, "run42.db", 0);
  CHECK_STATUS(casefile_session_index(s, NULL, NULL, NULL), CASEFILE_OK);
  CHECK(casefile_session_index_reused(s) == 1);
  casefile_session_free(s);

  /* reindex forces a rebuild. */
  s = open_session(g_bundle, "run42.db", 1);
  CHECK_STATUS(casefile_session_index(s, NULL, NULL, NULL), CASEFILE_OK);
  CHECK(casefile_session_index_reused(s) == 0);
  casefile_session_free(s);
}

static void test_progress(void) {
  char index_path[512];
  struct progress_log log;
  casefile_error* err = NULL;
  casefile_session* s = open_session(g_big, "big.db", 0);

  /* Aborting on the first report: ABORTED, and no index is left behind. */
  memset(&log, 0, sizeof log);
  log.abort_after = 1;
  log.bytes_monotonic = 1;
  join(index_path, sizeof index_path, g_root, "big.db");
  CHECK_STATUS(casefile_session_index(s, on_progress, &log, &err), CASEFILE_E_ABORTED);
  CHECK(log.calls == 1);
  CHECK(err != NULL);
  CHECK(casefile_error_status(err) == CASEFILE_E_ABORTED);
  CHECK(contains(casefile_error_message(err), "casefile_session_index"));
  CHECK(strcmp(casefile_error_message(err), casefile_session_last_error(s)) == 0);
  CHECK(!file_exists(index_path));
  casefile_error_free(err);

  /* Running to the end: several reports, growing, naming the file. */
  memset(&log, 0, sizeof log);
  log.bytes_monotonic = 1;
  CHECK_STATUS(casefile_session_index(s, on_progress, &log, NULL), CASEFILE_OK);
  CHECK(log.calls >= 1);
  CHECK(log.bytes_monotonic);
  CHECK(log.last_bytes > 0 && log.last_bytes <= 9u * 1024 * 1024);
  CHECK(contains(log.last_path, "train.log"));
  CHECK(file_exists(index_path));
  casefile_session_free(s);
}

static void test_garbage_input(void) {
  casefile_error* err = NULL;
  casefile_status st;
  casefile_session* s = open_session(g_garbage, "garbage.db", 0);
  st = casefile_session_index(s, NULL, NULL, &err);
  CHECK(st == CASEFILE_E_CORRUPT || st == CASEFILE_E_UNSUPPORTED);
  CHECK(casefile_error_status(err) == st);
  CHECK(contains(casefile_error_message(err), "garbage.tar.zst"));
  CHECK(strcmp(casefile_session_last_error(s), casefile_error_message(err)) == 0);
  casefile_error_free(err);
  casefile_session_free(s);
}

/* ---------------------------------------------------------------------- */
/* Query                                                                  */
/* ---------------------------------------------------------------------- */

struct rows {
  int calls;
  int stop_after; /* stop on this row (1-based); 0 = never */
  size_t columns;
  char first_name[64];
  char values[8][128];
  int null_seen;
};

static int on_row(size_t column_count, const char* const* names, const char* const* values,
                  void* payload) {
  struct rows* r = (struct rows*)payload;
  if (r->calls < 8) {
    r->columns = column_count;
    snprintf(r->first_name, sizeof r->first_name, "%s", names[0]);
    if (values[0] == NULL) {
      r->null_seen = 1;
      r->values[r->calls][0] = '\0';
    } else {
      snprintf(r->values[r->calls], sizeof r->values[0], "%s", values[0]);
    }
  }
  ++r->calls;
  return r->stop_after != 0 && r->calls >= r->stop_after;
}

static void expect_refused(casefile_session* s, const char* sql) {
  casefile_error* err = NULL;
  CHECK_STATUS(casefile_session_query(s, sql, on_row, NULL, &err), CASEFILE_E_READ_ONLY);
  CHECK(casefile_error_status(err) == CASEFILE_E_READ_ONLY);
  CHECK(contains(casefile_error_message(err), "casefile_session_query"));
  casefile_error_free(err);
}

static void test_query(void) {
  struct rows r;
  char attach_sql[700];
  casefile_error* err = NULL;
  casefile_session* s = open_session(g_bundle, "run42.db", 0);
  CHECK_STATUS(casefile_session_index(s, NULL, NULL, NULL), CASEFILE_OK);

  /* The two log files written above, with their line counts. */
  memset(&r, 0, sizeof r);
  CHECK_STATUS(casefile_session_query(
                   s, "SELECT path, line_count FROM files WHERE entry_type = 'file' ORDER BY path",
                   on_row, &r, &err),
               CASEFILE_OK);
  CHECK(err == NULL);
  CHECK(r.calls == 2);
  CHECK(r.columns == 2);
  CHECK(strcmp(r.first_name, "path") == 0);
  CHECK(strcmp(r.values[0], "logs/coordinator.log") == 0);
  CHECK(strcmp(r.values[1], "logs/worker-1.log") == 0);

  memset(&r, 0, sizeof r);
  CHECK_STATUS(casefile_session_query(s,
                                      "SELECT line_count FROM files "
                                      "WHERE path = 'logs/coordinator.log'",
                                      on_row, &r, NULL),
               CASEFILE_OK);
  CHECK(r.calls == 1);
  CHECK(strtol(r.values[0], NULL, 10) == (long)COUNT(kCoordinatorLines));

  /* The lines virtual table serves the text as written. */
  memset(&r, 0, sizeof r);
  CHECK_STATUS(casefile_session_query(s,
                                      "SELECT l.text FROM lines l JOIN files f ON f.id = l.file_id "
                                      "WHERE f.path = 'logs/coordinator.log' AND l.line_no = 5",
                                      on_row, &r, NULL),
               CASEFILE_OK);
  CHECK(r.calls == 1);
  CHECK(strcmp(r.values[0], kCoordinatorLines[4]) == 0);

  /* SQL NULL arrives as a NULL pointer; a NULL callback is allowed. */
  memset(&r, 0, sizeof r);
  CHECK_STATUS(casefile_session_query(s, "SELECT NULL AS nada", on_row, &r, NULL), CASEFILE_OK);
  CHECK(r.calls == 1 && r.null_seen == 1);
  CHECK(strcmp(r.first_name, "nada") == 0);
  CHECK_STATUS(casefile_session_query(s, "SELECT 1", NULL, NULL, NULL), CASEFILE_OK);

  /* NULL sql. */
  CHECK_STATUS(casefile_session_query(s, NULL, on_row, &r, &err), CASEFILE_E_ARGUMENT);
  CHECK(contains(casefile_error_message(err), "sql"));
  casefile_error_free(err);

  /* Writes, ATTACH and state-changing pragmas are refused. */
  expect_refused(s, "DELETE FROM files");
  expect_refused(s, "INSERT INTO bundles (name) VALUES ('x')");
  expect_refused(s, "DROP TABLE files");
  snprintf(attach_sql, sizeof attach_sql, "ATTACH DATABASE '%s/other.db' AS other", g_root);
  expect_refused(s, attach_sql);
  expect_refused(s, "PRAGMA user_version = 7");
  CHECK(contains(casefile_session_last_error(s), "casefile_session_query"));
  /* ...and the index is unchanged. */
  memset(&r, 0, sizeof r);
  CHECK_STATUS(casefile_session_query(s, "SELECT count(*) FROM files WHERE entry_type = 'file'",
                                      on_row, &r, NULL),
               CASEFILE_OK);
  CHECK(strcmp(r.values[0], "2") == 0);

  /* Bad SQL: QUERY with SQLite's message. */
  CHECK_STATUS(casefile_session_query(s, "SELEC path FROM files", on_row, &r, &err),
               CASEFILE_E_QUERY);
  CHECK(contains(casefile_error_message(err), "syntax error"));
  CHECK(strcmp(casefile_session_last_error(s), casefile_error_message(err)) == 0);
  casefile_error_free(err);
  CHECK_STATUS(casefile_session_query(s, "SELECT no_such_column FROM files", NULL, NULL, NULL),
               CASEFILE_E_QUERY);

  /* A callback that stops: ABORTED after exactly that row. */
  memset(&r, 0, sizeof r);
  r.stop_after = 1;
  CHECK_STATUS(casefile_session_query(s, "SELECT path FROM files", on_row, &r, &err),
               CASEFILE_E_ABORTED);
  CHECK(r.calls == 1);
  CHECK(casefile_error_status(err) == CASEFILE_E_ABORTED);
  casefile_error_free(err);

  casefile_session_free(s);
}

/* Every forbidden statement through the C API (casefile_session_query and
 * casefile_session_query_ex), the limits of casefile_query_options, and no
 * file written by ATTACH or VACUUM INTO. */
static void expect_status_ex(casefile_session* s, const char* sql,
                             const casefile_query_options* opts, casefile_status want,
                             const char* says) {
  casefile_error* err = NULL;
  CHECK_STATUS(casefile_session_query_ex(s, sql, opts, on_row, NULL, &err), want);
  CHECK(err != NULL && casefile_error_status(err) == want);
  CHECK(contains(casefile_error_message(err), "casefile_session_query_ex"));
  if (says != NULL) CHECK(contains(casefile_error_message(err), says));
  casefile_error_free(err);
}

static void test_query_guard_and_limits(void) {
  static const char* const refused[] = {
      "INSERT INTO bundles (name) VALUES ('x')",
      "UPDATE files SET path = 'y'",
      "DELETE FROM files",
      "CREATE TABLE t (x)",
      "CREATE TEMP TABLE t (x)",
      "DROP TABLE files",
      "PRAGMA writable_schema = 1",
      "PRAGMA journal_mode = WAL",
      "PRAGMA journal_mode = DELETE",
      "PRAGMA user_version = 7",
      "PRAGMA foreign_keys = ON",
      "SELECT load_extension('libm.so.6')",
      "SELECT 1; SELECT 2",
      "SELECT 1; DELETE FROM files",
      "BEGIN",
      "VACUUM",
  };
  char sql[900];
  char path[700];
  struct rows r;
  size_t i;
  casefile_query_options opts;
  casefile_session* s = open_session(g_bundle, "run42.db", 0);
  CHECK_STATUS(casefile_session_index(s, NULL, NULL, NULL), CASEFILE_OK);

  /* Options: init, versions. */
  CHECK_STATUS(casefile_query_options_init(NULL, CASEFILE_QUERY_OPTIONS_VERSION),
               CASEFILE_E_ARGUMENT);
  CHECK_STATUS(casefile_query_options_init(&opts, 0), CASEFILE_E_VERSION);
  CHECK_STATUS(casefile_query_options_init(&opts, CASEFILE_QUERY_OPTIONS_VERSION + 1),
               CASEFILE_E_VERSION);
  memset(&opts, 0x5a, sizeof opts);
  CHECK_STATUS(casefile_query_options_init(&opts, CASEFILE_QUERY_OPTIONS_VERSION), CASEFILE_OK);
  CHECK(opts.version == CASEFILE_QUERY_OPTIONS_VERSION && opts.max_rows == 0 &&
        opts.max_result_bytes == 0 && opts.timeout_ms == 0);
  opts.version = 99;
  expect_status_ex(s, "SELECT 1", &opts, CASEFILE_E_VERSION, "version 99");
  CHECK_STATUS(casefile_query_options_init(&opts, CASEFILE_QUERY_OPTIONS_VERSION), CASEFILE_OK);
  /* NULL options: the defaults. */
  CHECK_STATUS(casefile_session_query_ex(s, "SELECT 1", NULL, NULL, NULL, NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_session_query_ex(NULL, "SELECT 1", NULL, NULL, NULL, NULL),
               CASEFILE_E_ARGUMENT);

  /* Each forbidden thing, through both calls. */
  for (i = 0; i < COUNT(refused); ++i) {
    expect_refused(s, refused[i]);
    expect_status_ex(s, refused[i], &opts, CASEFILE_E_READ_ONLY, "refused");
  }
  /* ATTACH of a path that would create a file, and VACUUM INTO: refused,
   * and the file is not there afterwards. */
  snprintf(path, sizeof path, "%s/attached-by-query.db", g_root);
  snprintf(sql, sizeof sql, "ATTACH DATABASE '%s' AS other", path);
  expect_refused(s, sql);
  expect_status_ex(s, sql, &opts, CASEFILE_E_READ_ONLY, "ATTACH");
  CHECK(!file_exists(path));
  snprintf(path, sizeof path, "%s/vacuum-into.db", g_root);
  snprintf(sql, sizeof sql, "VACUUM INTO '%s'", path);
  expect_refused(s, sql);
  CHECK(!file_exists(path));

  /* A recursive CTE that never ends: TIMEOUT. */
  opts.timeout_ms = 200;
  expect_status_ex(s,
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                   "SELECT count(*) FROM n",
                   &opts, CASEFILE_E_TIMEOUT, "200 ms");
  opts.timeout_ms = 0;
  /* A huge blob: LIMIT, whatever the options (the defaults too). */
  expect_status_ex(s, "SELECT zeroblob(2000000000)", &opts, CASEFILE_E_LIMIT, "67108864");
  expect_status_ex(s, "SELECT length(randomblob(1000000000))", NULL, CASEFILE_E_LIMIT, "67108864");

  /* Rows: the first max_rows arrive, then LIMIT naming the row limit. */
  opts.max_rows = 2;
  memset(&r, 0, sizeof r);
  CHECK_STATUS(casefile_session_query_ex(s, "SELECT value FROM json_each('[7,8,9]')", &opts, on_row,
                                         &r, NULL),
               CASEFILE_E_LIMIT);
  CHECK(r.calls == 2 && strcmp(r.values[0], "7") == 0 && strcmp(r.values[1], "8") == 0);
  CHECK(contains(casefile_session_last_error(s), "more than 2 rows"));
  memset(&r, 0, sizeof r);
  CHECK_STATUS(
      casefile_session_query_ex(s, "SELECT value FROM json_each('[7,8]')", &opts, on_row, &r, NULL),
      CASEFILE_OK);
  CHECK(r.calls == 2);
  /* Bytes: "7" + "8" + "9" is 3 bytes; a limit of 2 stops before the third. */
  opts.max_rows = 0;
  opts.max_result_bytes = 2;
  memset(&r, 0, sizeof r);
  CHECK_STATUS(casefile_session_query_ex(s, "SELECT value FROM json_each('[7,8,9]')", &opts, on_row,
                                         &r, NULL),
               CASEFILE_E_LIMIT);
  CHECK(r.calls == 2);
  CHECK(contains(casefile_session_last_error(s), "larger than 2 bytes"));

  /* Nothing changed. */
  memset(&r, 0, sizeof r);
  CHECK_STATUS(casefile_session_query(s, "SELECT count(*) FROM files WHERE entry_type = 'file'",
                                      on_row, &r, NULL),
               CASEFILE_OK);
  CHECK(strcmp(r.values[0], "2") == 0);
  casefile_session_free(s);
}

/* ---------------------------------------------------------------------- */
/* Analyzers, analysis, report, findings                                  */
/* ---------------------------------------------------------------------- */

static void test_analyzer_list(void) {
  size_t i, n = casefile_analyzer_count();
  int hang_seen = 0;
  CHECK(n >= 1);
  for (i = 0; i < n; ++i) {
    const char* name = casefile_analyzer_name(i);
    const char* description = casefile_analyzer_description(i);
    CHECK(name != NULL && name[0] != '\0');
    CHECK(description != NULL && description[0] != '\0');
    if (strcmp(name, "hang") == 0) hang_seen = 1;
    /* Static strings: the same pointer every time. */
    CHECK(casefile_analyzer_name(i) == name);
  }
  CHECK(hang_seen);
  CHECK(casefile_analyzer_name(n) == NULL);
  CHECK(casefile_analyzer_description(n) == NULL);
  CHECK(casefile_analyzer_name((size_t)-1) == NULL);
}

static void test_analyze_errors(casefile_session* s) {
  casefile_report* report = (casefile_report*)&g_passed;
  casefile_error* err = NULL;
  casefile_analyze_options opts = CASEFILE_ANALYZE_OPTIONS_INIT;
  const char* unknown[1];
  const char* with_null[2];

  CHECK_STATUS(casefile_session_analyze(NULL, s, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(contains(casefile_error_message(err), "casefile_session_analyze"));
  casefile_error_free(err);

  CHECK_STATUS(casefile_session_analyze(&report, NULL, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(report == NULL);
  CHECK(contains(casefile_error_message(err), "session"));
  casefile_error_free(err);

  opts.version = 0;
  report = (casefile_report*)&g_passed;
  CHECK_STATUS(casefile_session_analyze(&report, s, &opts, &err), CASEFILE_E_VERSION);
  CHECK(report == NULL);
  casefile_error_free(err);
  opts.version = CASEFILE_ANALYZE_OPTIONS_VERSION + 1;
  CHECK_STATUS(casefile_session_analyze(&report, s, &opts, NULL), CASEFILE_E_VERSION);

  opts.version = CASEFILE_ANALYZE_OPTIONS_VERSION;
  unknown[0] = "no_such_analyzer";
  opts.analyzers = unknown;
  opts.analyzer_count = 1;
  CHECK_STATUS(casefile_session_analyze(&report, s, &opts, &err), CASEFILE_E_UNKNOWN_ANALYZER);
  CHECK(report == NULL);
  CHECK(contains(casefile_error_message(err), "no_such_analyzer"));
  CHECK(strcmp(casefile_session_last_error(s), casefile_error_message(err)) == 0);
  casefile_error_free(err);

  opts.analyzers = NULL;
  CHECK_STATUS(casefile_session_analyze(&report, s, &opts, &err), CASEFILE_E_ARGUMENT);
  CHECK(contains(casefile_error_message(err), "analyzers"));
  casefile_error_free(err);

  with_null[0] = "hang";
  with_null[1] = NULL;
  opts.analyzers = with_null;
  opts.analyzer_count = 2;
  CHECK_STATUS(casefile_session_analyze(&report, s, &opts, &err), CASEFILE_E_ARGUMENT);
  CHECK(contains(casefile_error_message(err), "analyzers[1]"));
  casefile_error_free(err);
}

/* The line kCoordinatorLines / kWorkerLines hold at 1-based `line`, or NULL. */
static const char* written_line(const char* path, int64_t line) {
  if (strcmp(path, "logs/coordinator.log") == 0 && line >= 1 &&
      line <= (int64_t)COUNT(kCoordinatorLines)) {
    return kCoordinatorLines[line - 1];
  }
  if (strcmp(path, "logs/worker-1.log") == 0 && line >= 1 && line <= (int64_t)COUNT(kWorkerLines)) {
    return kWorkerLines[line - 1];
  }
  return NULL;
}

static void check_bad_chip_finding(const casefile_finding* f) {
  size_t i;
  int host_b_seen = 0;
  const char *bundle, *path, *text, *host, *task;
  int64_t line, rank;

  CHECK(strcmp(casefile_finding_analyzer(f), "hang") == 0);
  CHECK(casefile_finding_severity(f) == CASEFILE_SEVERITY_ERROR);
  CHECK(casefile_finding_title(f)[0] != '\0');
  CHECK(casefile_finding_summary(f) != NULL);
  CHECK(casefile_finding_recommendation(f) != NULL);

  CHECK(casefile_finding_culprit_count(f) >= 1);
  for (i = 0; i < casefile_finding_culprit_count(f); ++i) {
    CHECK_STATUS(casefile_finding_culprit(f, i, &host, &task, &rank), CASEFILE_OK);
    if (host != NULL && strcmp(host, "host-b") == 0) {
      host_b_seen = 1;
      /* The digest names the worker as job/task; rank is not in it. */
      CHECK(task == NULL || strcmp(task, "jax_worker/1") == 0);
      CHECK(rank == -1);
    }
  }
  CHECK(host_b_seen);
  /* Any output may be NULL; out of range is an argument error. */
  CHECK_STATUS(casefile_finding_culprit(f, 0, NULL, NULL, NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_finding_culprit(f, casefile_finding_culprit_count(f), &host, &task, &rank),
               CASEFILE_E_ARGUMENT);

  /* Every piece of evidence points at a line written above, with its text. */
  CHECK(casefile_finding_evidence_count(f) >= 1);
  for (i = 0; i < casefile_finding_evidence_count(f); ++i) {
    const char* expected;
    CHECK_STATUS(casefile_finding_evidence(f, i, &bundle, &path, &line, &text), CASEFILE_OK);
    CHECK(strcmp(bundle, "run42") == 0);
    expected = written_line(path, line);
    CHECK(expected != NULL);
    CHECK(strcmp(text, expected) == 0);
  }
  CHECK_STATUS(casefile_finding_evidence(f, 0, NULL, NULL, NULL, NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_finding_evidence(f, casefile_finding_evidence_count(f), &bundle, &path,
                                         &line, &text),
               CASEFILE_E_ARGUMENT);
}

static void test_finding_null(void) {
  const char *host = "x", *path = "x";
  int64_t rank = 5, line = 5;
  CHECK(strcmp(casefile_finding_code(NULL), "") == 0);
  CHECK(strcmp(casefile_finding_analyzer(NULL), "") == 0);
  CHECK(strcmp(casefile_finding_title(NULL), "") == 0);
  CHECK(strcmp(casefile_finding_summary(NULL), "") == 0);
  CHECK(strcmp(casefile_finding_recommendation(NULL), "") == 0);
  CHECK(casefile_finding_severity(NULL) == CASEFILE_SEVERITY_INFO);
  CHECK(casefile_finding_culprit_count(NULL) == 0);
  CHECK(casefile_finding_evidence_count(NULL) == 0);
  CHECK_STATUS(casefile_finding_culprit(NULL, 0, &host, NULL, &rank), CASEFILE_E_ARGUMENT);
  CHECK(host == NULL && rank == -1);
  CHECK_STATUS(casefile_finding_evidence(NULL, 0, NULL, &path, &line, NULL), CASEFILE_E_ARGUMENT);
  CHECK(path == NULL);
}

static void test_report_null(void) {
  char* text = (char*)&g_passed;
  casefile_error* err = NULL;
  CHECK(casefile_report_max_severity(NULL) == -1);
  CHECK(casefile_report_has_ingest_issues(NULL) == 0);
  CHECK(casefile_report_is_partial(NULL) == 0);
  CHECK(casefile_report_finding_count(NULL) == 0);
  CHECK(casefile_report_finding(NULL, 0) == NULL);
  CHECK(casefile_report_analyzer_count(NULL) == 0);
  CHECK(casefile_report_analyzer_name(NULL, 0) == NULL);
  CHECK(casefile_report_analyzer_status(NULL, 0) == NULL);
  CHECK(casefile_report_analyzer_reason(NULL, 0) == NULL);
  CHECK_STATUS(casefile_report_render(&text, NULL, CASEFILE_FORMAT_JSON, &err),
               CASEFILE_E_ARGUMENT);
  CHECK(text == NULL);
  CHECK(contains(casefile_error_message(err), "casefile_report_render"));
  CHECK(contains(casefile_error_message(err), "report"));
  casefile_error_free(err);
  CHECK_STATUS(casefile_report_render(NULL, NULL, CASEFILE_FORMAT_JSON, NULL), CASEFILE_E_ARGUMENT);
  casefile_report_free(NULL);
}

/* Options version 2: a report without its context (CASEFILE_OMIT_CONTEXT)
 * renders as JSON and text exactly as one with it, and refuses HTML and
 * markdown; unknown bits are refused; a version 1 struct never has its
 * (absent) omit field read. */
static void test_analyze_without_context(casefile_session* s) {
  casefile_analyze_options opts;
  casefile_report *full = NULL, *bare = NULL, *old = NULL;
  casefile_error* err = NULL;
  char *a = NULL, *b = NULL, *out = (char*)&g_passed;
  int k;
  const casefile_format same[2] = {CASEFILE_FORMAT_JSON, CASEFILE_FORMAT_TEXT};
  const casefile_format refused[2] = {CASEFILE_FORMAT_HTML, CASEFILE_FORMAT_MARKDOWN};

  CHECK_STATUS(casefile_analyze_options_init(&opts, 2), CASEFILE_OK);
  CHECK(opts.omit == 0);
  opts.no_store = 1;
  CHECK_STATUS(casefile_session_analyze(&full, s, &opts, NULL), CASEFILE_OK);
  opts.omit = 2;
  CHECK_STATUS(casefile_session_analyze(&bare, s, &opts, &err), CASEFILE_E_ARGUMENT);
  CHECK(bare == NULL && contains(casefile_error_message(err), "omit"));
  casefile_error_free(err);
  err = NULL;
  opts.omit = CASEFILE_OMIT_CONTEXT;
  CHECK_STATUS(casefile_session_analyze(&bare, s, &opts, NULL), CASEFILE_OK);
  CHECK(casefile_report_finding_count(bare) == casefile_report_finding_count(full));
  for (k = 0; k < 2; ++k) {
    CHECK_STATUS(casefile_report_render(&a, full, same[k], NULL), CASEFILE_OK);
    CHECK_STATUS(casefile_report_render(&b, bare, same[k], NULL), CASEFILE_OK);
    CHECK(a != NULL && b != NULL && strcmp(a, b) == 0);
    casefile_string_free(a);
    casefile_string_free(b);
  }
  for (k = 0; k < 2; ++k) {
    out = (char*)&g_passed;
    CHECK_STATUS(casefile_report_render(&out, bare, refused[k], &err), CASEFILE_E_ARGUMENT);
    CHECK(out == NULL);
    CHECK(contains(casefile_error_message(err), "CASEFILE_OMIT_CONTEXT"));
    casefile_error_free(err);
    err = NULL;
    CHECK_STATUS(casefile_report_render(&out, full, refused[k], NULL), CASEFILE_OK);
    casefile_string_free(out);
  }

  /* A version 1 caller's struct ends before omit: whatever lies there (here
   * 0xab bytes) is neither written by the init nor read by the analysis. */
  memset(&opts, 0xab, sizeof opts);
  CHECK_STATUS(casefile_analyze_options_init(&opts, 1), CASEFILE_OK);
  {
    const unsigned char* p = (const unsigned char*)&opts.omit;
    CHECK(p[0] == 0xab);
  }
  opts.no_store = 1;
  CHECK_STATUS(casefile_session_analyze(&old, s, &opts, NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_report_render(&out, old, CASEFILE_FORMAT_HTML, NULL), CASEFILE_OK);
  casefile_string_free(out);

  casefile_report_free(full);
  casefile_report_free(bare);
  casefile_report_free(old);
}

static void test_analyze_and_report(void) {
  size_t i, n;
  const casefile_finding* bad_chip = NULL;
  casefile_report* report = NULL;
  casefile_report* all = NULL;
  casefile_error* err = (casefile_error*)&g_passed;
  casefile_analyze_options opts;
  const char* only_hang[1];
  char *json = NULL, *json_again = NULL, *text = NULL, *color = NULL;
  /* A fresh index: analyze indexes first when the session has not. */
  casefile_session* s = open_session(g_bundle, "analyze.db", 0);

  test_analyze_errors(s);
  test_analyze_without_context(s);

  CHECK_STATUS(casefile_analyze_options_init(&opts, CASEFILE_ANALYZE_OPTIONS_VERSION), CASEFILE_OK);
  only_hang[0] = "hang";
  opts.analyzers = only_hang;
  opts.analyzer_count = 1;
  CHECK_STATUS(casefile_session_analyze(&report, s, &opts, &err), CASEFILE_OK);
  CHECK(err == NULL);
  CHECK(report != NULL);
  CHECK(casefile_session_index_reused(s) == 0);

  /* Only the analyzer asked for ran. */
  CHECK(casefile_report_analyzer_count(report) == 1);
  CHECK(strcmp(casefile_report_analyzer_name(report, 0), "hang") == 0);
  CHECK(strcmp(casefile_report_analyzer_status(report, 0), "ran") == 0);
  CHECK(strcmp(casefile_report_analyzer_reason(report, 0), "") == 0);
  CHECK(casefile_report_analyzer_name(report, 1) == NULL);
  CHECK(casefile_report_analyzer_status(report, 1) == NULL);
  CHECK(casefile_report_analyzer_reason(report, 1) == NULL);

  n = casefile_report_finding_count(report);
  CHECK(n >= 1);
  for (i = 0; i < n; ++i) {
    const casefile_finding* f = casefile_report_finding(report, i);
    CHECK(f != NULL);
    if (strcmp(casefile_finding_code(f), "hang.bad_chip") == 0) bad_chip = f;
  }
  CHECK(bad_chip != NULL);
  CHECK(casefile_report_finding(report, n) == NULL);
  check_bad_chip_finding(bad_chip);
  CHECK(casefile_report_max_severity(report) == CASEFILE_SEVERITY_ERROR);
  CHECK(casefile_report_has_ingest_issues(report) == 0);
  CHECK(casefile_report_is_partial(report) == 0);

  /* NULL options: every analyzer has a status. */
  CHECK_STATUS(casefile_session_analyze(&all, s, NULL, NULL), CASEFILE_OK);
  CHECK(casefile_report_analyzer_count(all) == casefile_analyzer_count());
  casefile_report_free(all);
  all = NULL;
  opts.no_store = 1;
  CHECK_STATUS(casefile_session_analyze(&all, s, &opts, NULL), CASEFILE_OK);
  CHECK(casefile_report_finding_count(all) == n);
  casefile_report_free(all);

  /* Foreign handles are misuse, not a crash. */
  CHECK_STATUS(casefile_session_index((casefile_session*)report, NULL, NULL, &err),
               CASEFILE_E_MISUSE);
  CHECK(contains(casefile_error_message(err), "casefile_session_index"));
  casefile_error_free(err);
  CHECK_STATUS(casefile_session_query((casefile_session*)report, "SELECT 1", NULL, NULL, NULL),
               CASEFILE_E_MISUSE);
  CHECK_STATUS(casefile_report_render(&text, (const casefile_report*)s, CASEFILE_FORMAT_JSON, NULL),
               CASEFILE_E_MISUSE);
  CHECK(text == NULL);
  CHECK(casefile_report_finding_count((const casefile_report*)s) == 0);
  CHECK(strcmp(casefile_finding_code((const casefile_finding*)report), "") == 0);

  /* The report outlives its session. */
  casefile_session_free(s);

  CHECK_STATUS(casefile_report_render(&json, report, CASEFILE_FORMAT_JSON, &err), CASEFILE_OK);
  CHECK(err == NULL);
  CHECK(json != NULL && json[0] == '{');
  CHECK(contains(json, "\"findings\""));
  CHECK(contains(json, "\"hang.bad_chip\""));
  CHECK(contains(json, "host-b"));
  CHECK(contains(json, "logs/coordinator.log"));
  CHECK_STATUS(casefile_report_render(&json_again, report, CASEFILE_FORMAT_JSON, NULL),
               CASEFILE_OK);
  CHECK(strcmp(json, json_again) == 0);

  CHECK_STATUS(casefile_report_render(&text, report, CASEFILE_FORMAT_TEXT, NULL), CASEFILE_OK);
  CHECK(contains(text, "hang.bad_chip"));
  CHECK(contains(text, "host-b"));
  CHECK(strchr(text, '\x1b') == NULL);
  casefile_string_free(text);
  text = (char*)&g_passed;
  CHECK_STATUS(casefile_report_render(&color, report, CASEFILE_FORMAT_TEXT_COLOR, NULL),
               CASEFILE_OK);
  CHECK(strchr(color, '\x1b') != NULL);

  /* The bug-report formats (since 0.3): one HTML page, and markdown. */
  {
    char* html = NULL;
    char* md = NULL;
    CHECK_STATUS(casefile_report_render(&html, report, CASEFILE_FORMAT_HTML, NULL), CASEFILE_OK);
    CHECK(html != NULL && strncmp(html, "<!DOCTYPE html>", 15) == 0);
    CHECK(contains(html, "data-code=\"hang.bad_chip\""));
    CHECK(contains(html, "host-b"));
    CHECK(!contains(html, "http://") && !contains(html, "https://"));
    CHECK_STATUS(casefile_report_render(&md, report, CASEFILE_FORMAT_MARKDOWN, NULL), CASEFILE_OK);
    CHECK(md != NULL && contains(md, "hang.bad_chip") && contains(md, "host-b"));
    CHECK(strchr(md, '\x1b') == NULL);
    casefile_string_free(html);
    casefile_string_free(md);
  }

  CHECK_STATUS(casefile_report_render(&text, report, (casefile_format)42, &err),
               CASEFILE_E_ARGUMENT);
  CHECK(text == NULL);
  CHECK(contains(casefile_error_message(err), "format"));
  casefile_error_free(err);

  casefile_string_free(json);
  casefile_string_free(json_again);
  casefile_string_free(color);
  casefile_report_free(report);
}

/* ---------------------------------------------------------------------- */
/* Collect and verify                                                     */
/* ---------------------------------------------------------------------- */

/* A made-up token in the collected log; it must not reach the bundle. */
static const char kCollectToken[] = "hf_Zq8XbT4mWn2RkP6yVd0LcJ9sHa3GfE1uQo";

struct collect_log {
  int calls;
  int abort_phase; /* abort on the first call of this phase; -1 = never */
  int phases_seen[3];
};

static int on_collect(casefile_collect_phase phase, uint64_t done, uint64_t total,
                      const char* current, void* payload) {
  struct collect_log* log = (struct collect_log*)payload;
  (void)done;
  (void)total;
  CHECK(current != NULL);
  ++log->calls;
  if ((int)phase >= 0 && (int)phase < 3) log->phases_seen[phase] = 1;
  return log->abort_phase == (int)phase;
}

/* Reads a whole (small) file into buf; returns its size. */
static size_t read_file(const char* path, char* buf, size_t size) {
  size_t n;
  FILE* f = fopen(path, "rb");
  CHECK(f != NULL);
  n = fread(buf, 1, size, f);
  CHECK(fclose(f) == 0);
  return n;
}

static int memory_contains(const char* hay, size_t size, const char* needle) {
  size_t i, len = strlen(needle);
  for (i = 0; i + len <= size; ++i) {
    if (memcmp(hay + i, needle, len) == 0) return 1;
  }
  return 0;
}

static void collect_options_for(casefile_collect_options* opts, const char* output,
                                const char* const* logs, size_t log_count, const char* const* env,
                                const char* const* labels) {
  CHECK_STATUS(casefile_collect_options_init(opts, CASEFILE_COLLECT_OPTIONS_VERSION), CASEFILE_OK);
  opts->output = output;
  opts->logs = logs;
  opts->log_count = log_count;
  opts->host = "capihost";
  opts->no_versions = 1;
  opts->no_discover = 1;
  opts->environment = env;
  opts->environment_count = 1;
  opts->labels = labels;
  opts->label_count = 1;
  opts->deterministic = 1;
}

static void test_collect_options(void) {
  casefile_collect_options opts;
  casefile_collect_options init = CASEFILE_COLLECT_OPTIONS_INIT;
  CHECK(init.version == CASEFILE_COLLECT_OPTIONS_VERSION);
  CHECK(init.output == NULL && init.log_count == 0 && init.threads == 0);
  CHECK_STATUS(casefile_collect_options_init(NULL, CASEFILE_COLLECT_OPTIONS_VERSION),
               CASEFILE_E_ARGUMENT);
  CHECK_STATUS(casefile_collect_options_init(&opts, 0), CASEFILE_E_VERSION);
  CHECK_STATUS(casefile_collect_options_init(&opts, CASEFILE_COLLECT_OPTIONS_VERSION + 1),
               CASEFILE_E_VERSION);
  memset(&opts, 0xab, sizeof opts);
  CHECK_STATUS(casefile_collect_options_init(&opts, CASEFILE_COLLECT_OPTIONS_VERSION), CASEFILE_OK);
  CHECK(opts.version == CASEFILE_COLLECT_OPTIONS_VERSION);
  CHECK(opts.output == NULL && opts.logs == NULL && opts.log_count == 0);
  CHECK(opts.hlo_dumps == NULL && opts.traces == NULL && opts.configs == NULL);
  CHECK(opts.tensorboard_dir == NULL && opts.job_cmdline_file == NULL && opts.host == NULL);
  CHECK(opts.since_seconds == 0 && opts.max_bytes == 0 && opts.command_timeout_ms == 0);
  CHECK(opts.no_versions == 0 && opts.no_redact == 0 && opts.redact_hosts == 0);
  CHECK(opts.deterministic == 0 && opts.dry_run == 0 && opts.no_discover == 0);
  CHECK(opts.redact_key == NULL && opts.redact_key_size == 0);
  CHECK(opts.command_line == NULL && opts.environment == NULL && opts.environment_count == 0);
  CHECK(opts.zstd_level == 0 && opts.threads == 0);
}

static void test_collect_errors(const char* const* logs, const char* const* env,
                                const char* const* labels) {
  casefile_collect_result* r = (casefile_collect_result*)&g_passed;
  casefile_error* err = NULL;
  casefile_collect_options opts;
  const char* bad_labels[1];
  char output[512];
  join(output, sizeof output, g_root, "never.tar.zst");
  collect_options_for(&opts, output, logs, 1, env, labels);

  CHECK_STATUS(casefile_collect(NULL, &opts, NULL, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(contains(casefile_error_message(err), "casefile_collect"));
  casefile_error_free(err);
  CHECK_STATUS(casefile_collect(&r, NULL, NULL, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(r == NULL);
  CHECK(contains(casefile_error_message(err), "opts"));
  casefile_error_free(err);

  opts.version = 0;
  CHECK_STATUS(casefile_collect(&r, &opts, NULL, NULL, NULL), CASEFILE_E_VERSION);
  opts.version = CASEFILE_COLLECT_OPTIONS_VERSION;

  opts.output = NULL;
  CHECK_STATUS(casefile_collect(&r, &opts, NULL, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(contains(casefile_error_message(err), "output"));
  casefile_error_free(err);
  opts.output = output;

  opts.logs = NULL;
  CHECK_STATUS(casefile_collect(&r, &opts, NULL, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(contains(casefile_error_message(err), "logs"));
  casefile_error_free(err);
  opts.logs = logs;

  bad_labels[0] = "no-equals-sign";
  opts.labels = bad_labels;
  CHECK_STATUS(casefile_collect(&r, &opts, NULL, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(contains(casefile_error_message(err), "no-equals-sign"));
  casefile_error_free(err);
  opts.labels = labels;

  opts.redact_key = (const unsigned char*)"short";
  opts.redact_key_size = 5;
  CHECK_STATUS(casefile_collect(&r, &opts, NULL, NULL, NULL), CASEFILE_E_ARGUMENT);
  opts.redact_key = NULL;
  opts.redact_key_size = 0;
  CHECK(r == NULL);
  CHECK(!file_exists(output));

  /* Accessors on NULL and foreign handles. */
  CHECK(casefile_collect_result_file_count(NULL) == 0);
  CHECK(casefile_collect_result_bytes(NULL) == 0);
  CHECK(casefile_collect_result_archive_bytes(NULL) == 0);
  CHECK(casefile_collect_result_redaction_count(NULL) == 0);
  CHECK(casefile_collect_result_redaction_kind_count(NULL) == 0);
  CHECK(casefile_collect_result_error_count(NULL) == 0);
  CHECK(casefile_collect_result_entry_count(NULL) == 0);
  CHECK(casefile_collect_result_entry_count((const casefile_collect_result*)&g_passed) == 0);
  CHECK_STATUS(casefile_collect_result_error(NULL, 0, NULL, NULL), CASEFILE_E_ARGUMENT);
  CHECK_STATUS(casefile_collect_result_entry(NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
               CASEFILE_E_ARGUMENT);
  CHECK_STATUS(casefile_collect_result_redaction_kind(NULL, 0, NULL, NULL), CASEFILE_E_ARGUMENT);
  casefile_collect_result_free(NULL);
  CHECK(casefile_verify_result_ok(NULL) == 0);
  CHECK(casefile_verify_result_file_count(NULL) == 0);
  CHECK(casefile_verify_result_problem_count(NULL) == 0);
  CHECK_STATUS(casefile_verify_result_problem(NULL, 0, NULL, NULL, NULL), CASEFILE_E_ARGUMENT);
  casefile_verify_result_free(NULL);
}

static void test_collect_and_verify(void) {
  char src[512], path[512], output[512], bad[512];
  static char bytes[1 << 20];
  const char* logs[2];
  const char* env[1];
  const char* labels[1];
  const char *action, *entry_path, *source, *kind, *note, *problem_path, *problem_kind, *message;
  uint64_t size, redactions, count;
  size_t i, n;
  int found = 0;
  FILE* f;
  struct collect_log log;
  casefile_collect_options opts;
  casefile_collect_result* r = NULL;
  casefile_verify_result* v = NULL;
  casefile_error* err = (casefile_error*)&g_passed; /* cleared on success */
  casefile_session* s;

  join(src, sizeof src, g_root, "collectsrc");
  make_dir(src);
  join(path, sizeof path, src, "train.log");
  f = fopen(path, "w");
  CHECK(f != NULL);
  CHECK(fprintf(f, "step 1 loss 2.31\nlogin with token %s ok\nstep 2 loss 2.30\n", kCollectToken) >
        0);
  CHECK(fclose(f) == 0);
  join(output, sizeof output, g_root, "collected.tar.zst");
  logs[0] = src;
  env[0] = "PATH=/usr/bin";
  labels[0] = "job=capi";

  test_collect_options();
  test_collect_errors(logs, env, labels);

  /* A collection, with its progress. */
  collect_options_for(&opts, output, logs, 1, env, labels);
  memset(&log, 0, sizeof log);
  log.abort_phase = -1;
  CHECK_STATUS(casefile_collect(&r, &opts, on_collect, &log, &err), CASEFILE_OK);
  CHECK(err == NULL);
  CHECK(r != NULL);
  CHECK(log.calls >= 2);
  CHECK(log.phases_seen[CASEFILE_COLLECT_PHASE_SCAN] &&
        log.phases_seen[CASEFILE_COLLECT_PHASE_WRITE]);
  CHECK(casefile_collect_result_file_count(r) == 2); /* the log and env.txt */
  CHECK(casefile_collect_result_bytes(r) ==
        strlen("step 1 loss 2.31\nlogin with token ") + strlen(" ok\nstep 2 loss 2.30\n") +
            strlen("<redacted:hf_token:12345678>") + strlen("PATH=/usr/bin\n"));
  CHECK(casefile_collect_result_archive_bytes(r) == read_file(output, bytes, sizeof bytes));
  CHECK(casefile_collect_result_redaction_count(r) == 1);
  CHECK(casefile_collect_result_redaction_kind_count(r) == 1);
  CHECK_STATUS(casefile_collect_result_redaction_kind(r, 0, &kind, &count), CASEFILE_OK);
  CHECK(strcmp(kind, "hf_token") == 0 && count == 1);
  CHECK_STATUS(casefile_collect_result_redaction_kind(r, 1, &kind, &count), CASEFILE_E_ARGUMENT);
  CHECK(casefile_collect_result_error_count(r) == 0);
  n = casefile_collect_result_entry_count(r);
  for (i = 0; i < n; ++i) {
    CHECK_STATUS(casefile_collect_result_entry(r, i, &action, &entry_path, &source, &kind, &size,
                                               &redactions, &note),
                 CASEFILE_OK);
    if (strcmp(entry_path, "hosts/capihost/logs/collectsrc/train.log") == 0) {
      found = 1;
      CHECK(strcmp(action, "pack") == 0);
      CHECK(strcmp(source, path) == 0);
      CHECK(strcmp(kind, "log") == 0);
      CHECK(redactions == 1);
      CHECK(strcmp(note, "") == 0);
    }
  }
  CHECK(found);
  CHECK_STATUS(casefile_collect_result_entry(r, n, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
               CASEFILE_E_ARGUMENT);
  casefile_collect_result_free(r);
  r = NULL;

  /* The token is nowhere in the compressed bundle (the C++ tests search the
   * decompressed stream as well). */
  CHECK(!memory_contains(bytes, read_file(output, bytes, sizeof bytes), kCollectToken));

  /* It verifies, and indexes as a bundle. */
  CHECK_STATUS(casefile_verify_bundle(&v, output, NULL, NULL, &err), CASEFILE_OK);
  CHECK(err == NULL);
  CHECK(casefile_verify_result_ok(v) == 1);
  CHECK(casefile_verify_result_file_count(v) == 2);
  CHECK(casefile_verify_result_problem_count(v) == 0);
  CHECK_STATUS(casefile_verify_result_problem(v, 0, NULL, NULL, NULL), CASEFILE_E_ARGUMENT);
  casefile_verify_result_free(v);
  s = open_session(output, "collected.db", 0);
  CHECK_STATUS(casefile_session_index(s, NULL, NULL, NULL), CASEFILE_OK);
  casefile_session_free(s);

  /* Deterministic: the same inputs give the same bytes. */
  {
    static char again[1 << 20];
    size_t first;
    opts.redact_key = (const unsigned char*)"a key shared by the hosts";
    opts.redact_key_size = strlen("a key shared by the hosts");
    CHECK_STATUS(casefile_collect(&r, &opts, NULL, NULL, NULL), CASEFILE_OK);
    casefile_collect_result_free(r);
    first = read_file(output, bytes, sizeof bytes);
    CHECK_STATUS(casefile_collect(&r, &opts, NULL, NULL, NULL), CASEFILE_OK);
    casefile_collect_result_free(r);
    r = NULL;
    CHECK(read_file(output, again, sizeof again) == first);
    CHECK(memcmp(bytes, again, first) == 0);
    opts.redact_key = NULL;
    opts.redact_key_size = 0;
  }

  /* A damaged bundle: verify succeeds as a call and lists the problem. */
  join(bad, sizeof bad, g_root, "damaged.tar.zst");
  f = fopen(bad, "wb");
  CHECK(f != NULL);
  CHECK(fwrite(bytes, 1, 100, f) == 100);
  CHECK(fclose(f) == 0);
  CHECK_STATUS(casefile_verify_bundle(&v, bad, NULL, NULL, NULL), CASEFILE_OK);
  CHECK(casefile_verify_result_ok(v) == 0);
  CHECK(casefile_verify_result_problem_count(v) >= 1);
  CHECK_STATUS(casefile_verify_result_problem(v, 0, &problem_path, &problem_kind, &message),
               CASEFILE_OK);
  CHECK(strcmp(problem_kind, "archive") == 0);
  CHECK(message[0] != '\0');
  casefile_verify_result_free(v);
  v = (casefile_verify_result*)&g_passed;
  CHECK_STATUS(casefile_verify_bundle(&v, g_missing, NULL, NULL, &err), CASEFILE_E_NOT_FOUND);
  CHECK(v == NULL);
  CHECK(contains(casefile_error_message(err), "casefile_verify_bundle"));
  casefile_error_free(err);
  CHECK_STATUS(casefile_verify_bundle(&v, NULL, NULL, NULL, NULL), CASEFILE_E_ARGUMENT);
  CHECK_STATUS(casefile_verify_bundle(NULL, output, NULL, NULL, NULL), CASEFILE_E_ARGUMENT);

  /* A dry run writes nothing and lists the same file. */
  join(path, sizeof path, g_root, "dry.tar.zst");
  opts.output = path;
  opts.dry_run = 1;
  CHECK_STATUS(casefile_collect(&r, &opts, NULL, NULL, NULL), CASEFILE_OK);
  CHECK(!file_exists(path));
  CHECK(casefile_collect_result_archive_bytes(r) == 0);
  CHECK(casefile_collect_result_file_count(r) == 2);
  casefile_collect_result_free(r);
  r = NULL;
  opts.dry_run = 0;

  /* Aborting in the write phase leaves no output. */
  memset(&log, 0, sizeof log);
  log.abort_phase = CASEFILE_COLLECT_PHASE_WRITE;
  CHECK_STATUS(casefile_collect(&r, &opts, on_collect, &log, &err), CASEFILE_E_ABORTED);
  CHECK(r == NULL);
  CHECK(casefile_error_status(err) == CASEFILE_E_ABORTED);
  casefile_error_free(err);
  CHECK(!file_exists(path));

  /* A missing input: the bundle is written, the status is PARTIAL. */
  logs[1] = g_missing;
  opts.log_count = 2;
  CHECK_STATUS(casefile_collect(&r, &opts, NULL, NULL, &err), CASEFILE_PARTIAL);
  CHECK(err == NULL);
  CHECK(file_exists(path));
  CHECK(casefile_collect_result_error_count(r) == 1);
  CHECK_STATUS(casefile_collect_result_error(r, 0, &source, &message), CASEFILE_OK);
  CHECK(strcmp(source, g_missing) == 0);
  CHECK(strcmp(message, "not found") == 0);
  CHECK_STATUS(casefile_collect_result_error(r, 1, &source, &message), CASEFILE_E_ARGUMENT);
  casefile_collect_result_free(r);
}

/* ---------------------------------------------------------------------- */
/* Diff                                                                   */
/* ---------------------------------------------------------------------- */

static int on_meta_row(size_t column_count, const char* const* names, const char* const* values,
                       void* payload) {
  (void)names;
  if (column_count == 1 && values[0] != NULL) {
    snprintf((char*)payload, 256, "%s", values[0]);
  }
  return 0;
}

static void test_diff_options(void) {
  casefile_diff_options opts;
  casefile_diff_options init = CASEFILE_DIFF_OPTIONS_INIT;
  casefile_open_options open_opts;
  CHECK(init.version == CASEFILE_DIFF_OPTIONS_VERSION && init.no_store == 0);
  CHECK_STATUS(casefile_diff_options_init(NULL, CASEFILE_DIFF_OPTIONS_VERSION),
               CASEFILE_E_ARGUMENT);
  CHECK_STATUS(casefile_diff_options_init(&opts, 0), CASEFILE_E_VERSION);
  CHECK_STATUS(casefile_diff_options_init(&opts, CASEFILE_DIFF_OPTIONS_VERSION + 1),
               CASEFILE_E_VERSION);
  memset(&opts, 0xab, sizeof opts);
  CHECK_STATUS(casefile_diff_options_init(&opts, CASEFILE_DIFF_OPTIONS_VERSION), CASEFILE_OK);
  CHECK(opts.version == CASEFILE_DIFF_OPTIONS_VERSION && opts.no_store == 0);

  /* An older caller's struct is shorter: initialising it as version 1 must
   * not write the version 2 field that struct does not have. */
  memset(&open_opts, 0xab, sizeof open_opts);
  CHECK_STATUS(casefile_open_options_init(&open_opts, 1), CASEFILE_OK);
  CHECK(open_opts.version == 1 && open_opts.index_path == NULL);
  {
    const unsigned char* p = (const unsigned char*)&open_opts.index_dir;
    CHECK(p[0] == 0xab);
  }
  CHECK_STATUS(casefile_open_options_init(&open_opts, 2), CASEFILE_OK);
  CHECK(open_opts.index_dir == NULL);
}

static void test_diff(void) {
  casefile_diff_report* report = (casefile_diff_report*)&g_passed;
  casefile_diff_report* again = NULL;
  casefile_error* err = NULL;
  casefile_diff_options opts = CASEFILE_DIFF_OPTIONS_INIT;
  casefile_open_options open_opts = CASEFILE_OPEN_OPTIONS_INIT;
  casefile_session* good = open_session(g_big, "diff_good.db", 1);
  casefile_session* bad = NULL;
  const char* inputs[1];
  char dir[512], provenance[256] = "";
  char *json = NULL, *json_again = NULL, *text = NULL;

  /* The bad side's index goes into a folder, named after its inputs. */
  join(dir, sizeof dir, g_root, "diff_indexes");
  make_dir(dir);
  inputs[0] = g_bundle;
  open_opts.index_dir = dir;
  CHECK_STATUS(casefile_session_open(&bad, inputs, 1, &open_opts, &err), CASEFILE_OK);
  CHECK(contains(casefile_session_index_path(bad), "/diff_indexes/"));

  /* Argument errors, in the order the header gives. */
  CHECK_STATUS(casefile_diff(NULL, good, bad, NULL, NULL, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(err != NULL);
  CHECK(contains(casefile_error_message(err), "casefile_diff"));
  casefile_error_free(err);
  CHECK_STATUS(casefile_diff(&report, NULL, bad, NULL, NULL, NULL, NULL), CASEFILE_E_ARGUMENT);
  CHECK(report == NULL);
  CHECK_STATUS(casefile_diff(&report, good, good, NULL, NULL, NULL, &err), CASEFILE_E_ARGUMENT);
  CHECK(contains(casefile_error_message(err), "same session"));
  casefile_error_free(err);
  opts.version = CASEFILE_DIFF_OPTIONS_VERSION + 1;
  CHECK_STATUS(casefile_diff(&report, good, bad, &opts, NULL, NULL, NULL), CASEFILE_E_VERSION);
  opts.version = CASEFILE_DIFF_OPTIONS_VERSION;

  /* The hang of the bad run is new: it heads the diff. Sessions not yet
   * indexed are indexed by the call. */
  CHECK_STATUS(casefile_diff(&report, good, bad, &opts, NULL, NULL, &err), CASEFILE_OK);
  CHECK(err == NULL && report != NULL);
  CHECK(casefile_diff_report_headline_count(report) >= 1);
  CHECK(contains(casefile_diff_report_headline(report, 0), "New in bad: hang."));
  CHECK(casefile_diff_report_headline(report, 99) == NULL);
  CHECK(casefile_diff_report_headline_count(NULL) == 0);

  CHECK_STATUS(casefile_diff_report_render(&json, report, CASEFILE_FORMAT_JSON, NULL), CASEFILE_OK);
  CHECK(contains(json, "\"headline\": ["));
  CHECK(contains(json, "\"templates\": {"));
  CHECK(contains(json, "\"section\": \"findings\""));
  CHECK_STATUS(casefile_diff_report_render(&text, report, CASEFILE_FORMAT_TEXT, NULL), CASEFILE_OK);
  CHECK(contains(text, "Headline"));
  CHECK(!contains(text, "\x1b["));
  casefile_string_free(text);
  CHECK_STATUS(casefile_diff_report_render(&text, report, CASEFILE_FORMAT_HTML, NULL), CASEFILE_OK);
  CHECK(strncmp(text, "<!DOCTYPE html>", 15) == 0);
  CHECK(contains(text, "headline-item"));
  CHECK(contains(text, "New in bad: hang."));
  casefile_string_free(text);
  CHECK_STATUS(casefile_diff_report_render(&text, report, CASEFILE_FORMAT_MARKDOWN, NULL),
               CASEFILE_OK);
  CHECK(contains(text, "New in bad: hang."));
  casefile_string_free(text);
  CHECK_STATUS(casefile_diff_report_render(&text, report, (casefile_format)7, &err),
               CASEFILE_E_ARGUMENT);
  CHECK(text == NULL);
  casefile_error_free(err);
  CHECK_STATUS(casefile_diff_report_render(&text, NULL, CASEFILE_FORMAT_TEXT, NULL),
               CASEFILE_E_ARGUMENT);

  /* The findings were stored with their provenance; a second diff reads
   * them and renders the same bytes. */
  CHECK_STATUS(
      casefile_session_query(bad, "SELECT value FROM meta WHERE key = 'findings_provenance'",
                             on_meta_row, provenance, NULL),
      CASEFILE_OK);
  CHECK(contains(provenance, "casefile "));
  CHECK(contains(provenance, "hang:"));
  CHECK_STATUS(casefile_diff(&again, good, bad, NULL, NULL, NULL, NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_diff_report_render(&json_again, again, CASEFILE_FORMAT_JSON, NULL),
               CASEFILE_OK);
  CHECK(strcmp(json, json_again) == 0);

  casefile_string_free(json);
  casefile_string_free(json_again);
  casefile_diff_report_free(report);
  casefile_diff_report_free(again);
  casefile_diff_report_free(NULL);
  casefile_session_free(good);
  casefile_session_free(bad);
}

int main(int argc, char** argv) {
  (void)argc;
  (void)argv;
  make_inputs();

  test_version();
  test_status_strings();
  test_error_null();
  test_options();
  test_open_errors();
  test_session_null_handles();
  test_index_and_reuse();
  test_progress();
  test_garbage_input();
  test_query();
  test_query_guard_and_limits();
  test_analyzer_list();
  test_finding_null();
  test_report_null();
  test_analyze_and_report();
  test_collect_and_verify();
  test_diff_options();
  test_diff();

  remove_inputs();
  printf("%d passed, 0 failed\n", g_passed);
  return 0;
}
