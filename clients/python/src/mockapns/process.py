"""`MockAPNsProcess`: the `mock-apns` binary started on port 0 for a test suite.

It passes `--ready-file` and reads the bound ports and URLs from that JSON document (README
"Running in containers and from any language"), never from the start-up lines; it stops the
server with SIGTERM (a graceful stop, exit 0) and kills it only if it does not stop in time.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Sequence

from .client import MockAPNs

__all__ = ["MockAPNsProcess", "MockAPNsStartError"]


class MockAPNsStartError(RuntimeError):
    """The binary could not be found, exited during start, or wrote no ready file in time."""


def _find_tls_dir(*starts: Path) -> Path | None:
    """The repository's `tls/` (server.pem, server-key.pem, ca.pem) above any of `starts`."""
    for start in starts:
        for folder in (start, *start.parents):
            tls = folder / "tls"
            if (tls / "server.pem").is_file() and (tls / "server-key.pem").is_file() and (tls / "ca.pem").is_file():
                return tls
    return None


class MockAPNsProcess:
    """One `mock-apns` server process: `start()` (or `with`), then `push_url`, `ca_file`,
    `client`, `stop()`.

    `binary`: the executable; by default `MOCK_APNS_BIN`, else `mock-apns` on PATH.
    `tls_cert`/`tls_key`/`ca_file`: the listener's certificate and the CA a client trusts; by
    default the TEST-ONLY ones of the repository's `tls/`, found above the binary or the working
    directory (`ca_file` then is `tls/ca.pem`). With none found the server makes an ephemeral
    self-signed certificate; with no `ca_file` given (the ephemeral one, or a `tls_cert` of your
    own), `ca_file` is the certificate the first listener serves, as the ready file's
    `certificate` has it, written to `served-certificate.pem` in the work directory.
    `workdir`: where the ready file, logs and that PEM go (kept); by default a temporary
    directory removed with this object.
    `args`: more command-line options (e.g. `("--environment", "production")`).
    `control_token`: passed to the server as `MOCK_APNS_CONTROL_TOKEN` and used by `client`.
    `start_timeout`/`stop_timeout`: seconds.
    """

    def __init__(self, binary: str | os.PathLike | None = None, *, args: Sequence[str] = (),
                 tls_cert: str | os.PathLike | None = None, tls_key: str | os.PathLike | None = None,
                 ca_file: str | os.PathLike | None = None, control_token: str | None = None,
                 start_timeout: float = 15.0, stop_timeout: float = 15.0,
                 workdir: str | os.PathLike | None = None):
        raw = binary or os.environ.get("MOCK_APNS_BIN") or shutil.which("mock-apns")
        if not raw:
            raise MockAPNsStartError("no mock-apns binary: pass binary= (under pytest: --mock-apns-bin PATH), "
                                     "set MOCK_APNS_BIN or put mock-apns on PATH")
        self.binary = Path(raw).resolve()
        if not self.binary.is_file():
            raise MockAPNsStartError(f"mock-apns binary not found at {self.binary}")
        if tls_cert is None and tls_key is None:
            tls = _find_tls_dir(self.binary.parent, Path.cwd())
            if tls is not None:
                tls_cert, tls_key = tls / "server.pem", tls / "server-key.pem"
                ca_file = ca_file or tls / "ca.pem"
        self.tls_cert = Path(tls_cert) if tls_cert else None
        self.tls_key = Path(tls_key) if tls_key else None
        self.ca_file: Path | None = Path(ca_file) if ca_file else None
        self.args = list(args)
        self.control_token = control_token
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.proc: subprocess.Popen | None = None
        self.ready: dict | None = None
        self._workdir: tempfile.TemporaryDirectory | None = None
        self._workdir_path: Path | None = Path(workdir) if workdir else None

    # ---- life cycle -----------------------------------------------------------------------

    def start(self) -> "MockAPNsProcess":
        """Start the server and wait for its ready file; raises `MockAPNsStartError` with its
        standard error when it exits or is not ready within `start_timeout`."""
        if self.proc is not None:
            raise MockAPNsStartError("already started")
        if self._workdir_path is None:
            self._workdir = tempfile.TemporaryDirectory(prefix="mockapns-")
            self._workdir_path = Path(self._workdir.name)
        workdir = self._workdir_path
        workdir.mkdir(parents=True, exist_ok=True)
        ready_file = workdir / "ready.json"
        argv = [str(self.binary), "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0",
                "--ready-file", str(ready_file)]
        if self.tls_cert and self.tls_key:
            argv += ["--tls-cert", str(self.tls_cert), "--tls-key", str(self.tls_key)]
        argv += self.args
        env = dict(os.environ)
        if self.control_token is not None:
            env["MOCK_APNS_CONTROL_TOKEN"] = self.control_token
        self._stdout = open(workdir / "stdout.log", "wb")
        self._stderr = open(workdir / "stderr.log", "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self._stdout, stderr=self._stderr,
                                     env=env)
        deadline = time.monotonic() + self.start_timeout
        while not ready_file.exists():
            if self.proc.poll() is not None:
                raise MockAPNsStartError(f"mock-apns exited during start (exit {self.proc.returncode}): "
                                         f"{self.stderr_text().strip()}")
            if time.monotonic() > deadline:
                self.kill()
                raise MockAPNsStartError(f"mock-apns wrote no ready file within {self.start_timeout} s: "
                                         f"{self.stderr_text().strip()}")
            time.sleep(0.02)
        # Written atomically (renamed into place): once it exists it is whole.
        self.ready = json.loads(ready_file.read_text())
        served = (self.ready.get("listeners") or [{}])[0].get("certificate")
        if self.ca_file is None and served:
            # The server's own (ephemeral, or a certificate given without its CA): trust it as is.
            self.ca_file = workdir / "served-certificate.pem"
            self.ca_file.write_text(served)
        return self

    def stop(self) -> int:
        """SIGTERM and wait (`stop_timeout`, then SIGKILL); returns the exit status (0 graceful)."""
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        code = self.proc.returncode
        self._close_logs()
        return code

    def kill(self) -> None:
        """SIGKILL, for a server that does not stop."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)

    def _close_logs(self) -> None:
        for log in (getattr(self, "_stdout", None), getattr(self, "_stderr", None)):
            if log is not None and not log.closed:
                log.close()

    def __enter__(self) -> "MockAPNsProcess":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---- what a test needs ----------------------------------------------------------------

    def _ready(self) -> dict:
        if self.ready is None:
            raise MockAPNsStartError("not started")
        return self.ready

    @property
    def listeners(self) -> list[dict]:
        """The ready file's listeners: `name`, `environment`, `host`, `port`, `tls`, `url`."""
        return list(self._ready()["listeners"])

    @property
    def push_url(self) -> str:
        """The first APNs listener's URL, e.g. `https://127.0.0.1:36023` (POST `/3/device/TOKEN`)."""
        return self.listeners[0]["url"]

    @property
    def control_url(self) -> str:
        """The control API's URL (the server is always started with one)."""
        return self._ready()["control"]["url"]

    @property
    def client(self) -> MockAPNs:
        """A `MockAPNs` client for this server (with `control_token` when one was given)."""
        return MockAPNs(self.control_url, token=self.control_token)

    @property
    def pid(self) -> int:
        return self._ready()["pid"]

    def stderr_text(self) -> str:
        """What the server wrote on standard error so far."""
        if self._workdir_path is None:
            return ""
        path = self._workdir_path / "stderr.log"
        return path.read_text("utf-8", "replace") if path.exists() else ""
