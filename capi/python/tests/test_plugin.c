/* A plugin for the Python binding's test: registers "pyplug", which cites
 * line 1 of the first log file of the index as an info finding
 * "pyplug.loaded". Built as a module linked to libcasefile. */
#include <stddef.h>
#include <stdlib.h>

#include "casefile.h"

static int on_row(size_t column_count, const char* const* names, const char* const* values,
                  void* payload) {
  (void)names;
  if (column_count == 1 && values[0] != NULL) *(long long*)payload = atoll(values[0]);
  return 0;
}

static int run(casefile_analysis* analysis, void* payload) {
  casefile_finding_builder* b = NULL;
  long long file_id = -1;
  (void)payload;
  if (casefile_analysis_query(analysis, "SELECT min(id) FROM files WHERE kind = 'log'", on_row,
                              &file_id, NULL) != CASEFILE_OK ||
      file_id < 0) {
    casefile_analysis_set_error(analysis, "no log file in the index");
    return 1;
  }
  if (casefile_finding_builder_new(&b, analysis, "pyplug.loaded", CASEFILE_SEVERITY_INFO,
                                   "the test plugin ran", NULL) != CASEFILE_OK) {
    return 2;
  }
  if (casefile_finding_builder_add_evidence(b, file_id, 1, NULL) != CASEFILE_OK) {
    casefile_finding_builder_free(b);
    return 3;
  }
  return casefile_finding_builder_emit(b, NULL) == CASEFILE_OK ? 0 : 4;
}

static int init(void* payload) {
  static const char* const codes[] = {"pyplug.loaded"};
  casefile_analyzer_def def = CASEFILE_ANALYZER_DEF_INIT;
  (void)payload;
  def.name = "pyplug";
  def.description = "the Python binding's test plugin";
  def.codes = codes;
  def.code_count = 1;
  def.run = run;
  return casefile_analyzer_register(&def, NULL) == CASEFILE_OK ? 0 : 1;
}

__attribute__((visibility("default"))) const casefile_plugin_info* casefile_plugin_entry(void) {
  static const casefile_plugin_info info = {CASEFILE_PLUGIN_INFO_VERSION,
                                            CASEFILE_VERSION_MAJOR,
                                            "pytest-plugin",
                                            "the Python binding's test plugin",
                                            init,
                                            NULL};
  return &info;
}
