"""Issue 19 section 5, the defects with a reproduction: a future `unregisteredAt` applies only from
that moment (one range for dates and integers); SIGHUP and SIGUSR1 stop gracefully; long polls
pending at SIGTERM are answered in full, under load too."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import threading
import time

from livelib import REPO_ROOT, SERVER_KEY, SERVER_PEM, TOPIC, apns_headers, binary_path, h2_client_for


def tok(n: int) -> str:
    return f"{n:02x}" * 32


def test_a_future_unregistration_applies_only_from_that_moment(server_factory):
    server = server_factory()
    token = tok(0x5a)
    moment = int(time.time() * 1000) + 2500
    r = server.put(f"/v1/devices/{token}", {"environment": "sandbox", "topic": TOPIC, "unregisteredAt": moment})
    assert r.status == 201 and r.json["unregisteredAt"] == moment, r.body
    # Expired with a time to come: expired from then on.
    expiring = tok(0x5c)
    r = server.put(f"/v1/devices/{expiring}", {"environment": "sandbox", "topic": TOPIC, "expired": True,
                                               "unregisteredAt": moment})
    assert r.status == 201, r.body
    # Before the moment: served as registered, on new connections and repeated on one connection.
    assert server.push(token).status == 200
    assert server.push(expiring).status == 200
    client = h2_client_for(server.listener)
    try:
        for _ in range(2):  # the second repeats the first: the connection reuses its verdict
            first = client.request(apns_headers(token), b'{"aps":{"alert":"a"}}')
            assert first.status == 200, first
        while time.time() * 1000 < moment + 50:
            time.sleep(0.05)
        # The very same push on the same connection, now past the moment: 410 with the moment.
        again = client.request(apns_headers(token), b'{"aps":{"alert":"a"}}')
        assert again.status == 410, again
        assert json.loads(again.body) == {"reason": "Unregistered", "timestamp": moment}, again.body
    finally:
        client.close()
    resp = server.push(token)
    assert resp.status == 410 and resp.json() == {"reason": "Unregistered", "timestamp": moment}, resp.body
    resp = server.push(expiring)
    assert resp.status == 410 and resp.json() == {"reason": "ExpiredToken", "timestamp": moment}, resp.body

    # Far futures are futures too: year 9999 is accepted and not applied; past the range is refused.
    later = tok(0x5b)
    r = server.put(f"/v1/devices/{later}", {"environment": "sandbox", "topic": TOPIC,
                                            "unregisteredAt": "9999-12-31T23:59:59.999Z"})
    assert r.status == 201 and r.json["unregisteredAt"] == 253402300799999, r.body
    assert server.push(later).status == 200

    # One rule for both forms: before the epoch or after 9999 is refused as a date and as an integer.
    for value in ("0001-01-01T00:00:00Z", "1969-12-31T23:59:59.999Z", -1, 253402300800000, 9223372036854775807):
        r = server.put(f"/v1/devices/{tok(0x5d)}", {"environment": "sandbox", "unregisteredAt": value})
        assert r.status == 400 and "unregisteredAt" in r.json["error"], (value, r.status, r.body)
    assert server.get(f"/v1/devices/{tok(0x5d)}").status == 404


def test_the_configuration_file_takes_the_same_unregistration_range(tmp_path):
    for value, accepted in (("0001-01-01T00:00:00Z", False), (-1, False), (9223372036854775807, False),
                            ("9999-12-31T23:59:59.999Z", True), (0, True)):
        path = tmp_path / "c.json"
        path.write_text(json.dumps({"control": "off", "listeners": [{"name": "a", "listen": "127.0.0.1:0"}],
                                    "devices": [{"token": tok(1), "unregisteredAt": value}]}))
        proc = subprocess.Popen([str(binary_path()), "--config", str(path), "--tls-cert", str(SERVER_PEM),
                                 "--tls-key", str(SERVER_KEY)], cwd=REPO_ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        if accepted:
            line = proc.stdout.readline()
            assert "APNs listener" in line, (value, line, proc.stderr.read() if proc.poll() is not None else "")
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(10) == 0
        else:
            assert proc.wait(10) == 2, value
            assert "unregisteredAt" in proc.stderr.read(), value


def pending_wait(server, path, results, key):
    """GET `path` in a thread; stores (status, parsed body or the error) under `key`."""
    def run():
        name, port = server.control_url.removeprefix("http://").rsplit(":", 1)
        connection = http.client.HTTPConnection(name, int(port), timeout=60)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read()
            results[key] = (response.status, json.loads(body))
        except Exception as error:  # noqa: BLE001 - the failure is the result
            results[key] = (None, repr(error))
        finally:
            connection.close()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def wait_registered():
    """Time for the waits just started to reach the server and be pending (it has no count of
    them to poll)."""
    time.sleep(0.5)


def h2load(server, n, token, payload, *, background=False):
    cmd = ["h2load", "-n", str(n), "-c", "4", "-m", "100", "-t", "1", "-d", str(payload),
           "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
           f"https://127.0.0.1:{server.port}/3/device/{token}"]
    if background:
        return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def test_waits_pending_at_sigterm_get_their_whole_answer(server_factory, tmp_path):
    server = server_factory()
    payload = tmp_path / "payload.json"
    payload.write_bytes(b'{"aps":{"alert":"' + b"x" * 400 + b'"}}')
    token = tok(0x6a)
    h2load(server, 3000, token, payload)
    results: dict = {}
    threads = [pending_wait(server, f"/v1/deliveries/wait?token={token}&count=100000&timeoutMs=60000", results, i)
               for i in range(3)]
    wait_registered()
    rc, _ = server.stop()
    for thread in threads:
        thread.join(15)
    assert rc == 0
    for i in range(3):
        status, answer = results.get(i, (None, "no answer"))
        assert status == 200, (i, status, answer)
        assert answer["complete"] is False and answer["matched"] == 3000, (i, answer["matched"])
        assert len(answer["deliveries"]) == 3000


def test_waits_pending_at_sigterm_under_load_are_answered(server_factory, tmp_path):
    # Room for every record of the load (about 100k a second here), so the 60 matches are not evicted.
    server = server_factory("--max-records", "10000000")
    payload = tmp_path / "payload.json"
    payload.write_bytes(b'{"aps":{"alert":"load"}}')
    token = tok(0x6b)
    h2load(server, 60, token, payload)
    results: dict = {}
    threads = [pending_wait(server, f"/v1/deliveries/wait?token={token}&count=100000000&timeoutMs=60000",
                            results, i) for i in range(5)]
    wait_registered()
    load = h2load(server, 10_000_000, tok(0x6c), payload, background=True)
    try:
        time.sleep(1.0)
        rc, _ = server.stop()
    finally:
        load.kill()
        load.wait(10)
    for thread in threads:
        thread.join(15)
    assert rc == 0
    for i in range(5):
        status, answer = results.get(i, (None, "no answer"))
        assert status == 200, (i, status, answer)
        assert answer["evicted"] == 0, (i, answer["evicted"])
        assert answer["matched"] == 60 and len(answer["deliveries"]) == 60, (i, answer["matched"])


def test_sighup_and_sigusr1_stop_gracefully(server_factory):
    for sig in (signal.SIGHUP, signal.SIGUSR1):
        server = server_factory()
        results: dict = {}
        thread = pending_wait(server, f"/v1/deliveries/wait?token={tok(0x7a)}&timeoutMs=60000", results, 0)
        wait_registered()
        server.signal(sig)
        rc = server.proc.wait(10)
        thread.join(10)
        assert rc == 0, (sig, rc, server.stderr_text())
        assert any(f"stopping on signal {int(sig)}" in line for line in server.stdout_lines), server.stdout_lines
        status, answer = results.get(0, (None, "no answer"))
        assert status == 200 and answer["complete"] is False, (sig, status, answer)
