"""Starvation and exhaustion (issue 19 §3): with one abusive client running, a well-behaved
client on its own connection keeps getting its pushes answered within a bound, and the server's
memory stays bounded.

Each abuser runs in a child process (so that its loop does not share the test's interpreter lock
with the client being timed) for a bounded time or count. The good client sends pushes one at a
time on one HTTP/2 connection and times each answer; the bound is the p99 of those answers.
"""

from __future__ import annotations

import multiprocessing
import os
import socket
import ssl
import time
import urllib.request

import pytest

from livelib import CA_PEM, TOKEN, apns_headers, h2_client_for, hpack_literal, raw_frame, rss_kib

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
FRAME_HEADERS, FRAME_RST_STREAM, FRAME_SETTINGS, FRAME_PING, FRAME_WINDOW_UPDATE = 0x1, 0x3, 0x4, 0x6, 0x8
END_STREAM, END_HEADERS = 0x1, 0x4
# p99 of a good client's push answers while an abuser runs (issue 19 §3: 50 ms). The machine the
# suite runs on is shared (2 cores, other jobs); MOCK_APNS_STARVATION_P99_MS raises it there.
P99_BOUND_MS = float(os.environ.get("MOCK_APNS_STARVATION_P99_MS", "50"))
# Growth of the server's resident set while an abuser runs.
RSS_BOUND_KIB = 200 * 1024
ABUSE_SECONDS = 4.0
BODY = b'{"aps":{"alert":"good"}}'


def good_client_p99(server, seconds: float) -> tuple[float, int]:
    """Pushes one at a time for `seconds` on one connection; (p99 in ms, pushes answered). Every
    answer must be a 200."""
    client = h2_client_for(server.listeners[0])
    try:
        client.request(apns_headers(), BODY)  # the handshake and first stream are not timed
        latencies = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            start = time.monotonic()
            response = client.request(apns_headers(), BODY, timeout=10)
            latencies.append((time.monotonic() - start) * 1000)
            assert response.status == 200, response
    finally:
        client.close()
    latencies.sort()
    return latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))], len(latencies)


def tls_socket(host: str, port: int) -> ssl.SSLSocket:
    ctx = ssl.create_default_context(cafile=str(CA_PEM))
    ctx.set_alpn_protocols(["h2"])
    raw = socket.create_connection((host, port), timeout=5)
    return ctx.wrap_socket(raw, server_hostname="localhost")


def headers_block(token: str = TOKEN) -> bytes:
    return b"".join(hpack_literal(n, v) for n, v in apns_headers(token))


def send_until(sock, chunk: bytes, deadline: float) -> int:
    """Writes `chunk` over and over, never reading, until `deadline` or until the server stops
    taking bytes for 1 s or closes; returns the bytes written."""
    sock.settimeout(1.0)
    sent = 0
    while time.monotonic() < deadline:
        try:
            sock.sendall(chunk)
        except (socket.timeout, OSError):
            break
        sent += len(chunk)
    return sent


def abuse(kind: str, host: str, port: int, control_port: int, seconds: float) -> None:
    """The abusive client, run in a child process."""
    deadline = time.monotonic() + seconds
    held = []
    try:
        if kind == "pre-handshake":
            # 1,000 TLS connections that never finish the handshake: half send nothing, half the
            # first bytes of a ClientHello.
            for i in range(1000):
                sock = socket.create_connection((host, port), timeout=5)
                if i % 2:
                    sock.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
                held.append(sock)
            time.sleep(max(0.0, deadline - time.monotonic()))
        elif kind == "control-trickle":
            # 200 control clients sending their request headers one byte at a time.
            request = b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 4096
            for _ in range(200):
                held.append(socket.create_connection(("127.0.0.1", control_port), timeout=5))
            offset = 0
            while time.monotonic() < deadline:
                for sock in held:
                    try:
                        sock.send(request[offset % len(request) : offset % len(request) + 1])
                    except OSError:
                        pass
                offset += 1
                time.sleep(0.2)
        elif kind == "control-long-polls":
            # 500 long polls held open (each waits 30 s for a push that never comes).
            for _ in range(500):
                sock = socket.create_connection(("127.0.0.1", control_port), timeout=5)
                sock.sendall(
                    b"GET /v1/deliveries/wait?token=" + b"cd" * 32 + b"&count=1&timeoutMs=30000 HTTP/1.1\r\n"
                    b"Host: localhost\r\n\r\n")
                held.append(sock)
            time.sleep(max(0.0, deadline - time.monotonic()))
        else:
            sock = tls_socket(host, port)
            held.append(sock)
            settings = b""
            if kind == "zero-window":
                settings = (0x4).to_bytes(2, "big") + (0).to_bytes(4, "big")  # INITIAL_WINDOW_SIZE 0
            sock.sendall(PREFACE + raw_frame(FRAME_SETTINGS, 0, 0, settings))
            if kind == "ping-flood":
                send_until(sock, raw_frame(FRAME_PING, 0, 0, b"abusive!") * 1000, deadline)
            elif kind == "settings-flood":
                send_until(sock, raw_frame(FRAME_SETTINGS, 0, 0, b"") * 1000, deadline)
            elif kind == "window-update-flood":
                send_until(sock, raw_frame(FRAME_WINDOW_UPDATE, 0, 0, (1).to_bytes(4, "big")) * 1000, deadline)
            elif kind in ("never-reads", "zero-window"):
                # Pushes with a bad token (400 with a JSON body) as fast as the server takes them,
                # never reading an answer.
                block = headers_block("zz")
                body = b'{"aps":{"alert":"abuse"}}'
                sid = 1
                while time.monotonic() < deadline and sid < 2**31 - 200:
                    batch = b""
                    for _ in range(100):
                        batch += raw_frame(FRAME_HEADERS, END_HEADERS, sid, block)
                        batch += raw_frame(0x0, END_STREAM, sid, body)
                        sid += 2
                    if send_until(sock, batch, time.monotonic() + 0.001) == 0:
                        break
                time.sleep(max(0.0, deadline - time.monotonic()))
            elif kind == "rapid-reset":
                # Each stream opened with a whole push and reset at once (CVE-2023-44487).
                block = headers_block()
                sid = 1
                while time.monotonic() < deadline and sid < 2**31 - 200:
                    batch = b""
                    for _ in range(100):
                        batch += raw_frame(FRAME_HEADERS, END_HEADERS | END_STREAM, sid, block)
                        batch += raw_frame(FRAME_RST_STREAM, 0, sid, (8).to_bytes(4, "big"))  # CANCEL
                        sid += 2
                    if send_until(sock, batch, time.monotonic() + 0.001) == 0:
                        break
                time.sleep(max(0.0, deadline - time.monotonic()))
            else:
                raise AssertionError(kind)
    finally:
        for sock in held:
            sock.close()


ABUSERS = [
    "pre-handshake", "control-trickle", "control-long-polls", "ping-flood", "settings-flood",
    "window-update-flood", "never-reads", "zero-window", "rapid-reset",
]


@pytest.mark.parametrize("kind", ABUSERS)
def test_one_abusive_client_does_not_starve_a_good_one(server_factory, kind):
    server = server_factory("--max-records", "20000")
    listener = server.listeners[0]
    control_port = int(server.control_url.rsplit(":", 1)[1])
    rss_before = rss_kib(server.proc.pid)
    child = multiprocessing.get_context("fork").Process(
        target=abuse, args=(kind, listener.host, listener.port, control_port, ABUSE_SECONDS))
    child.start()
    try:
        time.sleep(1.0)  # the abuse under way
        p99, answered = good_client_p99(server, ABUSE_SECONDS - 1.5)
        health_start = time.monotonic()
        with urllib.request.urlopen(server.control_url + "/v1/health", timeout=5) as resp:
            assert resp.status == 200
        health_ms = (time.monotonic() - health_start) * 1000
        rss_growth = rss_kib(server.proc.pid) - rss_before
    finally:
        child.join(ABUSE_SECONDS + 30)
        if child.is_alive():
            child.kill()
    print(f"{kind}: good client p99 {p99:.1f} ms over {answered} pushes, /v1/health {health_ms:.1f} ms, "
          f"RSS +{rss_growth // 1024} MiB")
    assert child.exitcode == 0, f"the abuser failed ({child.exitcode})"
    assert answered >= 20, answered
    assert p99 < P99_BOUND_MS, f"{kind}: p99 {p99:.1f} ms"
    assert health_ms < 500, f"{kind}: /v1/health took {health_ms:.1f} ms"
    assert rss_growth < RSS_BOUND_KIB, f"{kind}: RSS grew {rss_growth} KiB"
    assert server.alive()
