"""Python callbacks called from C: an exception cannot cross ctypes, so it is
kept here, the C call is told to stop, and the exception is raised again
once the C call has returned."""


class CallbackGuard:
    __slots__ = ("error",)

    def __init__(self):
        self.error = None

    def call(self, fn, *args):
        """Runs fn(*args); returns 1 (stop) when it raised or returned true."""
        if self.error is not None:
            return 1
        try:
            return 1 if fn(*args) else 0
        except BaseException as e:  # KeyboardInterrupt too: stop the C call
            self.error = e
            return 1

    def reraise(self):
        """Raises the kept exception, if any (call after the C call)."""
        if self.error is not None:
            error, self.error = self.error, None
            raise error
