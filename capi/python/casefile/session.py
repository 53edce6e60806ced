"""Session: a set of inputs and their index (casefile_session)."""

import ctypes
import threading
from dataclasses import dataclass
from typing import List, Optional, Tuple

from . import _structs
from ._callback import CallbackGuard
from ._lib import lib
from ._text import decode_path, decode_text, encode_path, encode_text, flatten_paths
from .errors import PARTIAL, ErrorSlot, MisuseError, check
from .report import Report, _OwnedHandle


@dataclass
class IndexResult:
    """What casefile_session_index did."""

    partial: bool  # some input was read only in part (CASEFILE_PARTIAL)
    reused: bool  # an existing index of the same inputs was reused
    path: str  # the index file


@dataclass
class QueryResult:
    """Rows of a query, each a tuple of str (or None for SQL NULL).

    ``columns`` is empty when the query returned no row: the C API gives
    column names with the rows.
    """

    columns: Tuple[str, ...]
    rows: List[Tuple[Optional[str], ...]]


class RowCollector:
    """A casefile_row_fn that appends every row to a QueryResult."""

    def __init__(self):
        self.result = QueryResult(columns=(), rows=[])
        self.guard = CallbackGuard()
        self.fn = _structs.ROW_FN(self._on_row)

    def _on_row(self, count, names, values, _payload):
        return self.guard.call(self._append, count, names, values)

    def _append(self, count, names, values):
        if not self.result.columns:
            self.result.columns = tuple(decode_text(names[i]) for i in range(count))
        self.result.rows.append(tuple(decode_text(values[i]) for i in range(count)))
        return False


def query_options(max_rows=None, max_bytes=None, timeout=None):
    """The casefile_query_options for the query limits, or None when none
    is given (the call without options then runs, with the library's
    defaults, and works with a library older than 0.4).

    max_rows: more rows fail the query with LimitError; None or 0: no bound.
    max_bytes: the values of the result adding up to more fail it with
    LimitError; None or 0: no bound. timeout: seconds of work on the query
    (a float; the time spent in Python on each row is not counted) before
    QueryTimeoutError; None: the library's default (300 s); 0: no bound."""
    if max_rows is None and max_bytes is None and timeout is None:
        return None
    opts = _structs.QueryOptions()
    opts.version = _structs.QUERY_OPTIONS_VERSION
    for name, value in (("max_rows", max_rows), ("max_bytes", max_bytes)):
        if value is not None and (not isinstance(value, int) or value < 0):
            raise ValueError("%s must be a non-negative int, not %r" % (name, value))
    opts.max_rows = max_rows or 0
    opts.max_result_bytes = max_bytes or 0
    if timeout is not None:
        if timeout < 0:
            raise ValueError("timeout must be >= 0 seconds, not %r" % (timeout,))
        ms = int(round(timeout * 1000))
        if timeout == 0 or ms >= 0xFFFFFFFF:
            ms = 0xFFFFFFFF  # the library's "no practical bound"
        opts.timeout_ms = max(ms, 1)
    return opts


def progress_callback(progress, guard):
    """A casefile_progress_fn calling progress(bytes_done, current_path);
    a true return or an exception aborts the call."""
    if progress is None:
        return _structs.PROGRESS_FN()  # NULL
    return _structs.PROGRESS_FN(
        lambda done, current, _payload: guard.call(progress, done, decode_path(current))
    )


def open_options(index=None, index_dir=None, reindex=False, max_entry_bytes=0,
                 max_total_bytes=0, max_entries=0, max_line_bytes=0):
    """(OpenOptions, keepalive) for the given keyword arguments."""
    opts = _structs.OpenOptions()
    err = ErrorSlot()
    check(lib().open_options_init(ctypes.byref(opts), _structs.OPEN_OPTIONS_VERSION), err)
    keep = []
    if index is not None:
        keep.append(encode_path(index))
        opts.index_path = keep[-1]
    if index_dir is not None:
        keep.append(encode_path(index_dir))
        opts.index_dir = keep[-1]
    opts.reindex = 1 if reindex else 0
    opts.max_entry_bytes = max_entry_bytes
    opts.max_total_bytes = max_total_bytes
    opts.max_entries = max_entries
    opts.max_line_bytes = max_line_bytes
    return opts, keep


class Session(_OwnedHandle):
    """One or several bundles (directories or archives) and their index.

    ``Session(*paths, index=None, index_dir=None, reindex=False, limits...)``
    opens them (only checking that each exists); ``index()`` builds or reuses
    the index; ``analyze()`` and ``query()`` index first when needed.
    Use it as a context manager, or call close(); calls on one session are
    serialised by a lock, so it may be shared between threads.
    """

    _free_name = "session_free"

    def __init__(self, *paths, index=None, index_dir=None, reindex=False, max_entry_bytes=0,
                 max_total_bytes=0, max_entries=0, max_line_bytes=0):
        super().__init__(None)
        self.paths = flatten_paths(paths)
        self._indexed = False
        self._lock = threading.RLock()
        encoded = [encode_path(p) for p in self.paths]
        inputs, count, keep_inputs = _structs.string_array(encoded, lambda b: b)
        opts, keep_opts = open_options(index, index_dir, reindex, max_entry_bytes,
                                       max_total_bytes, max_entries, max_line_bytes)
        out = ctypes.c_void_p()
        err = ErrorSlot()
        check(lib().session_open(ctypes.byref(out), inputs, count, ctypes.byref(opts), err.ref), err)
        self._handle = out
        del keep_inputs, keep_opts

    @classmethod
    def open(cls, *paths, **options):
        """Same as Session(*paths, **options)."""
        return cls(*paths, **options)

    @property
    def handle(self):
        """The casefile_session* as a c_void_p (for other ctypes code)."""
        return self._live()

    @property
    def index_path(self):
        """Where the index is (or will be written)."""
        with self._lock:
            return decode_path(lib().session_index_path(self._live()))

    @property
    def reused(self):
        """True when the last indexing reused an existing index."""
        with self._lock:
            return bool(lib().session_index_reused(self._live()))

    @property
    def last_error(self):
        """The message of the last failed call on this session ("" if none)."""
        with self._lock:
            return decode_text(lib().session_last_error(self._live()))

    def index(self, progress=None):
        """Builds the index, or reuses one of the same inputs.

        ``progress(bytes_done, current_path)`` is called as input is read;
        returning true (or raising) aborts (AbortedError, or the exception).
        Returns an IndexResult; a partly read input is not an error.
        """
        guard = CallbackGuard()
        callback = progress_callback(progress, guard)
        err = ErrorSlot()
        with self._lock:
            status = lib().session_index(self._live(), callback, None, err.ref)
            guard.reraise()
            check(status, err)
            self._indexed = True
            return IndexResult(partial=status == PARTIAL, reused=self.reused,
                               path=self.index_path)

    def analyze(self, analyzers=None, store=True, context=True):
        """Runs the analyzers (all when None; else an iterable of names) and
        returns the Report. ``store=False`` keeps the findings out of the
        index. ``context=False`` leaves out what only the HTML and markdown
        renderings draw (curves, timelines, evidence context; faster on big
        bundles): such a report renders as JSON and text only.
        UnknownAnalyzerError for a name not registered."""
        opts = _structs.AnalyzeOptions()
        err = ErrorSlot()
        # Version 1 unless `omit` is needed, so that a library older than
        # 0.4.6 (options version 1) still runs a whole analysis.
        version = _structs.ANALYZE_OPTIONS_VERSION if not context else 1
        check(lib().analyze_options_init(ctypes.byref(opts), version), err)
        names = [] if analyzers is None else [analyzers] if isinstance(analyzers, str) else list(analyzers)
        array, count, keep = _structs.string_array(names, encode_text)
        opts.analyzers = array
        opts.analyzer_count = count
        opts.no_store = 0 if store else 1
        if not context:
            opts.omit = _structs.OMIT_CONTEXT
        out = ctypes.c_void_p()
        with self._lock:
            check(lib().session_analyze(ctypes.byref(out), self._live(), ctypes.byref(opts), err.ref),
                  err)
        del keep
        self._indexed = True
        return Report(out.value)

    def execute(self, sql, max_rows=None, max_bytes=None, timeout=None):
        """Runs one read-only SQL statement; returns a QueryResult (column
        names and rows). Indexes first when the session is not indexed.
        QueryError for SQL SQLite rejects, ReadOnlyError for a write.
        The limits (see query_options): LimitError past max_rows or
        max_bytes, QueryTimeoutError past timeout seconds."""
        opts = query_options(max_rows, max_bytes, timeout)
        collector = RowCollector()
        err = ErrorSlot()
        with self._lock:
            if not self._indexed:
                self.index()
            if opts is None:
                status = lib().session_query(
                    self._live(), encode_text(sql), collector.fn, None, err.ref
                )
            else:
                status = lib().session_query_ex(
                    self._live(), encode_text(sql), ctypes.byref(opts), collector.fn, None, err.ref
                )
        collector.guard.reraise()
        check(status, err)
        return collector.result

    def query(self, sql, max_rows=None, max_bytes=None, timeout=None):
        """Rows of a read-only SQL statement, as a list of tuples of str/None
        (limits as in execute)."""
        return self.execute(sql, max_rows=max_rows, max_bytes=max_bytes, timeout=timeout).rows

    def close(self):
        with self._lock:
            super().close()

    def __repr__(self):
        return "<casefile.Session %r%s>" % (self.paths, " closed" if self.closed else "")


def session_handle(session):
    """The live handle of a Session (MisuseError when closed)."""
    if not isinstance(session, Session):
        raise MisuseError(101, "expected a casefile.Session, got %r" % type(session).__name__)
    return session._live()
