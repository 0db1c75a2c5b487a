"""The control port's limits (issue 19 §5): the request line and headers at most 1 MiB, the body
at most 1 MiB, and a connection silent for --control-idle-timeout seconds (default 30) while its
request is read, or between requests, is closed; a long poll being answered is not."""

from __future__ import annotations

import os
import socket
import time
import urllib.request


def control_address(server) -> tuple[str, int]:
    host, port = server.control_url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def cpu_seconds(server) -> float:
    fields = open(f"/proc/{server.proc.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def send_and_read(server, data: bytes) -> tuple[bytes, float]:
    """Sends `data` (stopping when the server closes) and reads the answer: (answer, seconds)."""
    with socket.create_connection(control_address(server), timeout=5) as sock:
        start = time.monotonic()
        try:
            for offset in range(0, len(data), 65536):
                sock.sendall(data[offset:offset + 65536])
        except OSError:
            pass  # closed by the server: what it answered is still to be read
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except OSError:
            pass
        return answer, time.monotonic() - start


def healthy(server) -> bool:
    with urllib.request.urlopen(server.control_url + "/v1/health", timeout=5) as resp:
        return resp.status == 200


def test_a_40_mb_query_string_is_refused_fast(server_factory):
    server = server_factory()
    before = cpu_seconds(server)
    target = b"/v1/deliveries?token=" + b"a" * (40 * 1024 * 1024)
    answer, seconds = send_and_read(server, b"GET " + target + b" HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert seconds < 1.0, f"took {seconds:.2f} s"
    assert answer == b"" or answer.split(b" ", 2)[1].startswith(b"4"), answer[:200]
    assert cpu_seconds(server) - before < 1.0
    assert healthy(server)


def test_headers_over_1_mib_are_refused_and_under_are_served(server_factory):
    server = server_factory()
    big = b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\nX-Filler: " + b"v" * (1100 * 1024) + b"\r\n\r\n"
    answer, _ = send_and_read(server, big)
    assert answer == b"" or answer.split(b" ", 2)[1].startswith(b"4"), answer[:200]
    fits = b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Filler: " + b"v" * (900 * 1024) + b"\r\n\r\n"
    answer, _ = send_and_read(server, fits)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]


def test_a_silent_client_is_closed_after_the_idle_timeout(server_factory):
    server = server_factory("--control-idle-timeout", "1")
    silent = socket.create_connection(control_address(server), timeout=5)
    partial = socket.create_connection(control_address(server), timeout=5)
    partial.sendall(b"GET /v1/health HTTP/1.1\r\nHost: local")  # never finished
    start = time.monotonic()
    try:
        assert silent.recv(100) == b""
        closed_after = time.monotonic() - start
        assert 0.5 < closed_after < 3.0, closed_after
        answer = partial.recv(300)
        assert answer == b"" or answer.split(b" ", 2)[1].startswith(b"4"), answer
        assert time.monotonic() - start < 3.0, "the half-sent request is dropped as soon"
    finally:
        silent.close()
        partial.close()
    assert healthy(server)


def test_a_long_poll_outlives_the_idle_timeout(server_factory):
    server = server_factory("--control-idle-timeout", "1")
    start = time.monotonic()
    url = server.control_url + "/v1/deliveries/wait?token=" + "ab" * 32 + "&timeoutMs=2500"
    with urllib.request.urlopen(url, timeout=10) as resp:
        assert resp.status == 200
        body = resp.read()
    assert b'"complete":false' in body.replace(b" ", b""), body[:200]
    assert time.monotonic() - start >= 2.4
