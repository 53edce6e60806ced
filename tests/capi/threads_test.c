/*
 * The thread-safety statements of casefile.h, exercised (docs/API.md,
 * "Thread safety"):
 *  - one session per thread, several threads at once: each thread opens,
 *    indexes, analyses and renders every bundle of a list (its own index
 *    files, its own order), and every JSON render must be byte-identical to
 *    the render of the same bundle made before on one thread;
 *  - the functions that take no handle, called from every thread meanwhile
 *    (analyzer list, status strings, version, options init);
 *  - one report read by several threads at once (render, findings,
 *    evidence, analyzer statuses), each read equal to the first.
 * Run under ThreadSanitizer with -DCASEFILE_TSAN=ON (docs/API.md).
 *
 * Usage: threads_test CORPUS_DIR WORK_DIR
 */
#define _XOPEN_SOURCE 700

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "c_check.h"
#include "casefile.h"

#define THREADS 4
#define REPORT_READS 20

/* Small scenarios of the corpus, each with findings of another analyzer. */
static const char* const kScenarios[] = {
    "comm_rendezvous_failed", "comm_gpu_test_failed", "build_compiler_unsupported",
    "numeric_bf16_in_fp16",   "runtime_cuda_oom",     "hang_flight_recorder",
};
#define SCENARIOS (sizeof(kScenarios) / sizeof(kScenarios[0]))

static char g_corpus[512];
static char g_work[512];
static char* g_expected[SCENARIOS]; /* the single-threaded JSON renders */
static const char* g_analyzer_names[64];
static size_t g_analyzer_count;

static void die(const char* what, const char* detail) {
  fprintf(stderr, "threads_test: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}

/* Opens scenario `i` with its index at WORK/<tag>_<i>.db, indexes, analyses
 * and renders it as JSON. Returns the render (caller frees) and, when
 * `report_out` is not NULL, the report. On failure returns NULL and writes the
 * message to `message` (the calling thread reports it). */
static char* analyze_scenario(size_t i, const char* tag, casefile_report** report_out,
                              char* message, size_t message_size) {
  char bundle[1024], index_path[1024];
  const char* inputs[1];
  casefile_open_options opts = CASEFILE_OPEN_OPTIONS_INIT;
  casefile_session* session = NULL;
  casefile_report* report = NULL;
  casefile_error* err = NULL;
  char* json = NULL;

  snprintf(bundle, sizeof bundle, "%s/%s/bundle", g_corpus, kScenarios[i]);
  snprintf(index_path, sizeof index_path, "%s/%s_%u.db", g_work, tag, (unsigned)i);
  inputs[0] = bundle;
  opts.index_path = index_path;
  if (casefile_session_open(&session, inputs, 1, &opts, &err) == CASEFILE_OK &&
      casefile_session_index(session, NULL, NULL, &err) == CASEFILE_OK &&
      casefile_session_analyze(&report, session, NULL, &err) == CASEFILE_OK &&
      casefile_report_render(&json, report, CASEFILE_FORMAT_JSON, &err) == CASEFILE_OK) {
    message[0] = '\0';
  } else {
    snprintf(message, message_size, "%s: %s", kScenarios[i], casefile_error_message(err));
    casefile_error_free(err);
  }
  casefile_session_free(session);
  if (report_out != NULL && json != NULL) {
    *report_out = report;
  } else {
    casefile_report_free(report);
  }
  return json;
}

/* The functions without a handle, checked against what the main thread saw. */
static const char* check_handle_less(void) {
  size_t i;
  casefile_analyze_options opts;
  if (casefile_analyzer_count() != g_analyzer_count) return "casefile_analyzer_count changed";
  for (i = 0; i < g_analyzer_count; ++i) {
    const char* name = casefile_analyzer_name(i);
    if (name == NULL || strcmp(name, g_analyzer_names[i]) != 0) return "casefile_analyzer_name";
    if (casefile_analyzer_description(i) == NULL) return "casefile_analyzer_description";
  }
  if (casefile_analyzer_name(g_analyzer_count) != NULL) return "casefile_analyzer_name past end";
  if (strstr(casefile_status_string(CASEFILE_E_CORRUPT), "corrupt") == NULL ||
      strstr(casefile_status_string(CASEFILE_E_NOT_FOUND), "not") == NULL) {
    return "casefile_status_string";
  }
  if (casefile_version_number() != CASEFILE_VERSION_NUMBER) return "casefile_version_number";
  if (casefile_analyze_options_init(&opts, CASEFILE_ANALYZE_OPTIONS_VERSION) != CASEFILE_OK ||
      opts.analyzers != NULL) {
    return "casefile_analyze_options_init";
  }
  return NULL;
}

typedef struct {
  int thread;
  char failure[1024];
} session_job;

static void* run_sessions(void* arg) {
  session_job* job = (session_job*)arg;
  char tag[32];
  size_t k;
  snprintf(tag, sizeof tag, "thread%d", job->thread);
  for (k = 0; k < SCENARIOS; ++k) {
    /* Each thread starts at another scenario, so different bundles and the
     * same bundle are both in flight at once. */
    size_t i = (k + (size_t)job->thread) % SCENARIOS;
    const char* bad = check_handle_less();
    char* json;
    if (bad != NULL) {
      snprintf(job->failure, sizeof job->failure, "%s", bad);
      return NULL;
    }
    json = analyze_scenario(i, tag, NULL, job->failure, sizeof job->failure);
    if (json == NULL) return NULL;
    if (strcmp(json, g_expected[i]) != 0) {
      snprintf(job->failure, sizeof job->failure,
               "%s: the render on thread %d differs from the single-threaded one", kScenarios[i],
               job->thread);
      casefile_string_free(json);
      return NULL;
    }
    casefile_string_free(json);
  }
  return NULL;
}

typedef struct {
  const casefile_report* report;
  const char* expected_json;
  const char* expected_digest;
  char failure[256];
} report_job;

/* Everything a reader may ask of a report, concatenated: two reads of the
 * same report must give the same bytes. */
static int digest_report(const casefile_report* report, char* out, size_t size) {
  size_t i, j, used = 0;
  int n;
#define APPEND(...)                                     \
  do {                                                  \
    n = snprintf(out + used, size - used, __VA_ARGS__); \
    if (n < 0 || (size_t)n >= size - used) return 0;    \
    used += (size_t)n;                                  \
  } while (0)
  APPEND("%d %d %d|", casefile_report_max_severity(report),
         casefile_report_has_ingest_issues(report), casefile_report_is_partial(report));
  for (i = 0; i < casefile_report_analyzer_count(report); ++i) {
    APPEND("%s %s %s|", casefile_report_analyzer_name(report, i),
           casefile_report_analyzer_status(report, i), casefile_report_analyzer_reason(report, i));
  }
  for (i = 0; i < casefile_report_finding_count(report); ++i) {
    const casefile_finding* f = casefile_report_finding(report, i);
    APPEND("%s %s %d %s|", casefile_finding_code(f), casefile_finding_analyzer(f),
           (int)casefile_finding_severity(f), casefile_finding_title(f));
    for (j = 0; j < casefile_finding_evidence_count(f); ++j) {
      const char *bundle = NULL, *path = NULL, *text = NULL;
      int64_t line = 0;
      if (casefile_finding_evidence(f, j, &bundle, &path, &line, &text) != CASEFILE_OK) return 0;
      APPEND("%s:%s:%lld|", bundle, path, (long long)line);
    }
  }
#undef APPEND
  return 1;
}

static void* read_report(void* arg) {
  report_job* job = (report_job*)arg;
  char digest[16384];
  int r;
  for (r = 0; r < REPORT_READS; ++r) {
    char* json = NULL;
    char* text = NULL;
    if (casefile_report_render(&json, job->report, CASEFILE_FORMAT_JSON, NULL) != CASEFILE_OK ||
        strcmp(json, job->expected_json) != 0) {
      snprintf(job->failure, sizeof job->failure, "a concurrent JSON render differs");
    }
    casefile_string_free(json);
    if (casefile_report_render(&text, job->report, CASEFILE_FORMAT_TEXT, NULL) != CASEFILE_OK ||
        text[0] == '\0') {
      snprintf(job->failure, sizeof job->failure, "a concurrent text render failed");
    }
    casefile_string_free(text);
    if (!digest_report(job->report, digest, sizeof digest) ||
        strcmp(digest, job->expected_digest) != 0) {
      snprintf(job->failure, sizeof job->failure, "a concurrent read of the accessors differs");
    }
    if (job->failure[0] != '\0') break;
  }
  return NULL;
}

int main(int argc, char** argv) {
  pthread_t threads[THREADS];
  session_job session_jobs[THREADS];
  report_job report_jobs[THREADS];
  casefile_report* shared_report = NULL;
  char message[1024];
  char digest_before[16384], digest_after[16384];
  size_t i;
  int t;

  if (argc != 3) die("usage: threads_test CORPUS_DIR WORK_DIR", NULL);
  snprintf(g_corpus, sizeof g_corpus, "%s", argv[1]);
  snprintf(g_work, sizeof g_work, "%s/threads_XXXXXX", argv[2]);
  mkdir(argv[2], 0700);
  if (mkdtemp(g_work) == NULL) die("cannot create a work directory under", argv[2]);

  g_analyzer_count = casefile_analyzer_count();
  if (g_analyzer_count == 0 || g_analyzer_count > 64) die("unexpected analyzer count", NULL);
  for (i = 0; i < g_analyzer_count; ++i) g_analyzer_names[i] = casefile_analyzer_name(i);

  /* The reference: every scenario on this thread alone. The first report is
   * kept for the concurrent readers. */
  for (i = 0; i < SCENARIOS; ++i) {
    g_expected[i] =
        analyze_scenario(i, "single", i == 0 ? &shared_report : NULL, message, sizeof message);
    if (g_expected[i] == NULL) die("single-threaded analysis failed", message);
    if (strstr(g_expected[i], "\"code\": \"") == NULL) die("no finding in", kScenarios[i]);
  }

  /* One session per thread, all at once. */
  for (t = 0; t < THREADS; ++t) {
    session_jobs[t].thread = t;
    session_jobs[t].failure[0] = '\0';
    if (pthread_create(&threads[t], NULL, run_sessions, &session_jobs[t]) != 0) {
      die("pthread_create failed", NULL);
    }
  }
  for (t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
  for (t = 0; t < THREADS; ++t) {
    if (session_jobs[t].failure[0] != '\0') die("session thread", session_jobs[t].failure);
  }

  /* One report, read by every thread at once. */
  if (!digest_report(shared_report, digest_before, sizeof digest_before)) die("digest", NULL);
  for (t = 0; t < THREADS; ++t) {
    report_jobs[t].report = shared_report;
    report_jobs[t].expected_json = g_expected[0];
    report_jobs[t].expected_digest = digest_before;
    report_jobs[t].failure[0] = '\0';
    if (pthread_create(&threads[t], NULL, read_report, &report_jobs[t]) != 0) {
      die("pthread_create failed", NULL);
    }
  }
  for (t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
  for (t = 0; t < THREADS; ++t) {
    if (report_jobs[t].failure[0] != '\0') die("report reader", report_jobs[t].failure);
  }
  if (!digest_report(shared_report, digest_after, sizeof digest_after) ||
      strcmp(digest_before, digest_after) != 0) {
    die("the report changed while it was read", NULL);
  }

  casefile_report_free(shared_report);
  for (i = 0; i < SCENARIOS; ++i) casefile_string_free(g_expected[i]);
  remove_tree(g_work);
  printf(
      "%d threads x %u bundles: every render equal to the single-threaded one; "
      "%d concurrent readers of one report agree\n",
      THREADS, (unsigned)SCENARIOS, THREADS);
  return 0;
}
