/*
 * External analyzers and plugins, driven from C as an embedder and a plugin
 * author use them: registration and every way it is refused, a run callback
 * that reads the index through SQL and emits a finding (seen through the
 * report accessors and in the JSON and text renders), callbacks that fail
 * or break their declaration, not_applicable analyzers, payload lifetime,
 * handles used after their callback returned (also once their memory could
 * be handed to the next handle), analyzer strings kept after unregistering,
 * the provenance of stored findings, and plugins loaded, loaded twice,
 * refused, and loading themselves from their init.
 *
 * Arguments: EXAMPLE_PLUGIN GOOD_DIR NEWER_ABI INFO_VERSION NO_ENTRY
 * INIT_FAILS SELF CYCLE_A CYCLE_B (paths of the plugins built by
 * CMakeLists.txt; GOOD_DIR holds the example plugin alone). The bundles are written at test time
 * into a fresh temporary directory.
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

/* 1 when the error's message contains `needle`, or `needle` is NULL. */
static int message_has(const casefile_error* err, const char* needle) {
  return needle == NULL || strstr(casefile_error_message(err), needle) != NULL;
}

/* A call that must fail with `expected` and a message containing `needle`
 * (NULL: any message). The error is freed. */
#define CHECK_FAILS(call_with_err, expected, needle)                                       \
  do {                                                                                     \
    casefile_error* err_ = NULL;                                                           \
    casefile_status st2_ = (call_with_err);                                                \
    if (st2_ != (expected) || err_ == NULL || casefile_error_status(err_) != (expected) || \
        !message_has(err_, (needle))) {                                                    \
      fprintf(stderr, "%s:%d: %s returned %d (%s) with message \"%s\", expected %d%s%s\n", \
              __FILE__, __LINE__, #call_with_err, (int)st2_, casefile_status_string(st2_), \
              casefile_error_message(err_), (int)(expected),                               \
              (needle) != NULL ? " and a message containing " : "",                        \
              (needle) != NULL ? (const char*)(needle) : "");                              \
      fprintf(stderr, "%d passed, 1 failed\n", g_passed);                                  \
      exit(1);                                                                             \
    }                                                                                      \
    casefile_error_free(err_);                                                             \
    ++g_passed;                                                                            \
  } while (0)

/* ---------------------------------------------------------------------- */
/* Bundles written at test time                                           */
/* ---------------------------------------------------------------------- */

static char g_root[256];   /* the temporary directory */
static char g_disk[512];   /* bundle "disk-run": node-3 filled its disk */
static char g_disk_b[512]; /* bundle "disk-run-b": the same path, other text */

#define DISK_LOG "hosts/node-3/logs/train/rank0.log"
#define HEALTHY_LOG "hosts/node-4/logs/train/rank1.log"

/* node-3's log: the checkpoint writer hits a full disk; Python's error, the
 * torch rank-prefixed re-raise, and a Go sidecar's lower-case wording (the
 * message of strerror(ENOSPC) as Go prints it). Lines 4, 5 and 7 say so. */
static const char* const kDiskLines[] = {
    "2024-03-05 10:00:01,120 INFO trainer.py:212 step 1199 loss 2.1183",
    "2024-03-05 10:00:02,480 INFO checkpoint.py:88 saving checkpoint to /ckpt/run7/step_1200",
    "2024-03-05 10:00:03,002 INFO checkpoint.py:90 writing shard 3 of 8",
    ("2024-03-05 10:00:03,911 ERROR checkpoint.py:97 OSError: [Errno 28] No space left on device: "
     "'/ckpt/run7/step_1200/model_03.pt'"),
    "[rank0]: OSError: [Errno 28] No space left on device",
    "[rank0]: Traceback (most recent call last):",
    "2024/03/05 10:00:04 uploader: write /ckpt/run7/step_1200/meta.json: no space left on device",
};

/* node-4 is healthy; the df line is a lookalike that must not match. */
static const char* const kHealthyLines[] = {
    "2024-03-05 10:00:01,118 INFO trainer.py:212 step 1199 loss 2.1187",
    "2024-03-05 10:00:02,002 INFO disk_monitor.py:40 310G space left on device /dev/nvme0n1",
    "2024-03-05 10:00:03,500 INFO trainer.py:212 step 1200 loss 2.1170",
};

/* disk-run-b holds the same path as disk-run, so a path alone is ambiguous. */
static const char* const kOtherDiskLines[] = {
    "2024-03-06 08:00:00,000 INFO trainer.py:212 step 1 loss 9.8",
    "2024-03-06 08:00:01,000 ERROR checkpoint.py:97 OSError: [Errno 28] No space left on device",
};

/* mkdir -p of `rel` under `dir`. */
static void make_dirs(const char* dir, const char* rel) {
  char path[512];
  char* slash;
  mkdir(dir, 0700);
  join(path, sizeof path, dir, rel);
  for (slash = strchr(path + strlen(dir) + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    mkdir(path, 0700);
    *slash = '/';
  }
  mkdir(path, 0700);
  CHECK(access(path, F_OK) == 0);
}

/* write_lines to <dir>/<rel>. */
static void write_lines_at(const char* dir, const char* rel, const char* const* lines,
                           size_t count) {
  char path[512];
  join(path, sizeof path, dir, rel);
  write_lines(path, lines, count);
}

static void make_inputs(void) {
  make_temp_dir(g_root, sizeof g_root, "casefile_ext");

  join(g_disk, sizeof g_disk, g_root, "disk-run");
  make_dirs(g_disk, "hosts/node-3/logs/train");
  make_dirs(g_disk, "hosts/node-4/logs/train");
  write_lines_at(g_disk, DISK_LOG, kDiskLines, COUNT(kDiskLines));
  write_lines_at(g_disk, HEALTHY_LOG, kHealthyLines, COUNT(kHealthyLines));

  join(g_disk_b, sizeof g_disk_b, g_root, "disk-run-b");
  make_dirs(g_disk_b, "hosts/node-3/logs/train");
  write_lines_at(g_disk_b, DISK_LOG, kOtherDiskLines, COUNT(kOtherDiskLines));
}

static void remove_inputs(void) { remove_tree(g_root); }

/* A session over `inputs` with its index at <root>/<index_name>, indexed. */
static casefile_session* open_indexed(const char* const* inputs, size_t count,
                                      const char* index_name) {
  char index_path[512];
  casefile_open_options opts = CASEFILE_OPEN_OPTIONS_INIT;
  casefile_session* s = NULL;
  join(index_path, sizeof index_path, g_root, index_name);
  opts.index_path = index_path;
  CHECK_STATUS(casefile_session_open(&s, inputs, count, &opts, NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_session_index(s, NULL, NULL, NULL), CASEFILE_OK);
  return s;
}

static casefile_report* analyze(casefile_session* s) {
  casefile_report* report = NULL;
  CHECK_STATUS(casefile_session_analyze(&report, s, NULL, NULL), CASEFILE_OK);
  CHECK(report != NULL);
  return report;
}

/* The report's status of analyzer `name` ("" when absent); *reason_out and
 * *index_out (may be NULL) receive its reason and position. */
static const char* analyzer_status(const casefile_report* r, const char* name,
                                   const char** reason_out, size_t* index_out) {
  size_t i;
  for (i = 0; i < casefile_report_analyzer_count(r); ++i) {
    if (strcmp(casefile_report_analyzer_name(r, i), name) == 0) {
      if (reason_out != NULL) *reason_out = casefile_report_analyzer_reason(r, i);
      if (index_out != NULL) *index_out = i;
      return casefile_report_analyzer_status(r, i);
    }
  }
  return "";
}

static const casefile_finding* find_code(const casefile_report* r, const char* code) {
  size_t i;
  for (i = 0; i < casefile_report_finding_count(r); ++i) {
    const casefile_finding* f = casefile_report_finding(r, i);
    if (strcmp(casefile_finding_code(f), code) == 0) return f;
  }
  return NULL;
}

/* 1 when `name` is in casefile_analyzer_name(); its index in *index_out. */
static int analyzer_listed(const char* name, size_t* index_out) {
  size_t i;
  for (i = 0; i < casefile_analyzer_count(); ++i) {
    if (strcmp(casefile_analyzer_name(i), name) == 0) {
      if (index_out != NULL) *index_out = i;
      return 1;
    }
  }
  return 0;
}

/* The three disk-full lines of node-3 as evidence of `f`: bundle disk-run,
 * DISK_LOG, lines 4, 5 and 7, each with the text written. */
static void check_disk_evidence(const casefile_finding* f) {
  static const int64_t kLines[] = {4, 5, 7};
  size_t i;
  CHECK(casefile_finding_evidence_count(f) == 3);
  for (i = 0; i < 3; ++i) {
    const char *bundle = NULL, *path = NULL, *text = NULL;
    int64_t line = 0;
    CHECK_STATUS(casefile_finding_evidence(f, i, &bundle, &path, &line, &text), CASEFILE_OK);
    CHECK(strcmp(bundle, "disk-run") == 0);
    CHECK(strcmp(path, DISK_LOG) == 0);
    CHECK(line == kLines[i]);
    CHECK(strcmp(text, kDiskLines[kLines[i] - 1]) == 0);
  }
}

/* The one culprit of `f` is host node-3, task and rank unknown. */
static void check_node3_culprit(const casefile_finding* f) {
  const char *host = NULL, *task = "x";
  int64_t rank = 0;
  CHECK(casefile_finding_culprit_count(f) == 1);
  CHECK_STATUS(casefile_finding_culprit(f, 0, &host, &task, &rank), CASEFILE_OK);
  CHECK(host != NULL && strcmp(host, "node-3") == 0);
  CHECK(task == NULL);
  CHECK(rank == -1);
}

/* ---------------------------------------------------------------------- */
/* Payloads and callbacks                                                 */
/* ---------------------------------------------------------------------- */

/* Counts the calls of a payload's run and free. */
struct counter {
  int runs;
  int frees;
};

static void free_counter(void* payload) { ((struct counter*)payload)->frees++; }

static int run_nothing(casefile_analysis* analysis, void* payload) {
  (void)analysis;
  if (payload != NULL) ((struct counter*)payload)->runs++;
  return 0;
}

/* The disk-full lines the SQL analyzer reads. */
struct disk_rows {
  int64_t file_id[8];
  int64_t line[8];
  char host[8][64];
  char path[8][256];
  size_t count;
  int bad_shape;
};

static int on_disk_row(size_t column_count, const char* const* names, const char* const* values,
                       void* payload) {
  struct disk_rows* rows = payload;
  if (column_count != 4 || strcmp(names[0], "file_id") != 0 || strcmp(names[1], "line_no") != 0 ||
      values[0] == NULL || values[1] == NULL || values[2] == NULL || values[3] == NULL ||
      rows->count == COUNT(rows->line)) {
    rows->bad_shape = 1;
    return 1;
  }
  rows->file_id[rows->count] = strtoll(values[0], NULL, 10);
  rows->line[rows->count] = strtoll(values[1], NULL, 10);
  snprintf(rows->host[rows->count], sizeof rows->host[0], "%s", values[2]);
  snprintf(rows->path[rows->count], sizeof rows->path[0], "%s", values[3]);
  rows->count++;
  return 0;
}

static int stop_at_first_row(size_t column_count, const char* const* names,
                             const char* const* values, void* payload) {
  (void)column_count;
  (void)names;
  (void)values;
  ++*(int*)payload;
  return 1;
}

static const char kDiskSql[] =
    "SELECT l.file_id, l.line_no, l.host, f.path "
    "FROM files AS f JOIN lines AS l ON l.file_id = f.id "
    "WHERE f.kind = 'log' AND l.text LIKE '%No space left on device%' "
    "ORDER BY l.file_id, l.line_no";

/* Handles kept past their callback, to check that they are refused. */
static casefile_analysis* g_stale_analysis;
static casefile_finding_builder* g_stale_builder;

/* Every error path of the handles a run callback uses; none of them may
 * touch the analyzer's declaration (that would fail it). */
static void check_callback_errors(casefile_analysis* a, const struct disk_rows* rows) {
  casefile_finding_builder* b = NULL;
  casefile_finding_builder* bare = NULL;
  int seen = 0;

  /* Queries. */
  CHECK_FAILS(casefile_analysis_query(NULL, "SELECT 1", NULL, NULL, &err_), CASEFILE_E_ARGUMENT,
              "analysis");
  CHECK_FAILS(casefile_analysis_query(a, NULL, NULL, NULL, &err_), CASEFILE_E_ARGUMENT, "sql");
  CHECK_FAILS(casefile_analysis_query(a, "DELETE FROM files", NULL, NULL, &err_),
              CASEFILE_E_READ_ONLY, NULL);
  CHECK_FAILS(
      casefile_analysis_query(a, "ATTACH DATABASE ':memory:' AS scratch", NULL, NULL, &err_),
      CASEFILE_E_READ_ONLY, NULL);
  CHECK_FAILS(casefile_analysis_query(a, "SELEC file_id FROM lines", NULL, NULL, &err_),
              CASEFILE_E_QUERY, "syntax");
  CHECK_FAILS(casefile_analysis_query(a, "SELECT id FROM files", stop_at_first_row, &seen, &err_),
              CASEFILE_E_ABORTED, NULL);
  CHECK(seen == 1);
  CHECK_STATUS(casefile_analysis_query(a, "SELECT 1", NULL, NULL, NULL), CASEFILE_OK);

  /* Starting a builder. */
  CHECK_FAILS(casefile_finding_builder_new(NULL, a, "t.disk", CASEFILE_SEVERITY_ERROR, "T", &err_),
              CASEFILE_E_ARGUMENT, "out");
  CHECK_FAILS(casefile_finding_builder_new(&b, NULL, "t.disk", CASEFILE_SEVERITY_ERROR, "T", &err_),
              CASEFILE_E_ARGUMENT, "analysis");
  CHECK(b == NULL);
  CHECK_FAILS(casefile_finding_builder_new(&b, a, NULL, CASEFILE_SEVERITY_ERROR, "T", &err_),
              CASEFILE_E_ARGUMENT, "code");
  CHECK_FAILS(casefile_finding_builder_new(&b, a, "t.disk", CASEFILE_SEVERITY_ERROR, NULL, &err_),
              CASEFILE_E_ARGUMENT, "title");
  CHECK_FAILS(casefile_finding_builder_new(&b, a, "t.disk", CASEFILE_SEVERITY_ERROR, "", &err_),
              CASEFILE_E_ARGUMENT, "title");
  CHECK_FAILS(casefile_finding_builder_new(&b, a, "t.disk", (casefile_severity)7, "T", &err_),
              CASEFILE_E_ARGUMENT, "severity");
  CHECK(b == NULL);

  CHECK_STATUS(casefile_finding_builder_new(&b, a, "t.disk", CASEFILE_SEVERITY_WARNING, "T", NULL),
               CASEFILE_OK);
  CHECK(b != NULL);
  /* A handle of the other type is refused, not misread. */
  CHECK_FAILS(casefile_finding_builder_new(&bare, (casefile_analysis*)b, "t.disk",
                                           CASEFILE_SEVERITY_ERROR, "T", &err_),
              CASEFILE_E_MISUSE, NULL);
  CHECK_FAILS(casefile_finding_builder_set_summary((casefile_finding_builder*)a, "s", &err_),
              CASEFILE_E_MISUSE, NULL);

  /* Fields. */
  CHECK_FAILS(casefile_finding_builder_set_summary(NULL, "s", &err_), CASEFILE_E_ARGUMENT, NULL);
  CHECK_FAILS(casefile_finding_builder_set_summary(b, NULL, &err_), CASEFILE_E_ARGUMENT, NULL);
  CHECK_FAILS(casefile_finding_builder_set_recommendation(b, NULL, &err_), CASEFILE_E_ARGUMENT,
              NULL);
  CHECK_FAILS(casefile_finding_builder_add_culprit(b, NULL, NULL, -1, &err_), CASEFILE_E_ARGUMENT,
              "host, a task or a rank");
  CHECK_FAILS(casefile_finding_builder_add_culprit(b, "", "", -1, &err_), CASEFILE_E_ARGUMENT,
              NULL);
  CHECK_FAILS(casefile_finding_builder_add_culprit(b, "node-3", NULL, -2, &err_),
              CASEFILE_E_ARGUMENT, "rank");
  CHECK_FAILS(casefile_finding_builder_add_culprit(NULL, "node-3", NULL, -1, &err_),
              CASEFILE_E_ARGUMENT, NULL);
  CHECK_STATUS(casefile_finding_builder_add_culprit(b, NULL, NULL, 0, NULL), CASEFILE_OK);

  /* Evidence must be a real line of the index. */
  CHECK_FAILS(casefile_finding_builder_add_evidence(b, 987654, 1, &err_), CASEFILE_E_ARGUMENT,
              "987654");
  CHECK_FAILS(casefile_finding_builder_add_evidence(b, rows->file_id[0], 0, &err_),
              CASEFILE_E_ARGUMENT, "no line 0");
  CHECK_FAILS(casefile_finding_builder_add_evidence(b, rows->file_id[0],
                                                    (int64_t)COUNT(kDiskLines) + 1, &err_),
              CASEFILE_E_ARGUMENT, "no line 8");
  CHECK_FAILS(
      casefile_finding_builder_add_evidence_path(b, NULL, "hosts/node-9/train.log", 1, &err_),
      CASEFILE_E_ARGUMENT, "hosts/node-9/train.log");
  CHECK_FAILS(casefile_finding_builder_add_evidence_path(b, "no-such-bundle", DISK_LOG, 1, &err_),
              CASEFILE_E_ARGUMENT, "no-such-bundle");
  CHECK_FAILS(casefile_finding_builder_add_evidence_path(b, NULL, NULL, 1, &err_),
              CASEFILE_E_ARGUMENT, "path");
  CHECK_FAILS(casefile_finding_builder_add_evidence(NULL, rows->file_id[0], 1, &err_),
              CASEFILE_E_ARGUMENT, NULL);

  /* (Emitting it now, without evidence, would fail the analyzer: see
   * run_no_evidence.) */
  casefile_finding_builder_free(b);
  CHECK_FAILS(casefile_finding_builder_set_summary(b, "s", &err_), CASEFILE_E_MISUSE, NULL);
  CHECK_FAILS(casefile_finding_builder_emit(NULL, &err_), CASEFILE_E_ARGUMENT, NULL);

  /* Discarding; NULL is harmless. */
  CHECK_STATUS(casefile_finding_builder_new(&b, a, "t.disk", CASEFILE_SEVERITY_INFO, "T", NULL),
               CASEFILE_OK);
  casefile_finding_builder_free(b);
  CHECK_FAILS(casefile_finding_builder_add_culprit(b, "node-3", NULL, -1, &err_), CASEFILE_E_MISUSE,
              NULL);
  casefile_finding_builder_free(NULL);
  casefile_analysis_set_error(NULL, "ignored");

  /* A builder left behind: freed when the callback returns. */
  CHECK_STATUS(casefile_finding_builder_new(&g_stale_builder, a, "t.disk", CASEFILE_SEVERITY_INFO,
                                            "left behind", NULL),
               CASEFILE_OK);
}

/* t-sql: finds the disk-full lines with SQL and emits t.disk. */
static int run_sql(casefile_analysis* a, void* payload) {
  struct counter* calls = payload;
  struct disk_rows rows;
  casefile_finding_builder* b = NULL;
  memset(&rows, 0, sizeof rows);
  calls->runs++;
  CHECK_STATUS(casefile_analysis_query(a, kDiskSql, on_disk_row, &rows, NULL), CASEFILE_OK);
  CHECK(!rows.bad_shape);
  /* Lines 4, 5 and 7 of node-3's log; not the lookalike of node-4. */
  CHECK(rows.count == 3);
  CHECK(rows.line[0] == 4 && rows.line[1] == 5 && rows.line[2] == 7);
  CHECK(strcmp(rows.host[0], "node-3") == 0);
  CHECK(strcmp(rows.path[0], DISK_LOG) == 0);

  check_callback_errors(a, &rows);
  g_stale_analysis = a;

  CHECK_STATUS(casefile_finding_builder_new(&b, a, "t.disk", CASEFILE_SEVERITY_ERROR,
                                            "Disk full on node-3", NULL),
               CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_set_summary(b, "draft", NULL), CASEFILE_OK);
  CHECK_STATUS(
      casefile_finding_builder_set_summary(b, "3 lines say No space left on device.", NULL),
      CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_set_recommendation(b, "Free space on node-3.", NULL),
               CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_add_culprit(b, rows.host[0], NULL, -1, NULL), CASEFILE_OK);
  /* The same line three ways: by id, by path alone, by bundle and path;
   * added out of order (the report sorts evidence). */
  CHECK_STATUS(casefile_finding_builder_add_evidence(b, rows.file_id[2], rows.line[2], NULL),
               CASEFILE_OK);
  CHECK_STATUS(
      casefile_finding_builder_add_evidence_path(b, NULL, rows.path[0], rows.line[0], NULL),
      CASEFILE_OK);
  CHECK_STATUS(
      casefile_finding_builder_add_evidence_path(b, "disk-run", rows.path[1], rows.line[1], NULL),
      CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_emit(b, NULL), CASEFILE_OK);
  return 0;
}

/* t-fail: emits, then fails with a reason (set twice: the last wins). */
static int run_fail(casefile_analysis* a, void* payload) {
  casefile_finding_builder* b = NULL;
  (void)payload;
  CHECK_STATUS(
      casefile_finding_builder_new(&b, a, "t.fail", CASEFILE_SEVERITY_ERROR, "never shown", NULL),
      CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_add_evidence_path(b, NULL, DISK_LOG, 1, NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_emit(b, NULL), CASEFILE_OK);
  casefile_analysis_set_error(a, "quota service unreachable");
  casefile_analysis_set_error(a, "disk probe failed: quota service unreachable");
  return 3;
}

/* t-fail-bare: fails without a reason. */
static int run_fail_bare(casefile_analysis* a, void* payload) {
  (void)a;
  (void)payload;
  return 7;
}

/* t-undeclared: emits its declared code, then tries another and, ignoring
 * the refusal, returns 0. */
static int run_undeclared(casefile_analysis* a, void* payload) {
  casefile_finding_builder* b = NULL;
  (void)payload;
  CHECK_STATUS(
      casefile_finding_builder_new(&b, a, "t.one", CASEFILE_SEVERITY_WARNING, "declared", NULL),
      CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_add_evidence_path(b, NULL, DISK_LOG, 1, NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_emit(b, NULL), CASEFILE_OK);
  CHECK_FAILS(
      casefile_finding_builder_new(&b, a, "t.two", CASEFILE_SEVERITY_WARNING, "undeclared", &err_),
      CASEFILE_E_ARGUMENT, "t.two");
  CHECK(b == NULL);
  return 0;
}

/* t-builtin-code: declares no codes (any valid one) and tries a built-in
 * analyzer's code. */
static int run_builtin_code(casefile_analysis* a, void* payload) {
  casefile_finding_builder* b = NULL;
  (void)payload;
  CHECK_FAILS(
      casefile_finding_builder_new(&b, a, "hang.bad_chip", CASEFILE_SEVERITY_ERROR, "x", &err_),
      CASEFILE_E_ARGUMENT, "hang");
  return 0;
}

/* t-no-evidence: emits a finding with evidence, then one without and,
 * ignoring the refusal, returns 0: a finding without evidence is a bug of
 * the analyzer, so it fails, and its findings are dropped. */
static int run_no_evidence(casefile_analysis* a, void* payload) {
  casefile_finding_builder* b = NULL;
  (void)payload;
  CHECK_STATUS(
      casefile_finding_builder_new(&b, a, "t.cited", CASEFILE_SEVERITY_WARNING, "cited", NULL),
      CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_add_evidence_path(b, NULL, DISK_LOG, 4, NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_emit(b, NULL), CASEFILE_OK);
  CHECK_STATUS(
      casefile_finding_builder_new(&b, a, "t.uncited", CASEFILE_SEVERITY_ERROR, "uncited", NULL),
      CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_set_summary(b, "no line says so", NULL), CASEFILE_OK);
  CHECK_FAILS(casefile_finding_builder_emit(b, &err_), CASEFILE_E_ARGUMENT,
              "t.uncited has no evidence");
  /* Gone all the same. */
  CHECK_FAILS(casefile_finding_builder_set_summary(b, "s", &err_), CASEFILE_E_MISUSE, NULL);
  return 0;
}

/* t-keep then t-reuse, run one after the other in one analysis: t-keep
 * keeps its handle; t-reuse, whose own handle may well be allocated where
 * t-keep's was, must see the kept one refused. */
static casefile_analysis* g_kept_analysis;
static int g_reuse_ran;

static int run_keep(casefile_analysis* a, void* payload) {
  (void)payload;
  g_kept_analysis = a;
  return 0;
}

static int run_reuse(casefile_analysis* a, void* payload) {
  casefile_finding_builder* b = NULL;
  (void)payload;
  g_reuse_ran = 1;
  CHECK(g_kept_analysis != NULL);
  CHECK_FAILS(casefile_finding_builder_new(&b, g_kept_analysis, "t.kept", CASEFILE_SEVERITY_ERROR,
                                           "from the kept handle", &err_),
              CASEFILE_E_MISUSE, "live analysis handle");
  CHECK(b == NULL);
  CHECK_FAILS(casefile_analysis_query(g_kept_analysis, "SELECT 1", NULL, NULL, &err_),
              CASEFILE_E_MISUSE, NULL);
  /* Its own handle works. */
  CHECK_STATUS(casefile_analysis_query(a, "SELECT 1", NULL, NULL, NULL), CASEFILE_OK);
  return 0;
}

/* t-stale-free: frees a builder it already emitted (a mistake) while a
 * second builder, likely at the same address, is open: the mistake must
 * not free the second one. */
static int run_stale_free(casefile_analysis* a, void* payload) {
  casefile_finding_builder *first = NULL, *second = NULL;
  (void)payload;
  CHECK_STATUS(
      casefile_finding_builder_new(&first, a, "t.first", CASEFILE_SEVERITY_INFO, "first", NULL),
      CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_add_evidence_path(first, NULL, DISK_LOG, 1, NULL),
               CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_emit(first, NULL), CASEFILE_OK);
  CHECK_STATUS(
      casefile_finding_builder_new(&second, a, "t.second", CASEFILE_SEVERITY_INFO, "second", NULL),
      CASEFILE_OK);
  CHECK(second != first); /* the emitted builder's memory is not reused at once */
  casefile_finding_builder_free(first);
  CHECK_FAILS(casefile_finding_builder_emit(first, &err_), CASEFILE_E_MISUSE, NULL);
  CHECK_STATUS(casefile_finding_builder_add_evidence_path(second, NULL, DISK_LOG, 2, NULL),
               CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_emit(second, NULL), CASEFILE_OK);
  return 0;
}

/* t-title: a title, summary and culprit holding line breaks, an escape
 * sequence, DEL and bytes that are not UTF-8 (an external analyzer may
 * copy them from a log). The text report must keep each on one line and
 * print no control character; JSON escapes them. */
static const char kNastyTitle[] = "first\nSECOND LINE \x1b[31mred\x1b[0m\x7f bad\xff\xfe utf8";

static int run_title(casefile_analysis* a, void* payload) {
  casefile_finding_builder* b = NULL;
  (void)payload;
  CHECK_STATUS(
      casefile_finding_builder_new(&b, a, "t.title", CASEFILE_SEVERITY_ERROR, kNastyTitle, NULL),
      CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_set_summary(b, "sum\r\nmary \x1b]0;title\x07", NULL),
               CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_add_evidence_path(b, NULL, DISK_LOG, 3, NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_emit(b, NULL), CASEFILE_OK);
  return 0;
}

/* t-ambiguous: a path held by two bundles needs the bundle's name. */
static int run_ambiguous(casefile_analysis* a, void* payload) {
  casefile_finding_builder* b = NULL;
  (void)payload;
  CHECK_STATUS(casefile_finding_builder_new(&b, a, "t.ambiguous", CASEFILE_SEVERITY_INFO,
                                            "which bundle", NULL),
               CASEFILE_OK);
  CHECK_FAILS(casefile_finding_builder_add_evidence_path(b, NULL, DISK_LOG, 1, &err_),
              CASEFILE_E_ARGUMENT, "'disk-run', 'disk-run-b'");
  CHECK_STATUS(casefile_finding_builder_add_evidence_path(b, "disk-run-b", DISK_LOG, 2, NULL),
               CASEFILE_OK);
  CHECK_STATUS(casefile_finding_builder_emit(b, NULL), CASEFILE_OK);
  return 0;
}

/* ---------------------------------------------------------------------- */
/* Registration                                                           */
/* ---------------------------------------------------------------------- */

static casefile_analyzer_def def_named(const char* name, casefile_analyzer_fn run, void* payload) {
  casefile_analyzer_def def = CASEFILE_ANALYZER_DEF_INIT;
  def.name = name;
  def.run = run;
  def.payload = payload;
  def.free_payload = payload != NULL ? free_counter : NULL;
  return def;
}

static void test_register_errors(void) {
  static const char* const kLog[] = {"log"};
  static const char* const kBadKind[] = {"logs"};
  static const char* const kNullItem[] = {NULL};
  struct counter c = {0, 0};
  char long_name[80];
  casefile_analyzer_def def;
  size_t before = casefile_analyzer_count();
  size_t i;
  /* Names refused for their shape. */
  static const char* const kBadNames[] = {"",           "Disk",       "-disk",      "_disk",
                                          "disk check", "disk.check", "disk/check", "dísk"};
  /* Codes refused for their shape. */
  static const char* const kBadCodes[] = {"nodot",  "Team.check",   "team..check",  "team.",
                                          ".check", "team.check-2", "team check.x", ""};

  CHECK_FAILS(casefile_analyzer_register(NULL, &err_), CASEFILE_E_ARGUMENT, "def");
  CHECK_STATUS(casefile_analyzer_register(NULL, NULL), CASEFILE_E_ARGUMENT);

  def = def_named("t-version", run_nothing, &c);
  def.version = 0;
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_VERSION, "version 0");
  def.version = CASEFILE_ANALYZER_DEF_VERSION + 1;
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_VERSION, NULL);

  def = def_named("t-norun", NULL, &c);
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "run");
  def = def_named(NULL, run_nothing, &c);
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "name");
  for (i = 0; i < COUNT(kBadNames); ++i) {
    def = def_named(kBadNames[i], run_nothing, &c);
    CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "not valid");
  }
  /* 64 bytes is the limit. */
  memset(long_name, 'a', sizeof long_name);
  long_name[65] = '\0';
  def = def_named(long_name, run_nothing, &c);
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "not valid");
  long_name[64] = '\0';
  def = def_named(long_name, run_nothing, &c);
  CHECK_STATUS(casefile_analyzer_register(&def, NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_analyzer_unregister(long_name, NULL), CASEFILE_OK);
  CHECK(c.frees == 1); /* registered, so unregistering frees */
  c.frees = 0;

  /* Built-in names, "rules" included. */
  def = def_named("hang", run_nothing, &c);
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "built-in");
  def = def_named("rules", run_nothing, &c);
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "built-in");

  /* Versions and descriptions. */
  def = def_named("t-badversion", run_nothing, &c);
  def.analyzer_version = "";
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "analyzer_version");
  def.analyzer_version = "1 beta";
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "analyzer_version");
  def = def_named("t-twolines", run_nothing, &c);
  def.description = "first\nsecond";
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "one line");
  /* `casefile analyzers` prints the description as it is: no control
   * character of any kind. */
  {
    static const char* const kControl[] = {
        "carriage\rreturn", "tab\tseparated", "\x1b[31mred\x1b[0m",
        "bell\x07",         "del\x7f",        "trailing newline\n"};
    for (i = 0; i < COUNT(kControl); ++i) {
      def = def_named("t-control", run_nothing, &c);
      def.description = kControl[i];
      CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "control");
    }
    /* Printable text beyond ASCII is fine. */
    def = def_named("t-utf8", run_nothing, NULL);
    def.description =
        "d\xc3\xa9"
        "bit: 10 \xc2\xb5s per step";
    CHECK_STATUS(casefile_analyzer_register(&def, NULL), CASEFILE_OK);
    CHECK_STATUS(casefile_analyzer_unregister("t-utf8", NULL), CASEFILE_OK);
  }

  /* Kinds. */
  def = def_named("t-kinds", run_nothing, &c);
  def.needed_kinds = kBadKind;
  def.needed_kind_count = 1;
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "'logs'");
  def.needed_kinds = NULL;
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "needed_kinds");
  def.needed_kinds = kNullItem;
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "needed_kinds[0]");

  /* Codes: shape, a built-in analyzer's, NULL arrays and items. */
  for (i = 0; i < COUNT(kBadCodes); ++i) {
    def = def_named("t-codes", run_nothing, &c);
    def.needed_kinds = kLog;
    def.needed_kind_count = 1;
    def.codes = &kBadCodes[i];
    def.code_count = 1;
    CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "not valid");
  }
  {
    static const char* const kBuiltin[] = {"team.check", "hang.bad_chip"};
    def = def_named("t-codes", run_nothing, &c);
    def.codes = kBuiltin;
    def.code_count = 2;
    CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT,
                "built-in analyzer 'hang'");
  }
  def = def_named("t-codes", run_nothing, &c);
  def.code_count = 2;
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "codes");
  def.codes = kNullItem;
  def.code_count = 1;
  CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "codes[0]");

  /* A duplicate: the first stays, the second's payload is not freed. */
  {
    struct counter first = {0, 0};
    def = def_named("t-dup", run_nothing, &first);
    CHECK_STATUS(casefile_analyzer_register(&def, NULL), CASEFILE_OK);
    def = def_named("t-dup", run_nothing, &c);
    CHECK_FAILS(casefile_analyzer_register(&def, &err_), CASEFILE_E_ARGUMENT, "already registered");
    CHECK_STATUS(casefile_analyzer_unregister("t-dup", NULL), CASEFILE_OK);
    CHECK(first.frees == 1);
  }

  /* Unregistering. */
  CHECK_FAILS(casefile_analyzer_unregister(NULL, &err_), CASEFILE_E_ARGUMENT, "name");
  CHECK_FAILS(casefile_analyzer_unregister("hang", &err_), CASEFILE_E_ARGUMENT, "built-in");
  CHECK_FAILS(casefile_analyzer_unregister("rules", &err_), CASEFILE_E_ARGUMENT, "built-in");
  CHECK_FAILS(casefile_analyzer_unregister("t-dup", &err_), CASEFILE_E_UNKNOWN_ANALYZER, "t-dup");

  /* No failed registration freed its payload or changed the list. */
  CHECK(c.frees == 0);
  CHECK(c.runs == 0);
  CHECK(casefile_analyzer_count() == before);
}

/* The list: external analyzers after the built-in ones and "rules", in
 * registration order; their strings stay put, even after unregistration;
 * the payload is freed once, on unregistration. */
static void test_list_and_payload(void) {
  struct counter c1 = {0, 0}, c2 = {0, 0};
  casefile_analyzer_def def;
  size_t before = casefile_analyzer_count();
  size_t hang_at = 0, first_at = 0, second_at = 0, long_at = 0;
  const char *description, *long_name, *long_description;

  def = def_named("t-list-1", run_nothing, &c1);
  def.description = "first external";
  CHECK_STATUS(casefile_analyzer_register(&def, NULL), CASEFILE_OK);
  def = def_named("t-list-2", run_nothing, &c2);
  CHECK_STATUS(casefile_analyzer_register(&def, NULL), CASEFILE_OK);
  CHECK(casefile_analyzer_count() == before + 2);
  CHECK(analyzer_listed("hang", &hang_at));
  CHECK(analyzer_listed("t-list-1", &first_at));
  CHECK(analyzer_listed("t-list-2", &second_at));
  CHECK(hang_at < first_at && first_at + 1 == second_at);
  CHECK(second_at == casefile_analyzer_count() - 1);
  description = casefile_analyzer_description(first_at);
  CHECK(strcmp(description, "first external") == 0);
  CHECK(strcmp(casefile_analyzer_description(second_at), "") == 0); /* NULL: empty */
  /* Registering another does not move the strings of the first. */
  def = def_named("t-list-3", run_nothing, NULL);
  CHECK_STATUS(casefile_analyzer_register(&def, NULL), CASEFILE_OK);
  CHECK(casefile_analyzer_description(first_at) == description);

  /* Long enough to live on the heap, not inside a string object. */
  def = def_named("t-list-long-name-that-the-library-must-keep-valid", run_nothing, NULL);
  def.description = "a description long enough to be allocated on the heap, kept for the process";
  CHECK_STATUS(casefile_analyzer_register(&def, NULL), CASEFILE_OK);
  CHECK(analyzer_listed(def.name, &long_at));
  long_name = casefile_analyzer_name(long_at);
  long_description = casefile_analyzer_description(long_at);

  CHECK_STATUS(casefile_analyzer_unregister("t-list-1", NULL), CASEFILE_OK);
  CHECK(c1.frees == 1 && c2.frees == 0);
  /* The strings handed out stay valid after unregistering (another thread
   * may unregister at any time); analyzers with strings of the same sizes
   * are registered meanwhile, to take over any memory that was freed. */
  CHECK_STATUS(casefile_analyzer_unregister(def.name, NULL), CASEFILE_OK);
  def = def_named("t-list-other-name-that-takes-over-the-freed-memory", run_nothing, NULL);
  def.description = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX";
  CHECK_STATUS(casefile_analyzer_register(&def, NULL), CASEFILE_OK);
  CHECK(strcmp(description, "first external") == 0);
  CHECK(strcmp(long_name, "t-list-long-name-that-the-library-must-keep-valid") == 0);
  CHECK(strcmp(long_description,
               "a description long enough to be allocated on the heap, kept for the process") == 0);
  CHECK_STATUS(casefile_analyzer_unregister(def.name, NULL), CASEFILE_OK);
  CHECK(!analyzer_listed("t-list-1", NULL));
  CHECK(analyzer_listed("t-list-2", NULL));
  CHECK_FAILS(casefile_analyzer_unregister("t-list-1", &err_), CASEFILE_E_UNKNOWN_ANALYZER, NULL);
  CHECK(c1.frees == 1);
  CHECK_STATUS(casefile_analyzer_unregister("t-list-2", NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_analyzer_unregister("t-list-3", NULL), CASEFILE_OK);
  CHECK(c2.frees == 1);
  CHECK(c1.runs == 0 && c2.runs == 0);
  CHECK(casefile_analyzer_count() == before);
}

/* ---------------------------------------------------------------------- */
/* Analysis with external analyzers                                       */
/* ---------------------------------------------------------------------- */

static void register_def(const casefile_analyzer_def* def) {
  CHECK_STATUS(casefile_analyzer_register(def, NULL), CASEFILE_OK);
}

static casefile_analyzer_def sql_def(struct counter* c, const char* version) {
  static const char* const kLog[] = {"log"};
  static const char* const kCodes[] = {"t.disk"};
  casefile_analyzer_def def = def_named("t-sql", run_sql, c);
  def.analyzer_version = version;
  def.description = "test: disk-full lines through SQL";
  def.needed_kinds = kLog;
  def.needed_kind_count = 1;
  def.codes = kCodes;
  def.code_count = 1;
  return def;
}

static void test_analysis(void) {
  static const char* const kHlo[] = {"hlo"};
  static const char* const kFailCodes[] = {"t.fail"};
  static const char* const kOneCode[] = {"t.one"};
  struct counter sql = {0, 0}, na = {0, 0};
  casefile_analyzer_def def;
  const char* inputs[1];
  casefile_session* s;
  casefile_report* r;
  const casefile_finding* f;
  const char* reason = NULL;
  size_t hang_at = 0, sql_at = 0;
  char* json = NULL;
  char* text = NULL;

  def = sql_def(&sql, NULL);
  register_def(&def);
  def = def_named("t-fail", run_fail, NULL);
  def.codes = kFailCodes;
  def.code_count = 1;
  register_def(&def);
  def = def_named("t-fail-bare", run_fail_bare, NULL);
  register_def(&def);
  def = def_named("t-undeclared", run_undeclared, NULL);
  def.codes = kOneCode;
  def.code_count = 1;
  register_def(&def);
  def = def_named("t-builtin-code", run_builtin_code, NULL);
  register_def(&def);
  def = def_named("t-na", run_nothing, &na);
  def.needed_kinds = kHlo;
  def.needed_kind_count = 1;
  register_def(&def);
  def = def_named("t-no-evidence", run_no_evidence, NULL);
  register_def(&def);
  def = def_named("t-keep", run_keep, NULL);
  register_def(&def);
  def = def_named("t-reuse", run_reuse, NULL);
  register_def(&def);
  def = def_named("t-stale-free", run_stale_free, NULL);
  register_def(&def);
  def = def_named("t-title", run_title, NULL);
  register_def(&def);

  inputs[0] = g_disk;
  s = open_indexed(inputs, 1, "disk.db");
  r = analyze(s);
  CHECK(sql.runs == 1);

  /* The finding, exactly as emitted. */
  f = find_code(r, "t.disk");
  CHECK(f != NULL);
  CHECK(strcmp(casefile_finding_analyzer(f), "t-sql") == 0);
  CHECK(casefile_finding_severity(f) == CASEFILE_SEVERITY_ERROR);
  CHECK(strcmp(casefile_finding_title(f), "Disk full on node-3") == 0);
  CHECK(strcmp(casefile_finding_summary(f), "3 lines say No space left on device.") == 0);
  CHECK(strcmp(casefile_finding_recommendation(f), "Free space on node-3.") == 0);
  check_node3_culprit(f);
  check_disk_evidence(f);
  CHECK(casefile_report_max_severity(r) == CASEFILE_SEVERITY_ERROR);

  /* Statuses: external analyzers after the built-in ones. */
  CHECK(strcmp(analyzer_status(r, "t-sql", NULL, &sql_at), "ran") == 0);
  CHECK(strcmp(analyzer_status(r, "hang", NULL, &hang_at), "failed") != 0);
  CHECK(analyzer_status(r, "hang", NULL, NULL)[0] != '\0');
  CHECK(hang_at < sql_at);
  CHECK(strcmp(analyzer_status(r, "t-fail", &reason, NULL), "failed") == 0);
  CHECK(strcmp(reason, "disk probe failed: quota service unreachable") == 0);
  CHECK(find_code(r, "t.fail") == NULL); /* a failed analyzer's findings are dropped */
  CHECK(strcmp(analyzer_status(r, "t-fail-bare", &reason, NULL), "failed") == 0);
  CHECK(strcmp(reason, "the run callback returned 7") == 0);
  CHECK(strcmp(analyzer_status(r, "t-undeclared", &reason, NULL), "failed") == 0);
  CHECK(contains(reason, "'t.two'") && contains(reason, "t.one"));
  CHECK(find_code(r, "t.one") == NULL);
  CHECK(strcmp(analyzer_status(r, "t-builtin-code", &reason, NULL), "failed") == 0);
  CHECK(contains(reason, "hang.bad_chip"));
  CHECK(strcmp(analyzer_status(r, "t-na", &reason, NULL), "not_applicable") == 0);
  CHECK(strcmp(reason, "no hlo files in the bundle") == 0);
  CHECK(na.runs == 0);
  CHECK(strcmp(analyzer_status(r, "t-no-evidence", &reason, NULL), "failed") == 0);
  CHECK(contains(reason, "finding t.uncited has no evidence"));
  CHECK(find_code(r, "t.cited") == NULL);
  CHECK(find_code(r, "t.uncited") == NULL);
  CHECK(g_reuse_ran);
  CHECK(strcmp(analyzer_status(r, "t-keep", NULL, NULL), "ran") == 0);
  CHECK(strcmp(analyzer_status(r, "t-reuse", NULL, NULL), "ran") == 0);
  CHECK(find_code(r, "t.kept") == NULL);
  CHECK(strcmp(analyzer_status(r, "t-stale-free", &reason, NULL), "ran") == 0);
  CHECK(find_code(r, "t.first") != NULL);
  CHECK(find_code(r, "t.second") != NULL);
  CHECK(strcmp(analyzer_status(r, "t-title", NULL, NULL), "ran") == 0);
  f = find_code(r, "t.title");
  CHECK(f != NULL);
  CHECK(strcmp(casefile_finding_title(f), kNastyTitle) == 0); /* the API gives it as emitted */

  /* Every render shows it like a built-in finding. */
  CHECK_STATUS(casefile_report_render(&json, r, CASEFILE_FORMAT_JSON, NULL), CASEFILE_OK);
  CHECK(contains(json, "\"code\": \"t.disk\"") || contains(json, "\"code\":\"t.disk\""));
  CHECK(contains(json, "t-sql"));
  CHECK(contains(json, "Disk full on node-3"));
  CHECK(contains(json, "disk probe failed: quota service unreachable"));
  CHECK(contains(json, "model_03.pt"));
  CHECK_STATUS(casefile_report_render(&text, r, CASEFILE_FORMAT_TEXT, NULL), CASEFILE_OK);
  CHECK(contains(text, "t.disk"));
  CHECK(contains(text, "Disk full on node-3"));
  CHECK(contains(text, DISK_LOG));
  /* The nasty title on one line, its control characters and invalid bytes
   * shown, not sent (docs/CLI.md, "Terminal safety"). */
  CHECK(contains(text, "  first^JSECOND LINE ^[[31mred^[[0m^? bad<0xFF><0xFE> utf8"));
  CHECK(contains(text, " utf8\n"));
  CHECK(!contains(text, "first\nSECOND"));
  CHECK(!contains(text, "\x1b"));
  CHECK(!contains(text, "\x7f"));
  CHECK(!contains(text, "\xff"));
  CHECK(!contains(text, "\a"));
  CHECK(contains(text, "sum^M^Jmary ^[]0;title^G"));
  /* JSON escapes the control characters. */
  CHECK(contains(json, "first\\nSECOND LINE \\u001b[31mred"));
  casefile_string_free(json);
  casefile_string_free(text);
  casefile_report_free(r);

  /* The handles kept past their callback are refused, never read. */
  CHECK_FAILS(casefile_analysis_query(g_stale_analysis, "SELECT 1", NULL, NULL, &err_),
              CASEFILE_E_MISUSE, "run callback");
  {
    casefile_finding_builder* b = NULL;
    CHECK_FAILS(casefile_finding_builder_new(&b, g_stale_analysis, "t.disk", CASEFILE_SEVERITY_INFO,
                                             "late", &err_),
                CASEFILE_E_MISUSE, NULL);
    CHECK(b == NULL);
  }
  casefile_analysis_set_error(g_stale_analysis, "ignored");
  CHECK_FAILS(casefile_finding_builder_add_culprit(g_stale_builder, "node-3", NULL, -1, &err_),
              CASEFILE_E_MISUSE, NULL);
  CHECK_FAILS(casefile_finding_builder_emit(g_stale_builder, &err_), CASEFILE_E_MISUSE, NULL);
  casefile_finding_builder_free(g_stale_builder);

  /* One analyzer by name: only it runs. */
  {
    const char* names[1];
    casefile_analyze_options opts = CASEFILE_ANALYZE_OPTIONS_INIT;
    names[0] = "t-sql";
    opts.analyzers = names;
    opts.analyzer_count = 1;
    opts.no_store = 1;
    CHECK_STATUS(casefile_session_analyze(&r, s, &opts, NULL), CASEFILE_OK);
    CHECK(casefile_report_analyzer_count(r) == 1);
    CHECK(find_code(r, "t.disk") != NULL);
    CHECK(sql.runs == 2);
    casefile_report_free(r);
  }

  CHECK_STATUS(casefile_analyzer_unregister("t-fail", NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_analyzer_unregister("t-fail-bare", NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_analyzer_unregister("t-undeclared", NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_analyzer_unregister("t-builtin-code", NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_analyzer_unregister("t-na", NULL), CASEFILE_OK);
  CHECK(na.frees == 1);
  CHECK_STATUS(casefile_analyzer_unregister("t-no-evidence", NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_analyzer_unregister("t-keep", NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_analyzer_unregister("t-reuse", NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_analyzer_unregister("t-stale-free", NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_analyzer_unregister("t-title", NULL), CASEFILE_OK);
  CHECK(sql.frees == 0);
  CHECK_STATUS(casefile_analyzer_unregister("t-sql", NULL), CASEFILE_OK);
  CHECK(sql.frees == 1);

  /* Unregistered: the next analysis runs without it. */
  r = analyze(s);
  CHECK(find_code(r, "t.disk") == NULL);
  CHECK(analyzer_status(r, "t-sql", NULL, NULL)[0] == '\0');
  CHECK(sql.runs == 2);
  casefile_report_free(r);
  casefile_session_free(s);
}

/* A path in two bundles needs the bundle's name. */
static void test_ambiguous_path(void) {
  const char* inputs[2];
  casefile_analyzer_def def = def_named("t-ambiguous", run_ambiguous, NULL);
  casefile_session* s;
  casefile_report* r;
  const casefile_finding* f;
  const char *bundle = NULL, *text = NULL;
  int64_t line = 0;
  inputs[0] = g_disk;
  inputs[1] = g_disk_b;
  register_def(&def);
  s = open_indexed(inputs, 2, "two.db");
  r = analyze(s);
  CHECK(strcmp(analyzer_status(r, "t-ambiguous", NULL, NULL), "ran") == 0);
  f = find_code(r, "t.ambiguous");
  CHECK(f != NULL);
  CHECK(casefile_finding_evidence_count(f) == 1);
  CHECK_STATUS(casefile_finding_evidence(f, 0, &bundle, NULL, &line, &text), CASEFILE_OK);
  CHECK(strcmp(bundle, "disk-run-b") == 0);
  CHECK(line == 2);
  CHECK(strcmp(text, kOtherDiskLines[1]) == 0);
  casefile_report_free(r);
  casefile_session_free(s);
  CHECK_STATUS(casefile_analyzer_unregister("t-ambiguous", NULL), CASEFILE_OK);
}

/* The provenance of stored findings names every analyzer and its version,
 * so registering one makes the stored set stale. */
static int on_provenance(size_t column_count, const char* const* names, const char* const* values,
                         void* payload) {
  (void)names;
  if (column_count == 1 && values[0] != NULL) {
    snprintf((char*)payload, 1024, "%s", values[0]);
  }
  return 0;
}

static void read_provenance(casefile_session* s, char* out) {
  out[0] = '\0';
  CHECK_STATUS(casefile_session_query(s, "SELECT value FROM meta WHERE key = 'findings_provenance'",
                                      on_provenance, out, NULL),
               CASEFILE_OK);
}

static void test_provenance(void) {
  struct counter c = {0, 0};
  casefile_analyzer_def def = sql_def(&c, "2");
  const char* inputs[1];
  char provenance[1024];
  casefile_session* s;
  casefile_report* r;

  inputs[0] = g_disk;
  s = open_indexed(inputs, 1, "provenance.db");
  r = analyze(s);
  CHECK(find_code(r, "t.disk") == NULL);
  casefile_report_free(r);
  read_provenance(s, provenance);
  CHECK(contains(provenance, "hang:"));
  CHECK(!contains(provenance, "t-sql"));

  /* Registered after the index was analysed: the next analysis runs it and
   * records it. */
  register_def(&def);
  r = analyze(s);
  CHECK(c.runs == 1);
  CHECK(find_code(r, "t.disk") != NULL);
  casefile_report_free(r);
  read_provenance(s, provenance);
  CHECK(contains(provenance, " t-sql:2"));

  CHECK_STATUS(casefile_analyzer_unregister("t-sql", NULL), CASEFILE_OK);
  CHECK(c.frees == 1);
  r = analyze(s);
  CHECK(find_code(r, "t.disk") == NULL);
  casefile_report_free(r);
  read_provenance(s, provenance);
  CHECK(!contains(provenance, "t-sql"));
  casefile_session_free(s);
}

/* ---------------------------------------------------------------------- */
/* Plugins                                                                */
/* ---------------------------------------------------------------------- */

/* Inits that load a plugin whose init is running: refused, never run
 * twice. The plugins register "<tag>-<outcome>" (reentrant_plugin.c). */
static void test_reentrant_plugins(const char* self, const char* cycle_a, const char* cycle_b) {
  size_t before = casefile_analyzer_count();
  CHECK(setenv("CASEFILE_TEST_SELF", self, 1) == 0);
  CHECK(setenv("CASEFILE_TEST_CYCLE_A", cycle_a, 1) == 0);
  CHECK(setenv("CASEFILE_TEST_CYCLE_B", cycle_b, 1) == 0);
  /* Itself: its init's nested load is refused; the outer load succeeds. */
  CHECK_STATUS(casefile_plugin_load(self, NULL), CASEFILE_OK);
  CHECK(analyzer_listed("self-refused", NULL));
  CHECK(casefile_analyzer_count() == before + 1);
  /* Loaded now: loading it again does nothing (its init does not run). */
  CHECK_STATUS(casefile_plugin_load(self, NULL), CASEFILE_OK);
  CHECK(casefile_analyzer_count() == before + 1);
  /* A cycle: A's init loads B, whose init loads A again: refused there;
   * B and then A load. */
  CHECK_STATUS(casefile_plugin_load(cycle_a, NULL), CASEFILE_OK);
  CHECK(analyzer_listed("cycle-b-refused", NULL));
  CHECK(analyzer_listed("cycle-a-loaded-next", NULL));
  CHECK(casefile_analyzer_count() == before + 3);
  /* Both are loaded: neither init runs again. */
  CHECK_STATUS(casefile_plugin_load(cycle_b, NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_plugin_load(cycle_a, NULL), CASEFILE_OK);
  CHECK(casefile_analyzer_count() == before + 3);
  CHECK_STATUS(casefile_analyzer_unregister("self-refused", NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_analyzer_unregister("cycle-b-refused", NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_analyzer_unregister("cycle-a-loaded-next", NULL), CASEFILE_OK);
  CHECK(casefile_analyzer_count() == before);
}

static void test_plugins(const char* example, const char* good_dir, const char* newer_abi,
                         const char* info_version, const char* no_entry, const char* init_fails) {
  char path[512];
  char expected[256];
  char env[1024];
  size_t loaded = 99;
  size_t before;
  const char* inputs[1];
  casefile_session* s;
  casefile_report* r;
  const casefile_finding* f;
  const char* reason = NULL;

  /* Arguments and files that are no plugin. */
  CHECK_FAILS(casefile_plugin_load(NULL, &err_), CASEFILE_E_ARGUMENT, "path");
  CHECK_FAILS(casefile_plugin_load("", &err_), CASEFILE_E_ARGUMENT, NULL);
  join(path, sizeof path, g_root, "missing.so");
  CHECK_FAILS(casefile_plugin_load(path, &err_), CASEFILE_E_NOT_FOUND, "missing.so");
  join(path, sizeof path, g_root, "notes.so");
  {
    static const char* const kNotes[] = {"not an ELF file"};
    write_lines_at(g_root, "notes.so", kNotes, 1);
  }
  CHECK_FAILS(casefile_plugin_load(path, &err_), CASEFILE_E_PLUGIN, "cannot be loaded");
  CHECK_FAILS(casefile_plugin_load(g_root, &err_), CASEFILE_E_PLUGIN, "directory");

  /* Refused plugins; none of their inits ran, or what init did is undone. */
  before = casefile_analyzer_count();
  snprintf(expected, sizeof expected,
           "was built against casefile ABI %d (casefile.h %d.x); this library is ABI %d",
           CASEFILE_VERSION_MAJOR + 1, CASEFILE_VERSION_MAJOR + 1, CASEFILE_VERSION_MAJOR);
  CHECK_FAILS(casefile_plugin_load(newer_abi, &err_), CASEFILE_E_PLUGIN, expected);
  CHECK(!analyzer_listed("refused-newer-abi", NULL));
  snprintf(expected, sizeof expected, "casefile_plugin_info version %d",
           CASEFILE_PLUGIN_INFO_VERSION + 1);
  CHECK_FAILS(casefile_plugin_load(info_version, &err_), CASEFILE_E_PLUGIN, expected);
  CHECK(!analyzer_listed("refused-info-version", NULL));
  CHECK_FAILS(casefile_plugin_load(no_entry, &err_), CASEFILE_E_PLUGIN,
              "no entry point 'casefile_plugin_entry'");
  CHECK(!analyzer_listed("refused-no-entry", NULL));
  CHECK_FAILS(casefile_plugin_load(init_fails, &err_), CASEFILE_E_PLUGIN, "init returned 1");
  CHECK(!analyzer_listed("refused-partial", NULL));
  CHECK_FAILS(casefile_analyzer_unregister("refused-partial", &err_), CASEFILE_E_UNKNOWN_ANALYZER,
              NULL);
  /* Again: the same refusal, still nothing registered. */
  CHECK_FAILS(casefile_plugin_load(init_fails, &err_), CASEFILE_E_PLUGIN, "refused-partial");
  CHECK_FAILS(casefile_plugin_load(newer_abi, &err_), CASEFILE_E_PLUGIN, "ABI");
  CHECK(casefile_analyzer_count() == before);

  /* A directory on the path: its *.so files (the example alone). */
  CHECK_STATUS(casefile_plugin_load_path(&loaded, good_dir, NULL), CASEFILE_OK);
  CHECK(loaded == 1);
  CHECK(casefile_analyzer_count() == before + 1);
  CHECK(analyzer_listed("example-disk", NULL));
  /* The same file again, by its own path: nothing happens. */
  CHECK_STATUS(casefile_plugin_load(example, NULL), CASEFILE_OK);
  CHECK(casefile_analyzer_count() == before + 1);
  loaded = 99;
  CHECK_STATUS(casefile_plugin_load_path(&loaded, example, NULL), CASEFILE_OK);
  CHECK(loaded == 0);

  /* NULL reads CASEFILE_PLUGIN_PATH; empty entries are skipped. */
  snprintf(env, sizeof env, "::%s:", good_dir);
  CHECK(setenv("CASEFILE_PLUGIN_PATH", env, 1) == 0);
  loaded = 99;
  CHECK_STATUS(casefile_plugin_load_path(&loaded, NULL, NULL), CASEFILE_OK);
  CHECK(loaded == 0);
  snprintf(env, sizeof env, "%s:%s/no-such-dir", good_dir, g_root);
  CHECK(setenv("CASEFILE_PLUGIN_PATH", env, 1) == 0);
  loaded = 99;
  CHECK_FAILS(casefile_plugin_load_path(&loaded, NULL, &err_), CASEFILE_E_NOT_FOUND, "no-such-dir");
  CHECK(loaded == 0);
  /* A refused plugin on the path stops it with the plugin's reason. */
  CHECK_FAILS(casefile_plugin_load_path(NULL, newer_abi, &err_), CASEFILE_E_PLUGIN, "ABI");
  CHECK(unsetenv("CASEFILE_PLUGIN_PATH") == 0);
  loaded = 99;
  CHECK_STATUS(casefile_plugin_load_path(&loaded, NULL, NULL), CASEFILE_OK);
  CHECK(loaded == 0);

  /* The example plugin's analyzer at work. */
  inputs[0] = g_disk;
  s = open_indexed(inputs, 1, "plugin.db");
  r = analyze(s);
  CHECK(strcmp(analyzer_status(r, "example-disk", &reason, NULL), "ran") == 0);
  f = find_code(r, "example.disk_full");
  CHECK(f != NULL);
  CHECK(strcmp(casefile_finding_analyzer(f), "example-disk") == 0);
  CHECK(casefile_finding_severity(f) == CASEFILE_SEVERITY_ERROR);
  CHECK(strcmp(casefile_finding_title(f), "Disk full on node-3") == 0);
  CHECK(contains(casefile_finding_summary(f), "3 log line(s) on node-3"));
  check_node3_culprit(f);
  check_disk_evidence(f);
  casefile_report_free(r);
  casefile_session_free(s);

  /* Its analyzer can be unregistered; the plugin stays loaded, so loading
   * it again does not bring the analyzer back. */
  CHECK_STATUS(casefile_analyzer_unregister("example-disk", NULL), CASEFILE_OK);
  CHECK_STATUS(casefile_plugin_load(example, NULL), CASEFILE_OK);
  CHECK(!analyzer_listed("example-disk", NULL));
}

int main(int argc, char** argv) {
  if (argc != 10) {
    fprintf(stderr,
            "usage: %s EXAMPLE_PLUGIN GOOD_DIR NEWER_ABI INFO_VERSION NO_ENTRY INIT_FAILS SELF "
            "CYCLE_A CYCLE_B\n",
            argv[0]);
    return 2;
  }
  make_inputs();
  test_register_errors();
  test_list_and_payload();
  test_analysis();
  test_ambiguous_path();
  test_provenance();
  test_plugins(argv[1], argv[2], argv[3], argv[4], argv[5], argv[6]);
  test_reentrant_plugins(argv[7], argv[8], argv[9]);
  remove_inputs();
  printf("%d checks passed\n", g_passed);
  return 0;
}
