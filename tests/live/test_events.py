"""Connection events (issue "Fault injection", section 3): what the server does to a connection outside
any request's answer -- GOAWAY, FIN, TCP RST, SETTINGS, flow-control stalls, listener conditions, idle
timeouts, shutdown, certificate rejections, and connections opened and closed -- recorded and served by
GET /v1/events, DELETE /v1/events and GET /v1/events/wait.

Every test triggers the event over a real connection (hyper-h2 or a raw socket), checks what the client
saw on the wire, then checks the event: kind, origin, rule, connection id and peer (the client's own
address), and the details (error code, last-stream-id, debug data, SETTINGS values, durations).
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
import urllib.parse
import uuid

import pytest

from livelib import (
    CA_PEM,
    FLAG_ACK,
    FRAME_GOAWAY,
    FRAME_SETTINGS,
    REPO_ROOT,
    apns_headers,
    h2_client_for,
    parse_settings,
)

NO_ERROR = 0
SETTINGS_MAX_CONCURRENT_STREAMS = 3
SHUTDOWN = b'{"reason":"Shutdown"}'
BODY = b'{"aps":{"alert":"events"}}'
CLIENT_CA = REPO_ROOT / "fixtures" / "auth" / "client-ca.pem"
EXPIRED_CERT = (REPO_ROOT / "fixtures" / "auth" / "client-expired.pem",
                REPO_ROOT / "fixtures" / "auth" / "client-expired-key.pem")
COMMON_KEYS = {"seq", "at", "kind", "listener", "environment", "connectionId", "peer", "origin", "ruleId", "action",
               "description", "details"}


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def tok() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


@pytest.fixture
def mock(server_factory):
    """A fresh server per test, so event sequence numbers and connection ids start from scratch."""
    return server_factory("--drain-timeout", "1")


def query_string(query) -> str:
    return ("?" + urllib.parse.urlencode(query)) if query else ""


def events(server, **query):
    """GET /v1/events with `query` as filters; the list of events."""
    return server.get_json("/v1/events" + query_string(query))["events"]


def wait_events(server, count=1, timeout_ms=5000, **query):
    """GET /v1/events/wait; the whole answer."""
    query = dict(query, count=count, timeoutMs=timeout_ms)
    response = server.get("/v1/events/wait" + query_string(query), timeout=timeout_ms / 1000 + 5)
    assert response.status == 200, (response.status, response.body)
    return response.json


def one_event(server, **query):
    """The single event matching `query`, waited for (up to 5 s)."""
    answer = wait_events(server, **query)
    assert answer["complete"], f"no event matching {query}: {events(server)}"
    assert answer["matched"] == 1, answer["events"]
    event = answer["events"][0]
    assert set(event) == COMMON_KEYS, event
    return event


def add_fault(server, rule) -> str:
    response = server.control("POST", "/v1/faults", rule)
    assert response.status == 201, (rule, response.status, response.body)
    return response.json["faults"][0]["id"]


def connect(server, **kw):
    """An h2 connection (TLS over memory BIOs, so a TCP RST is seen as such), past the SETTINGS."""
    client = h2_client_for(server.listener, tls_bio=True, **kw)
    client.wait_for_settings()
    return client


def local_address(client) -> str:
    host, port = client.sock.getsockname()[:2]
    return f"{host}:{port}"


def connection_id(server, client) -> int:
    peer = local_address(client)
    mine = [c for c in server.get_json("/v1/connections")["connections"] if c["peer"] == peer]
    assert len(mine) == 1, (peer, mine)
    return mine[0]["id"]


def parse_goaway(frame):
    payload = frame.payload
    return int.from_bytes(payload[0:4], "big") & 0x7FFFFFFF, int.from_bytes(payload[4:8], "big"), payload[8:]


def goaway_frames(client):
    return [f for f in client.frames if f.type == FRAME_GOAWAY]


def record_of(server, token):
    deadline = time.monotonic() + 3
    while True:
        found = server.deliveries(token=token)["deliveries"]
        if found or time.monotonic() > deadline:
            assert len(found) == 1, found
            return found[0]
        time.sleep(0.02)


def assert_on(event, client, server, kind, origin):
    """The event is of `kind` and `origin`, on this client's connection of the server's first listener."""
    assert (event["kind"], event["origin"]) == (kind, origin), event
    assert event["peer"] == local_address(client), event
    assert (event["listener"], event["environment"]) == (server.listener.name, "sandbox"), event
    assert isinstance(event["connectionId"], int), event


def set_conditions(server, **fields):
    response = server.put(f"/v1/listeners/{server.listener.name}/conditions", fields)
    assert response.status == 200, response.body


# --------------------------------------------------------------------------------------------
# faults
# --------------------------------------------------------------------------------------------


def test_fault_goaway_is_an_event_with_the_frame_it_sent(mock):
    """docs/field-cases.md C1 shape: GOAWAY NO_ERROR {"reason":"Shutdown"}, socket kept 500 ms; then a second rule's bare pair."""
    first, trigger = tok(), tok()
    rule = add_fault(mock, {"match": {"token": trigger},
                            "action": {"type": "goaway", "reason": "Shutdown", "closeAfterMs": 500}})
    client = connect(mock)
    client.raw_after_goaway = True
    try:
        assert client.request(apns_headers(first), BODY).status == 200  # stream 1
        client.start_request(apns_headers(trigger), BODY)  # stream 3
        client.pump(lambda: client.goaway is not None, timeout=3)
        last, code, debug = parse_goaway(goaway_frames(client)[0])
        assert (last, code, debug) == (1, NO_ERROR, SHUTDOWN)
        event = one_event(mock, kind="goaway")
        assert_on(event, client, mock, "goaway", "fault")
        assert (event["ruleId"], event["action"]) == (rule, "goaway")
        assert event["details"] == {"errorCode": "NO_ERROR", "lastStreamId": last, "debugData": debug.decode(),
                                    "reason": "Shutdown", "closeAfterMs": 500}
        assert rule in event["description"] and "GOAWAY NO_ERROR" in event["description"]
        assert client.wait_closed(3)
    finally:
        client.close()
    record = record_of(mock, trigger)
    assert record["fault"]["ruleId"] == rule
    assert record["connectionId"] == event["connectionId"], "the record and the event name the same connection"
    closed = one_event(mock, kind="closed", connectionId=event["connectionId"])
    assert closed["seq"] > event["seq"] and closed["details"]["requests"] == 2, closed


def test_fault_goaway_with_a_second_bare_goaway_is_two_events(mock):
    """C2 shape: GOAWAY(0, NO_ERROR, BadCertificateEnvironment) then a bare GOAWAY, each an event."""
    token = tok()
    rule = add_fault(mock, {"match": {"token": token}, "action": {
        "type": "goaway", "lastStreamId": 0, "reason": "BadCertificateEnvironment", "secondBareGoaway": True}})
    client = connect(mock)
    client.raw_after_goaway = True
    try:
        client.start_request(apns_headers(token), BODY)
        assert client.wait_closed(3)
        assert len(goaway_frames(client)) == 2
        answer = wait_events(mock, count=2, kind="goaway", ruleId=rule)
        assert answer["complete"], answer
        assert [e["details"]["debugData"] for e in answer["events"]] == ['{"reason":"BadCertificateEnvironment"}', ""]
        assert [e["details"]["reason"] for e in answer["events"]] == ["BadCertificateEnvironment", None]
        assert {e["details"]["lastStreamId"] for e in answer["events"]} == {0}
        for event in answer["events"]:
            assert_on(event, client, mock, "goaway", "fault")
    finally:
        client.close()


@pytest.mark.parametrize(
    "kind, when, close_kind",
    [("close", "before-response", "eof"), ("close", "after-response", "eof"),
     ("reset", "before-response", "reset"), ("reset", "after-response", "reset")],
)
def test_fault_close_and_reset_are_events(mock, kind, when, close_kind):
    token = tok()
    rule = add_fault(mock, {"match": {"token": token}, "action": {"type": kind, "when": when}})
    client = connect(mock)
    try:
        assert client.request(apns_headers(tok()), BODY).status == 200
        client.start_request(apns_headers(token), BODY)
        assert client.wait_closed(3)
        assert client.close_kind == close_kind, (client.close_kind, client.close_error)
        event = one_event(mock, kind=kind)
        assert_on(event, client, mock, kind, "fault")
        assert (event["ruleId"], event["action"], event["details"]) == (rule, kind, {"when": when})
    finally:
        client.close()
    assert events(mock, kind="goaway") == [], "a close or reset sends no GOAWAY"


def test_fault_settings_is_an_event_with_old_and_new_limit(mock):
    token = tok()
    rule = add_fault(mock, {"match": {"token": token}, "action": {"type": "settings", "maxConcurrentStreams": 2}})
    client = connect(mock)
    try:
        assert client.request(apns_headers(token), BODY).status == 200
        client.pump(lambda: len([f for f in client.frames if f.type == FRAME_SETTINGS and not f.flags & FLAG_ACK]) >= 2,
                    timeout=3)
        settings = [f for f in client.frames if f.type == FRAME_SETTINGS and not f.flags & FLAG_ACK]
        assert (SETTINGS_MAX_CONCURRENT_STREAMS, 2) in parse_settings(settings[-1].payload)
        event = one_event(mock, kind="settings")
        assert_on(event, client, mock, "settings", "fault")
        assert event["ruleId"] == rule
        assert event["details"] == {"maxConcurrentStreams": 2, "previousMaxConcurrentStreams": 1000}
    finally:
        client.close()


def test_window_stall_start_and_end_are_events(mock):
    """withholdWindowUpdate 600 ms: a start event at once, an end event once WINDOW_UPDATE resumes, with
    the bytes that waited for it."""
    trigger = tok()
    rule = add_fault(mock, {"match": {"token": trigger}, "action": {"type": "withholdWindowUpdate", "ms": 600}})
    client = connect(mock)
    try:
        assert client.request(apns_headers(trigger), BODY).status == 200
        started = time.monotonic()
        start = one_event(mock, kind="windowStallStart")
        assert_on(start, client, mock, "windowStallStart", "fault")
        assert (start["ruleId"], start["action"], start["details"]) == (rule, "withholdWindowUpdate", {"durationMs": 600})
        assert events(mock, kind="windowStallEnd") == [], "the stall ended at once"
        big = b'{"aps":{"alert":"' + b"x" * 3900 + b'"}}'
        responses = client.run_many([(apns_headers(tok()), big) for _ in range(20)], concurrency=20, timeout=10)
        assert [r.status for r in responses] == [200] * 20
        assert time.monotonic() - started >= 0.55, "the bodies were not held up by the stall"
        end = one_event(mock, kind="windowStallEnd")
        assert_on(end, client, mock, "windowStallEnd", "fault")
        assert end["ruleId"] == rule and end["connectionId"] == start["connectionId"]
        assert 590 <= end["details"]["durationMs"] < 2000, end
        assert end["details"]["withheldBytes"] > 0, end
    finally:
        client.close()


# --------------------------------------------------------------------------------------------
# control commands
# --------------------------------------------------------------------------------------------


def test_command_goaway_close_and_reset_are_events(mock):
    clients = [connect(mock) for _ in range(3)]
    try:
        for client in clients:
            assert client.request(apns_headers(tok()), BODY).status == 200
        ids = [connection_id(mock, c) for c in clients]
        body = {"errorCode": "ENHANCE_YOUR_CALM", "reason": "TooManyRequests", "closeAfterMs": 0}
        assert mock.control("POST", f"/v1/connections/{ids[0]}/goaway", body).status == 200
        assert mock.control("POST", f"/v1/connections/{ids[1]}/close").status == 200
        assert mock.control("POST", f"/v1/connections/{ids[2]}/reset").status == 200
        for client in clients:
            assert client.wait_closed(3)
        assert [parse_goaway(f) for f in goaway_frames(clients[0])] == [(1, 11, b'{"reason":"TooManyRequests"}')]
        assert clients[2].close_kind == "reset"
        answer = wait_events(mock, count=3, origin="command")
        assert answer["complete"], answer
        goaway, close, reset = answer["events"]
        assert_on(goaway, clients[0], mock, "goaway", "command")
        assert goaway["details"] == {"errorCode": "ENHANCE_YOUR_CALM", "lastStreamId": 1,
                                     "debugData": '{"reason":"TooManyRequests"}', "reason": "TooManyRequests",
                                     "closeAfterMs": 0}
        assert_on(close, clients[1], mock, "close", "command")
        assert_on(reset, clients[2], mock, "reset", "command")
        assert close["details"] == reset["details"] == {"when": None}
        assert [e["connectionId"] for e in answer["events"]] == ids
        assert all(e["ruleId"] is None and e["action"] is None for e in answer["events"])
    finally:
        for client in clients:
            client.close()


# --------------------------------------------------------------------------------------------
# listener conditions, idle timeout, stream profile, certificates, shutdown, lifecycle
# --------------------------------------------------------------------------------------------


def tls_connect(server, timeout):
    """A TLS handshake on a fresh socket; returns (local address, seconds the handshake took)."""
    context = ssl.create_default_context(cafile=str(CA_PEM))
    context.set_alpn_protocols(["h2"])
    raw = socket.create_connection((server.listener.host, server.listener.port), timeout=timeout)
    address = "%s:%d" % raw.getsockname()[:2]
    started = time.monotonic()
    try:
        with context.wrap_socket(raw, server_hostname="localhost"):
            return address, time.monotonic() - started
    finally:
        raw.close()


def test_handshake_delay_is_an_event(mock):
    set_conditions(mock, handshakeDelayMs=500)
    address, took = tls_connect(mock, timeout=5)
    assert took >= 0.45, took
    event = one_event(mock, kind="handshakeDelay")
    assert (event["origin"], event["peer"], event["details"]) == ("listenerCondition", address, {"durationMs": 500})
    assert isinstance(event["connectionId"], int)
    opened = one_event(mock, kind="opened", connectionId=event["connectionId"])
    assert opened["seq"] > event["seq"], "the delay is recorded when it starts, before the session opens"


def test_silent_accept_is_an_event(mock):
    set_conditions(mock, silent=True)
    with pytest.raises((TimeoutError, socket.timeout)):
        tls_connect(mock, timeout=0.5)
    event = one_event(mock, kind="silentAccept")
    assert (event["origin"], event["details"]) == ("listenerCondition", {})
    assert isinstance(event["connectionId"], int)
    assert events(mock, kind="opened") == [], "a silent connection never opens"


def test_refused_connection_is_an_event_without_connection_id(mock):
    set_conditions(mock, refuseMs=5000)
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.settimeout(2)
    raw.bind((mock.listener.host, 0))  # the address is known even if the reset beats connect()
    address = "%s:%d" % raw.getsockname()[:2]
    try:
        with pytest.raises((ConnectionResetError, BrokenPipeError)):
            raw.connect((mock.listener.host, mock.listener.port))
            raw.sendall(b"\x16\x03\x01\x00\x00")
            while raw.recv(100):  # the server resets at once
                pass
    finally:
        raw.close()
    event = one_event(mock, kind="refused")
    assert (event["origin"], event["peer"], event["connectionId"], event["details"]) == (
        "listenerCondition", address, None, {})
    assert events(mock, kind="refused", connectionId=0) == [], "no connection id to match"


def test_idle_timeout_goaway_is_an_event(server_factory):
    server = server_factory("--idle-timeout", "0.4", "--idle-action", "goaway")
    client = connect(server)
    try:
        assert client.request(apns_headers(tok()), BODY).status == 200
        client.pump(lambda: client.goaway is not None, timeout=3)
        assert client.goaway.additional_data == b'{"reason":"IdleTimeout"}'
        event = one_event(server, kind="goaway")
        assert_on(event, client, server, "goaway", "idleTimeout")
        assert event["details"] == {"errorCode": "NO_ERROR", "lastStreamId": 1, "debugData": '{"reason":"IdleTimeout"}',
                                    "reason": "IdleTimeout", "closeAfterMs": 0}
    finally:
        client.close()


def test_idle_timeout_reset_is_an_event(server_factory):
    server = server_factory("--idle-timeout", "0.4")
    client = connect(server)
    try:
        assert client.request(apns_headers(tok()), BODY).status == 200
        assert client.wait_closed(3) and client.close_kind == "reset"
        event = one_event(server, kind="reset")
        assert_on(event, client, server, "reset", "idleTimeout")
        assert event["details"] == {"when": None}
        closed = one_event(server, kind="closed")
        assert closed["seq"] > event["seq"]
    finally:
        client.close()


def test_apple_observed_settings_changes_are_events(server_factory):
    """apple-observed: opened at 1 stream, raised after an accepted push, lowered after a rejected one."""
    server = server_factory("--stream-profile", "apple-observed")
    client = connect(server)
    try:
        assert (SETTINGS_MAX_CONCURRENT_STREAMS, 1) in client.first_server_settings()
        assert client.request(apns_headers(tok()), BODY).status == 200
        assert client.request(apns_headers("not-hex"), BODY).status == 400
        answer = wait_events(server, count=2, kind="settings")
        assert answer["complete"], answer
        raised, lowered = answer["events"]
        assert_on(raised, client, server, "settings", "streamProfile")
        assert raised["details"] == {"maxConcurrentStreams": 1000, "previousMaxConcurrentStreams": 1}
        assert lowered["details"] == {"maxConcurrentStreams": 1, "previousMaxConcurrentStreams": 1000}
        opened = one_event(server, kind="opened")
        assert opened["details"] == {"alpn": "h2", "tls": True, "maxConcurrentStreams": 1}
    finally:
        client.close()


def test_certificate_rejection_goaway_is_an_event(server_factory):
    """C2: an expired client certificate gets GOAWAY {"reason":"BadCertificate"} at its first request."""
    server = server_factory("--client-ca", str(CLIENT_CA))
    client = h2_client_for(server.listener, tls_bio=True, client_cert=EXPIRED_CERT)
    client.raw_after_goaway = True
    try:
        client.start_request(apns_headers(tok()), BODY)
        client.pump(lambda: client.goaway is not None, timeout=5)
        assert parse_goaway(goaway_frames(client)[0]) == (0, NO_ERROR, b'{"reason":"BadCertificate"}')
        event = one_event(server, kind="goaway")
        assert_on(event, client, server, "goaway", "certificate")
        assert event["details"] == {"errorCode": "NO_ERROR", "lastStreamId": 0, "debugData": '{"reason":"BadCertificate"}',
                                    "reason": "BadCertificate", "closeAfterMs": 0}
    finally:
        client.close()


def test_shutdown_goaway_is_an_event_a_waiting_client_sees(server_factory):
    """A wait for origin=shutdown, pending when the server gets SIGTERM, answers with the GOAWAY Shutdown
    the server sent to the open connection."""
    server = server_factory()
    client = connect(server)
    assert client.request(apns_headers(tok()), BODY).status == 200
    answers = []
    waiter = threading.Thread(target=lambda: answers.append(wait_events(server, origin="shutdown", timeout_ms=8000)))
    waiter.start()
    try:
        time.sleep(0.3)
        assert waiter.is_alive(), answers
        server.signal()
        client.pump(lambda: client.goaway is not None, timeout=5)
        assert client.goaway.additional_data == SHUTDOWN
        waiter.join(10)
        assert answers and answers[0]["complete"], answers
        event = answers[0]["events"][0]
        assert_on(event, client, server, "goaway", "shutdown")
        assert event["details"] == {"errorCode": "NO_ERROR", "lastStreamId": 1, "debugData": SHUTDOWN.decode(),
                                    "reason": "Shutdown", "closeAfterMs": None}
    finally:
        client.close()
        waiter.join(10)
    assert server.stop()[0] == 0


def test_opened_and_closed_are_events(mock):
    client = connect(mock)
    try:
        for _ in range(3):
            assert client.request(apns_headers(tok()), BODY).status == 200
        opened = one_event(mock, kind="opened")
        assert_on(opened, client, mock, "opened", "lifecycle")
        assert opened["details"] == {"alpn": "h2", "tls": True, "maxConcurrentStreams": 1000}
        assert opened["connectionId"] == connection_id(mock, client)
        assert events(mock, kind="closed") == []
    finally:
        client.close()
    closed = one_event(mock, kind="closed")
    assert (closed["origin"], closed["connectionId"], closed["peer"]) == ("lifecycle", opened["connectionId"], opened["peer"])
    assert closed["details"]["requests"] == 3 and closed["details"]["ageMs"] >= 0, closed


# --------------------------------------------------------------------------------------------
# querying: wait, filters, clear, stats, errors
# --------------------------------------------------------------------------------------------


def test_wait_blocks_until_the_event_arrives(mock):
    client = connect(mock)
    try:
        assert client.request(apns_headers(tok()), BODY).status == 200
        cid = connection_id(mock, client)
        timer = threading.Timer(0.6, lambda: mock.control("POST", f"/v1/connections/{cid}/reset"))
        started = time.monotonic()
        timer.start()
        answer = wait_events(mock, kind="reset", connectionId=cid, timeout_ms=5000)
        took = time.monotonic() - started
        timer.join()
        assert answer["complete"] and answer["matched"] == 1, answer
        assert 0.55 <= took < 2.0, f"the wait answered after {took:.3f}s; the reset came at 0.6s"
        assert answer["events"][0]["origin"] == "command"
    finally:
        client.close()
    timed_out = wait_events(mock, kind="goaway", timeout_ms=300)
    assert (timed_out["complete"], timed_out["matched"], timed_out["events"]) == (False, 0, [])


def test_filters_select_events(mock):
    rule = add_fault(mock, {"match": {"nthConnection": 2}, "action": {"type": "reset", "when": "after-response"}})
    first = connect(mock)
    second = connect(mock)
    try:
        assert first.request(apns_headers(tok()), BODY).status == 200
        second.start_request(apns_headers(tok()), BODY)
        assert second.wait_closed(3)
        first_id, = {e["connectionId"] for e in events(mock, kind="opened") if e["peer"] == local_address(first)}
        second_id = one_event(mock, kind="reset")["connectionId"]
        assert first_id != second_id
        one_event(mock, kind="closed", connectionId=second_id)
        everything = events(mock)
        assert [e["seq"] for e in everything] == list(range(1, len(everything) + 1))
        # (query, expected events as (kind, connection id))
        rows = [
            ({"connectionId": first_id}, [("opened", first_id)]),
            ({"connectionId": second_id}, [("opened", second_id), ("reset", second_id), ("closed", second_id)]),
            ({"kind": "reset,closed"}, [("reset", second_id), ("closed", second_id)]),
            ({"ruleId": rule}, [("reset", second_id)]),
            ({"origin": "lifecycle", "connectionId": second_id}, [("opened", second_id), ("closed", second_id)]),
            ({"listener": mock.listener.name, "kind": "reset"}, [("reset", second_id)]),
            ({"listener": "nope"}, []),
            ({"environment": "production"}, []),
            ({"after": everything[-2]["seq"]}, [(everything[-1]["kind"], everything[-1]["connectionId"])]),
            ({"kind": "opened", "limit": 1}, [("opened", everything[0]["connectionId"])]),
        ]
        for query, expected in rows:
            assert [(e["kind"], e["connectionId"]) for e in events(mock, **query)] == expected, query
        page = mock.get_json("/v1/events?kind=opened&limit=1")
        assert page["more"] is True and page["lastSeq"] == everything[-1]["seq"]
        # since/until: the window around the reset, in ISO 8601 and in epoch milliseconds
        reset = one_event(mock, kind="reset")
        since = events(mock, since=reset["at"])
        until = events(mock, until=reset["at"])
        assert reset in since and reset not in until
        assert all(e["at"] >= reset["at"] for e in since) and all(e["at"] < reset["at"] for e in until)
        assert len(since) + len(until) == len(everything)
        in_ms = int(time.time() * 1000) + 60_000
        assert events(mock, since=str(in_ms)) == []
    finally:
        first.close()
        second.close()


def test_bad_filters_are_400_naming_the_parameter(mock):
    rows = [
        ("/v1/events?kind=goawy", "did you mean 'goaway'"),
        ("/v1/events?origin=faults", "did you mean 'fault'"),
        ("/v1/events?connectionId=abc", "connectionId must be a non-negative integer"),
        ("/v1/events?since=yesterday", "since must be an ISO 8601 time"),
        ("/v1/events?since=2000&until=1000", "until must be later than since"),
        ("/v1/events?token=aa", "unknown query parameter(s) 'token'"),
        ("/v1/events/wait?count=0", "count must be at least 1"),
        ("/v1/events/wait?timeoutMs=300001", "timeoutMs must be between 0 and 300000"),
    ]
    for target, message in rows:
        response = mock.get(target)
        assert response.status == 400, (target, response.status, response.body)
        assert message in response.json["error"], (target, response.json)
    response = mock.control("PUT", "/v1/events", {})
    assert response.status == 405 and "GET, DELETE" in response.json["error"]


def test_clear_and_stats(server_factory):
    server = server_factory("--max-events", "2")
    for _ in range(2):  # four events: opened and closed, twice
        client = connect(server)
        assert client.request(apns_headers(tok()), BODY).status == 200
        client.close()
    deadline = time.monotonic() + 3
    while server.stats()["events"]["recorded"] < 4 and time.monotonic() < deadline:
        time.sleep(0.02)
    stats = server.stats()["events"]
    assert (stats["recorded"], stats["records"], stats["evicted"], stats["capacity"]) == (4, 2, 2, 2), stats
    assert stats["byKind"] == {"opened": 2, "closed": 2}
    page = server.get_json("/v1/events")
    assert [e["seq"] for e in page["events"]] == [3, 4] and page["evicted"] == 2
    cleared = server.delete("/v1/events")
    assert (cleared.status, cleared.json) == (200, {"cleared": 2, "lastSeq": 4})
    assert server.get_json("/v1/events") == {"events": [], "more": False, "evicted": 0, "lastSeq": 4}
    stats = server.stats()["events"]
    assert (stats["recorded"], stats["records"], stats["byKind"]) == (4, 0, {"opened": 2, "closed": 2})
    client = connect(server)
    client.close()
    assert one_event(server, kind="opened")["seq"] == 5, "numbering continues after a clear"
