"""The diff of a good run against a bad run (casefile_diff)."""

import ctypes

from . import _structs
from ._callback import CallbackGuard
from ._lib import lib
from ._text import decode_text
from .errors import PARTIAL, ErrorSlot, check
from .report import _RenderedHandle
from .session import progress_callback, session_handle


class DiffReport(_RenderedHandle):
    """The result of casefile_diff.

    ``headline`` (at most three sentences) and ``partial`` are copied when
    it is made; ``json`` (the shape of docs/DIFF.md) and ``text`` are
    rendered on first use and kept.
    """

    _free_name = "diff_report_free"
    _render_name = "diff_report_render"

    def __init__(self, handle, partial=False):
        super().__init__(handle)
        library = lib()
        h = self._handle
        self.partial = partial
        self.headline = [
            decode_text(library.diff_report_headline(h, i))
            for i in range(library.diff_report_headline_count(h))
        ]

    def __repr__(self):
        return "<casefile.DiffReport %d headline items%s>" % (
            len(self.headline),
            ", partial" if self.partial else "",
        )


def diff_sessions(good, bad, store=True, progress=None):
    """casefile_diff over two open Sessions (different objects)."""
    opts = _structs.DiffOptions()
    err = ErrorSlot()
    check(lib().diff_options_init(ctypes.byref(opts), _structs.DIFF_OPTIONS_VERSION), err)
    opts.no_store = 0 if store else 1
    guard = CallbackGuard()
    callback = progress_callback(progress, guard)
    out = ctypes.c_void_p()
    # Each session is used by this call alone while it runs.
    with good._lock, bad._lock:
        status = lib().diff(
            ctypes.byref(out),
            session_handle(good),
            session_handle(bad),
            ctypes.byref(opts),
            callback,
            None,
            err.ref,
        )
    if out.value and guard.error is not None:
        lib().diff_report_free(out)
    guard.reraise()
    check(status, err)
    return DiffReport(out.value, partial=status == PARTIAL)
