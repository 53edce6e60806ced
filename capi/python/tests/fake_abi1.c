/* A library that says it is casefile 1.2.3: the binding must refuse to use
 * it, naming both ABI majors. It exports nothing else. */
__attribute__((visibility("default"))) int casefile_version_number(void) { return 1002003; }
__attribute__((visibility("default"))) const char* casefile_version_string(void) { return "1.2.3"; }
