"""The long-poll GET /v1/deliveries/wait: latency, timeout, and a client that goes away."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request
import uuid

from livelib import apns_headers, h2_client_for


def tok() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


def test_wait_answers_within_50ms_of_the_push(server):
    token = tok()
    client = h2_client_for(server.listener)  # connected before the clock starts
    client.ping()
    result = {}

    def waiter():
        url = f"{server.control_url}/v1/deliveries/wait?count=1&timeoutMs=5000&token={token}"
        result["started"] = time.monotonic()
        with urllib.request.urlopen(url, timeout=10) as resp:
            result["status"] = resp.status
            result["body"] = json.loads(resp.read())
        result["done"] = time.monotonic()

    thread = threading.Thread(target=waiter)
    thread.start()
    time.sleep(0.3)
    assert "done" not in result, "the wait answered before any matching push"
    sent_at = time.monotonic()
    resp = client.request(apns_headers(token), b'{"aps":{"alert":"wake"}}')
    answered_at = resp.finished_at
    client.close()
    thread.join(10)
    assert not thread.is_alive()
    assert resp.status == 200
    assert result["status"] == 200
    body = result["body"]
    assert body["complete"] is True and body["count"] == 1 and body["matched"] == 1, body
    assert [d["deviceToken"] for d in body["deliveries"]] == [token]
    assert body["deliveries"][0]["apnsId"] == resp.header("apns-id")
    assert result["done"] >= sent_at, "wait answered before the push was sent"
    lag = result["done"] - answered_at
    print(f"wait lag after push response: {lag * 1000:.2f} ms")
    assert lag <= 0.050, f"wait answered {lag * 1000:.1f} ms after the push response (limit 50 ms)"
    assert result["done"] - result["started"] >= 0.29


def test_wait_timeout_returns_partial(server):
    token = tok()
    assert server.push(token).status == 200  # one match exists already
    start = time.monotonic()
    r = server.get(f"/v1/deliveries/wait?count=2&timeoutMs=200&token={token}")
    took = time.monotonic() - start
    assert r.status == 200, r.body
    body = r.json
    assert body["complete"] is False and body["count"] == 2 and body["matched"] == 1, body
    assert [d["deviceToken"] for d in body["deliveries"]] == [token]
    assert 0.19 <= took <= 0.6, f"timeoutMs=200 answered after {took * 1000:.0f} ms"

    # nothing matched at all
    start = time.monotonic()
    r = server.get(f"/v1/deliveries/wait?count=1&timeoutMs=200&token={tok()}")
    took = time.monotonic() - start
    assert r.status == 200 and r.json["complete"] is False and r.json["matched"] == 0 and r.json["deliveries"] == []
    assert 0.19 <= took <= 0.6, took

    # timeoutMs=0 answers at once, already complete when enough matched
    start = time.monotonic()
    r = server.get(f"/v1/deliveries/wait?count=1&timeoutMs=0&token={token}")
    assert r.status == 200 and r.json["complete"] is True and r.json["matched"] == 1
    assert time.monotonic() - start < 0.2


def test_wait_client_disconnect_does_not_crash(server):
    host, port = server.control_url.removeprefix("http://").rsplit(":", 1)
    token = tok()
    # several waiters that vanish: closed right after sending, half-closed, and reset (SO_LINGER 0)
    for mode in ("close", "shutdown", "reset"):
        s = socket.create_connection((host, int(port)), timeout=5)
        s.sendall(f"GET /v1/deliveries/wait?count=1&timeoutMs=300&token={token} HTTP/1.1\r\n"
                  f"Host: {host}\r\n\r\n".encode())
        if mode == "shutdown":
            s.shutdown(socket.SHUT_WR)
        if mode == "reset":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()
    # the push completes those waits while their sockets are gone; then their timeouts pass
    time.sleep(0.1)
    assert server.push(token).status == 200
    time.sleep(0.4)
    assert server.alive(), server.stderr_text()
    r = server.get(f"/v1/deliveries/wait?count=1&timeoutMs=1000&token={token}")
    assert r.status == 200 and r.json["complete"] is True and r.json["matched"] == 1
    assert server.get_json("/v1/health")["status"] == "ok"
    assert server.push(tok()).status == 200
    assert server.alive()


def close_wait_sockets(port: int) -> int:
    """Server-side sockets on `port` whose client has closed but the server has not (CLOSE_WAIT)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except FileNotFoundError:
            continue
        for line in lines:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port and fields[3] == "08":
                count += 1
    return count


def test_a_waiter_that_goes_away_frees_its_connection_at_once(server):
    host, port = server.control_url.removeprefix("http://").rsplit(":", 1)
    for path in ("/v1/deliveries/wait", "/v1/events/wait"):
        s = socket.create_connection((host, int(port)), timeout=5)
        s.sendall(f"GET {path}?count=1&timeoutMs=60000&token={tok()} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        time.sleep(0.05)  # the wait is pending
        s.close()
    deadline = time.monotonic() + 1
    while close_wait_sockets(int(port)) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert close_wait_sockets(int(port)) == 0, "a long poll kept its closed connection"


def test_a_half_closed_waiter_is_dismissed_at_once(server):
    """A client that half-closes may still read: it gets a short JSON answer, not the matches."""
    host, port = server.control_url.removeprefix("http://").rsplit(":", 1)
    token = tok()
    assert server.push(token).status == 200
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(f"GET /v1/deliveries/wait?count=2&timeoutMs=60000&token={token} HTTP/1.1\r\n"
                  f"Host: {host}\r\n\r\n".encode())
        s.shutdown(socket.SHUT_WR)
        started = time.monotonic()
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
    assert time.monotonic() - started < 2, "the half-closed wait ran to its timeout"
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 499"), head
    assert "closed its end" in json.loads(body)["error"]
