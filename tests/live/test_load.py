"""Volume: 100000 pushes with h2load; a flood of 1000 malformed APNs requests plus malformed control calls."""

from __future__ import annotations

import re
import socket
import subprocess
import uuid

from livelib import TOKEN, TOPIC, UPPER_UUID, apns_headers, h2_client_for


def test_h2load_100000_pushes(server_factory, tmp_path):
    server = server_factory("--max-records", "100000")
    payload = tmp_path / "payload.json"
    payload.write_bytes(b'{"aps":{"alert":"load"}}')
    cmd = [
        "h2load", "-n", "100000", "-c", "4", "-m", "100", "-t", "1", "-d", str(payload),
        "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
        f"https://127.0.0.1:{server.port}/3/device/{TOKEN}",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    m = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored",
                  proc.stdout)
    assert m, proc.stdout
    assert m.groups() == ("100000", "100000", "100000", "100000", "0", "0"), m.group(0)
    assert "100000 succeeded, 0 failed" in proc.stdout
    assert "status codes: 100000 2xx, 0 3xx, 0 4xx, 0 5xx" in proc.stdout, proc.stdout

    stats = server.stats()
    assert stats["requests"] == 100000, stats
    assert stats["byStatus"] == {"200": 100000}, stats
    assert stats["byReason"] == {}, stats
    assert stats["records"] == 100000 and stats["evicted"] == 0, stats
    page = server.deliveries(limit=1)
    assert page["lastSeq"] == 100000, {k: v for k, v in page.items() if k != "deliveries"}
    assert page["more"] is True and page["evicted"] == 0
    assert len(page["deliveries"]) == 1 and page["deliveries"][0]["seq"] == 1
    assert page["deliveries"][0]["payload"] == {"aps": {"alert": "load"}}
    # every record is distinct: the newest is seq 100000 and stream ids were spread over 4 connections
    last = server.get_json("/v1/deliveries/100000")
    assert last["seq"] == 100000 and last["status"] == 200
    assert stats["connectionsOpen"] <= 4, stats


# ---- malformed flood ------------------------------------------------------------------------

GOOD = b'{"aps":{"alert":"x"}}'


def malformed_requests(n: int):
    """(headers, body, expected status, expected reason) cycling through every kind of bad request."""
    kinds = [
        (apns_headers(path="/3/devices/" + TOKEN), GOOD, 404, "BadPath"),
        (apns_headers(path="/foo"), GOOD, 404, "BadPath"),
        (apns_headers(path="/"), GOOD, 404, "BadPath"),
        (apns_headers(path="/3/device"), GOOD, None, None),  # 400 MissingDeviceToken or 404 BadPath
        (apns_headers(method="GET"), None, 405, "MethodNotAllowed"),
        (apns_headers(method="PUT"), GOOD, 405, "MethodNotAllowed"),
        (apns_headers(method="DELETE"), None, 405, "MethodNotAllowed"),
        (apns_headers(extra=[("apns-topic", TOPIC)]), GOOD, 400, "DuplicateHeaders"),
        (apns_headers(extra=[("apns-id", str(uuid.uuid4())), ("apns-id", str(uuid.uuid4()))]), GOOD, 400,
         "DuplicateHeaders"),
        (apns_headers(extra=[("apns-priority", "11")]), GOOD, 400, "BadPriority"),
        (apns_headers(extra=[("apns-id", "zzzz")]), GOOD, 400, "BadMessageId"),
        (apns_headers(extra=[("apns-expiration", "-1.25")]), GOOD, 400, "BadExpirationDate"),
        (apns_headers(extra=[("apns-collapse-id", "x" * 100)]), GOOD, 400, "BadCollapseId"),
        (apns_headers(push_type="nonsense"), GOOD, 400, "InvalidPushType"),
        (apns_headers(topic=None), GOOD, 400, "MissingTopic"),
        (apns_headers(topic="bad topic!"), GOOD, 400, "BadTopic"),
        (apns_headers(), b'{"aps":', 400, "PayloadEmpty"),
        (apns_headers(), b"\xff\xfe\x00garbage", 400, "PayloadEmpty"),
        (apns_headers(), b"null", 400, "PayloadEmpty"),
        (apns_headers(), b"", 400, "PayloadEmpty"),
        (apns_headers(), b'{"aps":{"alert":"' + b"y" * 5000 + b'"}}', 413, "PayloadTooLarge"),
        (apns_headers(token="xyz"), GOOD, 400, "BadDeviceToken"),
        (apns_headers(token="abc"), GOOD, 400, "BadDeviceToken"),
        (apns_headers(path="/3/device/%3Cab%20cd%3E"), GOOD, 400, "BadDeviceToken"),
        (apns_headers(path="/3/device/"), GOOD, 400, "MissingDeviceToken"),
    ]
    return [kinds[i % len(kinds)] for i in range(n)]


def test_malformed_flood_apns_and_control(server):
    total = 1000
    before = server.stats()
    requests = malformed_requests(total)
    connections = 4
    per = total // connections
    answered = 0
    for c in range(connections):
        chunk = requests[c * per:(c + 1) * per]
        client = h2_client_for(server.listener)
        try:
            results = client.run_many([(h, b) for h, b, _, _ in chunk], concurrency=100, timeout=30)
            assert client.goaway is None, client.goaway  # request errors never terminate the connection
        finally:
            client.close()
        for (headers, body, status, reason), resp in zip(chunk, results):
            what = (dict(headers), (body or b"")[:40])
            assert resp.reset is None, (what, resp.reset)
            assert resp.status is not None and resp.status >= 400, (what, resp.status)
            assert resp.header("content-type") == "application/json", (what, resp.headers)
            sent_ids = [v for n, v in headers if n == "apns-id"]
            apns_id = resp.header("apns-id") or ""
            if sent_ids and sent_ids[0] != "zzzz":
                assert apns_id in sent_ids, (what, resp.headers)  # echoed
            else:
                assert UPPER_UUID.match(apns_id), (what, resp.headers)  # generated
            parsed = resp.json()
            assert set(parsed) == {"reason"} and isinstance(parsed["reason"], str), (what, parsed)
            if status is not None:
                assert (resp.status, parsed["reason"]) == (status, reason), what
            else:
                assert (resp.status, parsed["reason"]) in ((400, "MissingDeviceToken"), (404, "BadPath")), what
            answered += 1
    assert answered == total

    after = server.stats()
    assert after["requests"] - before["requests"] == total, (before, after)
    assert after["byStatus"].get("200", 0) == before["byStatus"].get("200", 0), (before, after)

    # ---- malformed control-API calls ----
    calls = [
        ("GET", "/v1/nope", None, 404),
        ("GET", "/", None, 404),
        ("GET", "/v2/stats", None, 404),
        ("GET", "/v1/deliveries?limit=abc", None, 400),
        ("GET", "/v1/deliveries?limit=-1", None, 400),
        ("GET", "/v1/deliveries?status=abc", None, 400),
        ("GET", "/v1/deliveries?after=-5", None, 400),
        ("GET", "/v1/deliveries?reason=NoSuchReason", None, 400),
        ("GET", "/v1/deliveries?environment=moon", None, 400),
        ("GET", "/v1/deliveries?limit=1&limit=2", None, 400),
        ("GET", "/v1/deliveries?bogus=1", None, 400),
        ("GET", "/v1/stats?verbose=true", None, 400),
        ("GET", "/v1/deliveries/wait?timeoutMs=999999999", None, 400),
        ("GET", "/v1/deliveries/wait?count=0", None, 400),
        ("GET", "/v1/deliveries/wait?count=x", None, 400),
        ("GET", "/v1/deliveries/abc", None, 400),
        ("GET", "/v1/deliveries/999999999", None, 404),
        ("GET", "/v1/devices/" + "cd" * 32, None, 404),
        ("GET", "/v1/devices/xyz", None, 400),
        ("PUT", "/v1/devices/abcd", b"not json", 400),
        ("PUT", "/v1/devices/abcd", b'{"environment":"sandbox"', 400),
        ("PUT", "/v1/devices/abcd", b"[]", 400),
        ("PUT", "/v1/devices/abcd", b"{}", 400),
        ("PUT", "/v1/devices/abcd", b'{"environment":"moon"}', 400),
        ("PUT", "/v1/devices/abcd", b'{"environment":"sandbox","bogus":1}', 400),
        ("PUT", "/v1/devices/abcd", b'{"environment":"sandbox","expired":"yes"}', 400),
        ("PUT", "/v1/devices/abcd", b'{"environment":"sandbox","unregisteredAt":"last tuesday"}', 400),
        ("PUT", "/v1/devices/abcd", b'{"environment":"sandbox","token":"abce"}', 400),
        ("PUT", "/v1/devices/xyz", b'{"environment":"sandbox"}', 400),
        ("PUT", "/v1/devices/abc", b'{"environment":"sandbox"}', 400),
        ("POST", "/v1/stats", b"{}", 405),
        ("DELETE", "/v1/health", None, 405),
        ("PUT", "/v1/deliveries", b"{}", 405),
        ("POST", "/v1/devices", b"{}", 405),
        ("DELETE", "/v1/deliveries/wait", None, 405),
    ]
    for method, path, body, status in calls:
        r = server.control(method, path, body)
        assert r.status == status, (method, path, r.status, r.body)
        assert r.headers.get("content-type", "").startswith("application/json"), (method, path, r.headers)
        parsed = r.json
        assert isinstance(parsed, dict) and set(parsed) == {"error"}, (method, path, r.body)
        assert isinstance(parsed["error"], str) and parsed["error"], (method, path, r.body)
        if status == 405:
            assert r.headers.get("allow"), (method, path, r.headers)
    # nothing was registered by the bad PUTs
    assert server.get("/v1/devices/abcd").status == 404

    # a truncated HTTP/1.1 request and garbage bytes do not take the control API down
    host, port = server.control_url.removeprefix("http://").rsplit(":", 1)
    for junk in (b"GARBAGE\r\n\r\n", b"GET /v1/stats HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab",
                 b"\x16\x03\x01\x00\x05hello"):
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall(junk)
            s.shutdown(socket.SHUT_WR)
            try:
                s.recv(4096)
            except OSError:
                pass

    after_control = server.stats()
    assert after_control["requests"] == after["requests"]  # control calls are not APNs requests

    good = server.push(TOKEN)
    assert good.status == 200 and good.body == b""
    assert server.get_json("/v1/health")["status"] == "ok"
    assert server.alive()
