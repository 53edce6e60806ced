/*
 * A program of a library user, built outside the build tree against the
 * installed casefile with only what `pkg-config casefile` says: once against
 * libcasefile.so, once against libcasefile.a (`pkg-config --static`), by
 * tests/capi/install_test.sh. It goes through every stage (opening and
 * indexing a bundle, a query, an analysis and its rendering), so that a
 * stage missing from the archive fails the link.
 *
 * Usage: install_consumer BUNDLE INDEX_PATH
 * Prints "casefile VERSION", "lines N" (the lines indexed), one
 * "finding CODE" per finding in report order, then "report ok".
 * Exit 1 on any failure, with the library's message.
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

static int print_report(casefile_report* report) {
  casefile_error* err = NULL;
  char* json = NULL;
  size_t i;
  for (i = 0; i < casefile_report_finding_count(report); ++i) {
    printf("finding %s\n", casefile_finding_code(casefile_report_finding(report, i)));
  }
  if (casefile_report_render(&json, report, CASEFILE_FORMAT_JSON, &err) != CASEFILE_OK) {
    return fail("casefile_report_render", err);
  }
  if (strstr(json, "\"casefile_version\"") == NULL) {
    fprintf(stderr, "unexpected report: %s\n", json);
    casefile_string_free(json);
    return 1;
  }
  casefile_string_free(json);
  printf("report ok\n");
  return 0;
}

int main(int argc, char** argv) {
  casefile_open_options opts = CASEFILE_OPEN_OPTIONS_INIT;
  const char* inputs[1];
  casefile_session* session = NULL;
  casefile_report* report = NULL;
  casefile_error* err = NULL;
  int rc = 0;

  if (argc != 3) {
    fprintf(stderr, "usage: %s BUNDLE INDEX_PATH\n", argv[0]);
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
  } else {
    rc = print_report(report);
  }
  casefile_report_free(report);
  casefile_session_free(session);
  return rc;
}
