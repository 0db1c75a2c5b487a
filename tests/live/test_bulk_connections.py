"""Bulk connection commands (issue 13): POST /v1/connections/goaway|close|reset acts on every open
APNs connection at once, or on those of one listener (`?listener=NAME`), answers the ids it acted
on, and records one connection event per connection, as the per-connection commands do."""

from __future__ import annotations

import time
import uuid

import pytest

from livelib import wait_no_connections, FRAME_GOAWAY, FRAME_PING, apns_headers, connection_entry, h2_client_for, raw_frame

BODY = b'{"aps":{"alert":"bulk"}}'
SHUTDOWN = b'{"reason":"Shutdown"}'


@pytest.fixture
def mock(server_factory):
    return server_factory("--drain-timeout", "1")


def tok() -> str:
    return (uuid.uuid4().hex + uuid.uuid4().hex)[:64]


def connect(server):
    client = h2_client_for(server.listener, tls_bio=True)
    client.wait_for_settings()
    return client


def connection_id(server, client):
    return connection_entry(server, client)["id"]


def command_events(server, kind):
    return [e for e in server.get_json("/v1/events")["events"] if e["kind"] == kind and e["origin"] == "command"]


def test_bulk_goaway_reaches_every_connection_at_once(mock):
    clients = [connect(mock) for _ in range(3)]
    try:
        for client in clients:
            assert client.request(apns_headers(tok()), BODY).status == 200
        ids = sorted(connection_id(mock, c) for c in clients)
        sent = time.monotonic()
        resp = mock.control("POST", "/v1/connections/goaway")
        assert (resp.status, resp.json) == (200, {"action": "goaway", "ids": ids})
        for client in clients:
            assert client.wait_closed(3)
            frames = [f for f in client.frames if f.type == FRAME_GOAWAY]
            assert len(frames) == 1, frames
            payload = frames[0].payload
            # last-stream-id 1 (the one stream answered), NO_ERROR, {"reason":"Shutdown"}
            assert (int.from_bytes(payload[0:4], "big"), int.from_bytes(payload[4:8], "big"), payload[8:]) == (
                1, 0, SHUTDOWN)
            assert client.close_kind == "eof"
        assert time.monotonic() - sent < 2.0, "every GOAWAY came at once, not one connection after another's drain"
        assert sorted(e["connectionId"] for e in command_events(mock, "goaway")) == ids
    finally:
        for client in clients:
            client.close()


@pytest.mark.parametrize("verb, close_kind", [("close", "eof"), ("reset", "reset")])
def test_bulk_close_and_reset(mock, verb, close_kind):
    clients = [connect(mock) for _ in range(2)]
    try:
        ids = sorted(connection_id(mock, c) for c in clients)
        resp = mock.control("POST", f"/v1/connections/{verb}?listener={mock.listener.name}")
        assert (resp.status, resp.json) == (200, {"action": verb, "ids": ids})
        for client in clients:
            assert client.wait_closed(3)
            assert client.close_kind == close_kind, (client.close_kind, client.close_error)
            assert [f for f in client.frames if f.type == FRAME_GOAWAY] == []
        assert sorted(e["connectionId"] for e in command_events(mock, verb)) == ids
        again = mock.control("POST", f"/v1/connections/{verb}")
        assert (again.status, again.json) == (200, {"action": verb, "ids": []})
    finally:
        for client in clients:
            client.close()


def test_bulk_command_for_an_unknown_listener_is_404(mock):
    client = connect(mock)
    try:
        resp = mock.control("POST", "/v1/connections/reset?listener=nope")
        assert resp.status == 404, resp.body
        assert client.request(apns_headers(tok()), BODY).status == 200, "the connection was left alone"
    finally:
        client.close()


# -------------------------------------------------------------------------------------------
# Blackhole: from the command on, nothing at all comes back and the socket stays open.
# -------------------------------------------------------------------------------------------

def add_fault(server, rule):
    resp = server.control("POST", "/v1/faults", rule)
    assert resp.status == 201, resp.body


def test_blackhole_command_answers_nothing_and_keeps_the_socket(mock):
    held = tok()
    add_fault(mock, {"match": {"token": held}, "action": {"type": "delay", "ms": 600}})
    client = connect(mock)
    client.raw_after_goaway = True
    try:
        assert client.request(apns_headers(tok()), BODY).status == 200
        sid_held = client.start_request(apns_headers(held), BODY)
        cid = connection_id(mock, client)
        client.pump(lambda: len(mock.deliveries(token=held)["deliveries"]) == 1, timeout=2)
        resp = mock.control("POST", f"/v1/connections/{cid}/blackhole")
        assert (resp.status, resp.json) == (200, {"id": cid, "action": "blackhole"})
        seen = len(client.frames)
        blackholed_at = time.monotonic()
        client._raw_write(raw_frame(FRAME_PING, 0, 0, b"blackhol"))
        sid_new = client.start_request(apns_headers(tok()), BODY)
        # Past the held push's delay: nothing at all arrives (no answer, no PING ACK, no WINDOW_UPDATE).
        with pytest.raises(TimeoutError):
            client.pump(lambda: len(client.frames) > seen, timeout=1.2)
        assert time.monotonic() - blackholed_at >= 1.2
        assert not client.closed
        assert [c["id"] for c in mock.get_json("/v1/connections")["connections"]] == [cid], "the socket stays open"
        assert mock.get_json("/v1/connections")["connections"][0]["state"] == "blackholed"
        again = mock.control("POST", f"/v1/connections/{cid}/blackhole")
        assert again.status == 409 and "it is blackholed" in again.json["error"], again.body
        # Nothing is written to a blackholed connection, a GOAWAY included: refused, not claimed.
        for verb in ("goaway", "drain"):
            refused = mock.control("POST", f"/v1/connections/{cid}/{verb}")
            assert refused.status == 409 and "it is blackholed" in refused.json["error"], (verb, refused.body)
        assert mock.control("POST", "/v1/connections/drain").json["ids"] == []
        assert [e for e in mock.get_json("/v1/events")["events"] if e["kind"] == "goaway"] == []
        assert [e["connectionId"] for e in command_events(mock, "blackhole")] == [cid]
        assert sid_new not in {f.stream_id for f in client.frames}
    finally:
        client.close()
    wait_no_connections(mock)
    record = mock.deliveries(token=held)["deliveries"][0]
    assert (record["streamId"], record["status"], record["unanswered"]) == (
        sid_held, None, "connection-closed-by-client"), record


def test_bulk_blackhole(mock):
    clients = [connect(mock) for _ in range(2)]
    try:
        for client in clients:  # everything the server sent before is read
            assert client.request(apns_headers(tok()), BODY).status == 200
        ids = sorted(connection_id(mock, c) for c in clients)
        resp = mock.control("POST", "/v1/connections/blackhole")
        assert (resp.status, resp.json) == (200, {"action": "blackhole", "ids": ids})
        seen = [len(c.frames) for c in clients]
        for client in clients:
            client._raw_write(raw_frame(FRAME_PING, 0, 0, b"blackhol"))
        for client, n in zip(clients, seen):
            with pytest.raises(TimeoutError):
                client.pump(lambda: len(client.frames) > n, timeout=0.5)
        assert sorted(e["connectionId"] for e in command_events(mock, "blackhole")) == ids
    finally:
        for client in clients:
            client.close()


def test_blackhole_fault_rule_silences_the_connection_from_its_push_on(mock):
    trigger = tok()
    add_fault(mock, {"match": {"token": trigger}, "action": {"type": "blackhole"}})
    client = connect(mock)
    client.raw_after_goaway = True
    try:
        assert client.request(apns_headers(tok()), BODY).status == 200
        seen = len(client.frames)
        sid = client.start_request(apns_headers(trigger), BODY)
        client.pump(lambda: len(mock.deliveries(token=trigger)["deliveries"]) == 1, timeout=2)
        client._raw_write(raw_frame(FRAME_PING, 0, 0, b"blackhol"))
        client.start_request(apns_headers(tok()), BODY)
        with pytest.raises(TimeoutError):
            client.pump(lambda: len(client.frames) > seen, timeout=1.0)
        assert not client.closed
        events = [e for e in mock.get_json("/v1/events")["events"] if e["kind"] == "blackhole"]
        assert [(e["origin"], e["action"]) for e in events] == [("fault", "blackhole")], events
    finally:
        client.close()
    wait_no_connections(mock)
    record = mock.deliveries(token=trigger)["deliveries"][0]
    assert (record["streamId"], record["status"], record["unanswered"]) == (sid, None, "connection-closed-by-client")
    assert record["fault"]["action"] == "blackhole", record


# -------------------------------------------------------------------------------------------
# Drain: GOAWAY NO_ERROR, the streams in flight answered, FIN right after the last, with a cap.
# -------------------------------------------------------------------------------------------

def test_drain_answers_the_stream_in_flight_then_closes_at_once(mock):
    held = tok()
    add_fault(mock, {"match": {"token": held}, "action": {"type": "delay", "ms": 500}})
    client = connect(mock)
    client.raw_after_goaway = True
    try:
        sid = client.start_request(apns_headers(held), BODY)
        client.pump(lambda: len(mock.deliveries(token=held)["deliveries"]) == 1, timeout=2)
        cid = connection_id(mock, client)
        started = time.monotonic()
        resp = mock.control("POST", f"/v1/connections/{cid}/drain", {"maxMs": 3000})
        assert (resp.status, resp.json) == (200, {"id": cid, "action": "drain"})
        client.pump(lambda: client.goaway is not None, timeout=1)
        goaway_at = time.monotonic() - started
        frame = [f for f in client.frames if f.type == FRAME_GOAWAY][0]
        assert (int.from_bytes(frame.payload[0:4], "big"), int.from_bytes(frame.payload[4:8], "big"),
                frame.payload[8:]) == (sid, 0, SHUTDOWN)
        client.pump(lambda: client.responses[sid].done, timeout=2)
        answered_at = time.monotonic() - started
        assert client.responses[sid].status == 200
        assert client.wait_closed(2)
        closed_at = time.monotonic() - started
        assert client.close_kind == "eof"
        assert goaway_at < 0.3, goaway_at
        assert 0.2 < answered_at < 1.0, answered_at  # the delay's rest, not the cap
        assert closed_at - answered_at < 0.3, (answered_at, closed_at)  # FIN right after the last answer
        events = command_events(mock, "goaway")
        assert [(e["connectionId"], e["details"]["closeAfterMs"]) for e in events] == [(cid, 3000)], events
    finally:
        client.close()
    assert mock.deliveries(token=held)["deliveries"][0]["status"] == 200


def test_drain_cap_closes_with_a_stream_still_held(mock):
    held = tok()
    add_fault(mock, {"match": {"token": held}, "action": {"type": "delay", "ms": 3000}})
    client = connect(mock)
    client.raw_after_goaway = True
    try:
        sid = client.start_request(apns_headers(held), BODY)
        client.pump(lambda: len(mock.deliveries(token=held)["deliveries"]) == 1, timeout=2)
        started = time.monotonic()
        resp = mock.control("POST", "/v1/connections/drain", {"maxMs": 400})
        assert resp.status == 200 and resp.json["action"] == "drain", resp.body
        assert client.wait_closed(2)
        closed_at = time.monotonic() - started
        assert 0.3 < closed_at < 1.0, closed_at
        assert seen_status(client, sid) is None
        assert mock.control("POST", "/v1/connections/drain", {"maxMs": 0}).status == 400
    finally:
        client.close()
    wait_no_connections(mock)
    record = mock.deliveries(token=held)["deliveries"][0]
    assert (record["status"], record["unanswered"]) == (None, "connection-closed"), record


def seen_status(client, sid):
    from livelib import FRAME_HEADERS
    if not any(f.type == FRAME_HEADERS and f.stream_id == sid for f in client.frames):
        return None
    return client.responses[sid].status


def parse_goaway(frame):
    return int.from_bytes(frame.payload[0:4], "big") & 0x7FFFFFFF, int.from_bytes(frame.payload[4:8], "big")


def test_a_goaway_rule_sends_one_goaway_per_connection(mock):
    """Six pushes in one write, each matching a goaway rule: one GOAWAY (RFC 9113 §6.8: a later one
    could only keep or lower the last-stream-id), one event, and every push above it unanswered."""
    add_fault(mock, {"action": {"type": "goaway", "reason": "Shutdown"}})
    client = connect(mock)
    client.raw_after_goaway = True
    tokens = [tok() for _ in range(6)]
    try:
        sids = client.send_in_one_write([(apns_headers(token), BODY) for token in tokens])
        assert client.wait_closed(3)
        goaways = [parse_goaway(f) for f in client.frames if f.type == FRAME_GOAWAY]
        assert goaways == [(0, 0)], goaways
    finally:
        client.close()
    wait_no_connections(mock)
    assert len([e for e in mock.get_json("/v1/events")["events"] if e["kind"] == "goaway"]) == 1
    for token in tokens:
        for record in mock.deliveries(token=token)["deliveries"]:
            assert (record["status"], record["unanswered"]) == (None, "above-last-stream-id"), record
