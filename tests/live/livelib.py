"""Helpers for the live MockAPNs test suite: start the real binary, talk to it with real clients.

Everything here drives the prebuilt `mock-apns` binary (env MOCK_APNS_BIN) over real sockets:
curl / nghttp / h2load as subprocesses, the hyper-h2 library for frame-level work, and urllib for
the HTTP/1.1 control API.
"""

from __future__ import annotations

import json
import os
import queue
import re
import select
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

try:
    import h2.config
    import h2.connection
    import h2.events
    import h2.exceptions
    import h2.settings
except ImportError as exc:  # pragma: no cover - reported by conftest
    h2 = None
    H2_IMPORT_ERROR = exc
else:
    H2_IMPORT_ERROR = None

REPO_ROOT = Path(__file__).resolve().parents[2]
TLS_DIR = REPO_ROOT / "tls"
CA_PEM = TLS_DIR / "ca.pem"
SERVER_PEM = TLS_DIR / "server.pem"
SERVER_KEY = TLS_DIR / "server-key.pem"

START_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0

TOKEN = "ab" * 32  # a well-formed 64-hex-character device token
TOPIC = "com.example.app"

UPPER_UUID = re.compile(r"^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$")
LOWER_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

LISTENER_LINE = re.compile(
    r"^MockAPNs \S+: APNs listener (?P<name>\S+) \((?P<env>sandbox|production)\) on "
    r"(?P<url>(?P<scheme>https?)://(?P<host>\[[^\]]+\]|[^:/]+):(?P<port>\d+))\s*$"
)
CONTROL_LINE = re.compile(r"^MockAPNs \S+: control API on (?P<url>http://(?P<host>[^:/]+):(?P<port>\d+))\s*$")


def binary_path() -> Path:
    raw = os.environ.get("MOCK_APNS_BIN", ".build/release/mock-apns")
    path = Path(raw)
    if not path.is_absolute():
        path = REPO_ROOT / path
    return path


# --------------------------------------------------------------------------------------------
# Server process
# --------------------------------------------------------------------------------------------


@dataclass
class Listener:
    name: str
    environment: str
    url: str
    scheme: str
    host: str
    port: int

    @property
    def plaintext(self) -> bool:
        return self.scheme == "http"


@dataclass
class PushResponse:
    status: int
    headers: dict  # lower-case name -> list of values
    body: bytes
    http_version: str = ""

    def header(self, name: str):
        values = self.headers.get(name.lower())
        return values[0] if values else None

    def json(self):
        return json.loads(self.body.decode("utf-8"))


@dataclass
class ControlResponse:
    status: int
    headers: dict
    body: bytes

    @property
    def json(self):
        return json.loads(self.body.decode("utf-8")) if self.body else None


class MockServer:
    """A running mock-apns process with its parsed listener and control URLs."""

    def __init__(self, args, *, workdir: Path, expect_listeners: int = 1, expect_control: bool = True,
                 launcher: tuple[str, ...] = ()):
        """launcher: a command the binary is run under (e.g. ("prlimit", "--nofile=128:256"))."""
        self.args = list(args)
        self.workdir = workdir
        self.stderr_path = workdir / f"server-{os.getpid()}-{id(self)}.stderr"
        self._stderr_file = open(self.stderr_path, "wb")
        self.stdout_lines: list[str] = []
        self._lines: "queue.Queue[str | None]" = queue.Queue()
        self.proc = subprocess.Popen(
            [*launcher, str(binary_path()), *self.args],
            cwd=str(REPO_ROOT),
            stdout=subprocess.PIPE,
            stderr=self._stderr_file,
            stdin=subprocess.DEVNULL,
        )
        self._reader = threading.Thread(target=self._read_stdout, daemon=True)
        self._reader.start()
        self.listeners: list[Listener] = []
        self.control_url: str | None = None
        self.returncode: int | None = None
        try:
            self._await_start(expect_listeners, expect_control)
        except BaseException:
            self.kill()
            raise

    # ---- start / stop ---------------------------------------------------------------------
    def _read_stdout(self):
        for raw in iter(self.proc.stdout.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.stdout_lines.append(line)
            self._lines.put(line)
        self._lines.put(None)

    def _await_start(self, expect_listeners, expect_control):
        deadline = time.monotonic() + START_TIMEOUT
        while len(self.listeners) < expect_listeners or (expect_control and self.control_url is None):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(
                    f"mock-apns did not print its start lines within {START_TIMEOUT}s; "
                    f"stdout={self.stdout_lines!r} stderr={self.stderr_text()!r}"
                )
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                self.proc.wait(5)
                raise AssertionError(
                    f"mock-apns exited during start (rc={self.proc.returncode}); "
                    f"stdout={self.stdout_lines!r} stderr={self.stderr_text()!r}"
                )
            m = LISTENER_LINE.match(line)
            if m:
                host = m["host"].strip("[]")
                self.listeners.append(
                    Listener(m["name"], m["env"], m["url"], m["scheme"], host, int(m["port"]))
                )
                continue
            m = CONTROL_LINE.match(line)
            if m:
                self.control_url = m["url"]

    def stderr_text(self) -> str:
        try:
            if not self._stderr_file.closed:
                self._stderr_file.flush()
            return self.stderr_path.read_text("utf-8", "replace")[-4000:]
        except OSError:
            return ""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def signal(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)

    def stop(self, timeout: float = STOP_TIMEOUT):
        """SIGTERM, then wait; returns (exit code or None when it had to be killed, seconds taken)."""
        start = time.monotonic()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            rc = None
        self.returncode = rc
        self._stderr_file.close()
        return rc, time.monotonic() - start

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                pass

    # ---- addresses ------------------------------------------------------------------------
    @property
    def listener(self) -> Listener:
        return self.listeners[0]

    def listener_named(self, name: str) -> Listener:
        for listener in self.listeners:
            if listener.name == name:
                return listener
        raise KeyError(f"no listener {name!r} in {[l.name for l in self.listeners]}")

    def listener_for(self, environment: str) -> Listener:
        for listener in self.listeners:
            if listener.environment == environment:
                return listener
        raise KeyError(environment)

    @property
    def apns_url(self) -> str:
        return self.listener.url

    @property
    def port(self) -> int:
        return self.listener.port

    # ---- APNs pushes with curl ------------------------------------------------------------
    def push(
        self,
        token: str | None = TOKEN,
        *,
        path: str | None = None,
        headers=(("apns-topic", TOPIC), ("apns-push-type", "alert")),
        body: bytes | str | None = b'{"aps":{"alert":"hi"}}',
        method: str | None = None,
        listener: Listener | None = None,
        host: str = "localhost",
        timeout: float = 10.0,
        curl_args=(),
    ) -> PushResponse:
        return curl_push(
            listener or self.listener,
            token,
            path=path,
            headers=headers,
            body=body,
            method=method,
            host=host,
            timeout=timeout,
            workdir=self.workdir,
            curl_args=curl_args,
        )

    # ---- control API ----------------------------------------------------------------------
    def control(self, method: str, path: str, body=None, *, timeout: float = 10.0) -> ControlResponse:
        assert self.control_url, "server started without a control API"
        data = None
        headers = {}
        if body is not None:
            data = body if isinstance(body, (bytes, str)) else json.dumps(body)
            data = data.encode("utf-8") if isinstance(data, str) else data
            headers["content-type"] = "application/json"
        req = urllib.request.Request(self.control_url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return ControlResponse(resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read())
        except urllib.error.HTTPError as err:
            return ControlResponse(err.code, {k.lower(): v for k, v in err.headers.items()}, err.read())

    def get(self, path, **kw):
        return self.control("GET", path, **kw)

    def put(self, path, body, **kw):
        return self.control("PUT", path, body, **kw)

    def delete(self, path, **kw):
        return self.control("DELETE", path, **kw)

    def get_json(self, path):
        r = self.get(path)
        assert r.status == 200, (path, r.status, r.body)
        return r.json

    def stats(self):
        return self.get_json("/v1/stats")

    def deliveries(self, **query):
        qs = urllib.parse.urlencode(query)
        return self.get_json("/v1/deliveries" + (f"?{qs}" if qs else ""))

    def delivery_by_apns_id(self, apns_id):
        found = self.deliveries(apnsId=apns_id)["deliveries"]
        assert len(found) == 1, found
        return found[0]


def curl_push(
    listener: Listener,
    token,
    *,
    path=None,
    headers=(),
    body=None,
    method=None,
    host="localhost",
    timeout=10.0,
    workdir: Path | None = None,
    curl_args=(),
) -> PushResponse:
    """One request with curl; curl_args are extra options (e.g. --cert/--key for a client certificate)."""
    if path is None:
        path = f"/3/device/{token}"
    tmp = Path(tempfile.mkdtemp(dir=workdir))
    head_file = tmp / "head"
    body_file = tmp / "body"
    cmd = ["curl", "-sS", "--max-time", str(timeout), "-D", str(head_file), "-o", str(body_file)]
    if listener.plaintext:
        cmd += ["--http2-prior-knowledge"]
        url = f"http://{listener.host}:{listener.port}{path}"
    else:
        cmd += ["--http2", "--cacert", str(CA_PEM), "--resolve", f"{host}:{listener.port}:{listener.host}"]
        url = f"https://{host}:{listener.port}{path}"
    for name, value in headers:
        cmd += ["-H", f"{name};" if value == "" else f"{name}: {value}"]
    if body is not None:
        data_file = tmp / "data"
        data_file.write_bytes(body.encode("utf-8") if isinstance(body, str) else body)
        cmd += ["--data-binary", f"@{data_file}"]
    if method:
        cmd += ["-X", method]
    cmd += [str(a) for a in curl_args]
    cmd += ["-w", "%{http_code} %{http_version}", url]
    proc = subprocess.run(cmd, capture_output=True, timeout=timeout + 5)
    assert proc.returncode == 0, f"curl failed rc={proc.returncode}: {proc.stderr.decode()} cmd={cmd}"
    code, version = proc.stdout.decode().split()
    hdrs: dict = {}
    for line in head_file.read_text("latin-1").splitlines()[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            hdrs.setdefault(name.strip().lower(), []).append(value.strip())
    return PushResponse(int(code), hdrs, body_file.read_bytes() if body_file.exists() else b"", version)


# --------------------------------------------------------------------------------------------
# Raw HTTP/2 client on hyper-h2
# --------------------------------------------------------------------------------------------

FRAME_DATA, FRAME_HEADERS, FRAME_RST_STREAM, FRAME_SETTINGS, FRAME_PING, FRAME_GOAWAY = 0, 1, 3, 4, 6, 7
FRAME_WINDOW_UPDATE, FRAME_CONTINUATION = 8, 9
FLAG_END_STREAM, FLAG_ACK, FLAG_END_HEADERS = 0x1, 0x1, 0x4


@dataclass
class RawFrame:
    type: int
    flags: int
    stream_id: int
    payload: bytes
    at: float = 0.0  # time.monotonic() when the frame was read


@dataclass
class H2Response:
    stream_id: int
    headers: list = field(default_factory=list)
    body: bytes = b""
    headers_end_stream: bool = False  # END_STREAM came on the response HEADERS frame
    data_frames: int = 0
    done: bool = False
    reset: int | None = None
    finished_at: float | None = None

    @property
    def status(self):
        for name, value in self.headers:
            if name == ":status":
                return int(value)
        return None

    def header(self, name):
        values = [v for n, v in self.headers if n == name]
        return values[0] if values else None

    def header_values(self, name):
        return [v for n, v in self.headers if n == name]

    def json(self):
        return json.loads(self.body)


def raw_frame(ftype: int, flags: int, stream_id: int, payload: bytes) -> bytes:
    """One HTTP/2 frame as sent on the wire."""
    return len(payload).to_bytes(3, "big") + bytes([ftype, flags]) + stream_id.to_bytes(4, "big") + payload


def _hpack_int(value: int, prefix_bits: int, first: int = 0) -> bytes:
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out = bytearray([first | limit])
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def hpack_literal(name: str, value: str) -> bytes:
    """A header as an HPACK literal without indexing, new name, no Huffman (RFC 7541 6.2.2):
    it leaves both dynamic tables untouched."""
    n, v = name.encode(), value.encode()
    return b"\x00" + _hpack_int(len(n), 7) + n + _hpack_int(len(v), 7) + v


def parse_settings(payload: bytes) -> list[tuple[int, int]]:
    return [
        (int.from_bytes(payload[i : i + 2], "big"), int.from_bytes(payload[i + 2 : i + 6], "big"))
        for i in range(0, len(payload), 6)
    ]


def _close_kind(exc: BaseException) -> str:
    """H2Client.close_kind for a read error: a TCP RST shows as ECONNRESET."""
    if isinstance(exc, ConnectionResetError):
        return "reset"
    if isinstance(exc, ssl.SSLEOFError):  # TCP FIN without close_notify (or, on an SSLSocket, an RST)
        return "eof"
    return "error"


class BioTLSSocket:
    """The TLS client side over ssl.MemoryBIO on a plain TCP socket, with the socket calls
    H2Client makes. Unlike ssl.SSLSocket it reports what TCP did at the end: recv raises
    ConnectionResetError on a TCP RST and returns b"" on a FIN or a TLS close_notify
    (tls_close_notify tells which)."""

    def __init__(self, raw: socket.socket, ctx: ssl.SSLContext, server_hostname: str):
        self.raw = raw
        self._in, self._out = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.obj = ctx.wrap_bio(self._in, self._out, server_hostname=server_hostname)
        self.tcp_eof = False
        self.tls_close_notify = False
        while True:
            try:
                self.obj.do_handshake()
                break
            except ssl.SSLWantReadError:
                self._push()
                chunk = self.raw.recv(65536)
                if not chunk:
                    raise ConnectionError("TCP connection closed during the TLS handshake")
                self._in.write(chunk)
        self._push()

    def _push(self):
        data = memoryview(self._out.read())
        deadline = time.monotonic() + (self.raw.gettimeout() or 10.0)
        while data:
            try:
                sent = self.raw.send(data)
                data = data[sent:]
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError("send stalled")
                select.select([], [self.raw], [], 0.05)

    def setblocking(self, flag: bool):
        self.raw.setblocking(flag)

    def fileno(self) -> int:
        return self.raw.fileno()

    def getsockname(self):
        return self.raw.getsockname()

    def selected_alpn_protocol(self):
        return self.obj.selected_alpn_protocol()

    def pending(self) -> int:
        return self.obj.pending()

    def send(self, data) -> int:
        n = self.obj.write(data)
        self._push()
        return n

    def sendall(self, data):
        view = memoryview(data)
        while view:
            view = view[self.send(view):]

    def _read_records(self, n: int) -> bytes:
        """Every complete record buffered (so that none waits unseen by select); b"" at the end."""
        out = bytearray()
        while len(out) < n:
            try:
                data = self.obj.read(n - len(out))
            except ssl.SSLWantReadError:
                if out or not self.tcp_eof:
                    break
                return b""
            except ssl.SSLZeroReturnError:
                self.tls_close_notify = True
                break
            except ssl.SSLEOFError:
                break  # TCP FIN without close_notify
            if not data:
                break
            out += data
        if not out and not (self.tcp_eof or self.tls_close_notify):
            raise ssl.SSLWantReadError("no complete TLS record yet")
        return bytes(out)

    def recv(self, n: int) -> bytes:
        while True:
            try:
                return self._read_records(n)
            except ssl.SSLWantReadError:
                pass
            try:
                chunk = self.raw.recv(65536)  # ConnectionResetError on a TCP RST
            except BlockingIOError:
                raise ssl.SSLWantReadError("no TLS record yet") from None
            if not chunk:
                self.tcp_eof = True
                self._in.write_eof()
            else:
                self._in.write(chunk)

    def close(self):
        self.raw.close()


class H2Client:
    """A frame-aware HTTP/2 client: hyper-h2 for the protocol, plus a log of every raw frame received."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        tls: bool = True,
        alpn: tuple | None = ("h2",),
        server_hostname: str = "localhost",
        timeout: float = 10.0,
        client_cert: tuple | None = None,
        tls_bio: bool = False,
    ):
        """client_cert: (certificate PEM, key PEM) presented for mutual TLS.

        tls_bio: run TLS over memory BIOs on a socket this client reads itself (BioTLSSocket), so
        that close_kind tells a TCP RST ("reset") from a FIN ("eof") on TLS connections too
        (ssl.SSLSocket with OpenSSL 3 reports a reset during a read as a ragged EOF)."""
        if h2 is None:
            raise RuntimeError(f"the h2 package is required: pip install h2 ({H2_IMPORT_ERROR})")
        self.timeout = timeout
        raw = socket.create_connection((host, port), timeout=timeout)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.alpn = None
        if tls:
            ctx = ssl.create_default_context(cafile=str(CA_PEM))
            if alpn:
                ctx.set_alpn_protocols(list(alpn))
            if client_cert:
                ctx.load_cert_chain(str(client_cert[0]), str(client_cert[1]))
            if tls_bio:
                self.sock = BioTLSSocket(raw, ctx, server_hostname)
            else:
                self.sock = ctx.wrap_socket(raw, server_hostname=server_hostname)
            self.alpn = self.sock.selected_alpn_protocol()
        else:
            self.sock = raw
        self.sock.setblocking(False)
        self.frames: list[RawFrame] = []
        self._rawbuf = b""
        self.closed = False
        self.raw = False  # see enter_raw_mode
        self.raw_after_goaway = False
        self._raw_block = None
        self._raw_last_sid = 0
        # How the connection ended, seen from this socket: None while open (or closed by us),
        # "eof" for an orderly end (TCP FIN), "reset" for ECONNRESET (TCP RST), "error" otherwise.
        self.close_kind: str | None = None
        self.close_error: BaseException | None = None
        self.closed_at: float | None = None
        self.write_error: BaseException | None = None
        self.goaway = None  # h2.events.ConnectionTerminated
        self.ping_acks: list[bytes] = []
        self.remote_settings_events = []
        self.responses: dict[int, H2Response] = {}
        self._outgoing: dict[int, bytearray] = {}
        self.conn = h2.connection.H2Connection(
            config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
        )
        self.conn.initiate_connection()
        self._flush()

    # ---- I/O -----------------------------------------------------------------------------
    def _flush(self):
        data = self.conn.data_to_send()
        view = memoryview(data)
        deadline = time.monotonic() + self.timeout
        while view:
            try:
                sent = self.sock.send(view)
                view = view[sent:]
            except (ssl.SSLWantWriteError, ssl.SSLWantReadError, BlockingIOError):
                if time.monotonic() > deadline:
                    raise TimeoutError("send stalled")
                select.select([], [self.sock], [], 0.05)
            except (BrokenPipeError, ConnectionResetError) as exc:
                self._mark_closed(_close_kind(exc), exc)
                return
            except (ssl.SSLError, OSError) as exc:
                # the peer is gone; the next read tells how (close_kind), so do not decide here
                self.write_error = exc
                return

    def _mark_closed(self, kind: str, error: BaseException | None):
        self.closed = True
        if self.close_kind is None:
            self.close_kind, self.close_error, self.closed_at = kind, error, time.monotonic()

    def _record_frames(self, data: bytes) -> list:
        """Log the complete frames in data; returns them as (RawFrame, wire bytes) pairs."""
        self._rawbuf += data
        complete = []
        while len(self._rawbuf) >= 9:
            length = int.from_bytes(self._rawbuf[0:3], "big")
            if len(self._rawbuf) < 9 + length:
                break
            ftype, flags = self._rawbuf[3], self._rawbuf[4]
            sid = int.from_bytes(self._rawbuf[5:9], "big") & 0x7FFFFFFF
            frame = RawFrame(ftype, flags, sid, bytes(self._rawbuf[9 : 9 + length]), time.monotonic())
            self.frames.append(frame)
            complete.append((frame, bytes(self._rawbuf[: 9 + length])))
            self._rawbuf = self._rawbuf[9 + length :]
        return complete

    def _receive_once(self, wait: float) -> bool:
        """Read what is available (waiting up to `wait` s); returns False when nothing arrived."""
        if self.closed:
            return False
        pending = getattr(self.sock, "pending", None)  # ssl.SSLSocket, BioTLSSocket
        if not (pending is not None and pending()):
            ready, _, _ = select.select([self.sock], [], [], wait)
            if not ready:
                return False
        try:
            data = self.sock.recv(1 << 20)
        except (ssl.SSLWantReadError, BlockingIOError):
            return True
        except (ConnectionResetError, ssl.SSLError, OSError) as exc:
            self._mark_closed(_close_kind(exc), exc)
            return False
        if not data:
            self._mark_closed("eof", None)
            return False
        complete = self._record_frames(data)
        if self.raw or self.raw_after_goaway:
            # frame by frame, so that hyper-h2 sees exactly the frames before the switch to raw mode
            for frame, wire in complete:
                if self.raw:
                    self._raw_handle(frame)
                    continue
                try:
                    events = self.conn.receive_data(wire)
                except h2.exceptions.ProtocolError:
                    self.closed = True
                    raise
                for ev in events:
                    self._handle(ev)
                if frame.type == FRAME_GOAWAY:
                    self._flush()
                    self.raw = True
            self._flush()
            return True
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.ProtocolError:
            self.closed = True
            raise
        for ev in events:
            self._handle(ev)
        self._flush()
        return True

    # ---- raw mode: frames decoded here instead of by hyper-h2 ------------------------------
    # hyper-h2 refuses frames after a GOAWAY and never exceeds the peer's stream limit; fault tests
    # need both (streams answered after a GOAWAY, HEADERS sent after it or over the limit). In raw
    # mode this client decodes HEADERS (with hyper-h2's HPACK decoder, so its table stays in step),
    # DATA, RST_STREAM and GOAWAY itself, ACKs SETTINGS and PING, and sends requests with
    # send_raw_request. Set raw_after_goaway to switch right after the first GOAWAY frame, or
    # call enter_raw_mode() to switch now.

    def enter_raw_mode(self):
        self._send_pending_data()
        self.raw = True

    def _raw_write(self, data: bytes):
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError) as exc:
            self._mark_closed(_close_kind(exc), exc)
        except (ssl.SSLError, OSError) as exc:
            self._mark_closed("error", exc)

    @staticmethod
    def _strip_padding(frame: RawFrame) -> bytes:
        payload = frame.payload
        if frame.flags & 0x8:  # PADDED
            pad = payload[0]
            payload = payload[1 : len(payload) - pad]
        return payload

    def _raw_handle(self, frame: RawFrame):
        now = frame.at
        if frame.type in (FRAME_HEADERS, FRAME_CONTINUATION):
            if frame.type == FRAME_HEADERS:
                payload = self._strip_padding(frame)
                if frame.flags & 0x20:  # PRIORITY
                    payload = payload[5:]
                self._raw_block = (frame.stream_id, frame.flags, bytearray(payload))
            elif self._raw_block is not None:
                self._raw_block[2].extend(frame.payload)
            if frame.flags & FLAG_END_HEADERS and self._raw_block is not None:
                sid, hflags, block = self._raw_block
                self._raw_block = None
                decoded = self.conn.decoder.decode(bytes(block), raw=False)
                r = self.responses.setdefault(sid, H2Response(sid))
                if not r.headers:
                    r.headers = [(n, v) for n, v in decoded]
                if hflags & FLAG_END_STREAM:
                    r.headers_end_stream = True
                    r.done, r.finished_at = True, now
        elif frame.type == FRAME_DATA:
            r = self.responses.setdefault(frame.stream_id, H2Response(frame.stream_id))
            r.body += self._strip_padding(frame)
            r.data_frames += 1
            if frame.flags & FLAG_END_STREAM:
                r.done, r.finished_at = True, now
        elif frame.type == FRAME_RST_STREAM:
            r = self.responses.setdefault(frame.stream_id, H2Response(frame.stream_id))
            r.reset = int.from_bytes(frame.payload[0:4], "big")
            r.done, r.finished_at = True, now
        elif frame.type == FRAME_GOAWAY:
            ev = h2.events.ConnectionTerminated()
            ev.last_stream_id = int.from_bytes(frame.payload[0:4], "big") & 0x7FFFFFFF
            ev.error_code = int.from_bytes(frame.payload[4:8], "big")
            ev.additional_data = frame.payload[8:]
            if self.goaway is None:
                self.goaway = ev
        elif frame.type == FRAME_SETTINGS and not frame.flags & FLAG_ACK:
            self._raw_write(raw_frame(FRAME_SETTINGS, FLAG_ACK, 0, b""))
        elif frame.type == FRAME_PING and not frame.flags & FLAG_ACK:
            self._raw_write(raw_frame(FRAME_PING, FLAG_ACK, 0, frame.payload))
        elif frame.type == FRAME_PING:
            self.ping_acks.append(frame.payload)

    def send_raw_request(self, headers, body: bytes | None = None) -> int:
        """Send HEADERS (HPACK literals, no table changes) and DATA on the next client stream id,
        behind hyper-h2's back: for raw mode, or to see what a server does with a stream after its
        GOAWAY. Returns the stream id."""
        last = max(self.conn.highest_outbound_stream_id or 0, self._raw_last_sid)
        sid = last + 2 if last > 0 else 1
        self._raw_last_sid = sid
        self.conn.highest_outbound_stream_id = sid
        self.responses[sid] = H2Response(sid)
        block = b"".join(hpack_literal(n, v) for n, v in headers)
        flags = FLAG_END_HEADERS | (0 if body else FLAG_END_STREAM)
        data = raw_frame(FRAME_HEADERS, flags, sid, block)
        if body:
            data += raw_frame(FRAME_DATA, FLAG_END_STREAM, sid, body)
        self._raw_write(data)
        return sid

    def wait_closed(self, timeout: float) -> bool:
        """Read (and log) frames until the peer ends the connection; False if it is still open
        after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not self.closed:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            self._receive_once(min(remaining, 0.2))
        return True

    def _handle(self, ev):
        now = time.monotonic()
        if isinstance(ev, h2.events.ResponseReceived):
            r = self.responses.setdefault(ev.stream_id, H2Response(ev.stream_id))
            r.headers = [(n, v) for n, v in ev.headers]
            if ev.stream_ended is not None:
                r.headers_end_stream = True
        elif isinstance(ev, h2.events.DataReceived):
            r = self.responses.setdefault(ev.stream_id, H2Response(ev.stream_id))
            r.body += ev.data
            r.data_frames += 1
            if ev.flow_controlled_length:
                try:
                    self.conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                except h2.exceptions.StreamClosedError:
                    pass
        elif isinstance(ev, h2.events.StreamEnded):
            r = self.responses.setdefault(ev.stream_id, H2Response(ev.stream_id))
            r.done = True
            r.finished_at = now
            self._outgoing.pop(ev.stream_id, None)
        elif isinstance(ev, h2.events.StreamReset):
            r = self.responses.setdefault(ev.stream_id, H2Response(ev.stream_id))
            r.reset = ev.error_code
            r.done = True
            r.finished_at = now
            self._outgoing.pop(ev.stream_id, None)
        elif isinstance(ev, h2.events.ConnectionTerminated):
            self.goaway = ev
        elif isinstance(ev, h2.events.PingAckReceived):
            self.ping_acks.append(ev.ping_data)
        elif isinstance(ev, h2.events.RemoteSettingsChanged):
            self.remote_settings_events.append(ev)

    def _send_pending_data(self):
        for sid in list(self._outgoing):
            buf = self._outgoing[sid]
            while True:
                try:
                    window = self.conn.local_flow_control_window(sid)
                except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
                    self._outgoing.pop(sid, None)
                    break
                n = min(len(buf), window, self.conn.max_outbound_frame_size)
                if n <= 0 and buf:
                    break
                chunk = bytes(buf[:n])
                del buf[:n]
                try:
                    self.conn.send_data(sid, chunk, end_stream=not buf)
                except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
                    self._outgoing.pop(sid, None)
                    break
                if not buf:
                    self._outgoing.pop(sid, None)
                    break
        self._flush()

    def pump(self, until, timeout: float | None = None):
        """Exchange frames until until() is true; raises TimeoutError otherwise."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            self._send_pending_data()
            if until():
                return
            if self.closed:
                if until():
                    return
                raise ConnectionError("connection closed before the condition held")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("HTTP/2 exchange timed out")
            self._receive_once(min(remaining, 0.5))

    # ---- requests --------------------------------------------------------------------------
    def start_request(self, headers, body: bytes | None = None) -> int:
        sid = self.conn.get_next_available_stream_id()
        self.responses[sid] = H2Response(sid)
        self.conn.send_headers(sid, headers, end_stream=body is None or len(body) == 0)
        if body:
            self._outgoing[sid] = bytearray(body)
        self._send_pending_data()
        return sid

    def request(self, headers, body: bytes | None = None, timeout: float | None = None) -> H2Response:
        sid = self.start_request(headers, body)
        self.pump(lambda: self.responses[sid].done, timeout)
        return self.responses[sid]

    def run_many(self, requests, concurrency: int = 100, timeout: float = 30.0) -> list[H2Response]:
        """Send (headers, body) pairs pipelined with at most `concurrency` open streams."""
        pending = list(enumerate(requests))
        pending.reverse()
        results: list[H2Response | None] = [None] * len(requests)
        inflight: dict[int, int] = {}
        deadline = time.monotonic() + timeout

        def collect():
            for sid in [s for s in inflight if self.responses[s].done]:
                results[inflight.pop(sid)] = self.responses[sid]

        while pending or inflight:
            while pending and len(inflight) < concurrency:
                idx, (headers, body) = pending.pop()
                inflight[self.start_request(headers, body)] = idx
            collect()
            if not inflight:
                continue
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(inflight)} streams unanswered after {timeout}s")
            if self.closed:
                raise ConnectionError(f"connection closed with {len(inflight)} streams unanswered")
            self._receive_once(0.2)
            self._send_pending_data()
            collect()
        return results  # type: ignore[return-value]

    def send_in_one_write(self, requests) -> list[int]:
        """Send (headers, body) pairs as HEADERS+DATA frames in a single socket write, so the
        server reads them together; returns their stream ids."""
        sids = []
        for headers, body in requests:
            sid = self.conn.get_next_available_stream_id()
            self.responses[sid] = H2Response(sid)
            self.conn.send_headers(sid, headers)
            self.conn.send_data(sid, body, end_stream=True)
            sids.append(sid)
        self._flush()
        return sids

    def ping(self, data: bytes = b"livetest", timeout: float | None = None):
        self.conn.ping(data)
        self._flush()
        self.pump(lambda: data in self.ping_acks, timeout)

    def wait_for_settings(self, timeout: float | None = None):
        self.pump(lambda: any(f.type == FRAME_SETTINGS and not f.flags & FLAG_ACK for f in self.frames), timeout)

    def first_server_settings(self) -> list[tuple[int, int]]:
        frames = [f for f in self.frames if f.type == FRAME_SETTINGS and not f.flags & FLAG_ACK]
        assert frames, "no SETTINGS frame received"
        return parse_settings(frames[0].payload)

    def frames_for(self, sid: int) -> list[RawFrame]:
        return [f for f in self.frames if f.stream_id == sid]

    def close(self):
        try:
            if not self.closed:
                self.conn.close_connection()
                self._flush()
        except Exception:
            pass
        try:
            self.sock.close()
        except Exception:
            pass


def apns_headers(
    token: str = TOKEN,
    *,
    topic: str | None = TOPIC,
    push_type: str | None = "alert",
    method: str = "POST",
    path: str | None = None,
    authority: str = "localhost",
    scheme: str = "https",
    extra=(),
) -> list[tuple[str, str]]:
    headers = [
        (":method", method),
        (":scheme", scheme),
        (":authority", authority),
        (":path", path if path is not None else f"/3/device/{token}"),
    ]
    if topic is not None:
        headers.append(("apns-topic", topic))
    if push_type is not None:
        headers.append(("apns-push-type", push_type))
    headers.extend(extra)
    return headers


def h2_client_for(listener: Listener, **kw) -> H2Client:
    return H2Client(listener.host, listener.port, tls=not listener.plaintext, **kw)


# --------------------------------------------------------------------------------------------
# Server factory (used by the fixtures in conftest.py)
# --------------------------------------------------------------------------------------------


def _stop_all(servers: list[MockServer]) -> list[str]:
    """SIGTERM every server at once; return a failure message per server that did not exit 0 in time."""
    outcomes: dict[int, tuple] = {}

    def stop(i, server):
        outcomes[i] = server.stop()

    threads = [threading.Thread(target=stop, args=(i, s)) for i, s in enumerate(servers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    failures = []
    for i, server in enumerate(servers):
        rc, took = outcomes[i]
        if rc != 0:
            what = "did not exit within 10 s of SIGTERM (killed)" if rc is None else f"exited {rc}"
            failures.append(
                f"mock-apns {server.args} {what}; stderr tail: {server.stderr_text()[-800:]!r}"
            )
    return failures


class ServerFactory:
    """Starts mock-apns processes on free ports; every one is stopped with SIGTERM at teardown."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.servers: list[MockServer] = []
        self._n = 0

    def __call__(
        self,
        *args: str,
        config: dict | str | None = None,
        listen: str | None = "127.0.0.1:0",
        control: str | None = "127.0.0.1:0",
        tls: bool = True,
        expect_listeners: int = 1,
        expect_control: bool | None = None,
        launcher: tuple[str, ...] = (),
    ) -> MockServer:
        argv: list[str] = []
        if config is not None:
            self._n += 1
            path = self.workdir / f"config-{self._n}.json"
            path.write_text(config if isinstance(config, str) else json.dumps(config, indent=2))
            argv += ["--config", str(path)]
        if listen is not None:
            argv += ["--listen", listen]
        if control is not None:
            argv += ["--control", control]
        if tls and listen is not None and "--plaintext" not in args:
            argv += ["--tls-cert", str(SERVER_PEM), "--tls-key", str(SERVER_KEY)]
        argv += list(args)
        server = MockServer(
            argv, workdir=self.workdir, expect_listeners=expect_listeners,
            expect_control=(control != "off") if expect_control is None else expect_control,
            launcher=launcher,
        )
        self.servers.append(server)
        return server

    def stop_all(self) -> list[str]:
        failures = _stop_all(self.servers)
        self.servers.clear()
        return failures


def run_alongside(workers, background, done: threading.Event) -> None:
    """Starts every thread of `workers` and `background`, waits for the workers, sets `done` (the
    background threads' signal to stop) and waits for the background threads."""
    for t in [*workers, *background]:
        t.start()
    for t in workers:
        t.join()
    done.set()
    for t in background:
        t.join()


def rss_kib(pid: int) -> int:
    """The resident set size of process `pid` in KiB (`VmRSS` in /proc/<pid>/status)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS line")


def connection_entry(server, client):
    """The client's entry in GET /v1/connections, matched by its local address (the server's peer)."""
    host, port = client.sock.getsockname()[:2]
    conns = server.get_json("/v1/connections")["connections"]
    mine = [c for c in conns if c["peer"] == f"{host}:{port}"]
    assert len(mine) == 1, (f"{host}:{port}", conns)
    return mine[0]


def wait_no_connections(server, timeout: float = 3.0):
    """Until the server lists no open APNs connection (a record is final once its connection is
    gone), or `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while server.get_json("/v1/connections")["connections"] and time.monotonic() < deadline:
        time.sleep(0.02)
