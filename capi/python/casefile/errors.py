"""Exceptions: one CasefileError per failed call, carrying its status."""

import ctypes
import re

from ._lib import LibraryError, lib

__all__ = [
    "LibraryError",
    "CasefileError",
    "ArgumentError",
    "MisuseError",
    "UnknownAnalyzerError",
    "VersionError",
    "CasefileIOError",
    "NotFoundError",
    "CorruptError",
    "UnsupportedError",
    "IndexVersionError",
    "RulesError",
    "LimitError",
    "QueryTimeoutError",
    "QueryError",
    "ReadOnlyError",
    "PluginError",
    "NoMemoryError",
    "AbortedError",
    "InternalError",
]

# casefile_status values (casefile.h); never renumbered once released.
OK = 0
PARTIAL = 1
STATUS_NAMES = {
    0: "CASEFILE_OK",
    1: "CASEFILE_PARTIAL",
    100: "CASEFILE_E_ARGUMENT",
    101: "CASEFILE_E_MISUSE",
    102: "CASEFILE_E_UNKNOWN_ANALYZER",
    103: "CASEFILE_E_VERSION",
    200: "CASEFILE_E_IO",
    201: "CASEFILE_E_NOT_FOUND",
    300: "CASEFILE_E_CORRUPT",
    301: "CASEFILE_E_UNSUPPORTED",
    302: "CASEFILE_E_INDEX_VERSION",
    303: "CASEFILE_E_RULES",
    400: "CASEFILE_E_LIMIT",
    401: "CASEFILE_E_TIMEOUT",
    500: "CASEFILE_E_QUERY",
    501: "CASEFILE_E_READ_ONLY",
    600: "CASEFILE_E_PLUGIN",
    900: "CASEFILE_E_NOMEM",
    901: "CASEFILE_E_ABORTED",
    999: "CASEFILE_E_INTERNAL",
}


class CasefileError(Exception):
    """A call of the C API failed.

    ``status`` is the casefile_status (an int), ``status_name`` its C name
    ("CASEFILE_E_NOT_FOUND"), ``message`` the library's message (it names
    the C function and the file or offset involved).
    """

    def __init__(self, status, message):
        self.status = int(status)
        self.status_name = STATUS_NAMES.get(self.status, "CASEFILE_STATUS_%d" % self.status)
        self.message = message
        super().__init__(message)

    def __str__(self):
        return "%s [%s]" % (self.message, self.status_name)


class ArgumentError(CasefileError, ValueError):
    """CASEFILE_E_ARGUMENT: a required argument is missing or invalid."""


class MisuseError(CasefileError):
    """CASEFILE_E_MISUSE: wrong call order, or a handle used after it was freed."""


class UnknownAnalyzerError(CasefileError, KeyError):
    """CASEFILE_E_UNKNOWN_ANALYZER: a name that is not a registered analyzer."""

    # KeyError's __str__ would quote the message.
    __str__ = CasefileError.__str__


class VersionError(CasefileError):
    """CASEFILE_E_VERSION: an options struct version the library does not know."""


class CasefileIOError(CasefileError, OSError):
    """CASEFILE_E_IO: the operating system refused a read or a write."""

    __str__ = CasefileError.__str__


class NotFoundError(CasefileError):
    """CASEFILE_E_NOT_FOUND: an input path does not exist."""


class CorruptError(CasefileError):
    """CASEFILE_E_CORRUPT: input that cannot be decoded; nothing indexed."""


class UnsupportedError(CasefileError):
    """CASEFILE_E_UNSUPPORTED: neither a directory nor an archive casefile reads."""


class IndexVersionError(CasefileError):
    """CASEFILE_E_INDEX_VERSION: an index written by an incompatible casefile."""


_POSITION = re.compile(r"^.+:\d+:\d+: ")


class RulesError(CasefileError):
    """CASEFILE_E_RULES: a rule pack that does not validate.

    ``errors`` lists the messages, one "SOURCE:LINE:COLUMN: message" each
    (the message's other lines, such as its "N errors in rule pack X"
    heading, left out).
    """

    @property
    def errors(self):
        return [line for line in self.message.splitlines() if _POSITION.match(line)]


class LimitError(CasefileError):
    """CASEFILE_E_LIMIT: a configured limit made the operation impossible
    (for a query: more rows or bytes than allowed, or a value over 64 MiB)."""


class QueryTimeoutError(LimitError, TimeoutError):
    """CASEFILE_E_TIMEOUT: a query ran past its timeout (since 0.4). A
    LimitError, so code that handles limits handles it too."""

    __str__ = CasefileError.__str__


class QueryError(CasefileError):
    """CASEFILE_E_QUERY: SQL that SQLite rejected."""


class ReadOnlyError(QueryError):
    """CASEFILE_E_READ_ONLY: a write, ATTACH or state-changing pragma."""


class PluginError(CasefileError):
    """CASEFILE_E_PLUGIN: a plugin refused (not loadable, other ABI, init failed)."""


class NoMemoryError(CasefileError, MemoryError):
    """CASEFILE_E_NOMEM."""


class AbortedError(CasefileError):
    """CASEFILE_E_ABORTED: a callback asked to stop."""


class InternalError(CasefileError):
    """CASEFILE_E_INTERNAL: a bug in casefile; the message says where."""


_CLASSES = {
    100: ArgumentError,
    101: MisuseError,
    102: UnknownAnalyzerError,
    103: VersionError,
    200: CasefileIOError,
    201: NotFoundError,
    300: CorruptError,
    301: UnsupportedError,
    302: IndexVersionError,
    303: RulesError,
    400: LimitError,
    401: QueryTimeoutError,
    500: QueryError,
    501: ReadOnlyError,
    600: PluginError,
    900: NoMemoryError,
    901: AbortedError,
    999: InternalError,
}


def error_for(status, message):
    """The exception of the class for `status`."""
    return _CLASSES.get(int(status), CasefileError)(status, message)


def status_string(status):
    """casefile_status_string: a short description ("corrupt input")."""
    return lib().status_string(int(status)).decode("utf-8", "replace")


class ErrorSlot:
    """A casefile_error* out-parameter; raises and frees what it received.

    Usage::

        err = ErrorSlot()
        check(lib().session_open(..., err.ref), err)
    """

    __slots__ = ("ptr",)

    def __init__(self):
        self.ptr = ctypes.c_void_p()

    @property
    def ref(self):
        return ctypes.byref(self.ptr)

    def take(self, status):
        """The exception for `status`, the library's error freed."""
        library = lib()
        if self.ptr.value:
            message = library.error_message(self.ptr).decode("utf-8", "replace")
            library.error_free(self.ptr)
            self.ptr = ctypes.c_void_p()
        else:
            message = status_string(status)
        return error_for(status, message)


def check(status, err, allow_partial=True):
    """Returns the status when it is OK (or PARTIAL), else raises."""
    if status == OK or (allow_partial and status == PARTIAL):
        return status
    raise err.take(status)
