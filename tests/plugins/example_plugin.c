/* An example casefile plugin, in plain C11: the analyzer "example-disk"
 * finds "No space left on device" in the logs and names the host whose disk
 * filled up. It shows every part of a plugin (docs/EXTENDING.md):
 *
 *   - the entry point casefile_plugin_entry, returning a static
 *     casefile_plugin_info built against this casefile.h (its ABI major);
 *   - an init that registers the analyzer with casefile_analyzer_register;
 *   - a run callback that reads the index only through read-only SQL
 *     (casefile_analysis_query) and emits findings through a builder, with
 *     evidence named by file id and line so the index supplies the text.
 *
 * Build: cc -std=c11 -shared -fPIC example_plugin.c -o example_plugin.so
 *        -I<casefile>/include -L<casefile>/lib -lcasefile
 * Use:   casefile analyze --plugin ./example_plugin.so BUNDLE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefile.h"

/* One host's evidence: the first lines that said the disk was full. A
 * finding cites a few lines, not all of them; the count says how many. */
#define MAX_EVIDENCE 5
#define MAX_HOSTS 64

struct disk_host {
  char host[256]; /* "" when the index does not know the host */
  long long file_ids[MAX_EVIDENCE];
  long long lines[MAX_EVIDENCE];
  size_t cited;
  long long total;
};

struct disk_scan {
  struct disk_host hosts[MAX_HOSTS];
  size_t host_count;
};

/* The log lines that say the disk is full, with the host each belongs to.
 * `lines` fills a line's host from its file when the line's own wrapper
 * named none; joining from `files` lets SQLite read only log files. The
 * ORDER BY makes the cited lines the first ones of each host. */
static const char kDiskFullSql[] =
    "SELECT l.file_id, l.line_no, COALESCE(l.host, '') "
    "FROM files AS f JOIN lines AS l ON l.file_id = f.id "
    "WHERE f.kind = 'log' AND l.text LIKE '%No space left on device%' "
    "ORDER BY l.host, l.file_id, l.line_no";

/* The row callback: called once per matching line. Values are text. */
static int on_disk_full_line(size_t column_count, const char* const* names,
                             const char* const* values, void* payload) {
  struct disk_scan* scan = payload;
  const char* host;
  struct disk_host* entry = NULL;
  size_t i;
  (void)names;
  if (column_count != 3 || values[0] == NULL || values[1] == NULL) return 1; /* not our query */
  host = values[2] != NULL ? values[2] : "";
  for (i = 0; i < scan->host_count; ++i) {
    if (strcmp(scan->hosts[i].host, host) == 0) entry = &scan->hosts[i];
  }
  if (entry == NULL) {
    if (scan->host_count == MAX_HOSTS) return 0; /* enough hosts to name the problem */
    entry = &scan->hosts[scan->host_count++];
    snprintf(entry->host, sizeof entry->host, "%s", host);
  }
  if (entry->cited < MAX_EVIDENCE) {
    entry->file_ids[entry->cited] = strtoll(values[0], NULL, 10);
    entry->lines[entry->cited] = strtoll(values[1], NULL, 10);
    entry->cited++;
  }
  entry->total++;
  return 0;
}

/* One finding for a host. A failing builder call ends the run with a
 * reason; emit frees the builder whatever happens. */
static int emit_disk_full(casefile_analysis* analysis, const struct disk_host* entry) {
  casefile_finding_builder* builder = NULL;
  casefile_error* err = NULL;
  char text[512];
  size_t i;
  const char* where = entry->host[0] != '\0' ? entry->host : "an unknown host";

  snprintf(text, sizeof text, "Disk full on %s", where);
  if (casefile_finding_builder_new(&builder, analysis, "example.disk_full", CASEFILE_SEVERITY_ERROR,
                                   text, &err) != CASEFILE_OK) {
    goto failed;
  }
  snprintf(text, sizeof text, "%lld log line(s) on %s say \"No space left on device\".",
           entry->total, where);
  if (casefile_finding_builder_set_summary(builder, text, &err) != CASEFILE_OK ||
      casefile_finding_builder_set_recommendation(
          builder,
          "Free space on the host (checkpoints, caches, core dumps) or point the "
          "writer at a larger volume, then restart from the last good checkpoint.",
          &err) != CASEFILE_OK) {
    goto failed;
  }
  if (entry->host[0] != '\0' &&
      casefile_finding_builder_add_culprit(builder, entry->host, NULL, -1, &err) != CASEFILE_OK) {
    goto failed;
  }
  for (i = 0; i < entry->cited; ++i) {
    if (casefile_finding_builder_add_evidence(builder, entry->file_ids[i], entry->lines[i], &err) !=
        CASEFILE_OK) {
      goto failed;
    }
  }
  {
    casefile_finding_builder* emitting = builder;
    builder = NULL; /* emit frees it, even on failure */
    if (casefile_finding_builder_emit(emitting, &err) != CASEFILE_OK) goto failed;
  }
  return 0;

failed:
  casefile_analysis_set_error(analysis, casefile_error_message(err));
  casefile_error_free(err);
  casefile_finding_builder_free(builder);
  return 1;
}

/* The run callback: may run on several threads at once (one analysis
 * each), so it keeps its state on the heap per call, never in globals. */
static int run_example_disk(casefile_analysis* analysis, void* payload) {
  struct disk_scan* scan = calloc(1, sizeof *scan);
  casefile_error* err = NULL;
  size_t i;
  int rc = 0;
  (void)payload;
  if (scan == NULL) {
    casefile_analysis_set_error(analysis, "out of memory");
    return 1;
  }
  if (casefile_analysis_query(analysis, kDiskFullSql, on_disk_full_line, scan, &err) !=
      CASEFILE_OK) {
    casefile_analysis_set_error(analysis, casefile_error_message(err));
    casefile_error_free(err);
    free(scan);
    return 1;
  }
  for (i = 0; i < scan->host_count && rc == 0; ++i) rc = emit_disk_full(analysis, &scan->hosts[i]);
  free(scan);
  return rc;
}

static int init_example(void* payload) {
  static const char* const kNeeded[] = {"log"};
  static const char* const kCodes[] = {"example.disk_full"};
  casefile_analyzer_def def = CASEFILE_ANALYZER_DEF_INIT;
  casefile_error* err = NULL;
  (void)payload;
  def.name = "example-disk";
  def.analyzer_version = "1";
  def.description = "example plugin: hosts whose disk filled up (\"No space left on device\")";
  def.needed_kinds = kNeeded;
  def.needed_kind_count = 1;
  def.codes = kCodes;
  def.code_count = 1;
  def.run = run_example_disk;
  if (casefile_analyzer_register(&def, &err) != CASEFILE_OK) {
    /* The loader reports "init returned 1"; say why on stderr. */
    fprintf(stderr, "example plugin: %s\n", casefile_error_message(err));
    casefile_error_free(err);
    return 1;
  }
  return 0;
}

/* The entry point: the only symbol casefile looks up. The info is static:
 * casefile reads it after the call. */
const casefile_plugin_info* casefile_plugin_entry(void) {
  static const casefile_plugin_info info = {
      CASEFILE_PLUGIN_INFO_VERSION,         CASEFILE_VERSION_MAJOR, "example",
      "an example plugin: disk-full lines", init_example,           NULL};
  return &info;
}
