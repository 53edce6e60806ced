/* Plugins casefile must refuse, one per build of this file (see
 * CMakeLists.txt): exactly one REFUSE_* macro is defined.
 *
 *   REFUSE_NEWER_ABI     built against a casefile.h one major version ahead
 *   REFUSE_INFO_VERSION  a casefile_plugin_info version this library lacks
 *   REFUSE_NO_ENTRY      no casefile_plugin_entry symbol at all
 *   REFUSE_INIT_FAILS    init registers an analyzer, then fails: casefile
 *                        must unregister it again
 *
 * The inits of the first two register an analyzer: it must never appear,
 * since casefile refuses them before running init. */
#include <stddef.h>

#include "casefile.h"

static int run_nothing(casefile_analysis* analysis, void* payload) {
  (void)analysis;
  (void)payload;
  return 0;
}

static int register_one(const char* name) {
  casefile_analyzer_def def = CASEFILE_ANALYZER_DEF_INIT;
  def.name = name;
  def.run = run_nothing;
  return casefile_analyzer_register(&def, NULL) == CASEFILE_OK ? 0 : 2;
}

#if defined(REFUSE_NEWER_ABI)
static int init(void* payload) {
  (void)payload;
  return register_one("refused-newer-abi");
}
const casefile_plugin_info* casefile_plugin_entry(void) {
  static const casefile_plugin_info info = {CASEFILE_PLUGIN_INFO_VERSION,
                                            CASEFILE_VERSION_MAJOR + 1,
                                            "newer-abi",
                                            "built against the next ABI",
                                            init,
                                            NULL};
  return &info;
}
#elif defined(REFUSE_INFO_VERSION)
static int init(void* payload) {
  (void)payload;
  return register_one("refused-info-version");
}
const casefile_plugin_info* casefile_plugin_entry(void) {
  static const casefile_plugin_info info = {CASEFILE_PLUGIN_INFO_VERSION + 1,
                                            CASEFILE_VERSION_MAJOR,
                                            "info-version",
                                            "an info struct from the future",
                                            init,
                                            NULL};
  return &info;
}
#elif defined(REFUSE_NO_ENTRY)
/* A shared object with a similar name but not the entry point. */
int casefile_plugin_entry_v0(void) { return register_one("refused-no-entry"); }
#elif defined(REFUSE_INIT_FAILS)
static int init(void* payload) {
  (void)payload;
  if (register_one("refused-partial") != 0) return 3;
  return 1; /* as if its second analyzer could not be set up */
}
const casefile_plugin_info* casefile_plugin_entry(void) {
  static const casefile_plugin_info info = {CASEFILE_PLUGIN_INFO_VERSION,
                                            CASEFILE_VERSION_MAJOR,
                                            "init-fails",
                                            "its init fails half-way",
                                            init,
                                            NULL};
  return &info;
}
#else
#error "define one REFUSE_* macro"
#endif
