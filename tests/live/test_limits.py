"""Resource limits: what a hostile or broken client sends must not cost the server unbounded memory."""

from __future__ import annotations

import os
import resource
import socket
import time
import uuid

from livelib import TOPIC, apns_headers, h2_client_for, rss_kib


def tok() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


def test_huge_body_is_refused_without_being_kept(server):
    token = tok()
    client = h2_client_for(server.listener)
    try:
        before = rss_kib(server.proc.pid)
        responses = client.run_many([(apns_headers(token), b"x" * (20 * 1024 * 1024)) for _ in range(3)],
                                    concurrency=1, timeout=60)
        assert [r.status for r in responses] == [413, 413, 413]
        assert all(r.json() == {"reason": "PayloadTooLarge"} for r in responses)
        grown = rss_kib(server.proc.pid) - before
        assert grown < 30 * 1024, f"60 MB of bodies grew RSS by {grown} KiB"
    finally:
        client.close()
    record = server.deliveries(token=token)["deliveries"][0]
    assert record["payloadBytes"] == 20 * 1024 * 1024  # counted in full, though not kept
    assert record["reason"] == "PayloadTooLarge"
    assert server.push(tok(), body=b'{"aps":{"alert":"after"}}').status == 200


def test_header_list_over_the_advertised_limit_gets_431(server):
    client = h2_client_for(server.listener)
    try:
        headers = apns_headers(tok()) + [(f"x-filler-{i}", "v" * 200) for i in range(60)]  # ~14 KB > 8000
        response = client.request(headers, b'{"aps":{"alert":"x"}}')
        assert response.status == 431
        again = client.request(apns_headers(tok()), b'{"aps":{"alert":"x"}}')
        assert again.status == 200, "the connection stays usable"
    finally:
        client.close()


def cpu_seconds(server) -> float:
    fields = open(f"/proc/{server.proc.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_out_of_descriptors_the_control_port_pauses_instead_of_spinning(server_factory):
    """With every descriptor in use, accept() fails at once on each loop turn: both ports must back
    off (no busy loop, no log flood) and serve again once descriptors are free."""
    server = server_factory()
    resource.prlimit(server.proc.pid, resource.RLIMIT_NOFILE, (64, 64))
    host, port = server.control_url.removeprefix("http://").rsplit(":", 1)
    stderr_before = len(server.stderr_text())
    hogs = []
    try:
        for _ in range(80):  # more than the server has descriptors for
            hogs.append(socket.create_connection((server.listener.host, server.listener.port), timeout=5))
        waiting = socket.create_connection((host, int(port)), timeout=5)  # sits in the backlog
        waiting.sendall(f"GET /v1/health HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        time.sleep(0.3)
        before = cpu_seconds(server)
        time.sleep(1.0)
        used = cpu_seconds(server) - before
        assert used < 0.3, f"the server used {used:.2f} s of CPU in 1 s while out of descriptors"
        assert len(server.stderr_text()) - stderr_before < 20_000, "the server flooded its log"
    finally:
        for hog in hogs:
            hog.close()
    waiting.settimeout(5)
    answer = waiting.recv(65536)
    waiting.close()
    assert answer.startswith(b"HTTP/1.1 200"), answer[:100]
    assert server.get_json("/v1/health")["status"] == "ok"


def test_gateways_are_refused_503_before_descriptors_run_out_and_the_control_api_still_answers(server_factory):
    """Under an open-file limit of 128 (soft) and 256 (hard): the server raises its soft limit to 256
    and says so, reports both figures in /v1/health, makes gateways until only the reserve (64) is
    left, then answers 503 with a JSON message; out of descriptors, accept() failures are logged about
    once a second, not in a loop."""
    server = server_factory(launcher=("prlimit", "--nofile=128:256"))
    assert "open-file limit 256 (soft limit was 128)" in server.stderr_text()
    health = server.get_json("/v1/health")
    assert health["openFileLimit"] == 256 and 0 < health["openFiles"] < 64, health
    made, refused = [], None
    for _ in range(300):
        answer = server.control("POST", "/v1/gateways", {"ttlSeconds": 0})
        if answer.status != 201:
            refused = answer
            break
        made.append(answer.json["id"])
    assert refused is not None and refused.status == 503, (len(made), refused and refused.body)
    assert "file descriptors" in refused.json["error"] and "ulimit -n" in refused.json["error"], refused.body
    assert 100 < len(made) < 192, len(made)
    health = server.get_json("/v1/health")
    assert health["status"] == "ok" and 188 <= health["openFiles"] <= 196, health
    assert server.control("DELETE", f"/v1/gateways/{made.pop()}").status == 200
    assert server.control("POST", "/v1/gateways", {"ttlSeconds": 0}).status == 201, "one freed, one made"

    # Now take the rest: accept() fails with EMFILE; the failures are logged, once a second.
    hogs = []
    try:
        for _ in range(90):
            hogs.append(socket.create_connection((server.listener.host, server.listener.port), timeout=5))
        time.sleep(2.5)
        lines = [line for line in server.stderr_text().splitlines() if "accept() failed" in line]
        assert 1 <= len(lines) <= 4, lines
        assert "Too many open files" in lines[0], lines[0]
    finally:
        for hog in hogs:
            hog.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            if server.get_json("/v1/health")["status"] == "ok":
                break
        except Exception:  # noqa: BLE001 - still out of descriptors a moment
            time.sleep(0.1)
    assert server.get_json("/v1/health")["openFiles"] < 256


def test_control_api_head_has_no_body_and_nul_in_a_query_is_refused(server):
    host, port = server.control_url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as s:
        # HEAD, then GET on the same connection: a body after the HEAD would be read as the next answer.
        s.sendall(f"HEAD /v1/health HTTP/1.1\r\nHost: {host}\r\n\r\nGET /v1/health HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        time.sleep(0.3)
        data = s.recv(65536)
    head, _, rest = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 405") and b"Content-Length" in head, head  # the API is GET-only
    assert rest.startswith(b"HTTP/1.1 200"), f"the HEAD answer carried a body: {rest[:80]!r}"
    for query in ("limit=1%00zz", "token=aabb%00zz", "kind=opened%00x"):
        path = "/v1/events" if "kind" in query else "/v1/deliveries"
        response = server.get(f"{path}?{query}")
        assert response.status == 400 and "malformed query string" in response.json["error"], (query, response.body)


def test_goaway_command_to_a_connection_without_a_session_is_409(server_factory):
    server = server_factory()
    assert server.put(f"/v1/listeners/{server.listener.name}/conditions", {"silent": True}).status == 200
    with socket.create_connection((server.listener.host, server.listener.port), timeout=5):
        deadline = time.monotonic() + 3
        while not server.get_json("/v1/connections")["connections"] and time.monotonic() < deadline:
            time.sleep(0.02)
        connection = server.get_json("/v1/connections")["connections"][0]["id"]
        response = server.control("POST", f"/v1/connections/{connection}/goaway", {})
        assert response.status == 409 and "session has not started" in response.json["error"], response.body
        assert server.control("POST", f"/v1/connections/{connection}/close").status == 200


def test_many_unknown_query_parameters_get_a_short_answer_quickly(server):
    query = "&".join(f"junk{i}=1" for i in range(20_000))
    started = time.monotonic()
    response = server.get(f"/v1/deliveries?{query}")
    assert time.monotonic() - started < 1.5
    assert response.status == 400 and "and 19980 more" in response.json["error"] and len(response.body) < 2000
