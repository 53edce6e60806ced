"""A minimal Chrome DevTools Protocol client over --remote-debugging-pipe.

Standard library only (Python 3.11): the browser reads commands on its fd 3
and writes responses and events on its fd 4, each message one JSON object
terminated by a NUL byte. No websocket, no port: nothing else on the machine
can talk to the browser, and two tests running at once cannot collide.

Never hangs: every wait has a deadline, a watchdog kills the browser when the
whole run overstays, and the browser is killed on exit (its process group, so
the renderer and GPU helper processes go too). If this process dies anyway,
the browser sees EOF on its command pipe (only we hold the write end: the fd
is close-on-exec) and shuts itself down.
"""

from __future__ import annotations

import atexit
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from typing import Any, Callable

# Binaries tried in order when CASEFILE_CHROMIUM is not set. Debian's package
# installs /usr/bin/chromium (a wrapper script that execs the real binary).
CHROMIUM_NAMES = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
    "chrome-headless-shell",
)


class CdpError(Exception):
    """A protocol error, a timeout or a browser that went away."""


def find_chromium() -> str | None:
    """The browser binary: $CASEFILE_CHROMIUM when set (must exist), else the
    first of CHROMIUM_NAMES on PATH."""
    override = os.environ.get("CASEFILE_CHROMIUM")
    if override:
        path = shutil.which(override)
        return path
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _high_fd(fd: int) -> int:
    """A close-on-exec copy of `fd` numbered 10 or above, so that moving the
    pipe ends onto 3 and 4 in the child cannot overwrite one another."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class Browser:
    """One headless Chromium with one DevTools pipe.

    events: every event received so far, in order, as the raw message dicts
    (method, params, sessionId); tests read them after waiting.
    """

    def __init__(
        self,
        binary: str,
        extra_args: list[str] | None = None,
        command_timeout: float = 30.0,
        total_timeout: float = 120.0,
    ) -> None:
        self.command_timeout = command_timeout
        self.events: list[dict[str, Any]] = []
        self._responses: dict[int, dict[str, Any]] = {}
        self._next_id = 0
        self._buffer = b""
        self._closed = False
        self._profile = tempfile.mkdtemp(prefix="casefile-chromium-")
        self._stderr_path = os.path.join(self._profile, "stderr.log")

        args = [
            binary,
            "--headless=new",  # needs no X server or Wayland display
            "--remote-debugging-pipe",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            f"--user-data-dir={self._profile}",
            # A leaked request must not reach anything: every host name
            # resolves to nothing (IP literals still need the CSP and the
            # request check of check_report.py).
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--disable-default-apps",
            # Containers (CI) often give /dev/shm only 64 MB.
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--mute-audio",
        ]
        # Chromium refuses to start its sandbox as root (the CI container runs
        # as root); an unprivileged user keeps the sandbox. A container
        # without user namespaces can ask for it with CASEFILE_CHROMIUM_NO_SANDBOX=1.
        if os.geteuid() == 0 or os.environ.get("CASEFILE_CHROMIUM_NO_SANDBOX") == "1":
            args.append("--no-sandbox")
        args.extend(extra_args or [])
        args.extend(os.environ.get("CASEFILE_CHROMIUM_FLAGS", "").split())

        cmd_r, cmd_w = os.pipe()
        resp_r, resp_w = os.pipe()
        cmd_r, resp_w = _high_fd(cmd_r), _high_fd(resp_w)
        self._cmd_w, self._resp_r = cmd_w, resp_r

        def child_fds() -> None:
            # dup2 leaves the copies inheritable; pass_fds keeps 3 and 4 open
            # through close_fds (which runs after this function).
            os.dup2(cmd_r, 3)
            os.dup2(resp_w, 4)

        # Chromium's crash handler (started whatever the flags) writes its
        # database under $XDG_CONFIG_HOME/chromium: keep it in the profile,
        # which close() deletes. The handler leaves our process group but
        # exits by itself once the browser is gone.
        env = dict(os.environ)
        env["XDG_CONFIG_HOME"] = os.path.join(self._profile, "config")
        env["XDG_CACHE_HOME"] = os.path.join(self._profile, "cache")

        self._stderr = open(self._stderr_path, "wb")
        try:
            self._proc = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=self._stderr,
                stderr=self._stderr,
                pass_fds=(3, 4),
                preexec_fn=child_fds,
                start_new_session=True,  # own process group: killed as one
                env=env,
            )
        finally:
            os.close(cmd_r)
            os.close(resp_w)
        atexit.register(self.close)
        self._total_timeout = total_timeout
        self._timed_out = False
        self._watchdog = threading.Timer(total_timeout, self._overstayed)
        self._watchdog.daemon = True
        self._watchdog.start()

    # -- lifetime ---------------------------------------------------------

    def _overstayed(self) -> None:
        self._timed_out = True
        self._kill()

    def _kill(self) -> None:
        try:
            os.killpg(self._proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._watchdog.cancel()
        try:
            # Ask politely first: Browser.close lets Chromium flush its
            # profile; a stuck browser is killed after a short grace.
            if self._proc.poll() is None:
                self._write({"id": self._take_id(), "method": "Browser.close"})
                self._proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self._kill()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for fd in (self._cmd_w, self._resp_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self._stderr.close()
        shutil.rmtree(self._profile, ignore_errors=True)

    def stderr_tail(self, limit: int = 2000) -> str:
        """The end of the browser's own output, for a failure message."""
        try:
            with open(self._stderr_path, "rb") as f:
                data = f.read()
        except OSError:
            return ""
        return data[-limit:].decode("utf-8", "replace")

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- wire -------------------------------------------------------------

    def _take_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _write(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode() + b"\0"
        while data:
            n = os.write(self._cmd_w, data)
            data = data[n:]

    def _pump(self, deadline: float) -> None:
        """Reads what the browser wrote until at least one message arrived or
        the deadline passed; files responses by id and events in order."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            ready, _, _ = select.select([self._resp_r], [], [], left)
            if not ready:
                return
            chunk = os.read(self._resp_r, 1 << 20)
            if not chunk:
                if self._timed_out:
                    raise CdpError(f"the browser was killed: the run took more than {self._total_timeout:.0f} s")
                raise CdpError("the browser closed its DevTools pipe (it exited):\n" + self.stderr_tail())
            self._buffer += chunk
            if b"\0" not in self._buffer:
                continue
            *messages, self._buffer = self._buffer.split(b"\0")
            for raw in messages:
                message = json.loads(raw)
                if "id" in message:
                    self._responses[message["id"]] = message
                else:
                    self.events.append(message)
            return

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session_id: str | None = None,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Sends one command and returns its result; raises CdpError on a
        protocol error or when no answer came within the timeout."""
        message_id = self._take_id()
        message: dict[str, Any] = {"id": message_id, "method": method, "params": params or {}}
        if session_id:
            message["sessionId"] = session_id
        self._write(message)
        deadline = time.monotonic() + (timeout or self.command_timeout)
        while message_id not in self._responses:
            if time.monotonic() >= deadline:
                raise CdpError(f"{method}: no answer within {timeout or self.command_timeout:.0f} s")
            self._pump(deadline)
        response = self._responses.pop(message_id)
        if "error" in response:
            raise CdpError(f"{method}: {response['error'].get('message')} {response['error'].get('data', '')}")
        return response.get("result", {})

    def wait_event(
        self,
        method: str,
        session_id: str | None = None,
        timeout: float | None = None,
        since: int = 0,
        match: Callable[[dict[str, Any]], bool] | None = None,
    ) -> dict[str, Any]:
        """The first event `method` (of the session, at index >= since)
        received so far or within the timeout."""
        deadline = time.monotonic() + (timeout or self.command_timeout)
        seen = since
        while True:
            for event in self.events[seen:]:
                if (
                    event.get("method") == method
                    and (session_id is None or event.get("sessionId") == session_id)
                    and (match is None or match(event))
                ):
                    return event
            seen = len(self.events)
            if time.monotonic() >= deadline:
                raise CdpError(f"no {method} event within {timeout or self.command_timeout:.0f} s")
            self._pump(deadline)

    def drain(self, seconds: float) -> None:
        """Collects the events that arrive during `seconds` (lets timers and
        error handlers of the page run before the checks)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._pump(deadline)

    # -- targets ----------------------------------------------------------

    def new_page(self) -> str:
        """Opens a blank tab, attaches to it (flattened: commands carry the
        sessionId) and returns the session id. Its size is set with
        Emulation.setDeviceMetricsOverride."""
        target = self.send("Target.createTarget", {"url": "about:blank"})
        attached = self.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        return attached["sessionId"]
