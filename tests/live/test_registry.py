"""Device registry (config file and control API): docs/field-cases.md C12 410 timestamps, C14 environments, C16 production,
closed registry, DeviceTokenNotForTopic."""

from __future__ import annotations

import time
import uuid

import pytest

from livelib import LOWER_UUID, SERVER_KEY, SERVER_PEM, TOPIC, UPPER_UUID, apns_headers, h2_client_for

ALERT = (("apns-topic", TOPIC), ("apns-push-type", "alert"))


def tok() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


UNREG_ISO = tok()        # unregisteredAt "2024-05-01T12:00:00Z" -> 1714564800000
UNREG_MS = tok()         # unregisteredAt 1714564800123
EXPIRED = tok()          # expired, unregisteredAt 1700000000000
SANDBOX = tok()          # registered for sandbox, topic com.example.app
PRODUCTION = tok()       # registered for production, topic com.example.app
ANY_TOPIC_UPPER = tok().upper()  # registered (uppercase in the file), topic null


@pytest.fixture(scope="module")
def registry_server(module_factory):
    tls = {"certificate": str(SERVER_PEM), "key": str(SERVER_KEY)}
    config = {
        "listeners": [
            {"name": "sandbox", "listen": "127.0.0.1:0", "environment": "sandbox", "tls": tls},
            {"name": "production", "listen": "127.0.0.1:0", "environment": "production", "tls": tls},
        ],
        "control": "127.0.0.1:0",
        "devices": [
            {"token": UNREG_ISO, "topic": TOPIC, "environment": "sandbox", "unregisteredAt": "2024-05-01T12:00:00Z"},
            {"token": UNREG_MS, "topic": TOPIC, "environment": "sandbox", "unregisteredAt": 1714564800123},
            {"token": EXPIRED, "topic": TOPIC, "environment": "sandbox", "expired": True,
             "unregisteredAt": 1700000000000},
            {"token": SANDBOX, "topic": TOPIC, "environment": "sandbox"},
            {"token": PRODUCTION, "topic": TOPIC, "environment": "production"},
            {"token": ANY_TOPIC_UPPER, "topic": None, "environment": "sandbox"},
        ],
    }
    server = module_factory(config=config, listen=None, control=None, tls=False, expect_listeners=2,
                            expect_control=True)
    assert {(l.name, l.environment) for l in server.listeners} == {("sandbox", "sandbox"),
                                                                    ("production", "production")}
    assert len({l.port for l in server.listeners}) == 2
    return server


def assert_error(resp, status, body):
    assert resp.status == status, (resp.status, resp.body)
    assert resp.headers.get("content-type") == ["application/json"], resp.headers
    assert UPPER_UUID.match(resp.header("apns-id") or ""), resp.headers
    assert resp.json() == body, resp.body


def assert_13_digit_ms(value):
    assert isinstance(value, int) and not isinstance(value, bool), value
    assert len(str(value)) == 13, value


# ---- C12 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "token,expected",
    [
        (UNREG_ISO, {"reason": "Unregistered", "timestamp": 1714564800000}),
        (UNREG_MS, {"reason": "Unregistered", "timestamp": 1714564800123}),
        (EXPIRED, {"reason": "ExpiredToken", "timestamp": 1700000000000}),
    ],
    ids=["unregistered-iso-date", "unregistered-millis", "expired"],
)
def test_c12_410_from_config_file(registry_server, token, expected):
    sandbox = registry_server.listener_named("sandbox")
    resp = registry_server.push(token, listener=sandbox)
    assert_error(resp, 410, expected)
    assert_13_digit_ms(resp.json()["timestamp"])
    # the raw JSON has an integer, not a string or a float
    assert f'"timestamp":{expected["timestamp"]}'.encode() in resp.body, resp.body
    record = registry_server.delivery_by_apns_id(resp.header("apns-id"))
    assert (record["status"], record["reason"], record["timestamp"]) == (410, expected["reason"],
                                                                         expected["timestamp"])


def test_c12_410_via_control_api(registry_server):
    sandbox = registry_server.listener_named("sandbox")
    token = tok()
    assert registry_server.push(token, listener=sandbox).status == 200  # open registry: unknown is fine

    r = registry_server.put(f"/v1/devices/{token}", {"environment": "sandbox", "topic": TOPIC,
                                                     "unregisteredAt": "2025-01-02T03:04:05.678Z"})
    assert r.status == 201, r.body
    assert r.json["unregisteredAt"] == 1735787045678 and r.json["token"] == token
    assert_error(registry_server.push(token, listener=sandbox), 410,
                 {"reason": "Unregistered", "timestamp": 1735787045678})

    r = registry_server.put(f"/v1/devices/{token}", {"environment": "sandbox", "topic": TOPIC,
                                                     "unregisteredAt": 1600000000001})
    assert r.status == 200, r.body  # replaced
    assert_error(registry_server.push(token, listener=sandbox), 410,
                 {"reason": "Unregistered", "timestamp": 1600000000001})

    # re-registered: accepted again
    r = registry_server.put(f"/v1/devices/{token}", {"environment": "sandbox", "topic": TOPIC,
                                                     "unregisteredAt": None})
    assert r.status == 200, r.body
    assert registry_server.push(token, listener=sandbox).status == 200

    # expired without a date: the time of the PUT is the timestamp
    before = int(time.time() * 1000)
    r = registry_server.put(f"/v1/devices/{token}", {"environment": "sandbox", "expired": True})
    after = int(time.time() * 1000)
    assert r.status == 200, r.body
    resp = registry_server.push(token, listener=sandbox)
    assert resp.status == 410 and resp.json()["reason"] == "ExpiredToken", resp.body
    stamp = resp.json()["timestamp"]
    assert_13_digit_ms(stamp)
    assert before - 1000 <= stamp <= after + 1000, (before, stamp, after)

    assert registry_server.delete(f"/v1/devices/{token}").json == {"deleted": token}
    assert registry_server.push(token, listener=sandbox).status == 200


# ---- C14 ------------------------------------------------------------------------------------


def test_c14_token_of_the_other_environment(registry_server):
    sandbox = registry_server.listener_named("sandbox")
    production = registry_server.listener_named("production")
    assert registry_server.push(SANDBOX, listener=sandbox).status == 200
    assert registry_server.push(PRODUCTION, listener=production).status == 200
    assert_error(registry_server.push(SANDBOX, listener=production), 400, {"reason": "BadDeviceToken"})
    assert_error(registry_server.push(PRODUCTION, listener=sandbox), 400, {"reason": "BadDeviceToken"})

    # registered through the control API
    token = tok()
    assert registry_server.put(f"/v1/devices/{token}", {"environment": "production"}).status == 201
    assert_error(registry_server.push(token, listener=sandbox), 400, {"reason": "BadDeviceToken"})
    assert registry_server.push(token, listener=production).status == 200
    records = registry_server.deliveries(token=token)["deliveries"]
    assert [(r["environment"], r["listener"], r["status"]) for r in records] == [
        ("sandbox", "sandbox", 400), ("production", "production", 200)]


# ---- C16 production -------------------------------------------------------------------------


def test_c16_production_has_apns_id_without_unique_id(registry_server):
    production = registry_server.listener_named("production")
    sandbox = registry_server.listener_named("sandbox")
    resp = registry_server.push(tok(), listener=production)
    assert resp.status == 200
    assert UPPER_UUID.match(resp.header("apns-id") or ""), resp.headers
    assert "apns-unique-id" not in resp.headers, resp.headers
    record = registry_server.delivery_by_apns_id(resp.header("apns-id"))
    assert record["uniqueId"] is None and record["environment"] == "production"

    err = registry_server.push(tok(), listener=production, headers=ALERT + (("apns-priority", "7"),))
    assert err.status == 400 and "apns-unique-id" not in err.headers and err.header("apns-id")

    sent = str(uuid.uuid4())
    echoed = registry_server.push(tok(), listener=production, headers=ALERT + (("apns-id", sent),))
    assert echoed.headers["apns-id"] == [sent] and "apns-unique-id" not in echoed.headers

    resp = registry_server.push(tok(), listener=sandbox)
    assert resp.status == 200 and UPPER_UUID.match(resp.header("apns-id") or "")
    assert LOWER_UUID.match(resp.header("apns-unique-id") or ""), resp.headers


# ---- topics ---------------------------------------------------------------------------------


def test_device_token_not_for_topic_in_open_registry(registry_server):
    sandbox = registry_server.listener_named("sandbox")
    resp = registry_server.push(SANDBOX, listener=sandbox,
                                headers=(("apns-topic", "com.other.app"), ("apns-push-type", "alert")))
    assert_error(resp, 400, {"reason": "DeviceTokenNotForTopic"})
    # a device registered with topic null matches any topic; its token was written in uppercase
    for topic in ("com.other.app", TOPIC):
        resp = registry_server.push(ANY_TOPIC_UPPER, listener=sandbox,
                                    headers=(("apns-topic", topic), ("apns-push-type", "alert")))
        assert resp.status == 200, resp.body
    device = registry_server.get(f"/v1/devices/{ANY_TOPIC_UPPER}")
    assert device.status == 200 and device.json["token"] == ANY_TOPIC_UPPER.lower()


def test_closed_registry(server_factory):
    server = server_factory("--registry", "closed")
    known, other_env, unknown = tok(), tok(), tok()
    assert_error(server.push(unknown), 400, {"reason": "BadDeviceToken"})
    assert server.put(f"/v1/devices/{known.upper()}", {"environment": "sandbox", "topic": TOPIC}).status == 201
    assert server.put(f"/v1/devices/{other_env}", {"environment": "production", "topic": TOPIC}).status == 201

    ok = server.push(known)
    assert ok.status == 200, ok.body
    assert server.push(known.upper()).status == 200
    assert_error(server.push(known, headers=(("apns-topic", "com.other.app"), ("apns-push-type", "alert"))),
                 400, {"reason": "DeviceTokenNotForTopic"})
    assert_error(server.push(other_env), 400, {"reason": "BadDeviceToken"})
    assert_error(server.push(unknown), 400, {"reason": "BadDeviceToken"})

    listing = server.get_json("/v1/devices")
    assert listing["count"] == 2 and [d["token"] for d in listing["devices"]] == sorted([known, other_env])

    assert server.delete(f"/v1/devices/{known}").status == 200
    assert_error(server.push(known), 400, {"reason": "BadDeviceToken"})
    stats = server.stats()
    assert stats["byStatus"] == {"200": 2, "400": 5}, stats
    assert stats["byReason"] == {"BadDeviceToken": 4, "DeviceTokenNotForTopic": 1}, stats


# ---- identical pushes on one connection ---------------------------------------------------


def test_registry_change_between_identical_pushes_on_one_connection(registry_server):
    """A connection repeating one push byte for byte gets each push checked against the registry
    as it is at that push (the repeat reuses the previous verdict only while the registry is
    unchanged), and every push its own record, apns-id and stream id."""
    sandbox = registry_server.listener_named("sandbox")
    token = tok()
    body = b'{"aps":{"alert":"same"}}'
    client = h2_client_for(sandbox)
    try:
        def push():
            return client.request(apns_headers(token), body)

        first = [push() for _ in range(3)]
        assert [r.status for r in first] == [200, 200, 200]
        r = registry_server.put(f"/v1/devices/{token}", {"environment": "sandbox", "topic": TOPIC,
                                                         "unregisteredAt": 1600000000001})
        assert r.status == 201, r.body
        refused = [push() for _ in range(2)]
        assert [(r.status, r.json()) for r in refused] == [(410, {"reason": "Unregistered", "timestamp": 1600000000001})] * 2
        assert registry_server.delete(f"/v1/devices/{token}").status == 200
        last = push()
        assert last.status == 200
    finally:
        client.close()

    records = [d for d in registry_server.deliveries(token=token, limit=100)["deliveries"]]
    assert [(d["status"], d["reason"]) for d in records] == [(200, None)] * 3 + [(410, "Unregistered")] * 2 + [(200, None)]
    ids = [d["apnsId"] for d in records]
    assert len(set(ids)) == 6 and all(i == i.upper() for i in ids), ids
    assert ids == [r.header("apns-id") for r in first + refused + [last]]
    assert len({d["uniqueId"] for d in records}) == 6
    assert len({d["streamId"] for d in records}) == 6 and len({d["connectionId"] for d in records}) == 1
    assert all(d["payload"] == {"aps": {"alert": "same"}} for d in records)


# ---- IDs of repeated pushes -----------------------------------------------------------------


def test_repeated_pushes_answer_ids_in_order_and_record_the_ones_sent(registry_server):
    """Pushes repeating the previous one on a connection take the fast path (the previous verdict,
    the previous record rewritten) and answer generated IDs spelled from their bits: every answer
    still carries its own IDs, as uppercase apns-id then lowercase apns-unique-id (sandbox only),
    after content-type on errors, and its record holds the very IDs answered."""
    sent_id = str(uuid.uuid4()).upper()
    cases = [
        # (listener, extra headers, expected status, expected header names after :status)
        ("sandbox", ALERT, 200, ["apns-id", "apns-unique-id"]),
        ("sandbox", ALERT + (("apns-id", sent_id),), 200, ["apns-id", "apns-unique-id"]),
        ("sandbox", ALERT + (("apns-priority", "7"),), 400, ["content-type", "apns-id", "apns-unique-id"]),
        ("production", ALERT, 200, ["apns-id"]),
        ("production", ALERT + (("apns-priority", "7"),), 400, ["content-type", "apns-id"]),
    ]
    for listener, extra, status, names in cases:
        token = tok()
        client = h2_client_for(registry_server.listener_named(listener))
        try:
            responses = [client.request(apns_headers(token, topic=None, push_type=None, extra=extra), b'{"aps":{}}')
                         for _ in range(6)]
        finally:
            client.close()
        records = registry_server.deliveries(token=token)["deliveries"]
        assert len(records) == 6, (listener, extra)
        answered = []
        for resp, record in zip(responses, records):
            assert resp.status == status, (listener, extra, resp.headers)
            assert [n for n, _ in resp.headers if n != ":status"] == names, (listener, extra, resp.headers)
            apns_id = resp.header("apns-id")
            if ("apns-id", sent_id) in extra:
                assert apns_id == sent_id
            else:
                assert UPPER_UUID.match(apns_id), apns_id
            unique = resp.header("apns-unique-id")
            assert unique is None or LOWER_UUID.match(unique), unique
            assert (record["apnsId"], record["uniqueId"], record["status"]) == (apns_id, unique, status)
            answered.append((apns_id, unique))
        if ("apns-id", sent_id) not in extra:
            assert len({a for a, _ in answered}) == 6, "each push has its own apns-id"
        if listener == "sandbox":
            assert len({u for _, u in answered}) == 6, "and its own apns-unique-id"
