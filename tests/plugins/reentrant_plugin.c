/* Plugins whose init loads a plugin again, one per build of this file (see
 * CMakeLists.txt): exactly one LOADS_* macro is defined.
 *
 *   LOADS_SELF     init loads its own file ($CASEFILE_TEST_SELF)
 *   LOADS_CYCLE_A  init loads cycle B ($CASEFILE_TEST_CYCLE_B)
 *   LOADS_CYCLE_B  init loads cycle A ($CASEFILE_TEST_CYCLE_A)
 *
 * casefile must refuse a nested load of a file whose init is running, with
 * CASEFILE_E_PLUGIN, without running that init again. Each init records
 * what its nested load gave by registering an analyzer named
 * "<tag>-refused" (the refusal casefile must give), "<tag>-loaded-next"
 * (the nested load succeeded) or "<tag>-other" (anything else). An init
 * entered a second time while running returns 1 at once: without the
 * refusal the recursion would never end, and this keeps the failure a
 * failed test rather than a crashed one. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefile.h"

#if defined(LOADS_SELF)
#define TAG "self"
#define NEXT_ENV "CASEFILE_TEST_SELF"
#elif defined(LOADS_CYCLE_A)
#define TAG "cycle-a"
#define NEXT_ENV "CASEFILE_TEST_CYCLE_B"
#elif defined(LOADS_CYCLE_B)
#define TAG "cycle-b"
#define NEXT_ENV "CASEFILE_TEST_CYCLE_A"
#else
#error "define one LOADS_* macro"
#endif

static int g_running; /* init is on the stack */

static int run_nothing(casefile_analysis* analysis, void* payload) {
  (void)analysis;
  (void)payload;
  return 0;
}

static int init(void* payload) {
  const char* next = getenv(NEXT_ENV);
  casefile_error* err = NULL;
  casefile_status st;
  const char* outcome;
  char name[64];
  casefile_analyzer_def def = CASEFILE_ANALYZER_DEF_INIT;
  (void)payload;
  if (g_running || next == NULL) return 1;
  g_running = 1;
  st = casefile_plugin_load(next, &err);
  g_running = 0;
  if (st == CASEFILE_OK) {
    outcome = "loaded-next";
  } else if (st == CASEFILE_E_PLUGIN &&
             strstr(casefile_error_message(err),
                    "is already being loaded (its init loads it again)") != NULL) {
    outcome = "refused";
  } else {
    outcome = "other";
  }
  casefile_error_free(err);
  snprintf(name, sizeof name, "%s-%s", TAG, outcome);
  def.name = name;
  def.run = run_nothing;
  return casefile_analyzer_register(&def, NULL) == CASEFILE_OK ? 0 : 2;
}

const casefile_plugin_info* casefile_plugin_entry(void) {
  static const casefile_plugin_info info = {CASEFILE_PLUGIN_INFO_VERSION,
                                            CASEFILE_VERSION_MAJOR,
                                            TAG,
                                            "loads a plugin from its init",
                                            init,
                                            NULL};
  return &info;
}
