"""casefile: offline forensics of failed distributed ML training runs.

A ctypes binding of libcasefile (include/casefile.h); standard library only.
docs/PYTHON.md is its reference. In short::

    import casefile
    report = casefile.analyze("host-0.tar.zst", "host-1.tar.zst")
    for finding in report.findings:
        print(finding.severity, finding.code, finding.title)
        for ev in finding.evidence:
            print("  %s:%d: %s" % (ev.path, ev.line, ev.text))
"""

from ._lib import EXPECTED_ABI_MAJOR, LibraryError, lib as _library
from ._structs import (FORMAT_HTML, FORMAT_JSON, FORMAT_MARKDOWN, FORMAT_TEXT,
                       FORMAT_TEXT_COLOR)
from ._text import flatten_paths as _flatten_paths
from .collect import (
    CollectEntry,
    CollectError,
    CollectResult,
    VerifyProblem,
    VerifyResult,
    collect,
    verify,
)
from .diff import DiffReport, diff_sessions
from .errors import (
    AbortedError,
    ArgumentError,
    CasefileError,
    CasefileIOError,
    CorruptError,
    IndexVersionError,
    InternalError,
    LimitError,
    MisuseError,
    NoMemoryError,
    NotFoundError,
    PluginError,
    QueryError,
    QueryTimeoutError,
    ReadOnlyError,
    RulesError,
    UnknownAnalyzerError,
    UnsupportedError,
    VersionError,
    status_string,
)
from .extension import (
    Analysis,
    AnalyzerInfo,
    FindingBuilder,
    add_rules,
    analyzers,
    check_rules,
    load_plugin,
    load_plugin_path,
    register_analyzer,
    remove_rules,
    unregister_analyzer,
)
from .report import AnalyzerStatus, Culprit, Evidence, Finding, Report
from .session import IndexResult, QueryResult, Session

__all__ = [
    # functions
    "version", "version_number", "library_path", "open", "analyze", "diff", "query",
    "collect", "verify", "analyzers", "register_analyzer", "unregister_analyzer",
    "load_plugin", "load_plugin_path", "add_rules", "remove_rules", "check_rules",
    "status_string", "diff_sessions",
    # classes
    "Session", "Report", "DiffReport", "Finding", "Culprit", "Evidence", "AnalyzerStatus",
    "IndexResult", "QueryResult", "CollectResult", "CollectEntry", "CollectError",
    "VerifyResult", "VerifyProblem", "Analysis", "FindingBuilder", "AnalyzerInfo",
    # errors
    "LibraryError", "CasefileError", "ArgumentError", "MisuseError", "UnknownAnalyzerError",
    "VersionError", "CasefileIOError", "NotFoundError", "CorruptError", "UnsupportedError",
    "IndexVersionError", "RulesError", "LimitError", "QueryTimeoutError", "QueryError", "ReadOnlyError",
    "PluginError", "NoMemoryError", "AbortedError", "InternalError",
    # constants
    "FORMAT_JSON", "FORMAT_TEXT", "FORMAT_TEXT_COLOR", "FORMAT_HTML", "FORMAT_MARKDOWN", "EXPECTED_ABI_MAJOR",
]


def version():
    """The linked library's version, "MAJOR.MINOR.PATCH"."""
    return _library().version_string().decode("ascii")


def version_number():
    """The linked library's version as MAJOR*1000000 + MINOR*1000 + PATCH."""
    return _library().version_number()


def library_path():
    """The path (or name) libcasefile was loaded from."""
    return _library().path


def open(*paths, **options):  # noqa: A001 - mirrors casefile_session_open
    """A Session over `paths` (see Session for the options)."""
    return Session(*paths, **options)


def analyze(*paths, index=None, analyzers=None, store=True, index_dir=None, reindex=False,
            progress=None, context=True):
    """Indexes `paths` (reusing an index of the same inputs) and runs the
    analyzers (all when None); returns the Report. ``report.partial`` tells
    a partly read input; NotFoundError for a missing one. ``context=False``:
    see Session.analyze (JSON and text only, faster)."""
    with Session(*paths, index=index, index_dir=index_dir, reindex=reindex) as session:
        index_result = session.index(progress=progress)
        report = session.analyze(analyzers=analyzers, store=store, context=context)
        report.index = index_result
        return report


def diff(good, bad, good_index=None, bad_index=None, store=True, index_dir=None, progress=None):
    """Diffs a good run against a bad run (each a path or a list of paths);
    returns the DiffReport (``.headline``, ``.json``, ``.text``)."""
    with Session(_flatten_paths(good), index=good_index, index_dir=index_dir) as good_session:
        with Session(_flatten_paths(bad), index=bad_index, index_dir=index_dir) as bad_session:
            return diff_sessions(good_session, bad_session, store=store, progress=progress)


def query(paths, sql, index=None, max_rows=None, max_bytes=None, timeout=None):
    """Rows of one read-only SQL statement over the index of `paths` (a
    path or a list): a list of tuples of str (None for SQL NULL). The
    limits: max_rows and max_bytes (None: no bound; LimitError past them),
    timeout in seconds (None: the library's 300 s; 0: no bound;
    QueryTimeoutError past it)."""
    with Session(_flatten_paths(paths), index=index) as session:
        return session.query(sql, max_rows=max_rows, max_bytes=max_bytes, timeout=timeout)
