/*
 * casefile.h alone, compiled as strict C99 with -pedantic -Werror: the public
 * header must be self-contained, valid C, and free of warnings. It is included
 * twice to check its include guard. Nothing here runs; it only has to compile.
 */
#include "casefile.h"

int casefile_headertest(void);

int casefile_headertest(void) {
  casefile_open_options open_opts = CASEFILE_OPEN_OPTIONS_INIT;
  casefile_analyze_options analyze_opts = CASEFILE_ANALYZE_OPTIONS_INIT;
  casefile_progress_fn progress = 0;
  casefile_row_fn row = 0;
  casefile_status (*open_fn)(casefile_session**, const char* const*, size_t,
                             const casefile_open_options*, casefile_error**) =
      casefile_session_open;
  casefile_status (*render_fn)(char**, const casefile_report*, casefile_format, casefile_error**) =
      casefile_report_render;
  casefile_severity severity = CASEFILE_SEVERITY_WARNING;
  casefile_format format = CASEFILE_FORMAT_TEXT_COLOR;
  uint64_t limit = open_opts.max_total_bytes;
  return (int)open_opts.version + (int)analyze_opts.version + (progress == 0) + (row == 0) +
         (open_fn != 0) + (render_fn != 0) + (int)severity + (int)format + (int)limit +
         CASEFILE_VERSION_NUMBER + (int)CASEFILE_E_INTERNAL;
}
