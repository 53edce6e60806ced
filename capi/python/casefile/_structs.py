"""ctypes mirrors of the options structs and callback types of casefile.h.

Field order and types follow the header exactly; the layout test compares
them with the C compiler's sizeof/offsetof (capi/abi/abi_layout.c,
the program the ABI check uses).
"""

import ctypes

_ps = ctypes.POINTER(ctypes.c_char_p)

OPEN_OPTIONS_VERSION = 2
ANALYZE_OPTIONS_VERSION = 2  # 2: omit (since 0.4.6)
OMIT_CONTEXT = 1  # AnalyzeOptions.omit: no curves, timelines, evidence context
COLLECT_OPTIONS_VERSION = 1
DIFF_OPTIONS_VERSION = 1
QUERY_OPTIONS_VERSION = 1  # since 0.4
ANALYZER_DEF_VERSION = 1

FORMAT_JSON = 0
FORMAT_TEXT = 1
FORMAT_TEXT_COLOR = 2
FORMAT_HTML = 3  # one self-contained page (docs/REPORTS.md); since 0.3
FORMAT_MARKDOWN = 4  # a summary for an issue tracker; since 0.3


class OpenOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint),
        ("index_path", ctypes.c_char_p),
        ("reindex", ctypes.c_int),
        ("max_entry_bytes", ctypes.c_uint64),
        ("max_total_bytes", ctypes.c_uint64),
        ("max_entries", ctypes.c_uint64),
        ("max_line_bytes", ctypes.c_uint32),
        ("index_dir", ctypes.c_char_p),
    ]


class AnalyzeOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint),
        ("analyzers", _ps),
        ("analyzer_count", ctypes.c_size_t),
        ("no_store", ctypes.c_int),
        ("omit", ctypes.c_uint64),  # version 2
    ]


class QueryOptions(ctypes.Structure):
    """casefile_query_options (since 0.4): 0 in a field means its default."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("max_rows", ctypes.c_uint64),
        ("max_result_bytes", ctypes.c_uint64),
        ("timeout_ms", ctypes.c_uint32),
    ]


class DiffOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint),
        ("no_store", ctypes.c_int),
    ]


class CollectOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint),
        ("output", ctypes.c_char_p),
        ("logs", _ps),
        ("log_count", ctypes.c_size_t),
        ("hlo_dumps", _ps),
        ("hlo_dump_count", ctypes.c_size_t),
        ("traces", _ps),
        ("trace_count", ctypes.c_size_t),
        ("configs", _ps),
        ("config_count", ctypes.c_size_t),
        ("tensorboard_dir", ctypes.c_char_p),
        ("job_cmdline_file", ctypes.c_char_p),
        ("labels", _ps),
        ("label_count", ctypes.c_size_t),
        ("host", ctypes.c_char_p),
        ("since_seconds", ctypes.c_uint64),
        ("max_bytes", ctypes.c_uint64),
        ("command_timeout_ms", ctypes.c_uint32),
        ("no_versions", ctypes.c_int),
        ("no_redact", ctypes.c_int),
        ("redact_hosts", ctypes.c_int),
        ("deterministic", ctypes.c_int),
        ("dry_run", ctypes.c_int),
        ("no_discover", ctypes.c_int),
        ("redact_key", ctypes.POINTER(ctypes.c_ubyte)),
        ("redact_key_size", ctypes.c_size_t),
        ("command_line", _ps),
        ("command_line_count", ctypes.c_size_t),
        ("environment", _ps),
        ("environment_count", ctypes.c_size_t),
        ("zstd_level", ctypes.c_int),
        ("threads", ctypes.c_uint),
    ]


# Callbacks. Pointers the library hands over are c_void_p / POINTER types,
# never c_char_p results, so nothing is converted before the callback asks.
PROGRESS_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint64, ctypes.c_char_p, ctypes.c_void_p)
ROW_FN = ctypes.CFUNCTYPE(
    ctypes.c_int,
    ctypes.c_size_t,
    ctypes.POINTER(ctypes.c_char_p),
    ctypes.POINTER(ctypes.c_char_p),
    ctypes.c_void_p,
)
COLLECT_PROGRESS_FN = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_char_p, ctypes.c_void_p
)
ANALYZER_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
FREE_PAYLOAD_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class AnalyzerDef(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint),
        ("name", ctypes.c_char_p),
        ("analyzer_version", ctypes.c_char_p),
        ("description", ctypes.c_char_p),
        ("needed_kinds", _ps),
        ("needed_kind_count", ctypes.c_size_t),
        ("codes", _ps),
        ("code_count", ctypes.c_size_t),
        ("run", ANALYZER_FN),
        ("free_payload", FREE_PAYLOAD_FN),
        ("payload", ctypes.c_void_p),
    ]


def string_array(items, encode):
    """(array, count, keepalive) for a `const char* const*` + count pair.

    ``keepalive`` holds the encoded bytes; it must outlive the call.
    """
    encoded = [encode(item) for item in items]
    if not encoded:
        return None, 0, encoded
    array = (ctypes.c_char_p * len(encoded))(*encoded)
    return ctypes.cast(array, _ps), len(encoded), (encoded, array)
