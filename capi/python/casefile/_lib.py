"""Finding and loading libcasefile, and the C prototypes of include/casefile.h.

The library is loaded on first use, not at import, so ``import casefile``
works on a machine without it and the error names every place looked at.
"""

import ctypes
import ctypes.util
import os
import threading

from ._structs import (
    AnalyzeOptions,
    AnalyzerDef,
    CollectOptions,
    DiffOptions,
    OpenOptions,
    QueryOptions,
    ANALYZER_FN,
    COLLECT_PROGRESS_FN,
    FREE_PAYLOAD_FN,
    PROGRESS_FN,
    ROW_FN,
)

# The ABI major this binding was written against (CASEFILE_VERSION_MAJOR).
EXPECTED_ABI_MAJOR = 0
LIBRARY_ENV = "CASEFILE_LIBRARY"
SONAME = "libcasefile.so.%d" % EXPECTED_ABI_MAJOR


class LibraryError(OSError):
    """libcasefile could not be found, loaded, or is of another ABI major."""


# Opaque handles: only ever passed back to the library.
_p = ctypes.c_void_p
_pp = ctypes.POINTER(ctypes.c_void_p)
_s = ctypes.c_char_p
_ps = ctypes.POINTER(ctypes.c_char_p)
_int = ctypes.c_int
_size = ctypes.c_size_t
_u64 = ctypes.c_uint64
_i64 = ctypes.c_int64
_status = ctypes.c_int

# name: (restype, argtypes). `_pp` stands for casefile_X** outputs and for
# casefile_error** (always last).
PROTOTYPES = {
    "casefile_version_number": (_int, []),
    "casefile_version_string": (_s, []),
    "casefile_status_string": (_s, [_int]),
    "casefile_error_status": (_int, [_p]),
    "casefile_error_message": (_s, [_p]),
    "casefile_error_free": (None, [_p]),
    "casefile_string_free": (None, [_p]),
    "casefile_open_options_init": (_status, [ctypes.POINTER(OpenOptions), ctypes.c_uint]),
    "casefile_analyze_options_init": (_status, [ctypes.POINTER(AnalyzeOptions), ctypes.c_uint]),
    "casefile_session_open": (
        _status,
        [_pp, _ps, _size, ctypes.POINTER(OpenOptions), _pp],
    ),
    "casefile_session_free": (None, [_p]),
    "casefile_session_index": (_status, [_p, PROGRESS_FN, _p, _pp]),
    "casefile_session_index_reused": (_int, [_p]),
    "casefile_session_index_path": (_s, [_p]),
    "casefile_session_last_error": (_s, [_p]),
    "casefile_session_query": (_status, [_p, _s, ROW_FN, _p, _pp]),
    "casefile_query_options_init": (_status, [ctypes.POINTER(QueryOptions), ctypes.c_uint]),
    "casefile_session_query_ex": (
        _status,
        [_p, _s, ctypes.POINTER(QueryOptions), ROW_FN, _p, _pp],
    ),
    "casefile_analyzer_count": (_size, []),
    "casefile_analyzer_name": (_s, [_size]),
    "casefile_analyzer_description": (_s, [_size]),
    "casefile_session_analyze": (
        _status,
        [_pp, _p, ctypes.POINTER(AnalyzeOptions), _pp],
    ),
    "casefile_report_free": (None, [_p]),
    "casefile_report_render": (_status, [_pp, _p, _int, _pp]),
    "casefile_report_max_severity": (_int, [_p]),
    "casefile_report_has_ingest_issues": (_int, [_p]),
    "casefile_report_is_partial": (_int, [_p]),
    "casefile_report_finding_count": (_size, [_p]),
    "casefile_report_finding": (_p, [_p, _size]),
    "casefile_report_analyzer_count": (_size, [_p]),
    "casefile_report_analyzer_name": (_s, [_p, _size]),
    "casefile_report_analyzer_status": (_s, [_p, _size]),
    "casefile_report_analyzer_reason": (_s, [_p, _size]),
    "casefile_finding_code": (_s, [_p]),
    "casefile_finding_analyzer": (_s, [_p]),
    "casefile_finding_severity": (_int, [_p]),
    "casefile_finding_title": (_s, [_p]),
    "casefile_finding_summary": (_s, [_p]),
    "casefile_finding_recommendation": (_s, [_p]),
    "casefile_finding_culprit_count": (_size, [_p]),
    "casefile_finding_culprit": (
        _status,
        [_p, _size, _ps, _ps, ctypes.POINTER(_i64)],
    ),
    "casefile_finding_evidence_count": (_size, [_p]),
    "casefile_finding_evidence": (
        _status,
        [_p, _size, _ps, _ps, ctypes.POINTER(_i64), _ps],
    ),
    "casefile_collect_options_init": (_status, [ctypes.POINTER(CollectOptions), ctypes.c_uint]),
    "casefile_collect": (
        _status,
        [_pp, ctypes.POINTER(CollectOptions), COLLECT_PROGRESS_FN, _p, _pp],
    ),
    "casefile_collect_result_free": (None, [_p]),
    "casefile_collect_result_file_count": (_u64, [_p]),
    "casefile_collect_result_bytes": (_u64, [_p]),
    "casefile_collect_result_archive_bytes": (_u64, [_p]),
    "casefile_collect_result_redaction_count": (_u64, [_p]),
    "casefile_collect_result_redaction_kind_count": (_size, [_p]),
    "casefile_collect_result_redaction_kind": (
        _status,
        [_p, _size, _ps, ctypes.POINTER(_u64)],
    ),
    "casefile_collect_result_error_count": (_size, [_p]),
    "casefile_collect_result_error": (_status, [_p, _size, _ps, _ps]),
    "casefile_collect_result_entry_count": (_size, [_p]),
    "casefile_collect_result_entry": (
        _status,
        [_p, _size, _ps, _ps, _ps, _ps, ctypes.POINTER(_u64), ctypes.POINTER(_u64), _ps],
    ),
    "casefile_verify_bundle": (_status, [_pp, _s, PROGRESS_FN, _p, _pp]),
    "casefile_verify_result_free": (None, [_p]),
    "casefile_verify_result_ok": (_int, [_p]),
    "casefile_verify_result_file_count": (_u64, [_p]),
    "casefile_verify_result_problem_count": (_size, [_p]),
    "casefile_verify_result_problem": (_status, [_p, _size, _ps, _ps, _ps]),
    "casefile_diff_options_init": (_status, [ctypes.POINTER(DiffOptions), ctypes.c_uint]),
    "casefile_diff": (
        _status,
        [_pp, _p, _p, ctypes.POINTER(DiffOptions), PROGRESS_FN, _p, _pp],
    ),
    "casefile_diff_report_free": (None, [_p]),
    "casefile_diff_report_render": (_status, [_pp, _p, _int, _pp]),
    "casefile_diff_report_headline_count": (_size, [_p]),
    "casefile_diff_report_headline": (_s, [_p, _size]),
    "casefile_analyzer_register": (_status, [ctypes.POINTER(AnalyzerDef), _pp]),
    "casefile_analyzer_unregister": (_status, [_s, _pp]),
    "casefile_analysis_query": (_status, [_p, _s, ROW_FN, _p, _pp]),
    "casefile_analysis_query_ex": (
        _status,
        [_p, _s, ctypes.POINTER(QueryOptions), ROW_FN, _p, _pp],
    ),
    "casefile_analysis_set_error": (None, [_p, _s]),
    "casefile_finding_builder_new": (_status, [_pp, _p, _s, _int, _s, _pp]),
    "casefile_finding_builder_set_summary": (_status, [_p, _s, _pp]),
    "casefile_finding_builder_set_recommendation": (_status, [_p, _s, _pp]),
    "casefile_finding_builder_add_culprit": (_status, [_p, _s, _s, _i64, _pp]),
    "casefile_finding_builder_add_evidence": (_status, [_p, _i64, _i64, _pp]),
    "casefile_finding_builder_add_evidence_path": (_status, [_p, _s, _s, _i64, _pp]),
    "casefile_finding_builder_emit": (_status, [_p, _pp]),
    "casefile_finding_builder_free": (None, [_p]),
    "casefile_plugin_load": (_status, [_s, _pp]),
    "casefile_plugin_load_path": (_status, [ctypes.POINTER(_size), _s, _pp]),
    "casefile_rules_add_file": (_status, [_s, _pp]),
    "casefile_rules_add_string": (_status, [_s, _size, _s, _pp]),
    "casefile_rules_remove": (_status, [_s, _pp]),
    "casefile_rules_check_file": (_status, [_s, _pp]),
}


class Library:
    """The loaded library: its path and every prototype it exports."""

    def __init__(self, cdll, path):
        self.path = path
        self._cdll = cdll
        self.missing = []
        for name, (restype, argtypes) in PROTOTYPES.items():
            try:
                fn = getattr(cdll, name)
            except AttributeError:
                # An older library: the call raises LibraryError when used,
                # everything else keeps working.
                self.missing.append(name)
                continue
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name[len("casefile_") :], fn)

    def __getattr__(self, short_name):
        # Reached only for names not set in __init__.
        raise LibraryError(
            "%s has no casefile_%s: it is older than this binding "
            "(library %s)" % (self.path, short_name, _version_or_unknown(self._cdll))
        )


def _version_or_unknown(cdll):
    try:
        fn = cdll.casefile_version_string
        fn.restype = ctypes.c_char_p
        return fn().decode("ascii", "replace")
    except (AttributeError, OSError):
        return "of unknown version"


def _package_dir():
    return os.path.dirname(os.path.abspath(__file__))


def candidate_paths():
    """Where the library is looked for, in order; see docs/PYTHON.md."""
    env = os.environ.get(LIBRARY_ENV)
    if env:
        # An explicit choice is never second-guessed: no fallback after it.
        return [env]
    here = _package_dir()
    candidates = []
    try:
        from . import _install_layout  # written by cmake --install only

        candidates.append(os.path.normpath(os.path.join(here, _install_layout.LIBRARY_RELATIVE)))
    except ImportError:
        pass
    candidates.append(os.path.join(here, SONAME))
    # <prefix>/lib/python3/dist-packages/casefile -> <prefix>/lib
    candidates.append(os.path.normpath(os.path.join(here, "..", "..", "..", SONAME)))
    found = ctypes.util.find_library("casefile")
    if found:
        candidates.append(found)
    candidates.append(SONAME)  # the system loader's own search
    # Keep the order, drop repeats.
    seen = set()
    return [c for c in candidates if not (c in seen or seen.add(c))]


def check_abi(version_number, path):
    """Raises LibraryError unless the library's ABI major is the expected one."""
    major = version_number // 1000000
    if major != EXPECTED_ABI_MAJOR:
        raise LibraryError(
            "%s is casefile %d.%d.%d (ABI %d); this Python binding needs ABI %d"
            % (
                path,
                major,
                version_number // 1000 % 1000,
                version_number % 1000,
                major,
                EXPECTED_ABI_MAJOR,
            )
        )


def _open(path):
    cdll = ctypes.CDLL(path)
    lib = Library(cdll, path)
    if "casefile_version_number" in lib.missing:
        raise LibraryError("%s is not libcasefile (no casefile_version_number)" % path)
    check_abi(lib.version_number(), path)
    return lib


_lock = threading.Lock()
_loaded = None


def lib():
    """The library, loaded on first call (thread-safe)."""
    global _loaded
    if _loaded is not None:
        return _loaded
    with _lock:
        if _loaded is None:
            _loaded = _load()
        return _loaded


def _load():
    candidates = candidate_paths()
    explicit = bool(os.environ.get(LIBRARY_ENV))
    failures = []
    for path in candidates:
        # A relative file name is the loader's search; a path must exist.
        if os.sep in path and not os.path.exists(path):
            failures.append("%s: no such file" % path)
            continue
        try:
            return _open(path)
        except OSError as e:
            if isinstance(e, LibraryError):
                # Found, but the wrong one: say so rather than look further.
                raise
            failures.append("%s: %s" % (path, e))
    where = "%s=%s" % (LIBRARY_ENV, candidates[0]) if explicit else "beside the package and on the system"
    raise LibraryError(
        "libcasefile not found (%s); tried:\n  %s\nSet %s to the path of libcasefile.so."
        % (where, "\n  ".join(failures), LIBRARY_ENV)
    )
