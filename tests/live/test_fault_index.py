"""Fault rules cost what they match (issue 19 §5): 10,000 rules for other devices, topics and
listeners leave the push rate within 10% of none, and a rule beyond --max-fault-rules is a 400.

Measured with h2load, relative (20,000 pushes a run, best of three runs each, interleaved, so a busy machine weighs on
both sides alike)."""

from __future__ import annotations

import re
import subprocess

from livelib import TOKEN, TOPIC

PUSHES = 20_000


def rate(server, payload) -> float:
    cmd = [
        "h2load", "-n", str(PUSHES), "-c", "2", "-m", "20", "-t", "1", "-d", str(payload),
        "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
        f"https://127.0.0.1:{server.port}/3/device/{TOKEN}",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{PUSHES} succeeded" in proc.stdout, proc.stdout
    return float(re.search(r"finished in [0-9.]+m?s, ([0-9.]+) req/s", proc.stdout).group(1))


def other_rules(start: int, count: int) -> list[dict]:
    """Rules that match no push of the run: other tokens, mostly, and other topics and listeners."""
    rules = []
    for n in range(start, start + count):
        match = [
            {"token": f"{n:064x}"},
            {"topic": f"com.example.other{n}"},
            {"listener": f"other{n}", "priority": 5},
        ][n % 10 // 8 + n % 10 // 9]  # 8 in 10 tokens, 1 topic, 1 listener
        rules.append({"match": match, "action": {"type": "respond", "reason": "ServiceUnavailable"}})
    return rules


def test_ten_thousand_rules_for_other_pushes_cost_under_ten_percent(server_factory, tmp_path):
    server = server_factory("--max-records", "1000")
    payload = tmp_path / "payload.json"
    payload.write_bytes(b'{"aps":{"alert":"index"}}')
    rate(server, payload)  # warm up
    without, with_rules = [], []
    for _ in range(3):
        without.append(rate(server, payload))
        for start in range(0, 10_000, 2_500):
            response = server.control("POST", "/v1/faults", other_rules(start, 2_500))
            assert response.status == 201, response.body
        with_rules.append(rate(server, payload))
        assert server.control("DELETE", "/v1/faults").status == 200
    for start in range(0, 10_000, 2_500):
        assert server.control("POST", "/v1/faults", other_rules(start, 2_500)).status == 201
    ratio = max(with_rules) / max(without)
    print(f"push rate without rules {without} req/s, with 10,000 {with_rules} req/s: ratio {ratio:.3f}")
    assert ratio >= 0.9, f"10,000 non-matching rules: {with_rules} req/s against {without} without"

    # The default cap is 10,000: one more is refused with a JSON message, and nothing is added.
    refused = server.control("POST", "/v1/faults", {"action": {"type": "noResponse"}})
    assert refused.status == 400, refused.body
    assert "too many fault rules: 10000 held" in refused.json["error"], refused.body
    assert len(server.control("GET", "/v1/faults").json["faults"]) == 10_000


def test_the_cap_is_configurable(server_factory):
    server = server_factory("--max-fault-rules", "2")
    assert server.control("POST", "/v1/faults", other_rules(0, 2)).status == 201
    refused = server.control("POST", "/v1/faults", other_rules(2, 1))
    assert refused.status == 400
    assert refused.json["error"].startswith("too many fault rules: 2 held, 1 more would exceed the limit of 2")
    assert server.control("DELETE", "/v1/faults").status == 200
    assert server.control("POST", "/v1/faults", other_rules(0, 1)).status == 201
