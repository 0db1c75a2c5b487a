"""GET /metrics read by a real parser (prometheus_client) after a mixed run: good and bad pushes
from h2load and curl, a fault rule firing, and the counters equal /v1/stats."""

from __future__ import annotations

import subprocess
import urllib.request

from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics
from prometheus_client.parser import text_string_to_metric_families as parse_text

from livelib import TOKEN, TOPIC


def h2load(server, tmp_path, *args, token=TOKEN, n=2000):
    payload = tmp_path / "payload.json"
    payload.write_bytes(b'{"aps":{"alert":"metrics"}}')
    cmd = [
        "h2load", "-n", str(n), "-c", "2", "-m", "20", "-t", "1", "-d", str(payload),
        "-H", f"apns-topic: {TOPIC}", *args,
        f"https://127.0.0.1:{server.port}/3/device/{token}",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{n} done" in proc.stdout, proc.stdout


def scrape(server, accept=None):
    request = urllib.request.Request(server.control_url + "/metrics", headers={"accept": accept} if accept else {})
    with urllib.request.urlopen(request, timeout=10) as resp:
        return resp.headers["content-type"], resp.read().decode("utf-8")


def families(text, parser=parse_text):
    return {family.name: family for family in parser(text)}


def test_metrics_parse_and_equal_stats_after_a_mixed_run(server_factory, tmp_path):
    server = server_factory("--max-records", "2000")
    h2load(server, tmp_path, "-H", "apns-push-type: alert")
    h2load(server, tmp_path, "-H", "apns-push-type: background", "-H", "apns-priority: 5", n=500)
    h2load(server, tmp_path, "-H", "apns-push-type: alert", token="abc", n=300)  # 400 BadDeviceToken
    assert server.push(headers=(("apns-topic", TOPIC), ("apns-push-type", "nope"))).status == 400
    rule = server.control("POST", "/v1/faults", {"id": "busy", "action": {"type": "respond", "reason": "TooManyRequests"}})
    assert rule.status == 201, rule.body
    for _ in range(3):
        assert server.push().status == 429
    server.control("DELETE", "/v1/faults")
    server.control("POST", "/v1/faults", {"id": "f-kept", "action": {"type": "respond", "reason": "InternalServerError"}, "lifetime": {"times": 2}})
    for _ in range(2):
        assert server.push().status == 500

    content_type, text = scrape(server)
    stats = server.stats()
    assert content_type == "text/plain; version=0.0.4; charset=utf-8"
    found = families(text)
    pushes = found["mock_apns_pushes"]
    assert pushes.type == "counter"
    samples = [s for s in pushes.samples if s.name == "mock_apns_pushes_total"]
    assert all("token" not in key for s in samples for key in s.labels)
    assert {key for s in samples for key in s.labels} == {
        "listener", "environment", "status", "reason", "push_type", "priority"}
    total = sum(s.value for s in samples)
    assert total == stats["requests"] == 2000 + 500 + 300 + 1 + 3 + 2, (total, stats)
    by_status, by_reason = {}, {}
    for s in samples:
        by_status[s.labels["status"]] = by_status.get(s.labels["status"], 0) + s.value
        if s.labels["reason"]:
            by_reason[s.labels["reason"]] = by_reason.get(s.labels["reason"], 0) + s.value
    assert by_status == stats["byStatus"], (by_status, stats)
    assert by_reason == stats["byReason"], (by_reason, stats)
    background = [s for s in samples if s.labels["push_type"] == "background"]
    assert [(s.labels["priority"], s.labels["status"], s.value) for s in background] == [("5", "200", 500)]
    assert {s.labels["listener"] for s in samples} == {server.listener.name}
    assert {s.labels["environment"] for s in samples} == {"sandbox"}

    def value(name, sample=None, **labels):
        family = found[name]
        for s in family.samples:
            if s.name == (sample or name) and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
        raise AssertionError(f"no {sample or name} {labels} in {family.samples}")

    assert value("mock_apns_records_stored") == stats["records"] == 2000
    assert value("mock_apns_records_evicted", "mock_apns_records_evicted_total") == stats["evicted"] == 806
    assert value("mock_apns_records_capacity") == stats["capacity"]
    assert value("mock_apns_connections_open") == stats["connectionsOpen"]
    assert value("mock_apns_faults_fired", "mock_apns_faults_fired_total", rule="f-kept") == 2
    for kind, n in stats["events"]["byKind"].items():
        assert value("mock_apns_events", "mock_apns_events_total", kind=kind) == n
    latency = found["mock_apns_answer_latency_seconds"]
    assert latency.type == "histogram"
    count = [s.value for s in latency.samples if s.name.endswith("_count")][0]
    assert count == stats["requests"], "every push here was answered"
    buckets = [s for s in latency.samples if s.name.endswith("_bucket")]
    assert buckets[-1].labels["le"] == "+Inf" and buckets[-1].value == count
    assert [b.value for b in buckets] == sorted(b.value for b in buckets)

    content_type, text = scrape(server, "application/openmetrics-text; version=1.0.0,text/plain;q=0.5")
    assert content_type == "application/openmetrics-text; version=1.0.0; charset=utf-8"
    assert text.endswith("# EOF\n")
    open_found = families(text, parse_openmetrics)
    assert open_found["mock_apns_answer_latency_seconds"].unit == "seconds"
    assert sum(s.value for s in open_found["mock_apns_pushes"].samples) == stats["requests"]


def test_a_held_answer_is_observed_when_sent(server_factory):
    server = server_factory()
    rule = server.control("POST", "/v1/faults", {"action": {"type": "delay", "minMs": 300, "maxMs": 300}})
    assert rule.status == 201, rule.body
    assert server.push().status == 200
    _, text = scrape(server)
    latency = families(text)["mock_apns_answer_latency_seconds"]
    buckets = {s.labels["le"]: s.value for s in latency.samples if s.name.endswith("_bucket")}
    total = [s.value for s in latency.samples if s.name.endswith("_sum")][0]
    assert buckets["0.25"] == 0 and buckets["0.5"] == 1 and buckets["+Inf"] == 1, buckets
    # The delay is timed from the loop's cached clock, which may be a little behind the handler's.
    assert 0.25 < total < 0.5, total
