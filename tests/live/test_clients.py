"""Other real clients: nghttp, and curl against a cleartext (prior-knowledge) listener."""

from __future__ import annotations

import re
import subprocess
import uuid

from livelib import LOWER_UUID, TOPIC, UPPER_UUID, apns_headers, h2_client_for


def tok() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


def test_nghttp_push(server, tmp_path):
    token = tok()
    payload = tmp_path / "payload.json"
    payload.write_bytes(b'{"aps":{"alert":"from nghttp"}}')
    cmd = ["nghttp", "-v", "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
           "-H", "apns-priority: 5", "-d", str(payload),
           f"https://127.0.0.1:{server.port}/3/device/{token}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    status = re.search(r"recv \(stream_id=(\d+)\) :status: (\d+)", out)
    assert status and status.group(2) == "200", out
    sid = status.group(1)  # nghttp opens priority-anchor streams first, so the request is not always 1
    m = re.search(rf"recv \(stream_id={sid}\) apns-id: (\S+)", out)
    assert m and UPPER_UUID.match(m.group(1)), out
    assert re.search(rf"recv \(stream_id={sid}\) apns-unique-id: [0-9a-f-]{{36}}", out), out
    # the response is a single HEADERS frame carrying END_STREAM (flags 0x05), no DATA on that stream
    assert re.search(rf"recv HEADERS frame <length=\d+, flags=0x05, stream_id={sid}>", out), out
    assert not re.search(rf"recv DATA frame <length=\d+, flags=0x\w+, stream_id={sid}>", out), out
    assert re.search(r"recv SETTINGS frame <length=\d+, flags=0x00, stream_id=0>", out), out
    record = server.delivery_by_apns_id(m.group(1))
    assert record["deviceToken"] == token and record["priority"] == 5
    assert record["payload"] == {"aps": {"alert": "from nghttp"}}

    # an error through nghttp: HEADERS, then DATA with END_STREAM carrying the reason
    cmd = ["nghttp", "-v", "-H", "apns-push-type: alert", "-d", str(payload),
           f"https://127.0.0.1:{server.port}/3/device/{token}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    status = re.search(r"recv \(stream_id=(\d+)\) :status: (\d+)", out)
    assert status and status.group(2) == "400", out
    sid = status.group(1)
    assert f"recv (stream_id={sid}) content-type: application/json" in out, out
    assert re.search(rf"recv HEADERS frame <length=\d+, flags=0x04, stream_id={sid}>", out), out
    assert re.search(rf"recv DATA frame <length=\d+, flags=0x01, stream_id={sid}>", out), out
    assert '{"reason":"MissingTopic"}' in out, out


def test_plaintext_listener_with_curl(plaintext_server):
    token = tok()
    resp = plaintext_server.push(token)
    assert resp.http_version == "2", resp.http_version
    assert resp.status == 200 and resp.body == b""
    assert UPPER_UUID.match(resp.header("apns-id") or "")
    assert LOWER_UUID.match(resp.header("apns-unique-id") or "")
    record = plaintext_server.delivery_by_apns_id(resp.header("apns-id"))
    assert record["deviceToken"] == token and record["environment"] == "sandbox"

    err = plaintext_server.push("nothex")
    assert (err.status, err.json()) == (400, {"reason": "BadDeviceToken"})

    client = h2_client_for(plaintext_server.listener)
    try:
        resp = client.request(apns_headers(tok(), scheme="http"), b"{}")
        assert resp.status == 200
    finally:
        client.close()
