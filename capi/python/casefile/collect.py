"""Collect a host's evidence into a bundle, and verify a bundle
(casefile_collect, casefile_verify_bundle; docs/BUNDLE_FORMAT.md)."""

import ctypes
from dataclasses import dataclass, field
from typing import Dict, List

from . import _structs
from ._callback import CallbackGuard
from ._lib import lib
from ._text import decode_path, decode_text, encode_path, encode_text
from .errors import PARTIAL, ErrorSlot, check
from .session import progress_callback

PHASE_NAMES = {0: "commands", 1: "scan", 2: "write"}


@dataclass
class CollectEntry:
    """One file or command considered: action "pack", "tail", "skip" or "run"."""

    action: str
    path: str  # inside the bundle; "" when none
    source: str
    kind: str
    size: int
    redactions: int
    note: str


@dataclass
class CollectError:
    source: str  # a path or "command:NAME"
    message: str


@dataclass
class CollectResult:
    partial: bool  # written, but something could not be collected whole
    file_count: int
    bytes: int  # packed, uncompressed
    archive_bytes: int  # written to the output (0 for a dry run)
    redaction_count: int
    redactions: Dict[str, int] = field(default_factory=dict)  # kind -> count
    errors: List[CollectError] = field(default_factory=list)
    entries: List[CollectEntry] = field(default_factory=list)


@dataclass
class VerifyProblem:
    path: str  # "" for the archive as a whole
    kind: str  # archive, manifest, missing, extra, size, sha256, duplicate, entry_type
    message: str


@dataclass
class VerifyResult:
    ok: bool
    file_count: int  # files found whole
    problems: List[VerifyProblem] = field(default_factory=list)

    def __bool__(self):
        return self.ok


def _pairs(value):
    """A dict (or a sequence of "KEY=VALUE") -> a list of "KEY=VALUE"."""
    if value is None:
        return []
    if isinstance(value, dict):
        return ["%s=%s" % (k, v) for k, v in value.items()]
    if isinstance(value, (str, bytes)):
        return [value]
    return list(value)


def _paths(value):
    if value is None:
        return []
    if isinstance(value, (str, bytes)) or hasattr(value, "__fspath__"):
        return [value]
    return list(value)


def collect(output=None, *, logs=(), hlo_dumps=(), traces=(), configs=(), tensorboard_dir=None,
            job_cmdline_file=None, labels=None, host=None, since_seconds=0, max_bytes=0,
            command_timeout_ms=0, no_versions=False, no_redact=False, redact_hosts=False,
            deterministic=False, dry_run=False, no_discover=False, redact_key=None,
            command_line=None, environment=None, zstd_level=0, threads=0, progress=None):
    """Writes one .tar.zst bundle of this host's evidence to `output`.

    Keyword arguments are the fields of casefile_collect_options; lists of
    paths take a str too, ``labels`` and ``environment`` take a dict or
    "KEY=VALUE" strings, ``redact_key`` bytes or str (16 bytes at least).
    ``progress(phase, done, total, current)`` (phase "commands", "scan" or
    "write") may return true or raise to abort. Returns a CollectResult.
    """
    keep = []

    def array(items, encode):
        arr, count, k = _structs.string_array(items, encode)
        keep.append(k)
        return arr, count

    def text(value, encode):
        if value is None:
            return None
        keep.append(encode(value))
        return keep[-1]

    opts = _structs.CollectOptions()
    err = ErrorSlot()
    check(lib().collect_options_init(ctypes.byref(opts), _structs.COLLECT_OPTIONS_VERSION), err)
    opts.output = text(output, encode_path)
    opts.logs, opts.log_count = array(_paths(logs), encode_path)
    opts.hlo_dumps, opts.hlo_dump_count = array(_paths(hlo_dumps), encode_path)
    opts.traces, opts.trace_count = array(_paths(traces), encode_path)
    opts.configs, opts.config_count = array(_paths(configs), encode_path)
    opts.tensorboard_dir = text(tensorboard_dir, encode_path)
    opts.job_cmdline_file = text(job_cmdline_file, encode_path)
    opts.labels, opts.label_count = array(_pairs(labels), encode_text)
    opts.host = text(host, encode_text)
    opts.since_seconds = since_seconds
    opts.max_bytes = max_bytes
    opts.command_timeout_ms = command_timeout_ms
    opts.no_versions = int(bool(no_versions))
    opts.no_redact = int(bool(no_redact))
    opts.redact_hosts = int(bool(redact_hosts))
    opts.deterministic = int(bool(deterministic))
    opts.dry_run = int(bool(dry_run))
    opts.no_discover = int(bool(no_discover))
    if redact_key is not None:
        key = encode_text(redact_key)
        key_buffer = (ctypes.c_ubyte * len(key)).from_buffer_copy(key)
        keep.append(key_buffer)
        opts.redact_key = ctypes.cast(key_buffer, ctypes.POINTER(ctypes.c_ubyte))
        opts.redact_key_size = len(key)
    opts.command_line, opts.command_line_count = array(_pairs(command_line), encode_text)
    opts.environment, opts.environment_count = array(_pairs(environment), encode_text)
    opts.zstd_level = zstd_level
    opts.threads = threads

    guard = CallbackGuard()
    if progress is None:
        callback = _structs.COLLECT_PROGRESS_FN()
    else:
        callback = _structs.COLLECT_PROGRESS_FN(
            lambda phase, done, total, current, _p: guard.call(
                progress, PHASE_NAMES.get(phase, str(phase)), done, total, decode_path(current)
            )
        )
    out = ctypes.c_void_p()
    status = lib().collect(ctypes.byref(out), ctypes.byref(opts), callback, None, err.ref)
    if out.value and guard.error is not None:
        lib().collect_result_free(out)
    guard.reraise()
    check(status, err)
    try:
        return _copy_collect_result(out, status == PARTIAL)
    finally:
        lib().collect_result_free(out)


def _copy_collect_result(r, partial):
    library = lib()
    result = CollectResult(
        partial=partial,
        file_count=library.collect_result_file_count(r),
        bytes=library.collect_result_bytes(r),
        archive_bytes=library.collect_result_archive_bytes(r),
        redaction_count=library.collect_result_redaction_count(r),
    )
    kind = ctypes.c_char_p()
    count = ctypes.c_uint64()
    for i in range(library.collect_result_redaction_kind_count(r)):
        check(library.collect_result_redaction_kind(r, i, ctypes.byref(kind), ctypes.byref(count)),
              ErrorSlot())
        result.redactions[decode_text(kind.value)] = count.value
    source = ctypes.c_char_p()
    message = ctypes.c_char_p()
    for i in range(library.collect_result_error_count(r)):
        check(library.collect_result_error(r, i, ctypes.byref(source), ctypes.byref(message)),
              ErrorSlot())
        result.errors.append(CollectError(decode_path(source.value) or "",
                                          decode_text(message.value) or ""))
    action, path, kind, note = (ctypes.c_char_p() for _ in range(4))
    size, redactions = ctypes.c_uint64(), ctypes.c_uint64()
    for i in range(library.collect_result_entry_count(r)):
        check(
            library.collect_result_entry(r, i, ctypes.byref(action), ctypes.byref(path),
                                         ctypes.byref(source), ctypes.byref(kind),
                                         ctypes.byref(size), ctypes.byref(redactions),
                                         ctypes.byref(note)),
            ErrorSlot(),
        )
        result.entries.append(
            CollectEntry(
                action=decode_text(action.value) or "",
                path=decode_path(path.value) or "",
                source=decode_path(source.value) or "",
                kind=decode_text(kind.value) or "",
                size=size.value,
                redactions=redactions.value,
                note=decode_text(note.value) or "",
            )
        )
    return result


def verify(path, progress=None):
    """Checks a bundle written by collect() against its manifest.

    Returns a VerifyResult whenever the bundle could be opened, good or not
    (``.ok`` says which); NotFoundError, UnsupportedError (a directory), ...
    otherwise. ``progress(bytes_done, entry)`` may return true or raise to
    abort.
    """
    guard = CallbackGuard()
    callback = progress_callback(progress, guard)
    out = ctypes.c_void_p()
    err = ErrorSlot()
    status = lib().verify_bundle(ctypes.byref(out), encode_path(path), callback, None, err.ref)
    if out.value and guard.error is not None:
        lib().verify_result_free(out)
    guard.reraise()
    check(status, err)
    library = lib()
    try:
        result = VerifyResult(
            ok=bool(library.verify_result_ok(out)),
            file_count=library.verify_result_file_count(out),
        )
        p, kind, message = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p()
        for i in range(library.verify_result_problem_count(out)):
            check(library.verify_result_problem(out, i, ctypes.byref(p), ctypes.byref(kind),
                                                ctypes.byref(message)),
                  ErrorSlot())
            result.problems.append(VerifyProblem(decode_path(p.value) or "",
                                                 decode_text(kind.value) or "",
                                                 decode_text(message.value) or ""))
        return result
    finally:
        library.verify_result_free(out)
