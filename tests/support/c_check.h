/*
 * Checks and small helpers shared by the C tests of the C API
 * (tests/capi/capi_test.c, tests/capi/threads_test.c,
 * tests/plugins/extension_test.c). Strict ISO C11 with POSIX (nftw): the
 * including file defines _XOPEN_SOURCE 700 before any header.
 *
 * Everything here is a macro or a static inline function, so that a file
 * that uses only part of it still compiles under -Wall -Wextra -Werror, and
 * each test file (translation unit) has its own pass counter g_passed.
 *
 * A failed check prints where and what, then "<N> passed, 1 failed", and
 * exits 1: later checks depend on earlier ones, so the first failure ends
 * the run.
 */
#ifndef CASEFILE_TESTS_C_CHECK_H
#define CASEFILE_TESTS_C_CHECK_H

#if !defined(_XOPEN_SOURCE) || _XOPEN_SOURCE < 700
#error "define _XOPEN_SOURCE 700 before any header (c_check.h uses nftw)"
#endif

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "casefile.h"

/* Checks passed so far in this test file; a test prints it at the end. */
static int g_passed;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      ++g_passed;                                                              \
    } else {                                                                   \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      fprintf(stderr, "%d passed, 1 failed\n", g_passed);                      \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#define CHECK_STATUS(expr, expected)                                                          \
  do {                                                                                        \
    casefile_status st_ = (expr);                                                             \
    if (st_ != (expected)) {                                                                  \
      fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d\n", __FILE__, __LINE__, #expr, \
              (int)st_, casefile_status_string(st_), (int)(expected));                        \
      fprintf(stderr, "%d passed, 1 failed\n", g_passed);                                     \
      exit(1);                                                                                \
    }                                                                                         \
    ++g_passed;                                                                               \
  } while (0)

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* 1 when `haystack` is not NULL and contains `needle`. */
static inline int contains(const char* haystack, const char* needle) {
  return haystack != NULL && strstr(haystack, needle) != NULL;
}

/* <dir>/<rel> into `out`; a path that does not fit fails the check. */
static inline void join(char* out, size_t size, const char* dir, const char* rel) {
  int n = snprintf(out, size, "%s/%s", dir, rel);
  CHECK(n > 0 && (size_t)n < size);
}

/* Writes `lines`, each followed by '\n', to `path`. */
static inline void write_lines(const char* path, const char* const* lines, size_t count) {
  size_t i;
  FILE* f = fopen(path, "w");
  CHECK(f != NULL);
  for (i = 0; i < count; ++i) CHECK(fprintf(f, "%s\n", lines[i]) > 0);
  CHECK(fclose(f) == 0);
}

/* A fresh directory $TMPDIR/<name>_XXXXXX (/tmp when TMPDIR is unset or
 * empty), its path into `out`. */
static inline void make_temp_dir(char* out, size_t size, const char* name) {
  const char* tmp = getenv("TMPDIR");
  /* A cut template no longer ends in XXXXXX, so mkdtemp refuses it. */
  snprintf(out, size, "%s/%s_XXXXXX", (tmp && *tmp) ? tmp : "/tmp", name);
  CHECK(mkdtemp(out) != NULL);
}

static inline int remove_tree_entry(const char* path, const struct stat* st, int flag,
                                    struct FTW* ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

/* rm -r `root`: children before their directory, links not followed.
 * Best effort: a test's temporary directory is removed at its end, and a
 * leftover must not turn a passing run into a failing one. */
static inline void remove_tree(const char* root) {
  nftw(root, remove_tree_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#endif /* CASEFILE_TESTS_C_CHECK_H */
