"""`mock-apns send`, our own HTTP/2 client, against MockAPNs itself."""

from __future__ import annotations

import subprocess
import uuid

from livelib import CA_PEM, TOPIC, UPPER_UUID, binary_path


def tok() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


def send(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary_path()), "send", *args], capture_output=True, text=True, timeout=60)


def test_send_one_push_prints_status_and_apns_id(server):
    token = tok()
    proc = send("--url", f"https://localhost:{server.port}", "--cacert", str(CA_PEM), "--device-token", token,
                "--topic", TOPIC, "--push-type", "alert", "--collapse-id", "c-1", '{"aps":{"alert":"from send"}}')
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "status 200" in lines, proc.stdout
    apns_id = next(line.split(": ", 1)[1] for line in lines if line.startswith("apns-id: "))
    assert UPPER_UUID.match(apns_id), proc.stdout
    record = server.delivery_by_apns_id(apns_id)
    assert record["deviceToken"] == token
    assert record["collapseId"] == "c-1"
    assert record["payload"] == {"aps": {"alert": "from send"}}


def test_send_reports_the_reason_and_exits_1(server):
    proc = send("--url", f"https://localhost:{server.port}", "--cacert", str(CA_PEM), "--device-token", "xyz",
                "--topic", TOPIC, '{"aps":{"alert":"x"}}')
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "status 400" in proc.stdout.splitlines()
    assert "reason: BadDeviceToken" in proc.stdout.splitlines()


def test_send_many_over_one_connection_summarises(server):
    token = tok()
    before = server.stats()["requests"]
    proc = send("--url", f"https://127.0.0.1:{server.port}", "--cacert", str(CA_PEM), "--device-token", token,
                "--topic", TOPIC, "--count", "500", "--concurrency", "20", '{"aps":{"badge":3}}')
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "status 200: 500" in proc.stdout, proc.stdout
    assert "over 1 connection" in proc.stdout, proc.stdout
    assert server.stats()["requests"] - before == 500
    assert len(server.deliveries(token=token, limit=1000)["deliveries"]) == 500


def test_send_usage_error_exits_2():
    proc = send("--device-token")
    assert proc.returncode == 2
    assert "--device-token" in proc.stderr
