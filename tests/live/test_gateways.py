"""Isolated gateways (issue 17 §1, docs/testing.md "Isolated gateways") against the real binary over
real TLS: create, list and delete; two gateways each seeing only their own records; a deleted gateway's
port closed and its connection sent GOAWAY; 200 gateways made at once, each answering a push, then
deleted, with the time each create and delete took printed (milliseconds)."""

from __future__ import annotations

import statistics
import threading
import time
import urllib.parse

from livelib import TOKEN, TOPIC, H2Client, Listener, apns_headers


def gateway_listener(gateway: dict) -> Listener:
    url = urllib.parse.urlsplit(gateway["url"])
    return Listener(gateway["name"], gateway["environment"], gateway["url"], url.scheme, url.hostname, url.port)


def create(server, body=None) -> dict:
    answer = server.control("POST", "/v1/gateways", body if body is not None else {})
    assert answer.status == 201, (answer.status, answer.body)
    return answer.json


def test_create_list_get_delete(server):
    first = create(server, {"name": "suite-a", "ttlSeconds": 120})
    second = create(server)
    assert first["name"] == "suite-a" and second["name"] == second["id"]
    assert first["controlBase"] == f"/v1/gateways/{first['id']}"
    assert first["url"].startswith("https://127.0.0.1:") and first["port"] != server.port
    assert first["expiresAt"] is not None and second["ttlSeconds"] == 600
    listed = server.get_json("/v1/gateways")
    ids = [gateway["id"] for gateway in listed["gateways"]]
    assert first["id"] in ids and second["id"] in ids and listed["max"] == 1000
    assert server.get_json(f"/v1/gateways/{first['id']}")["port"] == first["port"]
    health = server.get_json(f"{first['controlBase']}/v1/health")
    assert [listener["name"] for listener in health["listeners"]] == ["suite-a"]
    for gateway in (first, second):
        deleted = server.delete(f"/v1/gateways/{gateway['id']}")
        assert deleted.status == 200 and deleted.json == {"deleted": gateway["id"]}
        assert server.get(f"/v1/gateways/{gateway['id']}").status == 404
        assert server.get(f"{gateway['controlBase']}/v1/deliveries").status == 404
    refused = server.control("POST", "/v1/gateways", {"ttl": 5})
    assert refused.status == 400 and "ttl" in refused.json["error"], refused.body


def test_each_gateway_sees_only_its_own_records(server):
    a, b = create(server, {"name": "suite-a"}), create(server, {"name": "suite-b"})
    try:
        before = server.get_json("/v1/stats")["requests"]
        for gateway, topic, count in ((a, "com.example.a", 2), (b, "com.example.b", 3)):
            for _ in range(count):
                response = server.push(listener=gateway_listener(gateway), headers=(("apns-topic", topic),))
                assert response.status == 200, response.body
        for gateway, topic, count in ((a, "com.example.a", 2), (b, "com.example.b", 3)):
            waited = server.get_json(f"{gateway['controlBase']}/v1/deliveries/wait?count={count}&timeoutMs=3000")
            assert waited["complete"], waited
            records = server.get_json(f"{gateway['controlBase']}/v1/deliveries")["deliveries"]
            assert [record["topic"] for record in records] == [topic] * count
            assert {record["listener"] for record in records} == {gateway["name"]}
        assert server.get_json("/v1/stats")["requests"] == before, "the default gateway saw none of them"
        # Rules, too, are the gateway's own.
        rule = {"action": {"type": "respond", "reason": "ServiceUnavailable"}}
        assert server.control("POST", f"{a['controlBase']}/v1/faults", rule).status == 201
        assert server.push(listener=gateway_listener(a)).status == 503
        assert server.push(listener=gateway_listener(b)).status == 200
        assert server.push().status == 200
    finally:
        for gateway in (a, b):
            server.delete(f"/v1/gateways/{gateway['id']}")


def test_deleting_sends_goaway_closes_the_port_and_answers_waits(server):
    gateway = create(server)
    default_open = server.get_json("/v1/health")["connectionsOpen"]
    client = H2Client(gateway_listener(gateway).host, gateway["port"])
    assert client.request(apns_headers(), b'{"aps":{"alert":"hi"}}').status == 200
    assert server.get_json(f"{gateway['controlBase']}/v1/health")["connectionsOpen"] == 1
    assert server.get_json("/v1/health")["connectionsOpen"] == default_open, "the default counts only its own"
    answers = {}

    def wait():
        answers["wait"] = server.get(f"{gateway['controlBase']}/v1/deliveries/wait?count=5&timeoutMs=20000")

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.3)
    assert server.delete(f"/v1/gateways/{gateway['id']}").status == 200
    waiter.join(5)
    assert not waiter.is_alive(), "the pending wait was answered at the delete"
    assert answers["wait"].status == 200 and answers["wait"].json["matched"] == 1
    assert client.wait_closed(3), "the connection was closed"
    goaways = [frame for frame in client.frames if frame.type == 7]
    assert goaways and b"Shutdown" in goaways[0].payload, client.frames
    try:
        H2Client(gateway_listener(gateway).host, gateway["port"], timeout=2)
    except (ConnectionRefusedError, OSError):
        pass
    else:
        raise AssertionError("the deleted gateway's port still accepts")


def listed(server, gateway_id: str) -> bool:
    """Whether `GET /v1/gateways` (which touches no gateway) lists `gateway_id`."""
    return any(entry["id"] == gateway_id for entry in server.get("/v1/gateways").json["gateways"])


def test_an_untouched_gateway_expires(server):
    gateway = create(server, {"ttlSeconds": 1})
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and listed(server, gateway["id"]):  # the list touches none
        time.sleep(0.2)
    assert server.get(f"/v1/gateways/{gateway['id']}").status == 404


def test_getting_a_gateway_is_a_keep_alive(server):
    """`GET /v1/gateways/{id}` touches it: polled, a 1 s gateway outlives 2.5 s; left alone, it expires."""
    gateway = create(server, {"ttlSeconds": 1})
    started = time.monotonic()
    while time.monotonic() - started < 2.5:
        assert server.get(f"/v1/gateways/{gateway['id']}").status == 200
        time.sleep(0.3)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and listed(server, gateway["id"]):
        time.sleep(0.2)
    assert server.get(f"/v1/gateways/{gateway['id']}").status == 404


def test_200_gateways_at_once_each_answer_a_push_then_are_deleted(server):
    count = 200
    create_ms: list[float] = []
    gateways: list[dict] = []
    lock = threading.Lock()

    def make(n):
        for _ in range(n):
            start = time.perf_counter()
            gateway = create(server, {"name": f"bulk-{threading.get_ident() % 1000}-{len(create_ms)}"})
            with lock:
                create_ms.append((time.perf_counter() - start) * 1000)
                gateways.append(gateway)

    threads = [threading.Thread(target=make, args=(count // 4,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(gateways) == count
    assert len({gateway["port"] for gateway in gateways}) == count
    assert len(server.get_json("/v1/gateways")["gateways"]) >= count
    for gateway in gateways:
        client = H2Client(gateway_listener(gateway).host, gateway["port"])
        try:
            response = client.request(apns_headers(TOKEN, topic=TOPIC), b'{"aps":{"alert":"hi"}}')
            assert response.status == 200, (gateway, response.status)
        finally:
            client.close()
    for gateway in gateways[:5]:
        records = server.get_json(f"{gateway['controlBase']}/v1/deliveries")["deliveries"]
        assert len(records) == 1 and records[0]["listener"] == gateway["name"]
    delete_ms: list[float] = []
    for gateway in gateways:
        start = time.perf_counter()
        assert server.delete(f"/v1/gateways/{gateway['id']}").status == 200
        delete_ms.append((time.perf_counter() - start) * 1000)
    assert not [g for g in server.get_json("/v1/gateways")["gateways"] if g["name"].startswith("bulk-")]
    print(f"\n200 gateways: create median {statistics.median(create_ms):.2f} ms, max {max(create_ms):.2f} ms; "
          f"delete median {statistics.median(delete_ms):.2f} ms, max {max(delete_ms):.2f} ms")
    assert statistics.median(create_ms) < 100 and statistics.median(delete_ms) < 100
