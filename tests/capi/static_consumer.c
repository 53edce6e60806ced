/*
 * A program of a library user, built outside the build tree against the
 * installed libcasefile.a with the flags of `pkg-config --static casefile`
 * (tests/capi/static_install_test.sh). It goes through every stage: opening
 * and indexing a directory bundle, a query, an analysis and its rendering,
 * so that a stage missing from the archive fails the link.
 *
 * Usage: static_consumer BUNDLE_DIR INDEX_PATH
 * Prints "casefile VERSION", then "lines N" (the lines indexed), then
 * "report ok". Exit 1 on any failure, with the library's message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefile.h"

static int fail(const char* what, casefile_error* err) {
  fprintf(stderr, "%s: %s\n", what, casefile_error_message(err));
  casefile_error_free(err);
  return 1;
}

static int print_first_value(size_t count, const char* const* names, const char* const* values,
                             void* payload) {
  (void)names;
  (void)payload;
  printf("lines %s\n", count > 0 && values[0] != NULL ? values[0] : "?");
  return 0;
}

int main(int argc, char** argv) {
  casefile_open_options opts = CASEFILE_OPEN_OPTIONS_INIT;
  const char* inputs[1];
  casefile_session* session = NULL;
  casefile_report* report = NULL;
  casefile_error* err = NULL;
  char* json = NULL;
  int rc = 0;

  if (argc != 3) {
    fprintf(stderr, "usage: %s BUNDLE_DIR INDEX_PATH\n", argv[0]);
    return 2;
  }
  printf("casefile %s\n", casefile_version_string());
  if (casefile_version_number() != CASEFILE_VERSION_NUMBER) {
    fprintf(stderr, "linked version %d, header %d\n", casefile_version_number(),
            CASEFILE_VERSION_NUMBER);
    return 1;
  }

  inputs[0] = argv[1];
  opts.index_path = argv[2];
  if (casefile_session_open(&session, inputs, 1, &opts, &err) != CASEFILE_OK) {
    return fail("casefile_session_open", err);
  }
  if (casefile_session_index(session, NULL, NULL, &err) != CASEFILE_OK) {
    rc = fail("casefile_session_index", err);
  } else if (casefile_session_query(session, "SELECT count(*) FROM lines", print_first_value, NULL,
                                    &err) != CASEFILE_OK) {
    rc = fail("casefile_session_query", err);
  } else if (casefile_session_analyze(&report, session, NULL, &err) != CASEFILE_OK) {
    rc = fail("casefile_session_analyze", err);
  } else if (casefile_report_render(&json, report, CASEFILE_FORMAT_JSON, &err) != CASEFILE_OK) {
    rc = fail("casefile_report_render", err);
  } else if (strstr(json, "\"casefile_version\"") == NULL) {
    fprintf(stderr, "unexpected report: %s\n", json);
    rc = 1;
  } else {
    printf("report ok\n");
  }
  casefile_string_free(json);
  casefile_report_free(report);
  casefile_session_free(session);
  return rc;
}
