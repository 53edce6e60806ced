"""Analyzers written in Python, plugins and rule packs (the "Extensions"
section of casefile.h).

The library stores the run callback's pointer until the analyzer is
unregistered. Every Python analyzer goes through the same two ctypes
trampolines, made once and kept for the life of the process; the payload
is a registration number, looked up in _registry. free_payload (called by
the library on unregister, after any analysis still running the analyzer
is done with it) drops the entry, so nothing the library may still call is
ever freed.
"""

import atexit
import ctypes
import itertools
import os
import threading
import traceback
from dataclasses import dataclass

from . import _structs
from ._lib import lib
from ._text import decode_text, encode_path, encode_text
from .errors import ErrorSlot, MisuseError, check
from .report import SEVERITY_VALUES
from .session import RowCollector, query_options


@dataclass
class AnalyzerInfo:
    name: str
    description: str


def analyzers():
    """Every analyzer an analysis runs, in order: built-in, "rules", external."""
    library = lib()
    infos = []
    for i in range(library.analyzer_count()):
        name = library.analyzer_name(i)
        if name is None:  # unregistered by another thread meanwhile
            break
        infos.append(AnalyzerInfo(decode_text(name), decode_text(library.analyzer_description(i)) or ""))
    return infos


class FindingBuilder:
    """A finding being built in a run callback; nothing is reported until
    emit(). Setters return the builder, so calls chain."""

    def __init__(self, analysis, handle):
        self._analysis = analysis
        self._handle = handle

    def _live(self):
        if not self._handle.value:
            raise MisuseError(101, "the finding builder was emitted or its run callback returned")
        self._analysis._live()
        return self._handle

    def _call(self, fn, *args):
        err = ErrorSlot()
        check(fn(self._live(), *args, err.ref), err, allow_partial=False)
        return self

    def summary(self, text):
        return self._call(lib().finding_builder_set_summary, encode_text(text))

    def recommendation(self, text):
        return self._call(lib().finding_builder_set_recommendation, encode_text(text))

    def culprit(self, host=None, task=None, rank=None):
        """A culprit; at least one of host, task and rank must be given."""
        return self._call(
            lib().finding_builder_add_culprit,
            None if host is None else encode_text(host),
            None if task is None else encode_text(task),
            -1 if rank is None else int(rank),
        )

    def evidence(self, file_id, line):
        """Line `line` (1-based) of the indexed file `file_id` (files.id)."""
        return self._call(lib().finding_builder_add_evidence, int(file_id), int(line))

    def evidence_path(self, path, line, bundle=None):
        """Line `line` of `path` inside a bundle; `bundle` (its display name)
        is needed only when several bundles hold `path`."""
        return self._call(
            lib().finding_builder_add_evidence_path,
            None if bundle is None else encode_path(bundle),
            encode_path(path),
            int(line),
        )

    def emit(self):
        """Hands the finding to the analysis (the builder is spent, whatever
        the result). ArgumentError when it has no evidence: the finding is
        dropped and the analyzer fails, even if the exception is caught."""
        handle = self._live()
        self._handle = ctypes.c_void_p()
        self._analysis._builders.discard(self)
        err = ErrorSlot()
        check(lib().finding_builder_emit(handle, err.ref), err, allow_partial=False)

    def _discard(self):
        if self._handle.value:
            lib().finding_builder_free(self._handle)
            self._handle = ctypes.c_void_p()


class Analysis:
    """What a run callback gets: read-only SQL on the index being analysed,
    and findings. Valid only during the callback."""

    def __init__(self, handle):
        self._handle = ctypes.c_void_p(handle)
        self._builders = set()

    def _live(self):
        if not self._handle.value:
            raise MisuseError(101, "the analysis is used after its run callback returned")
        return self._handle

    def execute(self, sql, max_rows=None, max_bytes=None, timeout=None):
        """A QueryResult (columns and rows) of one read-only statement;
        the limits as in Session.execute."""
        opts = query_options(max_rows, max_bytes, timeout)
        collector = RowCollector()
        err = ErrorSlot()
        if opts is None:
            status = lib().analysis_query(
                self._live(), encode_text(sql), collector.fn, None, err.ref
            )
        else:
            status = lib().analysis_query_ex(
                self._live(), encode_text(sql), ctypes.byref(opts), collector.fn, None, err.ref
            )
        collector.guard.reraise()
        check(status, err, allow_partial=False)
        return collector.result

    def query(self, sql, max_rows=None, max_bytes=None, timeout=None):
        """Rows (tuples of str or None) of one read-only SQL statement."""
        return self.execute(sql, max_rows=max_rows, max_bytes=max_bytes, timeout=timeout).rows

    def finding(self, code, severity, title):
        """Starts a finding: severity "error", "warning", "info" (or 2/1/0)."""
        if isinstance(severity, str):
            try:
                severity_value = SEVERITY_VALUES[severity]
            except KeyError:
                raise ValueError("severity must be 'error', 'warning' or 'info', not %r" % severity)
        else:
            severity_value = int(severity)
        out = ctypes.c_void_p()
        err = ErrorSlot()
        check(
            lib().finding_builder_new(ctypes.byref(out), self._live(), encode_text(code),
                                      severity_value, encode_text(title), err.ref),
            err,
            allow_partial=False,
        )
        builder = FindingBuilder(self, out)
        self._builders.add(builder)
        return builder

    def set_error(self, message):
        """The reason the report gives when the run fails."""
        lib().analysis_set_error(self._live(), encode_text(message))

    def _end(self):
        # Builders and the analysis belong to this one callback call.
        for builder in list(self._builders):
            builder._discard()
        self._builders.clear()
        self._handle = ctypes.c_void_p()


@dataclass
class _Registration:
    name: str
    run: object


_registry = {}  # payload number -> _Registration
_by_name = {}  # name -> payload number, for unregister_all at exit
_registry_lock = threading.Lock()
_numbers = itertools.count(1)  # 0 would be a NULL payload


def _run_trampoline(analysis_ptr, payload):
    with _registry_lock:
        registration = _registry.get(payload or 0)
    analysis = Analysis(analysis_ptr)
    try:
        if registration is None:
            analysis.set_error("the Python analyzer is no longer registered")
            return 1
        registration.run(analysis)
        return 0
    except BaseException as e:  # an exception cannot cross into C
        try:
            reason = "".join(traceback.format_exception_only(type(e), e)).strip()
            analysis.set_error(reason or type(e).__name__)
        except BaseException:
            pass
        return 1
    finally:
        analysis._end()


def _free_trampoline(payload):
    with _registry_lock:
        registration = _registry.pop(payload or 0, None)
        if registration is not None and _by_name.get(registration.name) == payload:
            del _by_name[registration.name]


# Made once and never freed: the library may hold these pointers until exit.
_RUN_FN = _structs.ANALYZER_FN(_run_trampoline)
_FREE_FN = _structs.FREE_PAYLOAD_FN(_free_trampoline)


def _name_text(name):
    # Decoded once: the str is the key of _by_name, and the atexit handler
    # unregisters by it (a bytes name kept as "b'...'" would never match).
    if isinstance(name, bytes):
        return decode_text(name)
    return str(name)


def _optional_text(value):
    # None is NULL: the library then uses its default ("1", no description).
    return None if value is None else encode_text(value)


def _text_list(values, what):
    """The items of a sequence of str (or bytes), checked before anything is
    registered: a lone str would otherwise become a list of its letters."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError("%s must be a sequence of str, not %s" % (what, type(values).__name__))
    items = list(values)
    for item in items:
        if not isinstance(item, (str, bytes)):
            raise TypeError("%s must hold str, not %s" % (what, type(item).__name__))
    return items


def register_analyzer(name, run, *, version="1", description="", needed_kinds=(), codes=()):
    """Registers `run(analysis)` as the analyzer `name` for every later
    analysis in this process.

    ``version`` and ``description``: None means the library's default ("1",
    no description). ``needed_kinds``: file kinds it reads ("log", "trace",
    ...); none means it always runs. ``codes``: the codes it may emit; none
    allows any valid code that is not a built-in analyzer's. An exception
    raised by `run` fails this analyzer only; the report gives the exception
    as the reason. Callbacks run on the thread calling analyze (several at
    once if several threads analyse). ArgumentError for a bad or taken name
    or code, TypeError for arguments of the wrong type.
    """
    if not callable(run):
        raise TypeError("run must be callable")
    name_text = _name_text(name)
    # Everything that can raise on bad arguments happens before the callable
    # enters _registry, so a refused call leaves nothing behind.
    kinds, kind_count, keep_kinds = _structs.string_array(_text_list(needed_kinds, "needed_kinds"),
                                                          encode_text)
    code_array, code_count, keep_codes = _structs.string_array(_text_list(codes, "codes"), encode_text)
    number = next(_numbers)
    definition = _structs.AnalyzerDef(
        version=_structs.ANALYZER_DEF_VERSION,
        name=encode_text(name_text),
        analyzer_version=_optional_text(version),
        description=_optional_text(description),
        needed_kinds=kinds,
        needed_kind_count=kind_count,
        codes=code_array,
        code_count=code_count,
        run=_RUN_FN,
        free_payload=_FREE_FN,
        payload=number,
    )
    err = ErrorSlot()
    with _registry_lock:
        _registry[number] = _Registration(name_text, run)
    try:
        status = lib().analyzer_register(ctypes.byref(definition), err.ref)
        check(status, err, allow_partial=False)
    except BaseException:
        # On failure the library does not call free_payload.
        with _registry_lock:
            _registry.pop(number, None)
        raise
    finally:
        del keep_kinds, keep_codes
    with _registry_lock:
        # Another thread may already have unregistered it (free_payload ran).
        if number in _registry:
            _by_name[name_text] = number


def unregister_analyzer(name):
    """Unregisters an external analyzer (UnknownAnalyzerError when `name`
    is not registered, ArgumentError for a built-in one)."""
    err = ErrorSlot()
    check(lib().analyzer_unregister(encode_text(name), err.ref), err, allow_partial=False)


def _unregister_all_at_exit():
    # Past this point the interpreter is going away: no Python callback may
    # be called by an analysis on a thread still running.
    with _registry_lock:
        names = list(_by_name)
    for name in names:
        try:
            unregister_analyzer(name)
        except Exception:
            pass


atexit.register(_unregister_all_at_exit)


def load_plugin(path):
    """casefile_plugin_load: loads a plugin (a shared object) and runs its
    init. NotFoundError, PluginError with the reason."""
    err = ErrorSlot()
    check(lib().plugin_load(encode_path(path), err.ref), err, allow_partial=False)


def load_plugin_path(path_list=None):
    """Loads every plugin of a ':'-separated list of files and directories
    (None: $CASEFILE_PLUGIN_PATH); returns how many were loaded."""
    loaded = ctypes.c_size_t()
    err = ErrorSlot()
    check(
        lib().plugin_load_path(ctypes.byref(loaded),
                               None if path_list is None else encode_path(path_list), err.ref),
        err,
        allow_partial=False,
    )
    return loaded.value


def _is_rules_text(source):
    if isinstance(source, bytes):
        return True
    return isinstance(source, str) and source.lstrip().startswith("{")


def add_rules(source, *, source_name=None):
    """Adds a rule pack (docs/RULES.md): `source` is a path, or the pack's
    JSON text (a str starting with "{", or bytes). RulesError lists every
    error as "SOURCE:LINE:COLUMN: message" (its .errors)."""
    err = ErrorSlot()
    if _is_rules_text(source):
        text = encode_text(source)
        status = lib().rules_add_string(
            text, len(text), None if source_name is None else encode_text(source_name), err.ref
        )
    else:
        status = lib().rules_add_file(encode_path(os.fspath(source)), err.ref)
    check(status, err, allow_partial=False)


def remove_rules(pack_name):
    """Removes an added pack by name (ArgumentError for a built-in one)."""
    err = ErrorSlot()
    check(lib().rules_remove(encode_text(pack_name), err.ref), err, allow_partial=False)


def check_rules(path):
    """Validates a pack file without adding it; RulesError when it is invalid."""
    err = ErrorSlot()
    check(lib().rules_check_file(encode_path(os.fspath(path)), err.ref), err, allow_partial=False)
