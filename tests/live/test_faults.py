"""Fault injection seen from the wire (docs/field-cases.md C1, C2, C3, C4, C5, C7, C12; docs/apns-behaviour.md §2, §6, §9).

Every test drives the real binary over real connections: the fault rules go in through the control
API (or the configuration file, or --fault-scenario), the pushes go out on hyper-h2 connections
whose raw frames are logged with their arrival time (time.monotonic()), and the assertions are on
what a sender sees: frames, statuses, bodies, timings and how the TCP connection ended (FIN or
RST, told apart with H2Client(tls_bio=True)). Each test also checks that the delivery record of the
push it faulted names the rule (fault.ruleId) and the action (fault.action).
"""

from __future__ import annotations

import datetime
import json
import time
import uuid

import pytest

from livelib import (
    connection_entry,
    FLAG_ACK,
    FLAG_END_HEADERS,
    FLAG_END_STREAM,
    FRAME_DATA,
    FRAME_GOAWAY,
    FRAME_HEADERS,
    FRAME_RST_STREAM,
    FRAME_WINDOW_UPDATE,
    FRAME_SETTINGS,
    TOPIC,
    apns_headers,
    h2_client_for,
    parse_settings,
)

NO_ERROR, PROTOCOL_ERROR, INTERNAL_ERROR, REFUSED_STREAM, CANCEL, ENHANCE_YOUR_CALM = 0, 1, 2, 7, 8, 11
SETTINGS_MAX_CONCURRENT_STREAMS = 3
SHUTDOWN = b'{"reason":"Shutdown"}'
BODY = b'{"aps":{"alert":"fault test"}}'
STREAM_FRAMES = (FRAME_DATA, FRAME_HEADERS, FRAME_RST_STREAM, 9)  # 9: CONTINUATION
SLACK = 0.005  # timer and clock granularity, seconds


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def tok(prefix: str = "") -> str:
    """A fresh 64-hex-character device token, optionally starting with `prefix`."""
    return (prefix + uuid.uuid4().hex + uuid.uuid4().hex)[:64]


@pytest.fixture
def mock(server_factory):
    """A fresh server per test: fault rules, connection ordinals and counters start from zero."""
    return server_factory("--drain-timeout", "1")


def add_faults(server, rules):
    """POST /v1/faults; returns the rules as stored (ids assigned)."""
    resp = server.control("POST", "/v1/faults", rules)
    assert resp.status == 201, (rules, resp.status, resp.body)
    return resp.json["faults"]


def add_fault(server, rule) -> str:
    stored = add_faults(server, rule)
    assert len(stored) == 1, stored
    return stored[0]["id"]


def fault_status(server, rule_id):
    return server.get_json(f"/v1/faults/{rule_id}")


def connect(server, **kw):
    """An h2 connection (TLS over memory BIOs, so a TCP RST is seen as such), past the SETTINGS."""
    client = h2_client_for(server.listener, tls_bio=True, **kw)
    client.wait_for_settings()
    return client


def push_h2(client, token, *, body=BODY, **kw):
    return client.request(apns_headers(token, **kw), body)


def records(server, token, count=1, timeout=3.0):
    """The delivery records of `token`, once at least `count` exist."""
    deadline = time.monotonic() + timeout
    while True:
        found = server.deliveries(token=token)["deliveries"]
        if len(found) >= count or time.monotonic() > deadline:
            assert len(found) >= count, f"expected {count} records for {token}, got {found}"
            return found
        time.sleep(0.02)


def record_of(server, token):
    found = records(server, token)
    assert len(found) == 1, found
    return found[0]


def assert_fault(record, rule_id, action):
    fault = record["fault"]
    assert fault is not None, f"record without fault: {record}"
    assert (fault["ruleId"], fault["action"]) == (rule_id, action), fault
    assert isinstance(fault["description"], str) and rule_id in fault["description"], fault


def stream_frames(client, sid):
    return [f for f in client.frames_for(sid) if f.type in STREAM_FRAMES]


def goaway_frames(client):
    return [f for f in client.frames if f.type == FRAME_GOAWAY]


def parse_goaway(frame):
    payload = frame.payload
    return (int.from_bytes(payload[0:4], "big") & 0x7FFFFFFF, int.from_bytes(payload[4:8], "big"), payload[8:])


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {timeout}s")
        time.sleep(0.02)


def statuses(client, tokens, **kw):
    return [push_h2(client, t, **kw).status for t in tokens]


def assert_error_answer(client, resp, status, reason):
    """An APNs error as docs/apns-behaviour.md §2 frames it: HEADERS (no END_STREAM), then DATA with END_STREAM."""
    assert resp.status == status, resp
    frames = stream_frames(client, resp.stream_id)
    assert [f.type for f in frames] == [FRAME_HEADERS, FRAME_DATA], frames
    assert not frames[0].flags & FLAG_END_STREAM and frames[1].flags & FLAG_END_STREAM
    assert resp.header("content-type") == "application/json", resp.headers
    assert resp.header("apns-id"), resp.headers
    body = resp.json()
    assert body["reason"] == reason, body
    return body


def now_ms() -> int:
    return int(time.time() * 1000)


# --------------------------------------------------------------------------------------------
# one test per action kind
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action, status, reason",
    [
        ({"type": "respond", "status": 503, "reason": "ServiceUnavailable"}, 503, "ServiceUnavailable"),
        ({"type": "respond", "status": 500, "reason": "InternalServerError"}, 500, "InternalServerError"),
        ({"type": "respond", "reason": "BadDeviceToken"}, 400, "BadDeviceToken"),  # the reason's own status
        ({"type": "respond", "reason": "TooManyProviderTokenUpdates"}, 429, "TooManyProviderTokenUpdates"),
        ({"type": "respond", "status": 500, "reason": "ServiceUnavailable"}, 500, "ServiceUnavailable"),
    ],
    ids=["503", "500", "400-default-status", "429-default-status", "status-differs-from-reason"],
)
def test_respond_any_status_and_reason(mock, action, status, reason):
    victim, bystander = tok(), tok()
    rule = add_fault(mock, {"match": {"token": victim}, "action": action})
    client = connect(mock)
    try:
        resp = push_h2(client, victim)
        body = assert_error_answer(client, resp, status, reason)
        assert body == {"reason": reason}, body  # timestamp only on 410
        assert push_h2(client, bystander).status == 200
    finally:
        client.close()
    record = record_of(mock, victim)
    assert (record["status"], record["reason"]) == (status, reason), record
    assert_fault(record, rule, "respond")
    assert record_of(mock, bystander)["fault"] is None


def test_respond_410_with_millisecond_timestamp(mock):
    """C12: 410 Unregistered carries a 13-digit timestamp, the given one or the request's time."""
    given, defaulted = tok(), tok()
    stamp = 1714564800000
    rules = add_faults(mock, [
        {"match": {"token": given}, "action": {"type": "respond", "status": 410, "reason": "Unregistered", "timestamp": stamp}},
        {"match": {"token": defaulted}, "action": {"type": "respond", "status": 410, "reason": "Unregistered"}},
    ])
    client = connect(mock)
    try:
        body = assert_error_answer(client, push_h2(client, given), 410, "Unregistered")
        assert body == {"reason": "Unregistered", "timestamp": stamp}, body
        before = now_ms()
        body = assert_error_answer(client, push_h2(client, defaulted), 410, "Unregistered")
        after = now_ms()
        assert set(body) == {"reason", "timestamp"}, body
        assert isinstance(body["timestamp"], int) and len(str(body["timestamp"])) == 13, body
        assert before - 1000 <= body["timestamp"] <= after + 1000, (before, body, after)
    finally:
        client.close()
    for token, rule, expected in ((given, rules[0]["id"], stamp), (defaulted, rules[1]["id"], body["timestamp"])):
        record = record_of(mock, token)
        assert (record["status"], record["reason"]) == (410, "Unregistered"), record
        assert_fault(record, rule, "respond")
        # the record's timestamp is documented as the 410 answer's timestamp (as the registry's 410s have)
        assert record["timestamp"] == expected, f"record timestamp {record['timestamp']!r}, answered {expected}"


def test_delay_then_normal_answer(mock):
    """The delayed stream is answered normally after >= the delay; the connection is not blocked."""
    slow, fast = tok(), tok()
    rule = add_fault(mock, {"match": {"token": slow}, "action": {"type": "delay", "ms": 400}})
    client = connect(mock)
    try:
        t0 = time.monotonic()
        sid_slow = client.start_request(apns_headers(slow), BODY)
        sid_fast = client.start_request(apns_headers(fast), BODY)
        client.pump(lambda: client.responses[sid_fast].done, timeout=3)
        assert client.responses[sid_fast].status == 200
        assert not client.responses[sid_slow].done, "the delayed stream was answered before the other one"
        client.pump(lambda: client.responses[sid_slow].done, timeout=3)
        slow_resp = client.responses[sid_slow]
        headers = stream_frames(client, sid_slow)[0]
        assert slow_resp.status == 200 and slow_resp.headers_end_stream, slow_resp
        assert headers.at - t0 >= 0.4 - SLACK, f"answered after {headers.at - t0:.3f}s, delay 0.4s"
        assert headers.at - t0 < 0.4 + 1.5, f"answered after {headers.at - t0:.3f}s"
    finally:
        client.close()
    record = record_of(mock, slow)
    assert record["status"] == 200 and record["reason"] is None, record
    assert_fault(record, rule, "delay")
    assert record_of(mock, fast)["fault"] is None


@pytest.mark.parametrize(
    "then, expect",
    [
        ({"type": "respond", "status": 503, "reason": "ServiceUnavailable"}, ("status", 503)),
        ({"type": "resetStream", "errorCode": "CANCEL"}, ("reset", CANCEL)),
    ],
    ids=["then-503", "then-rst-cancel"],
)
def test_delay_then_another_action(mock, then, expect):
    token = tok()
    rule = add_fault(mock, {"match": {"token": token}, "action": {"type": "delay", "ms": 300, "then": then}})
    client = connect(mock)
    try:
        t0 = time.monotonic()
        resp = push_h2(client, token)
        frames = stream_frames(client, resp.stream_id)
        assert frames, "no frame on the stream"
        assert frames[0].at - t0 >= 0.3 - SLACK, f"first frame after {frames[0].at - t0:.3f}s, delay 0.3s"
        if expect[0] == "status":
            assert_error_answer(client, resp, expect[1], "ServiceUnavailable")
        else:
            assert [f.type for f in frames] == [FRAME_RST_STREAM] and resp.reset == expect[1], frames
        assert push_h2(client, tok()).status == 200  # the connection lives on
    finally:
        client.close()
    record = record_of(mock, token)
    assert record["status"] == (expect[1] if expect[0] == "status" else None), record
    assert_fault(record, rule, "delay")


def test_no_response_c4(mock):
    """C4: accepted, never answered (no HEADERS, no RST_STREAM) while PINGs are ACKed and other streams
    are answered; the client's RST_STREAM CANCEL frees the slot."""
    stuck, other = tok(), tok()
    rule = add_fault(mock, {"match": {"token": stuck}, "action": {"type": "noResponse"}})
    client = connect(mock)
    try:
        t0 = time.monotonic()
        sid = client.start_request(apns_headers(stuck), BODY)
        client.ping(b"c4-ping1")
        assert push_h2(client, other).status == 200
        still_open = not client.wait_closed(max(0.0, 1.0 - (time.monotonic() - t0)))
        assert still_open, f"the connection ended ({client.close_kind})"
        client.ping(b"c4-ping2")
        assert client.ping_acks == [b"c4-ping1", b"c4-ping2"]
        assert time.monotonic() - t0 >= 1.0
        assert stream_frames(client, sid) == [], "the unanswered stream got frames"
        assert not client.responses[sid].done and client.goaway is None
        assert connection_entry(mock, client)["openStreams"] == 1
        record = record_of(mock, stuck)
        assert record["status"] is None and record["reason"] is None, record
        assert_fault(record, rule, "noResponse")

        client.conn.reset_stream(sid, error_code=CANCEL)
        client._flush()
        wait_for(lambda: connection_entry(mock, client)["openStreams"] == 0, 3, "openStreams not back to 0")
        assert push_h2(client, tok()).status == 200
    finally:
        client.close()


@pytest.mark.parametrize(
    "code, number",
    [("REFUSED_STREAM", REFUSED_STREAM), ("CANCEL", CANCEL), ("ENHANCE_YOUR_CALM", ENHANCE_YOUR_CALM),
     ("INTERNAL_ERROR", INTERNAL_ERROR), (11, ENHANCE_YOUR_CALM)],
    ids=["REFUSED_STREAM", "CANCEL", "ENHANCE_YOUR_CALM", "INTERNAL_ERROR", "numeric-11"],
)
def test_reset_stream(mock, code, number):
    token = tok()
    rule = add_fault(mock, {"match": {"token": token}, "action": {"type": "resetStream", "errorCode": code}})
    client = connect(mock)
    try:
        resp = push_h2(client, token)
        frames = stream_frames(client, resp.stream_id)
        assert [f.type for f in frames] == [FRAME_RST_STREAM], frames
        assert int.from_bytes(frames[0].payload, "big") == number and resp.reset == number
        assert resp.status is None
        assert push_h2(client, tok()).status == 200 and client.goaway is None
    finally:
        client.close()
    record = record_of(mock, token)
    assert record["status"] is None, record
    assert_fault(record, rule, "resetStream")


def test_goaway_mid_traffic_c1(mock):
    """C1: GOAWAY NO_ERROR {"reason":"Shutdown"} mid-traffic; the in-flight stream below the last-stream-id
    is still answered, the stream that triggered it is above it and unanswered, new HEADERS are ignored
    while the socket stays open closeAfterMs, then the server closes (FIN)."""
    first, inflight, trigger, late = tok(), tok(), tok(), tok()
    rules = add_faults(mock, [
        {"match": {"token": inflight}, "action": {"type": "delay", "ms": 400}},
        {"match": {"token": trigger}, "action": {"type": "goaway", "reason": "Shutdown", "closeAfterMs": 800}},
    ])
    client = connect(mock)
    client.raw_after_goaway = True  # hyper-h2 drops frames after a GOAWAY; read them raw
    try:
        assert push_h2(client, first).status == 200  # stream 1
        t0 = time.monotonic()
        sid_inflight = client.start_request(apns_headers(inflight), BODY)  # 3
        sid_trigger = client.start_request(apns_headers(trigger), BODY)  # 5
        client.pump(lambda: client.goaway is not None, timeout=3)
        goaway = goaway_frames(client)[0]
        last, code, debug = parse_goaway(goaway)
        assert (code, debug) == (NO_ERROR, SHUTDOWN), (code, debug)
        sid_late = client.send_raw_request(apns_headers(late), BODY)  # 7, after the GOAWAY
        assert not client.wait_closed(0.8 - (time.monotonic() - goaway.at) - 0.1), (
            f"closed {client.closed_at - goaway.at:.3f}s after the GOAWAY; closeAfterMs 800")
        assert client.wait_closed(3), "still open 3.8s after the GOAWAY"
        assert client.close_kind == "eof", (client.close_kind, client.close_error)
        open_for = client.closed_at - goaway.at
        # the timer starts when the GOAWAY is queued, a little before the client reads it
        assert 0.8 - 0.05 <= open_for < 0.8 + 1.5, f"closed {open_for:.3f}s after the GOAWAY"

        answered = client.responses[sid_inflight]
        assert answered.status == 200 and answered.done, answered
        assert stream_frames(client, sid_inflight)[0].at > goaway.at, "the in-flight stream was answered before the GOAWAY"
        assert stream_frames(client, sid_inflight)[0].at - t0 >= 0.4 - SLACK
        assert stream_frames(client, sid_late) == [], "HEADERS after the GOAWAY were answered"
        assert stream_frames(client, sid_trigger) == [], "the triggering stream got frames"
        # highest stream processed: the in-flight 3; the unanswered trigger (5) must be above it
        assert last == sid_inflight, (
            f"GOAWAY last-stream-id {last}; streams: answered 1, in flight {sid_inflight}, "
            f"unanswered trigger {sid_trigger}")
    finally:
        client.close()
    assert_fault(record_of(mock, inflight), rules[0]["id"], "delay")
    record = record_of(mock, trigger)
    assert record["status"] is None, record
    assert_fault(record, rules[1]["id"], "goaway")
    assert mock.deliveries(token=late)["deliveries"] == [], "a stream sent after the GOAWAY was processed"


def test_goaway_keep_open_ignores_new_streams(mock):
    token, late = tok(), tok()
    rule = add_fault(mock, {"match": {"token": token}, "action": {"type": "goaway", "reason": "Shutdown", "keepOpen": True}})
    client = connect(mock)
    client.raw_after_goaway = True
    try:
        assert push_h2(client, tok()).status == 200
        sid = client.start_request(apns_headers(token), BODY)
        client.pump(lambda: client.goaway is not None, timeout=3)
        last, code, debug = parse_goaway(goaway_frames(client)[0])
        assert (code, debug) == (NO_ERROR, SHUTDOWN)
        sid_late = client.send_raw_request(apns_headers(late), BODY)
        assert not client.wait_closed(1.2), f"closed ({client.close_kind}) although keepOpen"
        assert stream_frames(client, sid) == [] and stream_frames(client, sid_late) == []
        assert len(goaway_frames(client)) == 1
        assert mock.get_json("/v1/connections")["connections"][0]["state"] == "goneAway"
    finally:
        client.close()
    assert_fault(record_of(mock, token), rule, "goaway")
    assert mock.deliveries(token=late)["deliveries"] == []


def test_goaway_after_response(mock):
    token = tok()
    rule = add_fault(mock, {"match": {"token": token},
                            "action": {"type": "goaway", "reason": "Shutdown", "when": "after-response"}})
    client = connect(mock)
    client.raw_after_goaway = True
    try:
        sid = client.start_request(apns_headers(token), BODY)
        assert client.wait_closed(3), "not closed after the GOAWAY"
        types = [f.type for f in client.frames if f.type in (FRAME_HEADERS, FRAME_GOAWAY)]
        assert types == [FRAME_HEADERS, FRAME_GOAWAY], types
        assert client.responses[sid].status == 200
        assert parse_goaway(goaway_frames(client)[0]) == (sid, NO_ERROR, SHUTDOWN)
        assert client.close_kind == "eof"
    finally:
        client.close()
    record = record_of(mock, token)
    assert record["status"] == 200
    assert_fault(record, rule, "goaway")


def test_a_drain_reason_longer_than_one_goaway_frame_is_refused(mock):
    """As a goaway's: a drain whose GOAWAY could not be sent is refused where it is given (rule,
    command, bulk command), never recorded as sent."""
    too_long = "x" * 16_364  # {"reason":"..."} is then 16,377 bytes, one over a frame's 16,376
    resp = mock.control("POST", "/v1/faults", {"action": {"type": "drain", "reason": too_long}})
    assert resp.status == 400 and resp.json["error"].startswith("action.reason: the GOAWAY debug data"), resp.body
    client = connect(mock)
    try:
        assert push_h2(client, tok()).status == 200
        cid = connection_entry(mock, client)["id"]
        for path in (f"/v1/connections/{cid}/drain", "/v1/connections/drain"):
            resp = mock.control("POST", path, {"reason": too_long})
            assert resp.status == 400 and resp.json["error"].startswith("reason: the GOAWAY debug data"), resp.body
        assert client.goaway is None and not client.closed
    finally:
        client.close()
    assert mock.get_json("/v1/faults")["faults"] == []
    assert mock.get_json("/v1/events?kind=goaway")["events"] == []


def test_drain_action_answers_the_streams_in_flight_then_closes(mock):
    """A `drain` rule (issue 13): GOAWAY NO_ERROR Shutdown with the triggering stream as the
    last-stream-id, that push and a held one answered, FIN right after the last answer; one goaway
    and one close event with the rule as origin, once per connection."""
    held, trigger = tok(), tok()
    add_fault(mock, {"match": {"token": held}, "action": {"type": "delay", "ms": 600}})
    rule = add_fault(mock, {"match": {"token": trigger}, "action": {"type": "drain", "maxMs": 3000}})
    client = connect(mock)
    client.raw_after_goaway = True
    try:
        sid_held = client.start_request(apns_headers(held), BODY)
        client.pump(lambda: connection_entry(mock, client)["openStreams"] == 1, timeout=2)
        started = time.monotonic()
        sid = client.start_request(apns_headers(trigger), BODY)
        client.pump(lambda: client.goaway is not None and client.responses[sid].done, timeout=2)
        assert parse_goaway(goaway_frames(client)[0]) == (sid, NO_ERROR, SHUTDOWN)
        assert client.responses[sid].status == 200
        assert not client.closed, "closed before the held stream was answered"
        assert client.wait_closed(3)
        closed_at = time.monotonic() - started
        assert client.responses[sid_held].status == 200
        assert client.close_kind == "eof"
        assert closed_at < 1.5, closed_at  # at the last answer, not at the cap
        assert len(goaway_frames(client)) == 1
    finally:
        client.close()
    record = record_of(mock, trigger)
    assert record["status"] == 200
    assert_fault(record, rule, "drain")
    assert record_of(mock, held)["status"] == 200
    events = [e for e in mock.get_json("/v1/events")["events"] if e["origin"] == "fault"]
    assert [(e["kind"], e["ruleId"], e["action"]) for e in events] == [
        ("goaway", rule, "drain"), ("close", rule, "drain")], events
    assert events[0]["details"]["closeAfterMs"] == 3000, events[0]


def test_goaway_bad_certificate_environment_c2(mock):
    """C2: GOAWAY(last-stream-id 0, NO_ERROR, BadCertificateEnvironment), a second bare GOAWAY, then close."""
    token = tok()
    rule = add_fault(mock, {"match": {"token": token}, "action": {
        "type": "goaway", "lastStreamId": 0, "reason": "BadCertificateEnvironment", "secondBareGoaway": True}})
    client = connect(mock)
    client.raw_after_goaway = True
    try:
        sid = client.start_request(apns_headers(token), BODY)
        assert client.wait_closed(3)
        assert [parse_goaway(f) for f in goaway_frames(client)] == [
            (0, NO_ERROR, b'{"reason":"BadCertificateEnvironment"}'), (0, NO_ERROR, b"")]
        assert stream_frames(client, sid) == []
    finally:
        client.close()
    assert_fault(record_of(mock, token), rule, "goaway")


@pytest.mark.parametrize(
    "kind, when, close_kind",
    [("close", "before-response", "eof"), ("close", "after-response", "eof"),
     ("reset", "before-response", "reset"), ("reset", "after-response", "reset")],
    ids=["close-FIN-before", "close-FIN-after", "reset-RST-before-C3", "reset-RST-after"],
)
def test_connection_close_and_reset(mock, kind, when, close_kind):
    """close: TCP FIN; reset: TCP RST (C3: after the request's HEADERS and DATA, before any response)."""
    token = tok()
    rule = add_fault(mock, {"match": {"token": token}, "action": {"type": kind, "when": when}})
    client = connect(mock)
    try:
        assert push_h2(client, tok()).status == 200
        sid = client.start_request(apns_headers(token), BODY)
        assert client.wait_closed(3), "the connection stayed open"
        assert client.close_kind == close_kind, (client.close_kind, client.close_error)
        assert client.goaway is None and goaway_frames(client) == []
        frames = stream_frames(client, sid)
        if when == "before-response":
            assert frames == [], frames
        else:
            assert [f.type for f in frames] == [FRAME_HEADERS] and client.responses[sid].status == 200, frames
            assert frames[0].at <= client.closed_at
    finally:
        client.close()
    record = record_of(mock, token)
    assert record["status"] == (None if when == "before-response" else 200), record
    assert_fault(record, rule, kind)


def test_settings_lowers_max_concurrent_streams_c5(mock):
    """C5-like: new SETTINGS MAX_CONCURRENT_STREAMS=1; streams the sender opened before it saw the
    new limit get RST_STREAM REFUSED_STREAM, and the connection lives on.

    (A sender that opens streams over a limit it has already acknowledged gets nghttp2's
    connection error, GOAWAY PROTOCOL_ERROR: see README, Fault injection.)"""
    trigger, slow = tok(), tok()
    rules = add_faults(mock, [
        {"match": {"token": trigger}, "action": {"type": "settings", "maxConcurrentStreams": 1}},
        {"match": {"tokenPrefix": slow[:16]}, "action": {"type": "delay", "ms": 400}},
    ])
    client = connect(mock)
    try:
        assert push_h2(client, tok()).status == 200  # the connection is up and SETTINGS exchanged
        # the trigger and three more streams in one burst, before the new limit can be seen
        client.enter_raw_mode()
        first = client.send_raw_request(apns_headers(trigger), BODY)
        sids = [client.send_raw_request(apns_headers(slow[:16] + tok()[16:]), BODY) for _ in range(3)]
        try:
            client.pump(lambda: all(client.responses[s].done for s in [first] + sids), timeout=3)
        except (ConnectionError, TimeoutError):
            pass
        seen = [(s, [(f.type, f.payload) for f in stream_frames(client, s)]) for s in sids]
        goaways = [parse_goaway(f) for f in goaway_frames(client)]
        assert goaways == [] and not client.closed, (
            f"the server sent GOAWAY {goaways} and the connection ended ({client.close_kind}); stream frames: {seen}")
        assert client.responses[first].status == 200
        settings = [f for f in client.frames if f.type == FRAME_SETTINGS and not f.flags & FLAG_ACK]
        assert (SETTINGS_MAX_CONCURRENT_STREAMS, 1) in parse_settings(settings[-1].payload), settings
        refused = [s for s in sids if client.responses[s].reset == REFUSED_STREAM]
        assert len(refused) >= 2, seen
        for s in refused:
            assert [f.type for f in stream_frames(client, s)] == [FRAME_RST_STREAM], seen
        for s in set(sids) - set(refused):
            assert client.responses[s].status == 200, seen
        assert connection_entry(mock, client)["maxConcurrentStreams"] == 1
    finally:
        client.close()
    assert_fault(record_of(mock, trigger), rules[0]["id"], "settings")


@pytest.mark.parametrize("status, reason", [(500, "InternalServerError"), (503, "ServiceUnavailable")])
def test_sick_connection_c7(mock, status, reason):
    """C7: every stream of the sick connection gets the error; a second connection succeeds."""
    trigger = tok()
    rule = add_fault(mock, {"match": {"token": trigger},
                            "action": {"type": "sickConnection", "status": status, "reason": reason}})
    sick, healthy = connect(mock), connect(mock)
    later = [tok() for _ in range(3)]
    try:
        assert push_h2(sick, tok()).status == 200  # healthy until the trigger
        assert_error_answer(sick, push_h2(sick, trigger), status, reason)
        for token in later:
            assert_error_answer(sick, push_h2(sick, token), status, reason)
        assert statuses(healthy, [tok(), tok(), trigger]) == [200, 200, status]  # the trigger makes it sick too
        assert push_h2(healthy, tok()).status == status
        fresh = connect(mock)
        try:
            assert push_h2(fresh, later[0]).status == 200
        finally:
            fresh.close()
        assert fault_status(mock, rule)["sickConnections"] == sorted(
            [connection_entry(mock, sick)["id"], connection_entry(mock, healthy)["id"]])
        # removing the rule heals the connection
        assert mock.delete(f"/v1/faults/{rule}").status == 200
        assert push_h2(sick, tok()).status == 200
    finally:
        sick.close()
        healthy.close()
    for token in [trigger, *later]:
        for record in records(mock, token):
            if record["status"] == status:
                assert_fault(record, rule, "sickConnection")


def test_sequence_503_twice_then_success(mock):
    """The README worked example "503 twice, then success", rule as the README writes it."""
    token = tok()
    rule = add_fault(mock, {"match": {"token": token}, "action": {"type": "sequence", "steps": [
        {"type": "respond", "reason": "ServiceUnavailable"},
        {"type": "respond", "reason": "ServiceUnavailable"},
        "pass"]}})
    client = connect(mock)
    try:
        first, second, third = (push_h2(client, token) for _ in range(3))  # a sender retrying twice
        assert_error_answer(client, first, 503, "ServiceUnavailable")
        assert_error_answer(client, second, 503, "ServiceUnavailable")
        assert third.status == 200 and third.headers_end_stream
    finally:
        client.close()
    waited = mock.get_json(f"/v1/deliveries/wait?count=3&timeoutMs=5000&token={token}")
    assert waited["complete"] is True, waited
    found = waited["deliveries"]
    assert [r["status"] for r in found] == [503, 503, 200], found
    for r in found[:2]:
        assert r["reason"] == "ServiceUnavailable"
        assert_fault(r, rule, "respond")
    assert found[2]["fault"] is None and found[2]["reason"] is None  # the last one accepted
    status = fault_status(mock, rule)
    assert (status["matched"], status["fired"], status["spent"]) == (3, 2, True), status
    assert mock.push(token).status == 200  # spent: later pushes are answered normally


def test_rate_limit_per_token(mock):
    limited, other = tok(), tok()
    rule = add_fault(mock, {"action": {"type": "rateLimit", "perSecond": 4, "burst": 2}})
    client = connect(mock)
    try:
        answers = [push_h2(client, limited) for _ in range(4)]
        assert [r.status for r in answers] == [200, 200, 429, 429]
        assert_error_answer(client, answers[2], 429, "TooManyRequests")
        assert statuses(client, [other, other]) == [200, 200]  # its own bucket
        time.sleep(0.3)  # 4/s: one request's worth refilled
        assert push_h2(client, limited).status == 200
    finally:
        client.close()
    found = records(mock, limited, 5)
    for r in found[2:4]:
        assert r["reason"] == "TooManyRequests"
        assert r["fault"] is not None and r["fault"]["ruleId"] == rule, r
        assert r["fault"]["action"] in ("rateLimit", "respond"), r["fault"]
    assert all(r["fault"] is None for r in found[:2] + found[4:])


# --------------------------------------------------------------------------------------------
# match conditions
# --------------------------------------------------------------------------------------------

RESPOND_503 = {"type": "respond", "status": 503, "reason": "ServiceUnavailable"}


def test_match_token_prefix(mock):
    rule = add_fault(mock, {"match": {"tokenPrefix": "DEAD"}, "action": RESPOND_503})
    hit, hit_upper, miss = tok("dead"), tok("dead").upper(), tok("beef")
    client = connect(mock)
    try:
        assert statuses(client, [hit, hit_upper, miss]) == [503, 503, 200]
    finally:
        client.close()
    assert_fault(record_of(mock, hit), rule, "respond")
    assert_fault(record_of(mock, hit_upper), rule, "respond")
    assert record_of(mock, miss)["fault"] is None


def test_match_topic(mock):
    rule = add_fault(mock, {"match": {"topic": "com.example.other"}, "action": RESPOND_503})
    hit, miss = tok(), tok()
    client = connect(mock)
    try:
        assert push_h2(client, hit, topic="com.example.other").status == 503
        assert push_h2(client, miss, topic=TOPIC).status == 200
    finally:
        client.close()
    assert_fault(record_of(mock, hit), rule, "respond")
    assert record_of(mock, miss)["fault"] is None


def test_match_header_equals(mock):
    rule = add_fault(mock, {"match": {"headers": {"apns-collapse-id": {"equals": "boom"}}}, "action": RESPOND_503})
    hit, other_value, absent = tok(), tok(), tok()
    client = connect(mock)
    try:
        assert push_h2(client, hit, extra=[("apns-collapse-id", "boom")]).status == 503
        assert push_h2(client, other_value, extra=[("apns-collapse-id", "Boom")]).status == 200  # exact
        assert push_h2(client, absent).status == 200
    finally:
        client.close()
    assert_fault(record_of(mock, hit), rule, "respond")
    assert record_of(mock, other_value)["fault"] is None


def test_match_payload_path_equals(mock):
    rule = add_fault(mock, {"match": {"payload": [{"path": "aps.alert.title", "equals": "fail me"}]}, "action": RESPOND_503})
    hit, miss, no_title = tok(), tok(), tok()
    client = connect(mock)
    try:
        assert push_h2(client, hit, body=b'{"aps":{"alert":{"title":"fail me","body":"x"}}}').status == 503
        assert push_h2(client, miss, body=b'{"aps":{"alert":{"title":"pass me"}}}').status == 200
        assert push_h2(client, no_title, body=b'{"aps":{"alert":"fail me"}}').status == 200
    finally:
        client.close()
    assert_fault(record_of(mock, hit), rule, "respond")
    assert record_of(mock, miss)["fault"] is None


def test_match_nth(mock):
    rule = add_fault(mock, {"match": {"nth": 3}, "action": RESPOND_503})
    tokens = [tok() for _ in range(5)]
    client = connect(mock)
    try:
        assert statuses(client, tokens) == [200, 200, 503, 200, 200]
    finally:
        client.close()
    assert_fault(record_of(mock, tokens[2]), rule, "respond")
    assert fault_status(mock, rule)["spent"] is True


def test_match_every_kth(mock):
    rule = add_fault(mock, {"match": {"everyKth": 2}, "action": RESPOND_503})
    tokens = [tok() for _ in range(6)]
    client = connect(mock)
    try:
        assert statuses(client, tokens) == [200, 503, 200, 503, 200, 503]
    finally:
        client.close()
    for token in tokens[1::2]:
        assert_fault(record_of(mock, token), rule, "respond")
    status = fault_status(mock, rule)
    assert (status["matched"], status["fired"], status["spent"]) == (3, 3, False), status


def test_match_nth_connection(mock):
    rule = add_fault(mock, {"match": {"nthConnection": 2}, "action": RESPOND_503})
    clients = []
    try:
        results = []
        for _ in range(3):
            clients.append(connect(mock))
            results.append(statuses(clients[-1], [tok(), tok()]))
        assert results == [[200, 200], [503, 503], [200, 200]]
        second = connection_entry(mock, clients[1])["id"]
    finally:
        for client in clients:
            client.close()
    faulted = mock.deliveries(status=503)["deliveries"]
    assert len(faulted) == 2 and {r["connectionId"] for r in faulted} == {second}
    for r in faulted:
        assert_fault(r, rule, "respond")


def _probability_outcomes(server, seed, n=24):
    rule = add_fault(server, {"match": {"probability": 0.5, "seed": seed}, "action": RESPOND_503})
    client = connect(server)
    try:
        outcomes = statuses(client, [tok() for _ in range(n)])
    finally:
        client.close()
    assert server.delete(f"/v1/faults/{rule}").status == 200
    return outcomes


def test_match_probability_seeded(server_factory):
    first = server_factory("--drain-timeout", "1")
    run1 = _probability_outcomes(first, 42)
    assert set(run1) == {200, 503}, run1
    assert _probability_outcomes(first, 42) == run1  # rule removed and added again
    second = server_factory("--drain-timeout", "1")
    assert _probability_outcomes(second, 42) == run1  # a fresh server
    assert _probability_outcomes(second, 4242) != run1  # another seed, another sequence


# --------------------------------------------------------------------------------------------
# lifetime
# --------------------------------------------------------------------------------------------


def test_lifetime_times(mock):
    rule = add_fault(mock, {"lifetime": {"times": 2}, "action": RESPOND_503})
    tokens = [tok() for _ in range(4)]
    client = connect(mock)
    try:
        assert statuses(client, tokens) == [503, 503, 200, 200]
    finally:
        client.close()
    status = fault_status(mock, rule)
    assert (status["fired"], status["spent"]) == (2, True), status
    assert [record_of(mock, t)["fault"] is None for t in tokens] == [False, False, True, True]


def test_lifetime_until(mock):
    end = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(milliseconds=700)
    iso = end.strftime("%Y-%m-%dT%H:%M:%S.") + f"{end.microsecond // 1000:03d}Z"
    rule = add_fault(mock, {"lifetime": {"until": iso}, "action": RESPOND_503})
    client = connect(mock)
    try:
        before = tok()
        assert push_h2(client, before).status == 503
        time.sleep(max(0.0, end.timestamp() - time.time()) + 0.1)
        assert statuses(client, [tok(), tok()]) == [200, 200]
    finally:
        client.close()
    assert_fault(record_of(mock, before), rule, "respond")
    assert fault_status(mock, rule)["spent"] is True


# --------------------------------------------------------------------------------------------
# control API, scenarios, configuration
# --------------------------------------------------------------------------------------------


def test_fault_counters(mock):
    hit, miss = tok(), tok()
    rules = add_faults(mock, [
        {"id": "outage-x", "match": {"token": hit}, "action": RESPOND_503},
        {"match": {"token": miss}, "action": {"type": "sequence", "steps": [RESPOND_503, "pass"]}},
    ])
    assert [r["id"] for r in rules] == ["outage-x", "f1"], rules
    client = connect(mock)
    try:
        assert statuses(client, [hit, hit, hit, miss, miss, tok()]) == [503, 503, 503, 503, 200, 200]
    finally:
        client.close()
    listed = {r["id"]: r for r in mock.get_json("/v1/faults")["faults"]}
    assert list(listed) == ["outage-x", "f1"]
    assert (listed["outage-x"]["matched"], listed["outage-x"]["fired"], listed["outage-x"]["spent"]) == (3, 3, False)
    assert (listed["f1"]["matched"], listed["f1"]["fired"], listed["f1"]["spent"]) == (2, 1, True)
    assert fault_status(mock, "outage-x") == listed["outage-x"]


def test_delete_removes_rules(mock):
    token = tok()
    rules = add_faults(mock, [{"match": {"token": token}, "action": RESPOND_503}, {"match": {"topic": "x.y"}, "action": RESPOND_503}])
    first = rules[0]["id"]
    assert mock.push(token).status == 503
    resp = mock.delete(f"/v1/faults/{first}")
    assert (resp.status, resp.json) == (200, {"deleted": first})
    assert mock.get(f"/v1/faults/{first}").status == 404
    assert mock.delete(f"/v1/faults/{first}").status == 404
    assert mock.push(token).status == 200
    assert [r["id"] for r in mock.get_json("/v1/faults")["faults"]] == [rules[1]["id"]]
    resp = mock.delete("/v1/faults")
    assert (resp.status, resp.json) == (200, {"removed": 1, "rollingRestartCancelled": False})
    assert mock.get_json("/v1/faults")["faults"] == []


@pytest.mark.parametrize(
    "body, field",
    [
        ({"action": {"type": "respond", "status": 200, "reason": "BadTopic"}}, "action.status"),
        ([{"action": {"type": "noResponse"}}, {"action": {"type": "delay", "ms": -1}}], "[1].action.ms"),
        ({"match": {"tokn": "ab"}, "action": {"type": "noResponse"}}, "match.tokn"),
        ({"match": {"probability": 1.5}, "action": {"type": "noResponse"}}, "match.probability"),
        ({"action": {"type": "explode"}}, "action.type"),
        ({"action": {"type": "resetStream", "errorCode": "NOPE"}}, "action.errorCode"),
        ({"lifetime": {"times": 0}, "action": {"type": "noResponse"}}, "lifetime.times"),
        ({"action": {"type": "goaway", "keepOpen": True, "closeAfterMs": 5}}, "action.keepOpen"),
        ({"scenario": "apns-outtage"}, "scenario"),
        ({"scenario": "throttled"}, "parameters.perSecond"),
    ],
    ids=["status-200", "array-all-or-none", "unknown-key", "probability", "action-type", "error-code",
         "times-0", "keepOpen-closeAfter", "unknown-scenario", "scenario-parameter"],
)
def test_invalid_rule_is_400_naming_the_field(mock, body, field):
    resp = mock.control("POST", "/v1/faults", body)
    assert resp.status == 400, (resp.status, resp.body)
    error = resp.json["error"]
    assert error.startswith(field + ":"), error
    assert mock.get_json("/v1/faults")["faults"] == []  # nothing added


def test_scenario_apns_outage_with_duration(mock):
    posted = time.monotonic()
    rules = add_faults(mock, {"scenario": "apns-outage", "parameters": {"durationMs": 700}})
    assert len(rules) == 1
    client = connect(mock)
    try:
        for kw in ({}, {"topic": "com.example.other"}, {"push_type": "background"}):
            token = tok()
            resp = client.request(apns_headers(token, **kw), b'{"aps":{"content-available":1}}')
            assert_error_answer(client, resp, 503, "ServiceUnavailable")
            assert_fault(record_of(mock, token), rules[0]["id"], "respond")
        time.sleep(max(0.0, 0.8 - (time.monotonic() - posted)))
        assert statuses(client, [tok(), tok()]) == [200, 200]
    finally:
        client.close()


def test_scenario_flaky_is_seeded(mock):
    def run():
        rules = add_faults(mock, {"scenario": "flaky", "parameters": {"percent": 50, "seed": 7}})
        assert rules[0]["match"]["probability"] == 0.5 and rules[0]["match"]["seed"] == 7, rules
        client = connect(mock)
        try:
            tokens = [tok() for _ in range(24)]
            outcomes = statuses(client, tokens)
        finally:
            client.close()
        for token, status in zip(tokens, outcomes):
            if status == 500:
                record = record_of(mock, token)
                assert record["reason"] == "InternalServerError"
                assert_fault(record, rules[0]["id"], "respond")
        assert mock.delete("/v1/faults").status == 200
        return outcomes

    first = run()
    assert set(first) == {200, 500}, first
    assert run() == first


def test_scenario_graceful_restart(mock):
    rules = add_faults(mock, {"scenario": "graceful-restart", "parameters": {"windowMs": 700}})
    posted = time.monotonic()
    for _ in range(2):  # once per connection: every connection opened in the window
        client = connect(mock)
        client.raw_after_goaway = True
        try:
            token = tok()
            sid = client.start_request(apns_headers(token), BODY)
            assert client.wait_closed(3), "no close after the GOAWAY"
            assert [parse_goaway(f)[1:] for f in goaway_frames(client)] == [(NO_ERROR, SHUTDOWN)]
            last = parse_goaway(goaway_frames(client)[0])[0]
            assert last < sid, (
                f"GOAWAY last-stream-id {last} covers the stream {sid} it left unanswered (before-response)")
            assert stream_frames(client, sid) == []
        finally:
            client.close()
        assert_fault(record_of(mock, token), rules[0]["id"], "goaway")
    time.sleep(max(0.0, 0.8 - (time.monotonic() - posted)))
    client = connect(mock)
    try:
        assert statuses(client, [tok(), tok()]) == [200, 200]
    finally:
        client.close()


def test_scenario_throttled(mock):
    rules = add_faults(mock, {"scenario": "throttled", "parameters": {"perSecond": 1, "burst": 1}})
    a, b = tok(), tok()
    client = connect(mock)
    try:
        assert statuses(client, [a, a, b]) == [200, 429, 200]
    finally:
        client.close()
    throttled = records(mock, a, 2)[1]
    assert throttled["reason"] == "TooManyRequests" and throttled["fault"]["ruleId"] == rules[0]["id"]


def test_fault_scenario_flag_at_start(server_factory):
    server = server_factory("--drain-timeout", "1", "--fault-scenario", "apns-outage")
    faults = server.get_json("/v1/faults")["faults"]
    assert len(faults) == 1 and faults[0]["action"]["reason"] == "ServiceUnavailable", faults
    client = connect(server)
    try:
        token = tok()
        assert_error_answer(client, push_h2(client, token), 503, "ServiceUnavailable")
    finally:
        client.close()
    assert_fault(record_of(server, token), faults[0]["id"], "respond")


def test_faults_from_configuration_file(server_factory):
    token = tok()
    server = server_factory("--drain-timeout", "1", config={
        "faults": [{"id": "cfg-reset", "match": {"token": token}, "action": {"type": "resetStream", "errorCode": "REFUSED_STREAM"}}],
        "scenarios": [{"name": "throttled", "parameters": {"perSecond": 1, "burst": 1}}],
    })
    assert [r["id"] for r in server.get_json("/v1/faults")["faults"]][0] == "cfg-reset"
    client = connect(server)
    try:
        assert push_h2(client, token).reset == REFUSED_STREAM
        other = tok()
        assert statuses(client, [other, other]) == [200, 429]  # the scenario's rule, after the faults
    finally:
        client.close()
    assert_fault(record_of(server, token), "cfg-reset", "resetStream")


# --------------------------------------------------------------------------------------------
# connections
# --------------------------------------------------------------------------------------------


def test_connections_list_live_connection(mock):
    client = connect(mock)
    try:
        assert statuses(client, [tok(), tok()]) == [200, 200]
        entry = connection_entry(mock, client)
        assert entry["listener"] == mock.listener.name and entry["environment"] == "sandbox"
        assert entry["openStreams"] == 0 and entry["maxConcurrentStreams"] == 1000
        assert entry["requests"] == 2 and entry["tls"] is True and entry["alpn"] == "h2"
        assert entry["id"] == mock.deliveries()["deliveries"][-1]["connectionId"]
    finally:
        client.close()
    wait_for(lambda: mock.get_json("/v1/connections")["connections"] == [], 3, "closed connection still listed")


def test_connection_goaway_endpoint(mock):
    client = connect(mock)
    try:
        assert statuses(client, [tok(), tok()]) == [200, 200]
        cid = connection_entry(mock, client)["id"]
        resp = mock.control("POST", f"/v1/connections/{cid}/goaway")
        assert (resp.status, resp.json) == (200, {"id": cid, "action": "goaway"})
        assert client.wait_closed(3)
        assert [parse_goaway(f) for f in goaway_frames(client)] == [(3, NO_ERROR, SHUTDOWN)]
        assert client.close_kind == "eof"
    finally:
        client.close()


@pytest.mark.parametrize("verb, close_kind", [("close", "eof"), ("reset", "reset")])
def test_connection_close_and_reset_endpoints(mock, verb, close_kind):
    client = connect(mock)
    try:
        assert push_h2(client, tok()).status == 200
        cid = connection_entry(mock, client)["id"]
        resp = mock.control("POST", f"/v1/connections/{cid}/{verb}")
        assert (resp.status, resp.json) == (200, {"id": cid, "action": verb})
        assert client.wait_closed(3)
        assert client.close_kind == close_kind, (client.close_kind, client.close_error)
        assert goaway_frames(client) == []
    finally:
        client.close()


@pytest.mark.parametrize("verb", ["goaway", "close", "reset"])
def test_connection_endpoints_unknown_id(mock, verb):
    resp = mock.control("POST", f"/v1/connections/987654/{verb}")
    assert resp.status == 404 and "987654" in resp.json["error"], resp.body


def test_withhold_window_update_stalls_a_sender(mock):
    """A flow-control stall: after the trigger, no WINDOW_UPDATE for 1 s, so a sender with more
    than a window's worth of bodies (64 KB) waits; then the window opens and everything lands."""
    trigger = tok()
    rule = add_fault(mock, {"match": {"token": trigger}, "action": {"type": "withholdWindowUpdate", "ms": 1000}})
    client = connect(mock)
    try:
        assert push_h2(client, trigger).status == 200  # the trigger itself is answered
        stalled_at = time.monotonic()
        big = b'{"aps":{"alert":"' + b"x" * 3900 + b'"}}'
        frames_before = len(client.frames)
        responses = client.run_many([(apns_headers(tok()), big) for _ in range(24)], concurrency=24, timeout=10)
        took = time.monotonic() - stalled_at
        assert [r.status for r in responses] == [200] * 24
        assert took >= 0.9, f"~94 KB of bodies went through in {took:.3f}s despite the stall"
        updates = [f for f in client.frames[frames_before:] if f.type == FRAME_WINDOW_UPDATE]
        assert updates, "WINDOW_UPDATE resumed after the stall"
        assert min(f.at for f in updates) - stalled_at >= 0.9, "a WINDOW_UPDATE came during the stall"
    finally:
        client.close()
    assert_fault(record_of(mock, trigger), rule, "withholdWindowUpdate")
