"""The report of an analysis: findings copied into dataclasses, and the
rendered JSON and text, produced from the report handle on first use."""

import ctypes
import threading
from dataclasses import dataclass, field
from typing import List, Optional

from . import _structs
from ._lib import lib
from ._text import decode_path, decode_text
from .errors import ErrorSlot, MisuseError, check

SEVERITY_NAMES = {0: "info", 1: "warning", 2: "error"}
SEVERITY_VALUES = {name: value for value, name in SEVERITY_NAMES.items()}


@dataclass
class Culprit:
    """A host, task or rank a finding blames; None where unknown."""

    host: Optional[str] = None
    task: Optional[str] = None
    rank: Optional[int] = None


@dataclass
class Evidence:
    """One cited line: bundle name, path inside it, 1-based line, its text."""

    bundle: str
    path: str
    line: int
    text: str


@dataclass
class Finding:
    code: str
    analyzer: str
    severity: str  # "error", "warning" or "info"
    title: str
    summary: str = ""
    culprits: List[Culprit] = field(default_factory=list)
    evidence: List[Evidence] = field(default_factory=list)
    recommendation: str = ""


@dataclass
class AnalyzerStatus:
    """How one analyzer went: status "ran", "not_applicable" or "failed"."""

    name: str
    status: str
    reason: str = ""


def render_owned(render_fn, handle, fmt):
    """Calls a *_render function and copies and frees its char* result."""
    library = lib()
    out = ctypes.c_void_p()
    err = ErrorSlot()
    check(render_fn(ctypes.byref(out), handle, fmt, err.ref), err, allow_partial=False)
    try:
        return ctypes.string_at(out.value).decode("utf-8", "replace")
    finally:
        library.string_free(out)


class _OwnedHandle:
    """A handle freed once: by close(), the context manager or __del__."""

    _free_name = None  # the Library attribute that frees the handle

    def __init__(self, handle):
        self._handle = ctypes.c_void_p(handle)
        self._handle_lock = threading.Lock()

    @property
    def closed(self):
        return not self._handle.value

    def _live(self):
        if not self._handle.value:
            raise MisuseError(101, "%s is closed" % type(self).__name__)
        return self._handle

    def close(self):
        """Frees the handle; safe to call more than once."""
        with self._handle_lock:
            if self._handle.value:
                getattr(lib(), self._free_name)(self._handle)
                self._handle = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        # At interpreter exit the modules this needs may be gone already; the
        # process is ending, so the handle needs no freeing then.
        try:
            self.close()
        except Exception:
            pass


class _RenderedHandle(_OwnedHandle):
    """An owned report handle whose renders are made on first use and kept."""

    _render_name = None  # the Library attribute that renders the handle

    def __init__(self, handle):
        super().__init__(handle)
        self._rendered = {}  # format -> text

    def render(self, fmt=_structs.FORMAT_JSON):
        """The *_render function's output: FORMAT_JSON, FORMAT_TEXT,
        FORMAT_TEXT_COLOR, FORMAT_HTML or FORMAT_MARKDOWN."""
        if fmt not in self._rendered:
            with self._handle_lock:
                render = getattr(lib(), self._render_name)
                self._rendered[fmt] = render_owned(render, self._live(), fmt)
        return self._rendered[fmt]

    @property
    def json(self):
        """The documented JSON (docs/CLI.md, docs/DIFF.md), a str."""
        return self.render(_structs.FORMAT_JSON)

    @property
    def text(self):
        """The human-readable form, without colour."""
        return self.render(_structs.FORMAT_TEXT)

    @property
    def html(self):
        """One self-contained HTML page (docs/REPORTS.md), a str."""
        return self.render(_structs.FORMAT_HTML)

    @property
    def markdown(self):
        """A compact markdown summary for an issue tracker, a str."""
        return self.render(_structs.FORMAT_MARKDOWN)


class Report(_RenderedHandle):
    """The result of casefile_session_analyze.

    Findings, analyzer statuses and flags are copied when the report is
    made; ``json`` and ``text`` are rendered from the handle on first use
    (and kept), so render them before close() if you want them later.
    """

    _free_name = "report_free"
    _render_name = "report_render"

    def __init__(self, handle):
        super().__init__(handle)
        library = lib()
        h = self._handle
        self.partial = bool(library.report_is_partial(h))
        self.has_ingest_issues = bool(library.report_has_ingest_issues(h))
        max_severity = library.report_max_severity(h)
        self.max_severity = SEVERITY_NAMES.get(max_severity)  # None: no findings
        self.analyzers = [
            AnalyzerStatus(
                name=decode_text(library.report_analyzer_name(h, i)),
                status=decode_text(library.report_analyzer_status(h, i)),
                reason=decode_text(library.report_analyzer_reason(h, i)) or "",
            )
            for i in range(library.report_analyzer_count(h))
        ]
        self.findings = [
            _copy_finding(library, library.report_finding(h, i))
            for i in range(library.report_finding_count(h))
        ]
        # casefile.analyze() sets the IndexResult of the indexing it did.
        self.index = None

    def analyzer(self, name):
        """The AnalyzerStatus of `name`; KeyError when it is not in the report."""
        for status in self.analyzers:
            if status.name == name:
                return status
        raise KeyError(name)

    def __repr__(self):
        return "<casefile.Report %d findings, %d analyzers%s>" % (
            len(self.findings),
            len(self.analyzers),
            ", partial" if self.partial else "",
        )


def _copy_finding(library, f):
    culprits = []
    host = ctypes.c_char_p()
    task = ctypes.c_char_p()
    rank = ctypes.c_int64()
    for i in range(library.finding_culprit_count(f)):
        check(
            library.finding_culprit(f, i, ctypes.byref(host), ctypes.byref(task), ctypes.byref(rank)),
            ErrorSlot(),
        )
        culprits.append(
            Culprit(
                host=decode_text(host.value),
                task=decode_text(task.value),
                rank=None if rank.value < 0 else rank.value,
            )
        )
    evidence = []
    bundle = ctypes.c_char_p()
    path = ctypes.c_char_p()
    line = ctypes.c_int64()
    text = ctypes.c_char_p()
    for i in range(library.finding_evidence_count(f)):
        check(
            library.finding_evidence(
                f, i, ctypes.byref(bundle), ctypes.byref(path), ctypes.byref(line), ctypes.byref(text)
            ),
            ErrorSlot(),
        )
        evidence.append(
            Evidence(
                bundle=decode_path(bundle.value) or "",
                path=decode_path(path.value) or "",
                line=line.value,
                text=decode_text(text.value) or "",
            )
        )
    return Finding(
        code=decode_text(library.finding_code(f)),
        analyzer=decode_text(library.finding_analyzer(f)),
        severity=SEVERITY_NAMES.get(library.finding_severity(f), "info"),
        title=decode_text(library.finding_title(f)),
        summary=decode_text(library.finding_summary(f)) or "",
        culprits=culprits,
        evidence=evidence,
        recommendation=decode_text(library.finding_recommendation(f)) or "",
    )
